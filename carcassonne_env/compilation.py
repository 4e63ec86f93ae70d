"""numba compilation ahead of time: `warmup` compiles everything (``carcassonne warmup``,
its parts in parallel processes), `clear_cache` deletes the compiled code (``carcassonne
clear-cache``). The notices printed when a part compiles on first use are
`carcassonne_env.compiler.notices`.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .compiler.notices import no_notices

# Every module of this package with jitted functions (tests/conftest.py keys the test
# cache on these files; tests/compiler/test_compilation.py checks that the list is complete).
JITTED_MODULES = (
    "carcassonne_env.core.actions",
    "carcassonne_env.core.aggregates",
    "carcassonne_env.core.board",
    "carcassonne_env.core.candidate_columns",
    "carcassonne_env.core.candidates",
    "carcassonne_env.core.choices",
    "carcassonne_env.core.closers",
    "carcassonne_env.core.planes",
    "carcassonne_env.core.followers",
    "carcassonne_env.core.observe",
    "carcassonne_env.core.playout",
    "carcassonne_env.core.queries",
    "carcassonne_env.core.scoring",
    "carcassonne_env.core.state",
    "carcassonne_env.core.turn",
    "carcassonne_env.bots.evaluation",
    "carcassonne_env.bots.jitted_bots",
    "carcassonne_env.envs.vector_kernels",
)  # `agents.warmup.JITTED_MODULES` adds the search bots' modules


def _dispatchers(module_name: str) -> list:
    """The cached numba dispatchers defined in a module (importing it compiles nothing)."""
    from numba.core.dispatcher import Dispatcher

    module = importlib.import_module(module_name)
    return [
        f
        for f in vars(module).values()
        if isinstance(f, Dispatcher)
        and f.__module__ == module_name
        and getattr(f, "_cache", None) is not None
    ]


def core_is_compiled() -> bool:
    """Whether numba's cache holds up-to-date machine code of the core's entry points
    (for this numba version and the current sources)."""
    from .core import turn

    try:
        return bool(turn.game_call._cache._cache_file._load_index())
    except Exception:  # numba internals changed: say compiled rather than crash
        return True


def _warm_core() -> None:
    """The rules core through the API: a whole game with clones and scoring queries."""
    from .clones import compile_copy
    from .game import Game
    from .rules import Rules

    for full in (False, True):  # (a program's first clones copy with numpy)
        compile_copy(full)
    game = Game(Rules(players=2), seed=0)
    game.play(game.clone().legal_moves()[0])  # not in this game's cache: validated
    spare = game.clone()
    del spare  # its state, given back, makes the next clone copy into it
    game.clone()
    game.state  # noqa: B018 - once read out, the game's clones copy every word
    game.clone()
    turn = 0
    while not game.done:  # every third move with a follower: scorings to query
        moves = game.legal_moves()
        game.play(moves[-1] if turn % 3 == 0 else moves[0])
        turn += 1
    game.events  # noqa: B018 - scoring queries compile on first read


def _warm_playouts() -> None:
    from .game import Game
    from .rules import Rules
    from .speed import bench_playouts

    Game(Rules(players=2), seed=0).random_playouts(1, seed=0)
    bench_playouts(1, 1)


def _warm_encoder() -> None:
    """The observation encoder in both action modes, and its aggregate and candidate
    observations."""
    from .encoding import Encoder
    from .game import Game
    from .rules import Rules

    game = Game(Rules(players=2), seed=1)
    for mode in ("turn", "two_step"):
        enc = Encoder(game.rules, 8, mode)
        enc.encode(game, 0)
        if mode == "two_step":
            enc.encode(game, 0, pending=enc.placement(game, int(enc.action_mask(game).argmax())))
    Encoder(game.rules, 8, obs_features="aggregate").encode(game, 0)
    Encoder(game.rules, 8, candidate_moves=8).encode(game, 0)


def _warm_vector() -> None:
    from .envs.solo import SoloVectorEnv

    for features, candidates in (("standard", 0), ("aggregate", 0), ("standard", 8)):
        venv = SoloVectorEnv(
            num_envs=2,
            board_size=8,
            num_threads=1,
            obs_features=features,
            candidate_moves=candidates,
        )
        venv.reset(seed=0)
        venv.step(venv.action_masks().argmax(axis=1))


def _warm_bots() -> None:
    """The heuristic, the jitted bots and the VsBots vector env with its teacher."""
    from .bots.factory import make_bot
    from .bots.jitted_bots import JittedBot
    from .envs.vs_bots import VsBotsVectorEnv
    from .game import Game
    from .rules import Rules

    game = Game(Rules(players=2), seed=2)
    game.play(make_bot("heuristic", seed=0).act(game))
    game.play(JittedBot("greedy", 0).act(game))
    venv = VsBotsVectorEnv(
        num_envs=2,
        players=5,
        board_size=16,
        num_threads=1,
        opponents=["random", "greedy", "heuristic", lambda obs, masks, seats: masks.argmax(axis=1)],
    )
    venv.reset(seed=0)
    venv.step(venv.action_masks().argmax(axis=1))
    venv.teacher("heuristic")


# The warm-up's parts: what `carcassonne warmup` reports, and the function compiling it
# ("module:function", run in a worker process with --jobs > 1). The core comes first,
# alone: every other part builds on it (run beside it, they would compile it again).
WARMUP_TASKS = {
    "the rules core": "carcassonne_env.compilation:_warm_core",
    "the candidate-move and other observations": "carcassonne_env.compilation:_warm_encoder",
    "the bots and the VsBots vector env": "carcassonne_env.compilation:_warm_bots",
    "the vector env": "carcassonne_env.compilation:_warm_vector",
    "the jitted random playouts": "carcassonne_env.compilation:_warm_playouts",
}


def run_warmup_task(target: str) -> float:
    """Run one warm-up part ("module:function") with the notices silenced; its CPU
    seconds."""
    module, name = target.split(":")
    start = time.process_time()
    with no_notices():
        getattr(importlib.import_module(module), name)()
    return time.process_time() - start


def warmup(
    report: Callable[[str], None] = print,
    jobs: int = 1,
    tasks: dict[str, str] | None = None,
    progress: bool = False,
) -> float:
    """Compile (or load from the cache) every jitted function of this package: a full
    game through the API with playouts, the env encoder in both action modes, the vector
    envs and the built-in bots (`agents.warmup.warmup` adds the search bots).
    After the rules core, the parts compile in `jobs` processes at once. Returns the
    seconds it took. `report` tells each part as it starts (jobs 1) or ends; `progress`
    shows a progress bar on stderr instead."""
    tasks = dict(WARMUP_TASKS if tasks is None else tasks)
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc="compiling", unit="part", file=sys.stderr)
        report = bar.set_postfix_str
    names = list(tasks)
    first, rest = names[0], names[1:]
    report(f"compiling {first}...")
    run_warmup_task(tasks[first])
    if bar is not None:
        bar.update()
    if jobs <= 1 or len(rest) <= 1:
        for name in rest:
            report(f"compiling {name}...")
            run_warmup_task(tasks[name])
            if bar is not None:
                bar.update()
    else:
        from concurrent.futures import as_completed

        from .workers import worker_pool

        with worker_pool(min(jobs, len(rest))) as pool:  # stopped at once on a Ctrl-C
            futures = {pool.submit(run_warmup_task, tasks[name]): name for name in rest}
            for future in as_completed(futures):
                future.result()
                report(f"compiled {futures[future]}")
                if bar is not None:
                    bar.update()
    if bar is not None:
        bar.close()
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
