"""A torn file in numba's cache (`carcassonne_env.compiler.numba_cache`): the function is
compiled again and its file rewritten, with one line on stderr, instead of every later
run failing with an UnpicklingError. Subprocesses with a private NUMBA_CACHE_DIR and a
small module compiled with the package's own options (`compiler.jit`), not the whole core.

Internals: the guard replaces numba's private cache-file readers (`_load_index`,
`_load_data`); a test checks that they are installed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.paths import ROOT

MODULE = textwrap.dedent("""
    from carcassonne_env.compiler.jit import hot_entry


    @hot_entry
    def whole_index(a, b):
        return a * 10 + b


    @hot_entry
    def whole_data(a, b):
        return a * 100 + b
""")

# Prints both results and how each call was served: "hit" from the cache, else "miss".
RUN = (
    "import tornmod as m; "
    "print(m.whole_index(4, 2), m.whole_data(4, 2), "
    "*('hit' if sum(f.stats.cache_hits.values()) else 'miss' "
    "for f in (m.whole_index, m.whole_data)))"
)


def _run(tmp_path: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "CARCASSONNE_NO_COMPILE_NOTICE": "1",
    }
    return subprocess.run(
        [sys.executable, "-c", RUN],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


def _cache_file(tmp_path: Path, function: str, suffix: str) -> Path:
    (found,) = (tmp_path / "cache").rglob(f"tornmod.{function}-*{suffix}")
    return found


def test_a_torn_cache_file_is_compiled_again_and_rewritten(tmp_path):
    """One function's index cut in half, the other's data file emptied (as a killed copy
    leaves them). Three interpreters in turn (about 1 s of CPU each): the cache must
    outlive its process."""
    (tmp_path / "tornmod.py").write_text(MODULE)
    first = _run(tmp_path)
    assert (first.returncode, first.stdout.split(), first.stderr) == (
        0,
        ["42", "402", "miss", "miss"],
        "",
    )
    index = _cache_file(tmp_path, "whole_index", ".nbi")
    data = _cache_file(tmp_path, "whole_data", ".nbc")
    index.write_bytes(index.read_bytes()[: index.stat().st_size // 2])
    data.write_bytes(b"")

    torn = _run(tmp_path)
    assert torn.returncode == 0, torn.stderr
    assert torn.stdout.split() == ["42", "402", "miss", "miss"]
    lines = torn.stderr.splitlines()
    assert len(lines) == 2, torn.stderr
    for line, path in zip(sorted(lines), sorted([data, index]), strict=True):
        assert line.startswith(f"carcassonne-env: numba's cache file {path} could not be read (")
        assert line.endswith(
            "); deleted it, compiling again (if this repeats, run `carcassonne clear-cache`)"
        )

    again = _run(tmp_path)  # both files whole again: loaded, not compiled
    assert (again.returncode, again.stdout.split(), again.stderr) == (
        0,
        ["42", "402", "hit", "hit"],
        "",
    )


def test_the_package_reads_numbas_cache_through_the_guard():
    """Importing the package installs the guard (what the subprocesses above rely on)."""
    from numba.core.caching import IndexDataCacheFile

    import carcassonne_env  # noqa: F401
    from carcassonne_env.compiler import numba_cache

    assert IndexDataCacheFile._load_index is numba_cache.load_index
    assert IndexDataCacheFile._load_data is numba_cache.load_data
