"""MaskablePPO on the solo variant (`Carcassonne/Solo-v0`, batched by `SoloVectorEnv`).

    carcassonne train solo --out runs/solo --minutes 15        # the default recipe, 15 min
    carcassonne train solo --out runs/solo --resume --minutes 15   # 15 minutes more
    carcassonne train solo --out runs/solo                     # to its step target
    carcassonne train solo --preset board --out runs/board     # the board planes
    carcassonne train solo --out runs/tuned --init ppo_solo_rl --learning-rate 2e-4
    tensorboard --logdir runs/solo/tb

The default recipe (preset "candidates") learns by RL alone over the candidate moves,
rewarded by the rise of the lowest colour's projected score: ppo_solo_rl_3m's, the start
of ppo_solo_rl (``carcassonne train card ppo_solo_rl_3m``).

A run folder holds config.json, checkpoints/model_<steps>_steps.zip, tb/ (TensorBoard),
curve.csv (mean solo result of recent games per rollout) and model.zip at the end; a
--minutes run adds curve.png and its evaluation (evaluation.json, evaluation.md). The
model plays as a bot: ``carcassonne solo-bench --bot sb3:model=runs/solo/model.zip``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor

from carcassonne_env.cli_errors import run_script
from carcassonne_env.envs import SoloVectorEnv
from carcassonne_env.model_file import mark_solo

from .callbacks import EpisodeCurve
from .cli import run_cli
from .ppo import learn, load_or_create, prepare_torch
from .run_folder import Session, SessionOptions, cleanup_on_failure, plan_run, record_run
from .settings import PPOSettings, require, setting
from .shaping import ProjectedReward, ScaledReward

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclasses.dataclass
class SoloSettings(PPOSettings):
    """PPO settings plus the solo variant's colour count."""

    colours: int = setting(3, "colours of the solo variant: 3 or 4")
    reward: str = setting(
        "score",
        "score: the rise of the lowest colour's score; "
        "projected: the rise of its projected score (needs "
        "--obs-features aggregate; training.shaping)",
    )
    reward_scale: float = setting(1.0, "the rewards are multiplied by this")

    def check(self) -> None:
        super().check()
        require(self, "colours", int, lambda v: v in (3, 4), "3 or 4")
        require(self, "reward", str, lambda v: v in ("score", "projected"), "score or projected")
        if self.reward == "projected" and self.obs_features != "aggregate":
            raise ValueError(
                "--reward projected needs --obs-features aggregate (the "
                "projected scores are in that observation)"
            )
        require(self, "reward_scale", float, lambda v: v > 0, "a number > 0")


# The recipes (--preset NAME; the first is the default), each the settings it takes from
# SoloSettings' defaults: the one place a recipe is set. "candidates": ppo_solo_rl_3m's
# (see the module docstring); "board": the board planes (BoardPolicy), 1M steps;
# "board-quick": its first 500k steps.
_BOARD = {
    "n_envs": 32,
    "n_steps": 64,
    "batch_size": 256,
    "n_epochs": 2,
    "learning_rate": 1e-3,
    "channels": 32,
    "blocks": 2,
    "checkpoint_every": 100_000,
}
PRESETS: dict[str, dict[str, Any]] = {
    "candidates": {
        "policy": "candidates",
        "hidden": 128,
        "obs_features": "aggregate",
        "reward": "projected",
        "reward_scale": 0.1,
        "board_size": 16,
        "n_envs": 32,
        "n_steps": 128,
        "batch_size": 512,
        "n_epochs": 4,
        "learning_rate": 5e-4,
        "ent_coef": 0.0,
        "gamma": 0.99,
        "gae_lambda": 0.9,
        "torch_threads": 2,
        "total_timesteps": 3_000_000,
        "checkpoint_every": 100_000,
    },
    "board": {**_BOARD, "total_timesteps": 1_000_000},
    "board-quick": {**_BOARD, "total_timesteps": 500_000},
}


def solo_result(info: dict) -> float | None:
    """The finished game's result (lowest colour's score); None after an illegal action."""
    return float(info["result"]) if "result" in info else None


def make_env(settings: SoloSettings) -> VecMonitor:
    """The vector env as SB3 sees it (the games on torch_threads threads, as the learner's
    network passes: `training.learner`). A game
    whose every legal move lies outside the window is cut short (truncated, its value
    bootstrapped; no "result" in the curve) instead of stopping the run."""
    venv = SoloVectorEnv(
        settings.n_envs,
        colours=settings.colours,
        board_size=settings.board_size,
        num_threads=settings.torch_threads,
        on_overflow="truncate",
        **settings.env_options(),
    )
    sb3 = venv.to_sb3()
    if settings.reward == "projected":
        return VecMonitor(
            ProjectedReward(
                sb3,
                venv.encoder.feature_names,
                settings.colours,
                potential="lowest",
                scale=settings.reward_scale,
            )
        )
    return VecMonitor(ScaledReward(sb3, settings.reward_scale))


def train(
    settings: SoloSettings,
    out: Path,
    callbacks: Sequence[BaseCallback] = (),
    **options: Unpack[SessionOptions],
) -> MaskablePPO:
    """Train a solo run in folder `out`, a new one or the one there continued, as
    the `options` say (`run_folder.Session`: resume, changes, overwrite, progress,
    budget); returns the model. `callbacks`: more SB3 callbacks for `learn`."""
    session = Session(**options)
    settings = plan_run(out, settings, session)
    prepare_torch(settings)
    model = load_or_create(settings, make_env(settings), out, session.resume)
    mark_solo(model, True)
    with cleanup_on_failure(out, new_run=not session.resume, model=model):
        record_run(out, settings, session)
        curve = EpisodeCurve(out, {"result": solo_result})
        return learn(model, settings, out, curve, session, callbacks)


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    return run_cli(
        "carcassonne train solo",
        __doc__,
        SoloSettings,
        PRESETS,
        train,
        argv,
        target="total_timesteps",
    )


if __name__ == "__main__":
    raise SystemExit(run_script(main))
