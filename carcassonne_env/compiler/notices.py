"""A one-line notice on stderr when a part of the package starts compiling (the first use
after installing, or after an edit: seconds to a minute of silence otherwise), with a
ticking elapsed time on a terminal. Set ``CARCASSONNE_NO_COMPILE_NOTICE=1`` to silence
it. The warm-up that compiles everything ahead of time is `carcassonne_env.compilation`.

numba sends a "numba:compile" event only for a real compile (not for a load from the
cache), one per function, nested when a function compiles the functions it calls: only
the outermost compile announces, naming the part of its module (the last component of
the module's name; another module of this package is the core's). The observe pass and
the vector envs' kernels name the candidate-move or aggregate observation when the
version being compiled has it.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from numba import types
from numba.core import event

NOTICE_ENV = "CARCASSONNE_NO_COMPILE_NOTICE"
# Each part: what the notice names and the most CPU seconds its first compile took
# after the rules core, on the 2-core CI machine (the README's "Start-up" table;
# tests/compiler/test_compilation.py checks that they agree).
PARTS = {
    "core": ("the rules core", 13),
    "playout": ("the jitted random playouts", 5),
    "observe": ("the observation encoder", 2),
    "aggregates": ("the aggregate observation", 5),
    "candidates": ("the candidate-move observation", 37),
    "vector_kernels": ("the vector envs", 22),
    "evaluation": ("the heuristic bot", 7),
    "jitted_bots": ("the jitted bots", 14),
    "search_kernels": ("the MCTS and solo-search bots", 12),
    "puct_kernel": ("the puct bot's search", 34),
}
# Modules whose compiles are announced: this package's and those `notice_modules` adds.
_PREFIXES = ["carcassonne_env."]

_announced: set[str] = set()  # parts whose notice this process printed
_quiet = False  # inside `carcassonne warmup`, which reports its own progress


def notice(part: str) -> str:
    """The one-line notice printed before `part` (a key of `PARTS`) first compiles."""
    what, cpu_seconds = PARTS[part]
    return (
        f"carcassonne-env: compiling {what} with numba (first use only: up to about "
        f"{cpu_seconds} s of CPU time on a 2-core machine; cached on disk afterwards). "
        f"Run `carcassonne warmup` to compile everything ahead of time; set "
        f"{NOTICE_ENV}=1 to hide this notice."
    )


def notice_modules(prefix: str) -> None:
    """Announce the compiles of the modules whose names start with `prefix` too
    (packages built on this one, such as ``agents.``)."""
    if prefix not in _PREFIXES:
        _PREFIXES.append(prefix)


@contextmanager
def no_notices() -> Iterator[None]:
    """Silence the notices inside the block (`carcassonne warmup`)."""
    global _quiet
    was, _quiet = _quiet, True
    try:
        yield
    finally:
        _quiet = was


def _silenced() -> bool:
    return _quiet or os.environ.get(NOTICE_ENV, "") not in ("", "0")


def part_of(py_func, args: tuple) -> str | None:
    """The part a compile of `py_func` for argument types `args` belongs to (None:
    outside the announced modules)."""
    module = getattr(py_func, "__module__", "") or ""
    if not any(module.startswith(p) for p in _PREFIXES):
        return None
    stem = module.rsplit(".", 1)[-1]
    part = stem if stem in PARTS else "core" if module.startswith("carcassonne_env.") else None
    if stem in ("observe", "vector_kernels"):  # which observation parts this version holds
        try:
            named = dict(zip(inspect.signature(py_func).parameters, args, strict=False))
        except (TypeError, ValueError):
            return part
        agg, cand = named.get("agg"), named.get("cand")
        scratch = named.get("scratch")
        if isinstance(scratch, types.BaseTuple) and len(scratch) == 4:
            agg, cand = scratch[2], scratch[3]
        if cand is not None and cand != types.none:
            return "candidates"
        if agg is not None and agg != types.none:
            return "aggregates" if stem == "observe" else part
    return part


class _Ticker:
    """On a terminal: the seconds spent so far, rewritten in place every second."""

    def __init__(self) -> None:
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._ticked = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self._ticked = True
            print(
                f"\r  compiling... {time.perf_counter() - self._start:.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if self._ticked:
            print(
                f"\r  compiled in {time.perf_counter() - self._start:.0f} s",
                file=sys.stderr,
                flush=True,
            )


class _CompileNotices(event.Listener):
    """Announces a part when numba starts compiling one of its functions (module
    docstring)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def on_start(self, ev: event.Event) -> None:
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        if depth or _silenced():
            return
        part = part_of(ev.data["dispatcher"].py_func, tuple(ev.data.get("args") or ()))
        if part is None or part in _announced:
            return
        _announced.add(part)
        print(notice(part), file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            self._local.ticker = _Ticker()

    def on_end(self, ev: event.Event) -> None:
        self._local.depth -= 1
        ticker = getattr(self._local, "ticker", None)
        if self._local.depth == 0 and ticker is not None:
            self._local.ticker = None
            ticker.stop()


event.register("numba:compile", _CompileNotices())
