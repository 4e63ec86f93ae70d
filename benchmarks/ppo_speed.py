"""PPO training throughput: environment steps per wall-clock second of `model.learn`
(rollouts and updates together) with the default `BoardPolicy`, for the solo preset
(vector env), the 2-player self-play preset (Python envs, bots as opponents) and the
same with the batched env (``multi-batched``: `train multi --env batched`, jitted bots
and a league of snapshots). Prints a markdown table of medians over repeats (the figure
in the README).

    python benchmarks/ppo_speed.py --repeats 3
    python benchmarks/ppo_speed.py --tasks multi-batched --set obs_features="'aggregate'"
    python benchmarks/ppo_speed.py --set n_epochs=4 --set channels=16   # other settings
    python benchmarks/ppo_speed.py --tasks multi-batched --set policy="'candidates'" \
        --set hidden=64                          # CandidatePolicy on candidate moves
"""

from __future__ import annotations

import argparse
import ast
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from carcassonne_env.encoding import WindowOverflowWarning
from training import train_multi, train_solo
from training.ppo import new_model, prepare_torch


def steps_per_second(task: str, changes: dict, steps: int, repeats: int) -> list[float]:
    """`repeats` timings of learn(steps) after one warm-up rollout, in steps/s."""
    module = train_solo if task == "solo" else train_multi
    cls = train_solo.SoloSettings if task == "solo" else train_multi.MultiSettings
    if task == "multi-batched":
        changes = {"env": "batched", **changes}
    settings = cls(**{**module.PRESETS["full"], **changes})
    prepare_torch(settings)
    league = None
    if task == "solo":
        venv = train_solo.make_env(settings)
    elif settings.env == "batched":
        venv, league = train_multi.make_batched_env(settings)
    else:
        pool = train_multi.OpponentPool(settings.bots.split(","), settings.bot_share,
                                        settings.pool_size)
        venv = train_multi.make_env(settings, pool)
    with tempfile.TemporaryDirectory() as tmp:
        model = new_model(settings, venv, Path(tmp))
        if league is not None:
            league.add("snapshot_0", model.policy)
        model.learn(settings.n_envs * settings.n_steps)  # compile, allocate
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()
            model.learn(steps, reset_num_timesteps=False)
            rates.append(steps / (time.perf_counter() - start))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=16384, help="timesteps per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", default="solo,multi,multi-batched")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="change a preset setting (repeatable)")
    args = parser.parse_args()
    changes = {k: ast.literal_eval(v) for k, _, v in (s.partition("=") for s in args.set)}
    warnings.simplefilter("ignore", WindowOverflowWarning)
    print("| task | settings | steps/s (median) | repeats |")
    print("|---|---|---:|---|")
    for task in args.tasks.split(","):
        rates = steps_per_second(task, changes, args.steps, args.repeats)
        shown = ", ".join(f"{r:,.0f}" for r in rates)
        what = ", ".join(f"{k}={v}" for k, v in changes.items()) or "preset"
        print(f"| {task} | {what} | {statistics.median(rates):,.0f} | {shown} |")


if __name__ == "__main__":
    main()
