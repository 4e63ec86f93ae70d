"""Speed benchmarks of the rules core (`carcassonne bench`). Reports medians over repeats;
timings are noisy, so these are numbers to read, never pass/fail tests."""

from __future__ import annotations

import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .clones import compile_copy
from .core.playout import random_games
from .core.state import copy_into
from .game import Game
from .rules import Rules

#: The budgets of `run_benchmarks` by default and with `carcassonne bench --quick`.
DEFAULTS: dict[str, Any] = {
    "games": 20000,
    "api_games": 30,
    "env_steps": 20000,
    "repeats": 5,
    "cold": True,
}
QUICK: dict[str, Any] = {
    "games": 2000,
    "api_games": 3,
    "env_steps": 1024,
    "repeats": 1,
    "cold": False,
}

#: Each part (`PARTS`): what it measures (each measure --repeats times, medians
#: reported) and the seconds it took with the default budgets and with --quick's
#: (`carcassonne bench --help` lists them): 2-core AMD EPYC host, 2026-12-06, under a
#: load of about 4 (a training beside it; bench at nice 19), the numba cache warm.
PART_HELP: dict[str, tuple[str, int, int]] = {
    "start-up": ("import + a first game, new interpreter: cold, warm", 20, 2),
    "playouts": ("--games jitted random playouts", 5, 1),
    "api": ("--api-games games through Game's Python API", 1, 1),
    "clone": ("2,000 Game.clone() and copy_into() calls", 1, 1),
    "envs": ("--steps steps of the AEC and Solo-v0 envs", 40, 1),
    "vector": ("--steps steps of SoloVectorEnv, N=64 and 256", 4, 1),
    "vs-bots": ("--steps steps of VsBotsVectorEnv(256), 3 bots", 87, 8),
    "expansions": ("--games playouts, --steps AEC steps, 4 rule sets", 139, 2),
}

_FIRST_GAME = (
    "import random, time; t=time.perf_counter(); "
    "from carcassonne_env import Game, Rules; g=Game(Rules(players=2), seed=0); "
    "r=random.Random(0)\n"
    "while not g.done: g.play(r.choice(g.legal_moves()))\n"
    "print(time.perf_counter()-t)"
)


#: The parts of `run_benchmarks` (`carcassonne bench --only`), in the order they run.
PARTS = ("start-up", "playouts", "api", "clone", "envs", "vector", "vs-bots", "expansions")


def check_parts(names: Sequence[str]) -> tuple[str, ...]:
    """`names` (benchmark parts, any order) in `PARTS` order; ValueError naming the
    unknown ones, and for an empty list."""
    unknown = [n for n in names if n not in PARTS]
    if unknown or not names:
        raise ValueError(
            f"only must name parts from {', '.join(PARTS)}, got "
            f"{', '.join(map(repr, unknown)) if unknown else 'none'}"
        )
    return tuple(p for p in PARTS if p in names)


def _median_rate(fn, repeats: int) -> float:
    """Median of units / second over repeats; fn() returns (units, seconds)."""
    rates = []
    for _ in range(repeats):
        units, seconds = fn()
        rates.append(units / seconds)
    return statistics.median(rates)


def bench_playouts(games: int, repeats: int, rules: Rules | None = None) -> dict[str, float]:
    """Jitted random playouts, 2 players, base game with farms (or `rules`), one
    thread."""
    game = Game(rules or Rules(players=2), seed=0)
    ts, st = game.tileset, game.state
    deck = np.array(ts.full_deck(), np.int8)
    rng = np.ones(1, np.uint64)
    P = st.scores.shape[0]
    scores = np.zeros((games, P), np.int32)
    random_games(st, ts.tables, deck, P, rng, scores)  # compile / load outside the clock
    game_rates, move_rates = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        moves = random_games(st, ts.tables, deck, games, rng, scores)
        dt = time.perf_counter() - t0
        game_rates.append(games / dt)
        move_rates.append(moves / dt)
    return {
        "playout games/s": statistics.median(game_rates),
        "playout decisions/s": statistics.median(move_rates),
        "mean final score (random play)": float(scores.mean()),
    }


def bench_api(games: int, repeats: int) -> dict[str, float]:
    """Python API: legal_moves() + play(random choice) per decision."""
    rng = random.Random(0)

    def run():
        n = 0
        t0 = time.perf_counter()
        for k in range(games):
            g = Game(Rules(players=2), seed=k)
            while not g.done:
                g.play(rng.choice(g.legal_moves()))
                n += 1
        return n, time.perf_counter() - t0

    run()  # warm up
    return {"API decisions/s": _median_rate(run, repeats)}


