"""numba compilation of everything the command line runs: `carcassonne_env`'s jitted code
(`carcassonne_env.compilation`) and the search bots' here (``carcassonne warmup``,
``carcassonne clear-cache``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from carcassonne_env import Game, Rules
from carcassonne_env import compilation as env_compilation

# Every module with jitted functions: the environments' and the search bots'
# (tests/compiler/test_compilation.py checks that the list is complete).
JITTED_MODULES = (
    *env_compilation.JITTED_MODULES,
    "agents.search_kernels",
    "agents.candidate_forward",
    "agents.puct_kernel",
)


def _warm_solo_search() -> None:
    from carcassonne_env.bots import make_bot

    from .solo_solve import solve_deal

    game = Game(Rules(variant="solo"), seed=0)
    game.play(make_bot("solo-search:samples=1:top_k=2:depth=1", seed=0).act(game))
    solve_deal(0, seconds=0, top_ks=(1,))


def _warm_mcts() -> None:
    from carcassonne_env.bots import make_bot

    game = Game(Rules(players=2), seed=2)
    game.play(make_bot("mcts:iterations=4", seed=0).act(game))


def _warm_puct() -> None:
    from carcassonne_env.bots import make_bot

    game = Game(Rules(players=2), seed=2)
    game.play(make_bot("puct:simulations=2", seed=0).act(game))


def has_train_extra() -> bool:
    """Whether the train extra (sb3-contrib, PyTorch) is installed: puct's network is a
    model."""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        return False
    return True


def warmup_tasks() -> dict[str, str]:
    """The warm-up's parts: the environments' (`carcassonne_env.compilation`), then the
    solo lab's search, MCTS and, with the train extra, puct's search."""
    # In this order two processes (``--jobs 2``) take the longest parts first and end
    # together; puct's search and the vector env start once the candidate-move
    # observation they build on is in the cache (run beside it, they compiled it too).
    env = list(env_compilation.WARMUP_TASKS.items())
    tasks = dict(env[:3])  # the rules core, the observations, the bots and VsBots env
    if has_train_extra():
        tasks["the puct bot's search"] = "agents.warmup:_warm_puct"
    tasks.update(env[3:])  # the vector env, the jitted playouts
    tasks["the MCTS bot"] = "agents.warmup:_warm_mcts"
    tasks["the solo lab's search"] = "agents.warmup:_warm_solo_search"
    return tasks


def warmup(report: Callable[[str], None] = print, jobs: int = 1, progress: bool = False) -> float:
    """Compile (or load from the cache) every jitted function (`warmup_tasks`), the
    parts after the rules core in `jobs` processes at once. Returns the seconds it
    took. The compile notices stay silent meanwhile."""
    if not has_train_extra():
        report("not compiling the puct bot (it needs the train extra)")
    return env_compilation.warmup(report, jobs, warmup_tasks(), progress)


def cache_files() -> list[Path]:
    """numba's cache files of every function in `JITTED_MODULES`."""
    return env_compilation.cache_files(JITTED_MODULES)


def clear_cache() -> list[Path]:
    """Delete the compiled code of every module in `JITTED_MODULES` (see
    `carcassonne_env.compilation.clear_cache`); returns the deleted files."""
    return env_compilation.clear_cache(JITTED_MODULES)
