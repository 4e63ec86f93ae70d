"""PPO training speed: environment steps per wall-clock second of `model.learn`
(rollouts and updates together) for named recipes, side by side in one run: every
repeat times each recipe once, in turn, so a machine that gets busier slows them alike.
Prints a markdown table (host, date, the median of each recipe and its ratio to the
first recipe named).

    python benchmarks/bench_ppo.py                        # 6db3797-recipe,default,solo
    python benchmarks/bench_ppo.py --recipes 6db3797-recipe,default --repeats 7
    python benchmarks/bench_ppo.py --recipes preset:solo,preset:multi --set n_epochs=2

Recipes (all on this tree's code):

- ``6db3797-recipe``: the README's Python recipe exactly as commit 6db3797 had it:
  `MaskablePPO` with `CandidatePolicy` (hidden 64), 32 games (16 against greedy, 16
  against the heuristic, projected reward), n_steps 64, batch 256, 4 epochs, one torch
  thread and one env thread, `CompactMaskableDictRolloutBuffer` without
  ``pack_candidates``. It is a row of settings, not 6db3797's code: its buffer and
  policy are today's (the buffer's minibatches come out of tensors made once per
  rollout, which 6db3797's did not do: the ratios understate the gain;
  ``benchmarks/compare_commits.py`` compares code);
- ``default``: the same games with the default learner (`training.learner`:
  `ThreadedMaskablePPO`, packed candidate rows, `LEARNER_SETTINGS`: 128 games, n_steps
  16, batch 512, 2 epochs, updates on 2 threads, the envs on 2 threads);
- ``solo``: the solo variant (3 colours, board 16, projected lowest-colour reward) with
  the default learner;
- ``preset:solo``, ``preset:multi``: a trainer's preset as ``carcassonne train solo`` or
  ``train multi`` builds it (``--preset NAME`` picks one of the trainer's presets,
  ``--set KEY=VALUE`` changes a setting).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import os
import platform
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from carcassonne_env.encoding import WindowOverflowWarning
from carcassonne_env.envs import SoloVectorEnv, VsBotsVectorEnv
from training import train_multi, train_solo
from training.buffers import CompactMaskableDictRolloutBuffer
from training.league import JoinedVecEnv
from training.learner import LEARNER_SETTINGS, ThreadedMaskablePPO
from training.policy import CandidatePolicy
from training.ppo import new_model, prepare_torch
from training.shaping import ProjectedReward

OPTIONS = dict(obs_features="aggregate", candidate_moves=128, on_overflow="truncate")
PPO_ARGS = dict(learning_rate=1e-3, ent_coef=0.0, gamma=0.97, gae_lambda=0.8, seed=0, device="cpu")


def duel_env(n_envs: int, threads: int) -> VecEnv:
    """The README recipe's games: half against greedy, half against the heuristic,
    projected margin reward."""
    groups = [
        (
            bot,
            VsBotsVectorEnv(
                n_envs // 2, opponents=bot, board_size=20, num_threads=threads, **OPTIONS
            ),
        )
        for bot in ("greedy", "heuristic")
    ]
    names = groups[0][1].encoder.feature_names
    return VecMonitor(ProjectedReward(JoinedVecEnv(groups), names, seats=2, scale=0.1))


def solo_env(n_envs: int, threads: int) -> VecEnv:
    """Solo games, 3 colours, the lowest colour's projected score as reward."""
    venv = SoloVectorEnv(n_envs, colours=3, board_size=16, num_threads=threads, **OPTIONS)
    return VecMonitor(
        ProjectedReward(
            venv.to_sb3(), venv.encoder.feature_names, seats=3, potential="lowest", scale=0.1
        )
    )


def old_recipe() -> tuple[MaskablePPO, int]:
    """6db3797's README recipe (see the module docstring); returns (model, threads)."""
    model = MaskablePPO(
        CandidatePolicy,
        duel_env(32, 1),
        policy_kwargs={"hidden": 64},
        n_steps=64,
        batch_size=256,
        n_epochs=4,
        rollout_buffer_class=CompactMaskableDictRolloutBuffer,
        **PPO_ARGS,
    )
    return model, 1


def default_recipe(env: Callable[[int, int], VecEnv]) -> Callable[[], tuple[Any, int]]:
    """The default learner (`LEARNER_SETTINGS`) on the games `env(n_envs, threads)`
    makes."""

    def build() -> tuple[Any, int]:
        s = LEARNER_SETTINGS
        model = ThreadedMaskablePPO(
            CandidatePolicy,
            env(s["n_envs"], s["torch_threads"]),
            threads=s["torch_threads"],
            policy_kwargs={"hidden": s["hidden"]},
            n_steps=s["n_steps"],
            batch_size=s["batch_size"],
            n_epochs=s["n_epochs"],
            **PPO_ARGS,
        )
        return model, 1  # (its phases set torch's threads themselves)

    return build