def bench_clone(repeats: int) -> dict[str, float]:
    """Clone cost at mid-game (turn 35), Python `Game.clone()` (of a game played through
    the API, its state never handed out) and jitted `copy_into`."""
    rng = random.Random(0)
    g = Game(Rules(players=2), seed=1)
    for _ in range(35):
        g.play(rng.choice(g.legal_moves()))
    n = 2000
    py, jit = [], []
    dst, src = g.clone().state, g.clone().state
    copy_into(dst, src)
    compile_copy(False)  # (else the first clones copy with numpy)
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            g.clone()
        py.append((time.perf_counter() - t0) / n * 1e6)
        t0 = time.perf_counter()
        for _ in range(n):
            copy_into(dst, src)
        jit.append((time.perf_counter() - t0) / n * 1e6)
    size = 8 * src.live_words
    return {
        "Game.clone() us": statistics.median(py),
        "copy_into() us (called from Python)": statistics.median(jit),
        "state size KiB": size / 1024,
    }


def _env_rate(reset, step, legal, steps: int) -> float:
    """Env steps per second over `steps` steps with uniform random legal actions; only
    the env calls are timed (`legal()` lists the legal actions, outside the clock)."""
    rng = np.random.default_rng(0)
    reset()
    spent, n = 0.0, 0
    while n < steps:
        action = rng.choice(legal())
        t0 = time.perf_counter()
        over = step(action)
        spent += time.perf_counter() - t0
        n += 1
        if over:
            t0 = time.perf_counter()
            reset()
            spent += time.perf_counter() - t0
    return n / spent


def bench_envs(steps: int, repeats: int) -> dict[str, float]:
    """Steps/s with observation and mask: the PettingZoo AEC env (step + last()) and the
    Gymnasium solo env (step), with the standard and the aggregate observation."""
    from . import carcassonne_v0
    from .envs import SoloEnv

    aec = carcassonne_v0.env(players=2)

    def aec_step(action):
        aec.step(action)
        _, _, term, trunc, _ = aec.last()
        return term or trunc

    def rate(reset: Callable, step: Callable, legal: Callable) -> float:
        return statistics.median(_env_rate(reset, step, legal, steps) for _ in range(repeats))

    def solo_rate(env: SoloEnv) -> float:
        return rate(
            lambda: env.reset(seed=0),
            lambda a: env.step(a)[2],
            lambda: np.flatnonzero(env.action_masks()),
        )

    return {
        "AEC env steps/s": rate(
            lambda: (aec.reset(seed=0), aec.last()),
            aec_step,
            lambda: np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]),
        ),
        # what gymnasium.make("Carcassonne/Solo-v0") wraps, then the same with the
        # aggregate observation: its price per step
        "Solo-v0 env steps/s": solo_rate(SoloEnv()),
        "Solo-v0 env steps/s (aggregate obs)": solo_rate(SoloEnv(obs_features="aggregate")),
    }


