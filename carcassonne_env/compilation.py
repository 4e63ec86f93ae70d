"""numba compilation as the user sees it: a one-line notice on stderr when a part of the
package is about to compile (the first use after installing, or after an edit: the rules
core, the observation encoder, the vector envs and the bots each take from seconds to
minutes of silence otherwise), `warmup` to compile everything ahead of time (``carcassonne
warmup``), and `clear_cache` to delete the compiled code (``carcassonne clear-cache``).

Set ``CARCASSONNE_NO_COMPILE_NOTICE=1`` to silence the notices.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from numba.core import event

NOTICE_ENV = "CARCASSONNE_NO_COMPILE_NOTICE"
# The parts that announce their first compile: what the notice names and the CPU seconds
# (user + sys) its compile took from an empty cache: the README's "Start-up" table
# (tests/test_compilation.py checks that they agree), about the wait on an idle machine
# (compiling is single-threaded). A jitted module belongs to the part named by the last
# component of its name, else to the core.
PARTS = {
    "core": ("the rules core", 54),
    "playout": ("the jitted random playouts", 132),
    "encode": ("the observation encoder", 11),
    "aggregates": ("the aggregate observation", 20),
    "candidates": ("the candidate-move observation", 220),
    "vector": ("the vector env", 186),
    "vs_bots_kernel": ("the VsBots vector env", 170),
    "evaluation": ("the heuristic bot", 42),
    "search": ("the MCTS and solo-search bots", 83),
    "jitted_bots": ("the jitted bots", 36),
}


def notice(part: str) -> str:
    """The one-line notice printed before `part` (a key of `PARTS`) first compiles."""
    what, cpu_seconds = PARTS[part]
    return (f"carcassonne-env: compiling {what} with numba (first run only: about "
            f"{cpu_seconds} s of CPU time, the wait on an idle machine, longer under load; "
            f"cached on disk afterwards). Run `carcassonne warmup` to compile everything "
            f"ahead of time; set {NOTICE_ENV}=1 to hide this notice.")


NOTICE = notice("core")

# Every module of this package with jitted functions (tests/conftest.py keys the test
# cache on these files; tests/test_compilation.py checks that the list is complete).
JITTED_MODULES = (
    "carcassonne_env.core.aggregates",
    "carcassonne_env.core.board",
    "carcassonne_env.core.candidates",
    "carcassonne_env.core.choices",
    "carcassonne_env.core.encode",
    "carcassonne_env.core.playout",
    "carcassonne_env.core.queries",
    "carcassonne_env.core.scoring",
    "carcassonne_env.core.state",
    "carcassonne_env.core.turn",
    "carcassonne_env.core.vector",
    "carcassonne_env.bots.evaluation",
    "carcassonne_env.bots.jitted_bots",
    "carcassonne_env.bots.vs_bots_kernel",
)  # `agents.compilation.JITTED_MODULES` adds the search bots' modules

_checked = False
_announced: set[str] = set()  # parts whose notice this process printed
_quiet = False  # inside `warmup`, which reports its own progress


def _dispatchers(module_name: str) -> list:
    """The cached numba dispatchers defined in a module (importing it compiles nothing)."""
    from numba.core.dispatcher import Dispatcher

    module = importlib.import_module(module_name)
    return [f for f in vars(module).values() if isinstance(f, Dispatcher)
            and f.__module__ == module_name and getattr(f, "_cache", None) is not None]


def core_is_compiled() -> bool:
    """Whether numba's cache holds up-to-date machine code of the core's entry points
    (for this numba version and the current sources)."""
    from .core import turn

    try:
        return all(f._cache._cache_file._load_index()
                   for f in (turn.reset, turn.apply_move, turn.legal_moves))
    except Exception:  # numba internals changed: better no notice than a crash
        return True


_NOTICED = set(JITTED_MODULES)  # modules whose compiles are announced


def notice_modules(names: Sequence[str]) -> None:
    """Announce the compiles of these modules too (packages built on this one, such as
    `agents.search`, whose part is the last component of the name)."""
    _NOTICED.update(names)


def notice_first_compile() -> None:
    """Print `NOTICE` to stderr, once per process, if the core is about to compile
    (called before the first jitted call; cheap after the first time). The other parts
    announce themselves when numba starts compiling them (`_CompileNotices`)."""
    global _checked
    if _checked:
        return
    _checked = True
    if not core_is_compiled():
        _announce("core")


def _announce(part: str) -> None:
    """Print `part`'s notice to stderr, once per process, unless silenced."""
    if part in _announced or _quiet or os.environ.get(NOTICE_ENV, "") not in ("", "0"):
        return
    _announced.add(part)
    print(notice(part), file=sys.stderr, flush=True)


