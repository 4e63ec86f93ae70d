"""MaskablePPO on the solo variant (`Carcassonne/Solo-v0`, batched by `SoloVectorEnv`).

    carcassonne train solo --quick --out runs/solo-quick       # the quick preset
    carcassonne train solo --out runs/solo                     # the full config
    carcassonne train solo --out runs/solo --resume            # continue from the last checkpoint
    carcassonne train solo --out runs/tuned --init ppo_solo_rl --policy candidates ...
    tensorboard --logdir runs/solo/tb

A run folder holds config.json, checkpoints/model_<steps>_steps.zip, tb/ (TensorBoard),
curve.csv (mean solo result of recent games per rollout) and model.zip at the end. The
model plays as a bot: ``carcassonne solo-bench --bot sb3:model=runs/solo/model.zip``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from carcassonne_env.cli_errors import run_script
from carcassonne_env.envs import SoloVectorEnv

from .callbacks import EpisodeCurve
from .cli import run_cli
from .ppo import learn, load_or_create, prepare_torch
from .run_folder import cleanup_on_failure, plan_run, record_run
from .settings import PPOSettings, require
from .shaping import ProjectedReward, ScaledReward


@dataclasses.dataclass
class SoloSettings(PPOSettings):
    """PPO settings plus the solo variant's colour count."""

    colours: int = 3
    # "score": the rise of the lowest colour's score; "projected": the rise of the lowest
    # colour's projected score (needs --obs-features aggregate; training.shaping)
    reward: str = "score"
    reward_scale: float = 1.0

    def check(self) -> None:
        super().check()
        require(self, "colours", int, lambda v: v in (3, 4), "3 or 4")
        require(self, "reward", str, lambda v: v in ("score", "projected"),
                "score or projected")
        if self.reward == "projected" and self.obs_features != "aggregate":
            raise ValueError("--reward projected needs --obs-features aggregate (the "
                             "projected scores are in that observation)")
        require(self, "reward_scale", float, lambda v: v > 0, "a number > 0")


# --quick is the first 500k steps of the full run: same settings, smaller budget.
_SOLO = {"n_envs": 32, "n_steps": 64, "batch_size": 256, "n_epochs": 2,
         "learning_rate": 1e-3, "channels": 32, "blocks": 2}
PRESETS = {
    "quick": {**_SOLO, "total_timesteps": 500_000, "checkpoint_every": 100_000},
    "full": {**_SOLO, "total_timesteps": 1_000_000, "checkpoint_every": 100_000},
}


def solo_result(info: dict) -> float | None:
    """The finished game's result (lowest colour's score); None after an illegal action."""
    return float(info["result"]) if "result" in info else None


def make_env(settings: SoloSettings) -> VecMonitor:
    """The vector env as SB3 sees it (one numba thread: PyTorch has the cores). A game
    whose every legal move lies outside the window is cut short (truncated, its value
    bootstrapped; no "result" in the curve) instead of stopping the run."""
    venv = SoloVectorEnv(settings.n_envs, colours=settings.colours,
                         board_size=settings.board_size, num_threads=1,
                         on_overflow="truncate", **settings.env_options())
    sb3 = venv.to_sb3()
    if settings.reward == "projected":
        return VecMonitor(ProjectedReward(sb3, venv.encoder.feature_names, settings.colours,
                                          potential="lowest", scale=settings.reward_scale))
    return VecMonitor(ScaledReward(sb3, settings.reward_scale))


def train(settings: SoloSettings, out: Path, resume: bool = False, progress: bool = True,
          changes: dict[str, Any] | None = None, overwrite: bool = False) -> MaskablePPO:
    """Train a solo run in folder `out` (`overwrite`: replacing the run there), or
    continue it from its furthest saved model (`resume`, with `changes` such as a larger
    total_timesteps: see `run_folder.plan_run`); returns the model."""
    settings = plan_run(out, settings, resume, changes, overwrite)
    prepare_torch(settings)
    model = load_or_create(settings, make_env(settings), out, resume)
    model.carcassonne_solo = True  # saved: tells 3 colours from 3 players (for_model.py)
    with cleanup_on_failure(out, new_run=not resume, model=model):
        record_run(out, settings, resume, overwrite)
        curve = EpisodeCurve(out, {"result": solo_result})
        return learn(model, settings, out, curve, progress=progress)


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    return run_cli("carcassonne train solo", __doc__, SoloSettings, PRESETS, train, argv)


if __name__ == "__main__":
    raise SystemExit(run_script(main))