def preset_recipe(
    task: str, preset: str | None, changes: dict[str, Any], folder: Path
) -> Callable[[], tuple[Any, int]]:
    """A trainer's preset (None: its first, the default recipe) as its command builds it
    (envs, league, model)."""

    def build() -> tuple[Any, int]:
        module = train_solo if task == "solo" else train_multi
        cls = train_solo.SoloSettings if task == "solo" else train_multi.MultiSettings
        chosen = next(iter(module.PRESETS)) if preset is None else preset
        if chosen not in module.PRESETS:
            raise ValueError(
                f"--preset: {task} has no preset {chosen!r}; its presets: "
                f"{', '.join(module.PRESETS)}"
            )
        settings = cls(**{**module.PRESETS[chosen], **changes})
        settings.check()
        prepare_torch(settings)
        league = None
        if task == "solo":
            venv = train_solo.make_env(settings)
        elif settings.env == "batched":
            venv, league = train_multi.make_batched_env(settings)
        else:
            pool = train_multi.OpponentPool(
                settings.bots.split(","), settings.bot_share, settings.pool_size
            )
            venv = train_multi.make_env(settings, pool)
        model = new_model(settings, venv, folder / task)
        if league is not None:
            league.add("snapshot_0", model.policy)
        return model, settings.torch_threads

    return build


def what(model: Any, threads: int) -> str:
    """The settings column of a recipe's row (threads: the learner's, else torch's)."""
    packed = getattr(model.rollout_buffer, "pack_candidates", False)
    return (
        f"{type(model).__name__}, {model.n_envs} games x {model.n_steps} steps, batch "
        f"{model.batch_size}, {model.n_epochs} epochs, "
        f"{getattr(model, 'threads', threads)} thread(s), "
        f"{'packed' if packed else 'dense'} rows"
    )


def host() -> str:
    """The CPU model and core count (what the figures depend on)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            )
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    return f"{model}, {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    """Time the recipes `argv` names (default: the process's arguments); print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--recipes",
        default="6db3797-recipe,default,solo",
        help="comma-separated recipes; ratios are to the first (default: %(default)s)",
    )
    parser.add_argument(
        "--steps", type=int, default=16_384, help="timesteps per timing (default: %(default)s)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="timings of each recipe, alternating (default: %(default)s)",
    )
    parser.add_argument(
        "--preset",
        default=None,
        help="the trainers' preset of the preset:... recipes (default: each "
        "trainer's default recipe)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a setting of the preset:... recipes (repeatable)",
    )
    args = parser.parse_args(argv)
    changes = {k: ast.literal_eval(v) for k, _, v in (s.partition("=") for s in args.set)}
    warnings.simplefilter("ignore", WindowOverflowWarning)
    with tempfile.TemporaryDirectory() as tmp:
        builders: dict[str, Callable[[], tuple[Any, int]]] = {
            "6db3797-recipe": old_recipe,
            "default": default_recipe(duel_env),
            "solo": default_recipe(solo_env),
            "preset:solo": preset_recipe("solo", args.preset, changes, Path(tmp)),
            "preset:multi": preset_recipe("multi", args.preset, changes, Path(tmp)),
        }
        names = args.recipes.split(",")
        unknown = [n for n in names if n not in builders]
        if unknown:
            parser.error(f"unknown recipes {unknown}; known: {', '.join(builders)}")
        load = os.getloadavg()[0]
        rows = {name: Timed(name, *builders[name]()) for name in names}
        for timed in rows.values():
            timed.run(timed.model.n_envs * timed.model.n_steps)  # compile, allocate
        for _ in range(args.repeats):
            for timed in rows.values():
                timed.rates.append(args.steps / timed.run(args.steps))
    base = statistics.median(rows[names[0]].rates)
    print(
        f"{host()}, {datetime.date.today()}, torch {torch.__version__}, load average "
        f"{load:.2f} at the start; {args.steps:,} steps per timing, {args.repeats} "
        "alternating repeats\n"
    )
    print("| recipe | settings | steps/s (median) | vs " + names[0] + " | repeats |")
    print("|---|---|---:|---:|---|")
    for name, timed in rows.items():
        median = statistics.median(timed.rates)
        shown = ", ".join(f"{r:,.0f}" for r in timed.rates)
        print(
            f"| {name} | {what(timed.model, timed.threads)} | {median:,.0f} | "
            f"{median / base:.2f}x | {shown} |"
        )
    return 0


@dataclasses.dataclass
class Timed:
    """A recipe's model, the torch threads it runs with, its rates so far."""

    name: str
    model: Any
    threads: int
    rates: list[float] = dataclasses.field(default_factory=list)

    def run(self, steps: int) -> float:
        """Seconds of `model.learn(steps)` (torch at the recipe's thread count)."""
        torch.set_num_threads(self.threads)
        start = time.perf_counter()
        self.model.learn(steps, reset_num_timesteps=False)
        return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