class _CompileNotices(event.Listener):
    """Announces a part when numba starts compiling one of its functions. numba sends
    "numba:compile" events only for real compiles (not for loads from the cache), one
    per function, nested when a function compiles the functions it calls: only the
    outermost compile names the part (the encoder compiling the core's helpers is the
    encoder's compile)."""

    def __init__(self) -> None:
        self._depth = threading.local()

    def on_start(self, ev: event.Event) -> None:
        depth = getattr(self._depth, "n", 0)
        self._depth.n = depth + 1
        if depth == 0:
            module = getattr(ev.data["dispatcher"].py_func, "__module__", "")
            if module in _NOTICED:
                stem = module.rsplit(".", 1)[1]
                _announce(stem if stem in PARTS else "core")

    def on_end(self, ev: event.Event) -> None:
        self._depth.n -= 1


event.register("numba:compile", _CompileNotices())


@contextmanager
def no_notices() -> Iterator[None]:
    """Silence the compile notices inside the block (`warmup`, which reports its own
    progress)."""
    global _quiet
    was, _quiet = _quiet, True
    try:
        yield
    finally:
        _quiet = was


def warmup(report: Callable[[str], None] = print) -> float:
    """Compile (or load from the cache) every jitted function of this package: a full
    game through the API with playouts, the env encoder in both action modes, the vector
    envs and the built-in bots (`agents.compilation.warmup` adds the search bots).
    Returns the seconds it took. `report` tells the progress (the compile notices stay
    silent meanwhile)."""
    with no_notices():
        return _warmup(report)


def _warmup(report: Callable[[str], None]) -> float:
    from .bench import bench_playouts
    from .encoding import Encoder
    from .envs.vector import SoloVectorEnv
    from .game import Game
    from .rules import Rules

    start = time.perf_counter()
    report("compiling the rules core...")
    game = Game(Rules(players=2), seed=0)
    game.random_playouts(1, seed=0)
    bench_playouts(1, 1)
    game.play(game.clone().legal_moves()[0])  # not in this game's cache: validated
    spare = game.clone()
    del spare  # its state, given back, makes the next clone copy into it
    game.clone()
    turn = 0
    while not game.done:  # every third move with a follower: scorings to query
        moves = game.legal_moves()
        game.play(moves[-1] if turn % 3 == 0 else moves[0])
        turn += 1
    game.events  # noqa: B018 - scoring queries compile on first read
    report("compiling the observation encoder and the vector env...")
    game = Game(Rules(players=2), seed=1)
    for mode in ("turn", "two_step"):
        enc = Encoder(game.rules, 8, mode)
        enc.encode(game, 0)
        if mode == "two_step":
            enc.encode(game, 0, pending=enc.placement(game, int(enc.action_mask(game).argmax())))
    Encoder(game.rules, 8, obs_features="aggregate").encode(game, 0)
    Encoder(game.rules, 8, candidate_moves=8).encode(game, 0)
    for features, candidates in (("standard", 0), ("aggregate", 0), ("standard", 8)):
        venv = SoloVectorEnv(num_envs=2, board_size=8, num_threads=1, obs_features=features,
                             candidate_moves=candidates)
        venv.reset(seed=0)
        venv.step(venv.action_masks().argmax(axis=1))
    report("compiling the heuristic, the jitted bots and the VsBots vector env...")
    from .bots.base import make_bot
    from .bots.fast_bots import JittedBot
    from .envs.vector_multi import VsBotsVectorEnv

    game = Game(Rules(players=2), seed=2)
    game.play(make_bot("heuristic", seed=0).act(game))
    game.play(JittedBot("greedy", 0).act(game))
    venv = VsBotsVectorEnv(num_envs=2, players=5, board_size=16, num_threads=1,
                           opponents=["random", "greedy", "heuristic",
                                      lambda obs, masks, seats: masks.argmax(axis=1)])
    venv.reset(seed=0)
    venv.step(venv.action_masks().argmax(axis=1))
    venv.teacher("heuristic")
    return time.perf_counter() - start


def cache_files(modules: Sequence[str] = JITTED_MODULES) -> list[Path]:
    """numba's cache files (index .nbi and data .nbc) of every function in `modules`,
    wherever numba keeps them (next to the sources in __pycache__, or under
    NUMBA_CACHE_DIR)."""
    found: set[Path] = set()
    for name in modules:
        dispatchers = _dispatchers(name)
        stem = name.rsplit(".", 1)[1]
        for f in dispatchers:
            folder = Path(f._cache.cache_path)
            if folder.is_dir():
                found.update(p for p in folder.glob(f"{stem}.*.nb[ic]"))
    return sorted(found)


def clear_cache(modules: Sequence[str] = JITTED_MODULES) -> list[Path]:
    """Delete the compiled code of this package (`cache_files`): the next run compiles
    afresh. numba notices an edit to a jitted function's own file, but not to a function
    it calls in another file, so after editing the core this is the way out of stale
    machine code. Returns the deleted files."""
    files = cache_files(modules)
    for path in files:
        path.unlink(missing_ok=True)
    return files
