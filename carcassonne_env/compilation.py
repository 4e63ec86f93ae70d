"""numba compilation as the user sees it: a one-line notice on stderr when the rules core
is about to compile (the first run after installing, or after an edit: about 30-60 s of
silence otherwise), `warmup` to compile everything ahead of time (``carcassonne
warmup``), and `clear_cache` to delete the compiled code (``carcassonne clear-cache``).

Set ``CARCASSONNE_NO_COMPILE_NOTICE=1`` to silence the notice.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

NOTICE_ENV = "CARCASSONNE_NO_COMPILE_NOTICE"
NOTICE = ("carcassonne-env: compiling the rules core with numba (first run only, about "
          "30-60 s; cached on disk afterwards). Run `carcassonne warmup` to do it ahead of "
          f"time; set {NOTICE_ENV}=1 to hide this notice.")

# Every module with jitted functions (tests/conftest.py keys the test cache on these
# files; tests/test_compilation.py checks that the list is complete).
JITTED_MODULES = (
    "carcassonne_env.core.aggregates",
    "carcassonne_env.core.board",
    "carcassonne_env.core.choices",
    "carcassonne_env.core.encode",
    "carcassonne_env.core.playout",
    "carcassonne_env.core.queries",
    "carcassonne_env.core.scoring",
    "carcassonne_env.core.state",
    "carcassonne_env.core.turn",
    "carcassonne_env.core.vector",
    "agents.evaluation",
    "agents.jitted_bots",
    "agents.search",
    "agents.vs_bots_kernel",
)

_checked = False


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


def notice_first_compile() -> None:
    """Print `NOTICE` to stderr, once per process, if the core is about to compile
    (called before the first jitted call; cheap after the first time)."""
    global _checked
    if _checked:
        return
    _checked = True
    if os.environ.get(NOTICE_ENV, "") in ("", "0") and not core_is_compiled():
        print(NOTICE, file=sys.stderr, flush=True)


def warmup(report: Callable[[str], None] = print) -> float:
    """Compile (or load from the cache) every jitted function: a full game through the
    API with playouts, the env encoder in both action modes, the vector env, and the
    heuristic, MCTS and solo-lab bots. Returns the seconds it took."""
    from .encoding import Encoder
    from .envs.vector import SoloVectorEnv
    from .game import Game
    from .rules import Rules

    start = time.perf_counter()
    report("compiling the rules core...")
    game = Game(Rules(players=2), seed=0)
    game.random_playouts(1, seed=0)
    game.play(game.clone().legal_moves()[0])  # not in this game's cache: validated
    while not game.done:
        game.play(game.legal_moves()[0])
    game.events  # noqa: B018 - scoring queries compile on first read
    report("compiling the observation encoder and the vector env...")
    game = Game(Rules(players=2), seed=1)
    for mode in ("turn", "two_step"):
        enc = Encoder(game.rules, 8, mode)
        enc.encode(game, 0)
        if mode == "two_step":
            enc.encode(game, 0, pending=enc.placement(game, int(enc.action_mask(game).argmax())))
    Encoder(game.rules, 8, obs_features="aggregate").encode(game, 0)
    for features in ("standard", "aggregate"):
        venv = SoloVectorEnv(num_envs=2, board_size=8, num_threads=1, obs_features=features)
        venv.reset(seed=0)
        venv.step(venv.action_masks().argmax(axis=1))
    try:
        from agents import make_agent
    except ImportError:  # pragma: no cover - installed without the bots
        return time.perf_counter() - start
    report("compiling the solo lab's search (issue 15)...")
    from agents.solo_solve import solve_deal

    game = Game(Rules(variant="solo"), seed=0)
    game.play(make_agent("solo-search:samples=1:top_k=2:depth=1", seed=0).act(game))
    solve_deal(0, seconds=0, top_ks=(1,))
    report("compiling the heuristic and MCTS bots...")
    game = Game(Rules(players=2), seed=2)
    for spec in ("heuristic", "mcts:iterations=4"):
        game.play(make_agent(spec, seed=0).act(game))
    # issue 13: the jitted bots and the VsBots vector env (a policy seat too)
    report("compiling the jitted bots and the VsBots vector env...")
    from agents.fast_bots import JittedBot

    from .envs.vector_multi import VsBotsVectorEnv

    game.play(JittedBot("greedy", 0).act(game))
    venv = VsBotsVectorEnv(num_envs=2, players=5, board_size=16, num_threads=1,
                           opponents=["random", "greedy", "heuristic",
                                      lambda obs, masks, seats: masks.argmax(axis=1)])
    venv.reset(seed=0)
    venv.step(venv.action_masks().argmax(axis=1))
    return time.perf_counter() - start


def cache_files() -> list[Path]:
    """numba's cache files (index .nbi and data .nbc) of every function in
    `JITTED_MODULES`, wherever numba keeps them (next to the sources in __pycache__, or
    under NUMBA_CACHE_DIR)."""
    found: set[Path] = set()
    for name in JITTED_MODULES:
        try:
            dispatchers = _dispatchers(name)
        except ImportError:  # pragma: no cover - agents not installed
            continue
        stem = name.rsplit(".", 1)[1]
        for f in dispatchers:
            folder = Path(f._cache.cache_path)
            if folder.is_dir():
                found.update(p for p in folder.glob(f"{stem}.*.nb[ic]"))
    return sorted(found)


def clear_cache() -> list[Path]:
    """Delete the compiled code of this package (`cache_files`): the next run compiles
    afresh. numba notices an edit to a jitted function's own file, but not to a function
    it calls in another file, so after editing the core this is the way out of stale
    machine code. Returns the deleted files."""
    files = cache_files()
    for path in files:
        path.unlink(missing_ok=True)
    return files