def bench_vector(steps: int, repeats: int) -> dict[str, float]:
    """Steps/s of `SoloVectorEnv` (one batched step of N games), N = 64 and 256."""
    from .envs.solo import SoloVectorEnv

    results = {}
    for n in (64, 256):
        venv = SoloVectorEnv(n)
        venv.reset(seed=0)
        rates = []
        for _ in range(repeats):
            spent, batches = 0.0, max(steps // n, 1)
            for _ in range(batches):
                actions = venv.action_masks().argmax(axis=1)  # first legal action of each
                t0 = time.perf_counter()
                venv.step(actions)
                spent += time.perf_counter() - t0
            rates.append(batches * n / spent)
        results[f"vector env steps/s (N={n})"] = statistics.median(rates)
    return results


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of `masks` (what an untrained policy
    plays)."""
    rows, cols = np.nonzero(masks)
    counts = np.bincount(rows, minlength=masks.shape[0])
    starts = np.cumsum(counts) - counts
    return cols[starts + (rng.random(masks.shape[0]) * counts).astype(np.int64)]


def _vector_rate(venv, batches: int, repeats: int, learner: str = "first") -> float:
    """Median learner steps/s of a vector env over `repeats` runs of `batches` steps
    (learner "first": the first legal action of every game; "random": a uniformly
    random legal one, seeded; only the step calls are timed)."""
    rng = np.random.default_rng(0)

    def act():
        masks = venv.action_masks()
        return masks.argmax(axis=1) if learner == "first" else _random_legal(masks, rng)

    venv.reset(seed=0)
    venv.step(act())  # compile / load outside the clock
    rates = []
    for _ in range(repeats):
        spent = 0.0
        for _ in range(batches):
            actions = act()
            t0 = time.perf_counter()
            venv.step(actions)
            spent += time.perf_counter() - t0
        rates.append(batches * venv.num_envs / spent)
    return statistics.median(rates)


def bench_vs_bots(steps: int, repeats: int, num_envs: int = 256) -> dict[str, float]:
    """The batched 2-player `VsBotsVectorEnv` against jitted random / greedy / heuristic
    bots beside `SoloVectorEnv`, same N, in one run (a 2-player learner step is two
    turns). The learner plays uniformly
    random legal actions, as an untrained policy does; the "first legal" rows replay the
    older measure (the first legal action, which grows one long diagonal row of tiles:
    larger frontiers, more legal moves per bot turn). Default threads, and one thread
    (what helps when other processes share the cores)."""
    import warnings

    from .encoding import WindowOverflowWarning
    from .envs.solo import SoloVectorEnv
    from .envs.vs_bots import VsBotsVectorEnv

    warnings.simplefilter("ignore", WindowOverflowWarning)  # first-action play: long rows
    n = num_envs
    batches = max(steps // n, 1)
    results = {}
    for threads, label in ((None, ""), (1, ", 1 thread")):
        solo = _vector_rate(SoloVectorEnv(n, num_threads=threads), batches, repeats, "random")
        results[f"SoloVectorEnv steps/s (N={n}{label})"] = solo
        for bot in ("random", "greedy", "heuristic"):
            if threads == 1 and bot != "random":
                continue
            slow = bot != "random"  # a bot move costs a search over the legal moves
            rate = _vector_rate(
                VsBotsVectorEnv(n, opponents=bot, num_threads=threads),
                max(batches // 10, 1) if slow else batches,
                repeats,
                "random",
            )
            results[f"VsBots vector steps/s (N={n}, {bot}{label})"] = rate
            results[f"VsBots/solo ratio ({bot}{label})"] = rate / solo
    solo = _vector_rate(SoloVectorEnv(n), batches, repeats, "first")
    rate = _vector_rate(VsBotsVectorEnv(n, opponents="random"), batches, repeats, "first")
    results[f"VsBots vector steps/s (N={n}, random, first legal)"] = rate
    results["VsBots/solo ratio (random, first legal)"] = rate / solo
    # The aggregate observation's price in the batched env.
    agg = VsBotsVectorEnv(n, opponents="random", obs_features="aggregate")
    results[f"VsBots vector steps/s (N={n}, random, aggregate obs)"] = _vector_rate(
        agg, batches, repeats, "random"
    )
    # The candidate-move observation's price (>= 25,000 learner steps/s).
    cand = VsBotsVectorEnv(n, opponents="random", candidate_moves=128)
    results[f"VsBots vector steps/s (N={n}, random, candidate_moves=128)"] = _vector_rate(
        cand, max(batches // 10, 1), repeats, "random"
    )
    return results


#: The expansion rule sets of the speed rows (within 1.5x of the base game).
EXPANSION_RULES: dict[str, dict[str, Any]] = {
    "Inns & Cathedrals": {"expansions": ["inns_cathedrals"]},
    "both expansions": {"expansions": ["inns_cathedrals", "traders_builders"]},
    "both, tiles only": {
        "expansions": ["inns_cathedrals", "traders_builders"],
        "expansion_mode": "tiles_only",
    },
}


def bench_expansions(games: int, steps: int, repeats: int) -> dict[str, float]:
    """Jitted playouts and AEC env steps with the expansions beside the base game, and
    their ratios (more tiles per game: a game takes longer, a decision should not). The
    rule sets take turns within each repeat, so a busy machine slows them alike; the
    medians are over the repeats."""
    from . import carcassonne_v0

    def aec_rate(options: dict) -> float:
        aec = carcassonne_v0.env(players=2, **options)

        def step(action):
            aec.step(action)
            _, _, term, trunc, _ = aec.last()
            return term or trunc

        return _env_rate(
            lambda: (aec.reset(seed=0), aec.last()),
            step,
            lambda: np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]),
            steps,
        )

    sets: dict[str, dict[str, Any]] = {"base": {}, **EXPANSION_RULES}
    rates: dict[str, dict[str, list[float]]] = {
        k: {"games": [], "play": [], "env": []} for k in sets
    }
    for _ in range(repeats):
        for label, options in sets.items():
            play = bench_playouts(games, 1, Rules(players=2, **options))
            rates[label]["games"].append(play["playout games/s"])
            rates[label]["play"].append(play["playout decisions/s"])
            rates[label]["env"].append(aec_rate(options))
    results = {}
    for label in EXPANSION_RULES:
        mine, base = rates[label], rates["base"]
        results[f"playout games/s ({label})"] = statistics.median(mine["games"])
        results[f"playout decisions/s ({label})"] = statistics.median(mine["play"])
        results[f"playout decisions ratio to base ({label})"] = statistics.median(
            a / b for a, b in zip(mine["play"], base["play"], strict=True)
        )
        results[f"AEC env steps/s ({label})"] = statistics.median(mine["env"])
        results[f"AEC env steps ratio to base ({label})"] = statistics.median(
            a / b for a, b in zip(mine["env"], base["env"], strict=True)
        )
    return results


def bench_start(cold: bool) -> dict[str, float]:
    """Import + first full game through the API in a fresh interpreter: with an empty
    numba cache (cold: the rules core compiles) if `cold`, and with this machine's cache
    (warm), which one untimed run first fills where it lacks the core."""
    out = {}
    if cold:
        with tempfile.TemporaryDirectory() as cache:
            out["cold start s"] = _first_game_seconds(dict(os.environ, NUMBA_CACHE_DIR=cache))
    _first_game_seconds(dict(os.environ))
    out["warm start s"] = _first_game_seconds(dict(os.environ))
    return out


def _first_game_seconds(env: dict[str, str]) -> float:
    """Wall seconds of `_FIRST_GAME` in a fresh interpreter with the environment `env`."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", _FIRST_GAME], env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def run_benchmarks(
    games: int = DEFAULTS["games"],
    api_games: int = DEFAULTS["api_games"],
    repeats: int = DEFAULTS["repeats"],
    cold: bool = DEFAULTS["cold"],
    markdown: bool = False,
    env_steps: int = DEFAULTS["env_steps"],
    only: Sequence[str] | None = None,
) -> dict[str, float]:
    """Run the benchmarks (every one of `PARTS`, or those named in `only`) and print the
    results as a table (`result_table`); returns them. Arguments are checked before
    anything runs (ValueError naming the argument)."""
    from tqdm import tqdm

    for name, value in (
        ("games", games),
        ("api_games", api_games),
        ("repeats", repeats),
        ("env_steps", env_steps),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    chosen = check_parts(PARTS if only is None else only)

    steps = {
        "start-up": lambda: bench_start(cold),
        "playouts": lambda: bench_playouts(games, repeats),
        "api": lambda: bench_api(api_games, repeats),
        "clone": lambda: bench_clone(repeats),
        "envs": lambda: bench_envs(env_steps, repeats),
        "vector": lambda: bench_vector(env_steps, repeats),
        "vs-bots": lambda: bench_vs_bots(env_steps, repeats),
        "expansions": lambda: bench_expansions(games, env_steps, repeats),
    }
    results: dict[str, float] = {}
    took = []
    for part in tqdm(chosen, desc="benchmarks", unit="part", file=sys.stderr):
        t0 = time.perf_counter()
        results.update(steps[part]())
        took.append(f"{part} {time.perf_counter() - t0:.0f} s")
    machine = (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    print(result_table(results, markdown), end="")
    print(
        f"\nmedians of {repeats} repeats; 2 players, base game, 3rd-edition farms; "
        f"machine: {machine}"
    )
    print(f"time per part: {', '.join(took)}")
    return results


HIGHER, LOWER = "higher is better", "lower is better"


def describe(measure: str) -> tuple[str, str, str]:
    """What a result key of `run_benchmarks` names: the measure, its unit and which way
    is better ("VsBots vector steps/s (N=256, random)": "VsBots vector steps (N=256,
    random)", "steps/s", `HIGHER`; "Game.clone() us": "Game.clone()", "us", `LOWER`)."""
    words = measure.split(" ")
    for i, word in enumerate(words):
        if word.endswith("/s"):  # "playout games/s": "playout games", "games/s"
            return " ".join([*words[:i], word[:-2], *words[i + 1 :]]), word, HIGHER
        if word in ("us", "s", "KiB"):  # times and sizes
            return " ".join(words[:i] + words[i + 1 :]), word, LOWER
        if word == "ratio":  # of two speeds, the named one over the other
            return measure, "ratio", HIGHER
    return measure, "points", "neither: a check of the rules"


def result_table(results: dict[str, float], markdown: bool = False) -> str:
    """`results` as a table of four columns, measure, value, unit and which way is
    better: aligned text, or a markdown table."""
    rows = []
    for key, value in results.items():
        name, unit, better = describe(key)
        rows.append((name, f"{value:,.{2 if unit == 'ratio' else 1}f}", unit, better))
    header = ("measure", "value", "unit", "better")
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|---|---:|---|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(row[c]) for row in [header, *rows]) for c in range(4)]
        lines = [
            f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c:<{widths[2]}}  {d}"
            for a, b, c, d in [header, *rows]
        ]
    return "".join(line + "\n" for line in lines)
