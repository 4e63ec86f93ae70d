"""numba compilation of everything the command line runs: `carcassonne_env`'s jitted code
(`carcassonne_env.compilation`) and the search bots' here (``carcassonne warmup``,
``carcassonne clear-cache``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from carcassonne_env import Game, Rules
from carcassonne_env import compilation as env_compilation

# Every module with jitted functions: the environments' and the search bots'
# (tests/test_compilation.py checks that the list is complete).
JITTED_MODULES = (*env_compilation.JITTED_MODULES, "agents.search",
                  "agents.candidate_forward", "agents.puct_kernel")


def warmup(report: Callable[[str], None] = print) -> float:
    """Compile (or load from the cache) every jitted function: the environments' and
    built-in bots' (`carcassonne_env.compilation.warmup`), then the solo lab's search,
    MCTS and, with the train extra installed, puct's search (its network is a shipped
    model). Returns the seconds it took. The compile notices stay silent meanwhile."""
    with env_compilation.no_notices():
        return _warmup(report)


def _warmup(report: Callable[[str], None]) -> float:
    from .base import make_agent
    from .solo_solve import solve_deal

    start = time.perf_counter()
    env_compilation.warmup(report)
    report("compiling the solo lab's search (issue 15)...")
    game = Game(Rules(variant="solo"), seed=0)
    game.play(make_agent("solo-search:samples=1:top_k=2:depth=1", seed=0).act(game))
    solve_deal(0, seconds=0, top_ks=(1,))
    report("compiling the MCTS bot...")
    game = Game(Rules(players=2), seed=2)
    game.play(make_agent("mcts:iterations=4", seed=0).act(game))
    try:  # puct's network is a model: it needs the train extra
        import sb3_contrib  # noqa: F401
    except ImportError:
        report("not compiling the puct bot (pip install 'carcassonne-env[train]')")
    else:
        report("compiling the puct bot's search...")
        game.play(make_agent("puct:simulations=2", seed=0).act(game))
    return time.perf_counter() - start


def cache_files() -> list[Path]:
    """numba's cache files of every function in `JITTED_MODULES`."""
    return env_compilation.cache_files(JITTED_MODULES)


def clear_cache() -> list[Path]:
    """Delete the compiled code of every module in `JITTED_MODULES` (see
    `carcassonne_env.compilation.clear_cache`); returns the deleted files."""
    return env_compilation.clear_cache(JITTED_MODULES)
