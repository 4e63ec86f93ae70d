"""Side-by-side speed of two commits of this repository, in one alternating run.

    python benchmarks/compare_commits.py REV_A REV_B [--rounds 5] [--scale 1.0]

Each revision is exported (``git archive``) into a temporary folder with its own
``NUMBA_CACHE_DIR``; ``.`` names the working tree as it is (uncommitted edits included).
Every measure runs in a fresh interpreter that imports that tree's code (cwd and
``PYTHONPATH``), after one untimed pass that fills the tree's numba cache. Rounds
alternate the order A, B / B, A, so a machine that gets busier or quieter slows both
alike; the table shows the medians over the rounds and the median of the per-round
ratios B / A (> 1: B is faster; for the "us" rows, times, < 1: B is faster).

Measures (one thread each but vsbots-cores):
    playout games/s           random 2-player base-game playouts (`carcassonne bench`'s)
    Game.clone() us           Python clone of a mid-game state (turn 35)
    copy_into() us            the jitted copy of the same state, called from Python
    copy_into() us (jitted)   the same, called in a loop from jitted code (as searches do)
    API decisions/s           Game.legal_moves() + play(random choice)
    MCTS iterations/s         MCTSAgent(iterations=100), default settings, 6 positions
    solo-search evals/s       SoloSearchAgent(samples=16) candidate evaluations, 6 positions
    expansions time ratio     time per playout decision, both expansions in full mode /
                              base game (the same tree; not a B / A ratio)
    VsBots learner steps/s    `VsBotsVectorEnv(256)` against random bots, a uniformly
                              random learner, one thread; with candidate_moves=128 and
                              without (`carcassonne_env.speed._vector_rate`)
    vsbots-cores              the same with the env's default threads (one per core;
                              numba's NUMBA_NUM_THREADS is left at the core count)

Cold-compile measures (each run in a fresh interpreter with an empty numba cache of its
own; CPU seconds are user + sys of the process and everything it waited for):
    cold-play                 `carcassonne play` (random vs greedy), CPU s
    cold-quickstart           the Quick start of the README at ffa028a (a shipped solo
                              model playing one game through `make_env_for_model`), CPU s
    cold-warmup               `carcassonne warmup` (with ``--jobs 2`` where the tree has
                              it), CPU s and wall s
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------- workers
# These run inside the tree under test: only APIs both old and new trees have, by the
# new module paths, else by the paths before issue 79 (6db3797 and older).


def _speed() -> Any:
    """The tree's speed measures: `carcassonne_env.speed` (`carcassonne_env.bench` before)."""
    try:
        return importlib.import_module("carcassonne_env.speed")
    except ModuleNotFoundError as err:
        if err.name != "carcassonne_env.speed":
            raise
        return importlib.import_module("carcassonne_env.bench")


def _vsbots_vector_env() -> type:
    """The tree's `VsBotsVectorEnv` (in `carcassonne_env.envs.vector_multi` before)."""
    try:
        from carcassonne_env.envs import VsBotsVectorEnv
    except ImportError:
        from carcassonne_env.envs.vector_multi import VsBotsVectorEnv
    return VsBotsVectorEnv


def _w_playouts(scale: float) -> dict[str, float]:
    r = _speed().bench_playouts(max(int(2000 * scale), 50), 1)
    return {"playout games/s": r["playout games/s"]}


def _w_clone(scale: float) -> dict[str, float]:
    import random

    from numba import njit

    from carcassonne_env import Game, Rules
    from carcassonne_env.core.state import copy_into

    r = _speed().bench_clone(max(int(3 * scale), 1))

    @njit(nogil=True)
    def copies(dst, src, n):  # what a search pays: copy_into called from jitted code
        for _ in range(n):
            copy_into(dst, src)

    g, rng = Game(Rules(players=2), seed=1), random.Random(0)
    for _ in range(35):
        g.play(rng.choice(g.legal_moves()))
    other = g.clone()
    copies(other._st, g._st, 1)
    n = max(int(20000 * scale), 100)
    t0 = time.perf_counter()
    copies(other._st, g._st, n)
    return {
        "Game.clone() us": r["Game.clone() us"],
        "copy_into() us": r["copy_into() us (called from Python)"],
        "copy_into() us (jitted caller)": (time.perf_counter() - t0) / n * 1e6,
    }


def _w_api(scale: float) -> dict[str, float]:
    return _speed().bench_api(max(int(8 * scale), 1), 1)


def _positions(rules, turns):
    """Games (seed 0, seeded random moves) stopped at the given turns."""
    import random

    from carcassonne_env import Game

    out = []
    g, rng = Game(rules, seed=0), random.Random(0)
    for turn in range(max(turns) + 1):
        if g.done:
            break
        if turn in turns:
            out.append(g.clone())
        g.play(rng.choice(g.legal_moves()))
    return out


