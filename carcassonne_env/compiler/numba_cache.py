"""numba's cache files read without trusting them to be whole.

numba keeps each cached function in an index file (.nbi) and data files (.nbc), both
pickles, and unpickles them without a guard: one torn file (a process killed while
copying a cache, a full disk, a bad sync) made every later run that loaded the function
fail with an `UnpicklingError` or `EOFError`, until the file was deleted by hand.

`install()` (run at import, by `compiler.jit`) makes a file that cannot be read count as
absent: it is deleted, one line on stderr names it, and numba compiles the function
again and writes a whole file in its place (numba writes through a temporary file and
an atomic rename, so a file it wrote itself is never torn). Any function numba caches
in this process is covered, this package's and others'. A file that cannot be opened
(permissions) still raises numba's own error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from numba.core.caching import IndexDataCacheFile

# numba's own methods (`numba_original`: the module imported again finds them replaced)
NUMBA_LOAD_INDEX = getattr(
    IndexDataCacheFile._load_index, "numba_original", IndexDataCacheFile._load_index
)
NUMBA_LOAD_DATA = getattr(
    IndexDataCacheFile._load_data, "numba_original", IndexDataCacheFile._load_data
)


def _discard(path: str, err: Exception) -> None:
    """Delete the unreadable cache file `path` and say so in one line."""
    try:
        Path(path).unlink(missing_ok=True)
    except OSError:  # (the rewrite after the compile replaces it anyway)
        pass
    print(
        f"carcassonne-env: numba's cache file {path} could not be read "
        f"({type(err).__name__}: {err}); deleted it, compiling again (if this repeats, "
        "run `carcassonne clear-cache`)",
        file=sys.stderr,
        flush=True,
    )


def load_index(self: Any) -> dict:
    """numba's `_load_index`; an unreadable index is deleted and read as empty."""
    try:
        return NUMBA_LOAD_INDEX(self)
    except OSError:
        raise
    except Exception as err:  # noqa: BLE001 (whatever a torn pickle raises)
        _discard(self._index_path, err)
        return {}


def load_data(self: Any, name: str) -> Any:
    """numba's `_load_data`; an unreadable data file is deleted and read as missing
    (None: numba compiles the function)."""
    try:
        return NUMBA_LOAD_DATA(self, name)
    except OSError:
        raise
    except Exception as err:  # noqa: BLE001 (whatever a torn pickle raises)
        _discard(self._data_path(name), err)
        return None


def install() -> None:
    """Read numba's cache files through `load_index` and `load_data`."""
    load_index.numba_original = NUMBA_LOAD_INDEX
    load_data.numba_original = NUMBA_LOAD_DATA
    IndexDataCacheFile._load_index = load_index
    IndexDataCacheFile._load_data = load_data


install()
