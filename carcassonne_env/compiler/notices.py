"""A one-line notice on stderr when a part of the package compiles for long (the first use
after installing, or after an edit: seconds to a minute of silence otherwise), with a
ticking elapsed time on a terminal. Set ``CARCASSONNE_NO_COMPILE_NOTICE=1`` to silence
it. The warm-up that compiles everything ahead of time is `carcassonne_env.compilation`.

numba sends a "numba:compile" event only for a real compile (not for a load from the
cache), one per function, nested when a function compiles the functions it calls: only
the outermost compile announces, naming the part of its module (the last component of
the module's name; another module of this package is the core's). The observe pass and
the vector envs' kernels name the candidate-move or aggregate observation when the
version being compiled has it. The notice comes once a compile has run for `NOTICE_AFTER_S`
seconds: a program whose code is in the cache but for one small function (a copy routine
the arena needs, a new argument type) compiles it in a moment and prints nothing.
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
# `carcassonne warmup --jobs 2` from an empty cache on that machine: CPU seconds (user +
# sys) and wall seconds. Its --help and the notices read them; the README's "Start-up"
# section and "Speed" table state the same (tests/compiler/test_notices.py).
WARMUP_CPU_S = 171
WARMUP_WALL_S = 102
# Seconds a compile runs before its notice is printed (a shorter one passes silently; 0:
# at its start).
NOTICE_AFTER_S = 1.0
# Modules whose compiles are announced: this package's and those `notice_modules` adds.
_PREFIXES = ["carcassonne_env."]

_announced: set[str] = set()  # parts whose notice this process printed
_quiet = False  # inside `carcassonne warmup`, which reports its own progress


def notice(part: str) -> str:
    """The one-line notice printed when `part` (a key of `PARTS`) first compiles for long."""
    what, cpu_seconds = PARTS[part]
    return (
        f"carcassonne-env: compiling {what} with numba (first use only: up to about "
        f"{cpu_seconds} s of CPU time on a 2-core machine; cached on disk afterwards). "
        f"Run `carcassonne warmup` to compile everything ahead of time ({WARMUP_CPU_S} "
        f"CPU s); set {NOTICE_ENV}=1 to hide this notice."
    )


def warmup_cost() -> str:
    """What `carcassonne warmup` takes from an empty cache, in words (its --help)."""
    minutes, seconds = divmod(WARMUP_WALL_S, 60)
    return (
        f"{WARMUP_CPU_S} CPU s and {minutes} min {seconds} s of wall time with --jobs 2 "
        "on a 2-core machine"
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


class _Announcement:
    """The notice of one outermost compile of `part`: printed by a timer thread once the
    compile has run `NOTICE_AFTER_S` seconds (with a `_Ticker` on a terminal), unless
    `end` comes first."""

    def __init__(self, part: str) -> None:
        self._part = part
        self._lock = threading.Lock()
        self._ended = False
        self._ticker: _Ticker | None = None
        self._timer = threading.Timer(NOTICE_AFTER_S, self._announce)
        self._timer.daemon = True
        if NOTICE_AFTER_S > 0:
            self._timer.start()
        else:  # no wait: at once, in this thread
            self._announce()

    def _announce(self) -> None:
        with self._lock:
            if self._ended or self._part in _announced or _silenced():
                return
            _announced.add(self._part)
            print(notice(self._part), file=sys.stderr, flush=True)
            if sys.stderr.isatty():
                self._ticker = _Ticker()

    def end(self) -> None:
        """The compile is over: no notice from now on; a ticker says how long it took."""
        self._timer.cancel()
        with self._lock:
            self._ended = True
            ticker, self._ticker = self._ticker, None
        if ticker is not None:
            ticker.stop()


class _CompileNotices(event.Listener):
    """Announces a part when numba compiles one of its functions for long (module
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
        self._local.announcement = _Announcement(part)

    def on_end(self, ev: event.Event) -> None:
        self._local.depth -= 1
        announcement = getattr(self._local, "announcement", None)
        if self._local.depth == 0 and announcement is not None:
            self._local.announcement = None
            announcement.end()


event.register("numba:compile", _CompileNotices())