def _w_mcts(scale: float) -> dict[str, float]:
    from agents.mcts import MCTSAgent
    from carcassonne_env import Rules

    iterations = 100
    games = _positions(Rules(players=2), (2, 12, 24, 36, 48, 60))
    MCTSAgent(seed=0, iterations=10).act(games[0])  # load the machine code
    reps = max(int(scale), 1)
    t0 = time.perf_counter()
    for _ in range(reps):
        bot = MCTSAgent(seed=0, iterations=iterations)
        for g in games:
            bot.act(g)
    return {"MCTS iterations/s": reps * iterations * len(games) / (time.perf_counter() - t0)}


def _w_solo(scale: float) -> dict[str, float]:
    from agents.solo_search import SoloSearchAgent
    from carcassonne_env import Rules

    games = _positions(Rules(variant="solo", players=1), (2, 8, 16, 24, 32, 40))
    SoloSearchAgent(seed=0, samples=2).evaluate(games[0])  # load the machine code
    reps = max(int(scale), 1)
    evals = 0
    t0 = time.perf_counter()
    for _ in range(reps):
        bot = SoloSearchAgent(seed=0, samples=16)
        for g in games:
            if len(g.legal_moves()) > 1:
                evals += sum(n for _, n, _ in bot.evaluate(g))
    return {"solo-search evals/s": evals / (time.perf_counter() - t0)}


def _w_expansions(scale: float) -> dict[str, float]:
    from carcassonne_env import Rules

    bench_playouts = _speed().bench_playouts
    games = max(int(1000 * scale), 50)
    both = Rules(players=2, expansions=["inns_cathedrals", "traders_builders"])
    base_r, both_r = [], []
    for _ in range(3):  # interleaved inside the process too
        base_r.append(bench_playouts(games, 1)["playout decisions/s"])
        both_r.append(bench_playouts(games, 1, both)["playout decisions/s"])
    return {
        "expansions time ratio (per decision)": statistics.median(
            b / e for b, e in zip(base_r, both_r, strict=True)
        )
    }


# The Quick start as the README gave it at ffa028a (the same program in both trees).
QUICK_START = """
from sb3_contrib.common.maskable.utils import get_action_masks
from agents.sb3_policy import load_model
from carcassonne_env.envs import make_env_for_model
model = load_model("ppo_solo")
env = make_env_for_model(model)
obs, info = env.reset(seed=0)
done = False
while not done:
    action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
    obs, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
print("solo result:", env.unwrapped.game.result, "colour scores:", info["scores"])
"""


def _cold_command(tree: Path, measure: str) -> list[str]:
    if measure == "cold-play":
        code = "from carcassonne_env.cli import main; main(['play'])"
    elif measure == "cold-quickstart":
        code = QUICK_START
    else:
        cli = tree / "carcassonne_env" / "cli"  # a package since the command-line split
        sources = cli.glob("*.py") if cli.is_dir() else [cli.with_suffix(".py")]
        jobs = (
            ", '--jobs', '2'"
            if any("--jobs" in f.read_text(encoding="utf-8") for f in sources)
            else ""
        )
        code = f"from carcassonne_env.cli import main; main(['warmup'{jobs}])"
    return [sys.executable, "-c", code]


def run_cold(tree: Path, measure: str, scratch: Path) -> dict[str, float]:
    """CPU (user + sys, the process and its children) and wall seconds of `measure` in
    `tree` from an empty numba cache."""
    cache = scratch / f"cold_{measure}_{time.monotonic_ns()}"
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(cache),
        PYTHONPATH=str(tree),
        CARCASSONNE_NO_COMPILE_NOTICE="1",
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        _cold_command(tree, measure), cwd=tree, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(cache, ignore_errors=True)
    if out.returncode != 0:
        raise RuntimeError(f"{measure} in {tree} failed:\n{out.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    name = measure.replace("cold-", "cold ")
    result = {f"{name} CPU s": cpu}
    if measure == "cold-warmup":
        result[f"{name} wall s"] = wall
    return result


COLD = ("cold-play", "cold-quickstart", "cold-warmup")


def _w_vsbots(scale: float, threads: int | None = 1) -> dict[str, float]:
    import warnings

    VsBotsVectorEnv, vector_rate = _vsbots_vector_env(), _speed()._vector_rate
    warnings.simplefilter("ignore")  # window overflow of random play
    batches = max(int(40 * scale), 3)
    where = "" if threads == 1 else ", every core"
    out = {}
    for label, K in (("", 0), (" (candidate_moves=128)", 128)):
        env = VsBotsVectorEnv(256, opponents="random", candidate_moves=K, num_threads=threads)
        # (the same number of batches with candidates: a quarter of them, 0.2 s, gave
        # ratios 0.1 apart from run to run)
        out[f"VsBots(256) learner steps/s{where}{label}"] = vector_rate(env, batches, 1, "random")
    return out


def _w_vsbots_cores(scale: float) -> dict[str, float]:
    return _w_vsbots(scale, None)


WORKERS = {
    "playouts": _w_playouts,
    "clone": _w_clone,
    "api": _w_api,
    "mcts": _w_mcts,
    "solo": _w_solo,
    "expansions": _w_expansions,
    "vsbots": _w_vsbots,
    "vsbots-cores": _w_vsbots_cores,
}
# Measures that run on every core (the others on one thread).
ALL_CORES = {"vsbots-cores"}
# Rows where smaller is better (times).
TIMES = {
    "Game.clone() us",
    "copy_into() us",
    "copy_into() us (jitted caller)",
    "expansions time ratio (per decision)",
    "cold play CPU s",
    "cold quickstart CPU s",
    "cold warmup CPU s",
    "cold warmup wall s",
}


# ------------------------------------------------------------------------- driver


def export(rev: str, dest: Path) -> str:
    """Put revision `rev` (or the working tree for ".") into `dest`; returns a label."""
    if rev == ".":
        files = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=REPO,
            check=True,
            capture_output=True,
        ).stdout
        for name in filter(None, files.decode().split("\0")):
            src = REPO / name
            if src.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / name)
        return "working tree"
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "archive", sha], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return sha


