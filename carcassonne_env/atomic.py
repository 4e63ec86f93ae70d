"""The one way this package writes a file: whole or not at all.

A file is written under a temporary name beside its destination, flushed to disk, then
moved over the destination with `os.replace` (atomic on POSIX and Windows). A crash, a
full disk or a signal in the middle leaves the previous file (or none), never a torn one;
the temporary file is removed. While the file is written and moved, Ctrl-C and SIGTERM
are held back (in the main thread) and delivered right after, so a signal never
interrupts a save::

    from carcassonne_env.atomic import atomic_path, write_json

    write_json("run/config.json", {"seed": 1})
    with atomic_path("run/model.zip") as tmp:   # any writer that takes a path
        model.save(tmp)
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_open", "atomic_path", "held_signals", "write_bytes", "write_json", "write_text"]

_HELD = (signal.SIGINT, signal.SIGTERM)
_holding = threading.local()


@contextmanager
def held_signals() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) and SIGTERM while the block runs, then deliver the first
    one that arrived. Outside the main thread (where Python runs signal handlers) and
    inside another `held_signals` block it does nothing more."""
    if threading.current_thread() is not threading.main_thread() or getattr(
        _holding, "active", False
    ):
        yield
        return
    arrived: list[int] = []
    previous = {}
    for sig in _HELD:
        previous[sig] = signal.signal(sig, lambda signum, frame: arrived.append(signum))
    _holding.active = True
    try:
        yield
    finally:
        _holding.active = False
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if arrived:
            signal.raise_signal(arrived[0])


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside `path` (same folder, same suffix, so writers that choose
    a format by the name still do) for the block to write; on success it is flushed to
    disk and moved over `path`, on an error it is removed and `path` is untouched.
    Signals are held back meanwhile (`held_signals`). The folder must exist."""
    path = Path(path)
    with held_signals():
        fd, name = tempfile.mkstemp(
            prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}", dir=path.parent
        )
        os.close(fd)
        tmp = Path(name)
        try:
            yield tmp
            if not tmp.exists():
                raise FileNotFoundError(f"nothing was written to {path}")
            _flush(tmp)
            _keep_mode(tmp, path)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


@contextmanager
def atomic_open(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[IO]:
    """`open(path, mode)` whose file replaces `path` only once the block has finished
    (`atomic_path`). `mode` is "w" (text, UTF-8 by default) or "wb"."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a new file: mode 'w' or 'wb', not {mode!r}")
    with atomic_path(path) as tmp:
        if mode == "wb":
            with open(tmp, "wb") as f:
                yield f
        else:
            with open(tmp, "w", encoding=encoding, newline=newline) as f:
                yield f


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` whole (`atomic_path`)."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` whole (`atomic_path`)."""
    with atomic_open(path) as f:
        f.write(text)


def write_json(path: str | os.PathLike[str], data: Any, indent: int | None = 1) -> None:
    """Write `data` as JSON (UTF-8) to `path` whole (`atomic_path`)."""
    write_text(path, json.dumps(data, indent=indent))


def _flush(path: Path) -> None:
    """Push the file's bytes to the disk before it takes the destination's name: after a
    power cut the name then holds the whole new file or the old one."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _keep_mode(tmp: Path, path: Path) -> None:
    """Give the new file the old one's permissions, else the usual ones of a new file
    (mkstemp makes it private to the user)."""
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)
