"""The speed targets of the project's own measures (internal: `carcassonne bench` prints
the measures alone), and their comparison with a run of the benchmark.

    python benchmarks/targets.py [carcassonne bench options]   # e.g. --quick, --only api

runs `carcassonne bench` with the options given, then prints each measure that has a
target beside it: the ratio value / target and whether it is met (the direction of each
measure, "higher is better" or "lower is better", from `carcassonne_env.speed.describe`).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from carcassonne_env.speed import LOWER, describe

#: Measure (a key of `run_benchmarks`' results) -> its target.
TARGETS: dict[str, float] = {
    "playout games/s": 10_000,
    "API decisions/s": 20_000,
    "warm start s": 3.0,
    "AEC env steps/s": 20_000,
    "Solo-v0 env steps/s": 20_000,
    "vector env steps/s (N=64)": 100_000,
    "vector env steps/s (N=256)": 100_000,
    # VsBots vector env (2 players) beside SoloVectorEnv, one run
    "VsBots vector steps/s (N=256, random)": 50_000,
    "VsBots/solo ratio (random)": 0.45,
    # the expansions within 1.5x of the base game (per decision / env step)
    **{
        f"{measure} ratio to base ({label})": round(1 / 1.5, 2)
        for measure in ("playout decisions", "AEC env steps")
        for label in ("Inns & Cathedrals", "both expansions", "both, tiles only")
    },
}


def target_table(results: dict[str, float]) -> str:
    """The measures of `results` that have a target: measure, value, target, value /
    target and whether the target is met, as a markdown table."""
    lines = ["| measure | value | target | ratio | met |", "|---|---:|---:|---:|---|"]
    for key, value in results.items():
        target = TARGETS.get(key)
        if target is None:
            continue
        met = value <= target if describe(key)[2] == LOWER else value >= target
        lines.append(
            f"| {key} | {value:,.2f} | {target:,} | {value / target:.2f} | "
            f"{'yes' if met else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run `carcassonne bench` with `argv` (default: the process's) and print the targets'
    table after its own; returns the exit status."""
    from carcassonne_env.cli import build_parser
    from carcassonne_env.cli.bench import bench_settings
    from carcassonne_env.speed import run_benchmarks

    args = build_parser().parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    results = run_benchmarks(**bench_settings(args))
    print()
    print(target_table(results), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