def run_worker(tree: Path, cache: Path, measure: str, scale: float) -> dict[str, float]:
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(cache),
        PYTHONPATH=str(tree),
        NUMBA_NUM_THREADS=str(os.cpu_count() if measure in ALL_CORES else 1),
        OMP_NUM_THREADS="1",
        CARCASSONNE_NO_COMPILE_NOTICE="1",
    )
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", measure, "--scale", str(scale)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{measure} in {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev_a", nargs="?")
    ap.add_argument("rev_b", nargs="?")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--scale", type=float, default=1.0, help="work per measure (default 1)")
    ap.add_argument(
        "--measures",
        default=",".join(WORKERS),
        help=f"comma-separated subset of {','.join((*WORKERS, *COLD))} "
        "(default: the speed measures)",
    )
    ap.add_argument(
        "--workdir",
        help="keep the exported trees and their numba caches "
        "here (a later run with the same revisions skips compiling)",
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args.scale)))
        return 0
    if not (args.rev_a and args.rev_b):
        ap.error('give two revisions ("." = the working tree)')
    measures = args.measures.split(",")
    for m in measures:
        if m not in WORKERS and m not in COLD:
            ap.error(f"unknown measure {m!r}; choose from {', '.join((*WORKERS, *COLD))}")
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    with tempfile.TemporaryDirectory(prefix="compare_commits_") as tmp:
        root = Path(args.workdir).resolve() if args.workdir else Path(tmp)
        trees, labels = {}, {}
        for key, rev in (("A", args.rev_a), ("B", args.rev_b)):
            tree = root / key
            if tree.exists():  # a kept tree of an earlier run: refresh its files
                shutil.rmtree(tree)
            tree.mkdir(parents=True)
            labels[key] = export(rev, tree)
            trees[key] = (tree, root / f"cache_{key}")
        print(
            f"A = {args.rev_a} ({labels['A']}), B = {args.rev_b} ({labels['B']})", file=sys.stderr
        )
        t0 = time.perf_counter()
        for key, (tree, cache) in trees.items():  # compile into each tree's cache
            for m in measures:
                if m in COLD:
                    continue
                print(f"compiling {key}: {m}", file=sys.stderr, flush=True)
                run_worker(tree, cache, m, 0.05)
        results: dict[str, dict[str, list[float]]] = {"A": {}, "B": {}}
        for rnd in range(args.rounds):
            order = ("A", "B") if rnd % 2 == 0 else ("B", "A")
            for m in measures:
                for key in order:
                    values = (
                        run_cold(trees[key][0], m, root)
                        if m in COLD
                        else run_worker(*trees[key], m, args.scale)
                    )
                    for name, v in values.items():
                        results[key].setdefault(name, []).append(v)
            print(
                f"round {rnd + 1}/{args.rounds} done ({time.perf_counter() - t0:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    load = os.getloadavg()
    print(
        f"| measure (median of {args.rounds} alternating rounds) | A {labels['A']} "
        f"| B {labels['B']} | B / A |"
    )
    print("|---|---:|---:|---:|")
    for name, a in results["A"].items():
        b = results["B"][name]
        ma, mb = statistics.median(a), statistics.median(b)
        if name.startswith("expansions"):
            ratio = "(within tree)"
        else:
            ratio = f"{statistics.median(y / x for x, y in zip(a, b, strict=True)):.2f}"
        print(f"| {name} | {ma:,.2f} | {mb:,.2f} | {ratio} |")
    speedups = [n for n in results["A"] if n in TIMES and not n.startswith("expansions")]
    for name in speedups:
        a, b = results["A"][name], results["B"][name]
        print(
            f"| {name.replace(' us', '')} speed-up (A time / B time) | | | "
            f"{statistics.median(x / y for x, y in zip(a, b, strict=True)):.2f} |"
        )
    print(
        f"\n{os.cpu_count()} cores, Python {sys.version.split()[0]}; load average at the "
        f"end {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
