"""Where the jitted code spends its time: a `perf` profile with numba's functions named.

    python benchmarks/profile_jitted.py candidates            # the candidate-move pass
    python benchmarks/profile_jitted.py playouts --expansions # random playouts, both expansions
    python benchmarks/profile_jitted.py vsbots --seconds 20   # VsBotsVectorEnv(256), candidates

Linux only; needs `perf` (Debian: linux-perf) allowed to watch this process. numba's
machine code has no symbols `perf` can see: this script compiles the workload afresh (an
empty numba cache in a temporary folder, so the compiled modules are in memory), writes
the address of every function that survived LLVM's inlining to /tmp/perf-PID.map (perf's
map for JIT code), records the workload for a few seconds and prints the functions' shares
of the samples. A function inlined into its caller counts as the caller.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any


def short_name(symbol: str) -> str:
    """module.function of a numba symbol (`_ZN15carcassonne_env4core5board10place_tileB3v...`
    -> `board.place_tile`); other symbols unchanged."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while (m := re.match(r"\d+", symbol[i:])) is not None:
        length = int(m.group())
        start = i + len(m.group())
        parts.append(symbol[start : start + length])
        i = start + length
    return ".".join(parts[-2:]) or symbol


def write_perf_map(dispatchers: list[Any], path: str) -> int:
    """Write the address and size of every function compiled for `dispatchers` (and
    linked into them) to `path` in perf's map format; returns how many. Only code
    compiled in this process has its module (one loaded from numba's cache has not)."""
    found = {}
    for dispatcher in dispatchers:
        for cres in dispatcher.overloads.values():
            module = getattr(cres.library, "_final_module", None)
            for fn in module.functions if module is not None else ():
                if not fn.is_declaration:
                    address = cres.library.get_pointer_to_function(fn.name)
                    if address:
                        found[address] = fn.name
    addresses = sorted(found)
    if not addresses:
        return 0
    with open(path, "w") as out:
        for a, b in zip(addresses, addresses[1:] + [addresses[-1] + 4096], strict=True):
            out.write(f"{a:x} {b - a:x} {found[a]}\n")
    return len(addresses)


def candidates_workload() -> tuple[list[Any], Callable[[], None]]:
    """The candidate pass (`candidates_from_rows`) over positions of 6 random games."""
    from numba import njit

    from carcassonne_env import Game, Rules
    from carcassonne_env.core.candidates import candidates_from_rows
    from carcassonne_env.core.planes import Window, window_origin
    from carcassonne_env.core.turn import legal_moves
    from carcassonne_env.encoding import Encoder

    @njit
    def passes(st, tb, rows, n, B, SL, observer, cand, obs, reps):
        x0, y0 = window_origin(st, B)
        total = 0
        for _ in range(reps):
            total += candidates_from_rows(
                st,
                tb,
                rows,
                n,
                Window(x0, y0, B, SL),
                observer,
                cand,
                obs.cand_feats,
                obs.cand_actions,
            )
        return total

    rules = Rules(players=2)
    encoder = Encoder(rules, 32, "turn", "warn", candidate_moves=128)
    positions = []
    for seed in range(6):
        game, rng = Game(rules, seed=seed), random.Random(seed)
        while not game.done:
            positions.append(game.clone())
            game.play(rng.choice(game.legal_moves()))
    scratch, obs = encoder.observation_buffers(positions[0].state)
    rows = scratch.rows

    def run() -> None:
        for game in positions[::4]:
            st, tb = game.state, game.tileset.tables
            n = legal_moves(st, tb, rows)
            passes(st, tb, rows, n, 32, encoder.slots, int(st.seat), scratch.cand, obs, 20)

    return [passes], run


def playouts_workload(expansions: bool) -> tuple[list[Any], Callable[[], None]]:
    """Random playouts (`random_games`), base game or both expansions."""
    from carcassonne_env import Rules
    from carcassonne_env.core.playout import random_games
    from carcassonne_env.speed import bench_playouts

    rules = (
        Rules(players=2, expansions=["inns_cathedrals", "traders_builders"]) if expansions else None
    )
    return [random_games], lambda: bench_playouts(200, 1, rules)


def vsbots_workload() -> tuple[list[Any], Callable[[], None]]:
    """`VsBotsVectorEnv(256)` with 128 candidate moves against random bots; the learner
    plays a random one of its candidate moves (cheaper to pick than from the mask)."""
    import warnings

    import numpy as np

    from carcassonne_env.envs import VsBotsVectorEnv
    from carcassonne_env.envs import vector_kernels as kernels

    warnings.simplefilter("ignore")
    env = VsBotsVectorEnv(256, opponents="random", num_threads=1, candidate_moves=128)
    rng = np.random.default_rng(0)
    state = {"obs": env.reset(seed=0)[0]}

    def run() -> None:
        for _ in range(10):
            moves = state["obs"]["candidate_actions"]
            count = np.maximum((moves >= 0).sum(axis=1), 1)
            pick = (rng.random(len(count)) * count).astype(np.int64)
            state["obs"] = env.step(moves[np.arange(len(count)), pick])[0]

    dispatchers = [d for d in vars(kernels).values() if hasattr(d, "overloads")]
    return dispatchers, run


def main(argv: list[str] | None = None) -> int:
    """Profile one workload and print its functions' shares of the samples."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("workload", choices=("candidates", "playouts", "vsbots"))
    parser.add_argument(
        "--expansions",
        action="store_true",
        help="playouts: both expansions (default: the base game)",
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="recording time")
    parser.add_argument("--top", type=int, default=30, help="functions to list")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["NUMBA_CACHE_DIR"] = cache  # compile here: the modules stay in memory
        os.environ.setdefault("CARCASSONNE_NO_COMPILE_NOTICE", "1")
        make = {
            "candidates": candidates_workload,
            "vsbots": vsbots_workload,
            "playouts": lambda: playouts_workload(args.expansions),
        }[args.workload]
        dispatchers, run = make()
        run()  # compile
        mapped = write_perf_map(dispatchers, f"/tmp/perf-{os.getpid()}.map")
        if not mapped:
            sys.exit("no compiled module in memory to map (the workload's code came from a cache)")
        data = os.path.join(cache, "perf.data")
        recorder = subprocess.Popen(
            [
                "perf",
                "record",
                "-q",
                "-F",
                "2000",
                "-p",
                str(os.getpid()),
                "-o",
                data,
                "--",
                "sleep",
                str(args.seconds),
            ],
            stdout=subprocess.DEVNULL,
        )
        time.sleep(0.5)  # (perf attaches)
        end = time.monotonic() + args.seconds
        while time.monotonic() < end and recorder.poll() is None:
            run()
        if recorder.wait() != 0:
            sys.exit("perf record failed (installed? allowed: kernel.perf_event_paranoid)")
        report = subprocess.run(
            ["perf", "report", "-i", data, "--stdio", "--sort", "sym"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    print(f"{args.workload}: {mapped} jitted functions mapped; share of samples:")
    lines = [
        line.split() for line in report.splitlines() if line.strip() and not line.startswith("#")
    ]
    for share, _, symbol, *_ in lines[: args.top]:
        print(f"{share:>8}  {short_name(symbol)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
