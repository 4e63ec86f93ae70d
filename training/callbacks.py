"""The Stable-Baselines3 callbacks of the PPO trainers: a progress bar, checkpoints, the
learning curve (curve.csv and TensorBoard) and the wall-clock budget of a --minutes run
(`TimeBudget`, `StopOnTime`)."""

from __future__ import annotations

import dataclasses
import time
import zipfile
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from tqdm.auto import tqdm

from carcassonne_env.model_file import is_slim, save_model, slim_model_file

from .curves import append_row, continue_curve
from .run_folder import CHECKPOINTS, CURVE_FILE, Session, checkpoint_path
from .settings import PPOSettings

P = TypeVar("P", bound=PPOSettings)
# The step target `learn` gets in a run without one (total_timesteps 0): its time stops it.
NO_STEP_TARGET = 10**15


@dataclasses.dataclass
class TimeBudget:
    """A run's wall-clock budget: `minutes` from `start` (a `time.monotonic()` reading;
    default: when the budget is made), of which the last `reserve_s` seconds are kept for
    what follows the training (saving, the final evaluation, the curve's plot)."""

    minutes: float
    reserve_s: float = 0.0
    start: float = dataclasses.field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        """Seconds since `start`."""
        return time.monotonic() - self.start

    def training_left(self) -> float:
        """Seconds left to train (negative once they are spent)."""
        return self.minutes * 60 - self.reserve_s - self.elapsed()


class StopOnTime(BaseCallback):
    """Stops `learn` at its first step after the budget's training time is spent (SB3
    drops the rollout cut short), but never before this session's first rollout has been
    trained on: every run leaves an update and a curve row."""

    def __init__(self, budget: TimeBudget) -> None:
        super().__init__()
        self.budget = budget
        self.rollouts = 0

    def _on_rollout_end(self) -> None:
        self.rollouts += 1

    def _on_step(self) -> bool:
        return self.rollouts == 0 or self.budget.training_left() > 0


def budget_session(
    settings: P, session: Session, done: int, describe: Callable[[], str]
) -> tuple[P, list[BaseCallback]]:
    """What `training.ppo.learn` trains with in a `session` under its budget (if any):
    the settings with a step target (`NO_STEP_TARGET` for a run without one)
    and the callbacks that stop it on time and, with the session's progress bars, show
    the time left (`learn`'s own bar is then left out). `done`: the timesteps the model
    has done."""
    budget = session.budget
    if budget is None:
        return settings, []
    total = settings.total_timesteps
    targets = dataclasses.replace(settings, total_timesteps=total or NO_STEP_TARGET)
    callbacks: list[BaseCallback] = [StopOnTime(budget)]
    if session.progress:
        callbacks.append(ProgressBar(total or None, done, describe, budget))
    return targets, callbacks


class ProgressBar(BaseCallback):
    """tqdm bar over the run's timesteps (a resumed run starts at those done; `total`
    None: a run without a step target), with the latest curve metric and, under a
    `budget`, the training time left."""

    def __init__(
        self,
        total: int | None,
        done: int,
        describe: Callable[[], str],
        budget: TimeBudget | None = None,
    ) -> None:
        super().__init__()
        self.total, self.done, self.describe, self.budget = total, done, describe, budget
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total, initial=self.done, unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        if self.bar is not None:
            left = (
                f" {max(0.0, self.budget.training_left()) / 60:.1f} min left"
                if self.budget is not None
                else ""
            )
            self.bar.set_postfix_str(self.describe() + left)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


def save_checkpoint(model: Any, run_dir: Path) -> Path:
    """Save `model` as run_dir/checkpoints/model_<timesteps>_steps.zip with its
    description (`carcassonne_env.model_file.save_model`): the newest checkpoint whole, as
    --resume needs it (the optimizer's state, the last observations), and the older ones
    of the folder slim (`slim_model_file`: a fraction of the size, they play alike).
    Returns its path."""
    path = checkpoint_path(run_dir, model.num_timesteps)
    save_model(model, path)
    for older in (run_dir / CHECKPOINTS).glob("model_*_steps.zip"):
        try:
            if older != path and not is_slim(older):
                slim_model_file(older)
        except (zipfile.BadZipFile, KeyError, ValueError):  # a torn file: resume skips it
            continue
    return path


class Checkpoints(BaseCallback):
    """Every `every` steps of the vector env (every x n_envs timesteps) the model is saved
    as the run's newest checkpoint (`save_checkpoint`)."""

    def __init__(self, every: int, run_dir: Path) -> None:
        super().__init__()
        self.every, self.run_dir = every, run_dir

    def _init_callback(self) -> None:
        (self.run_dir / CHECKPOINTS).mkdir(parents=True, exist_ok=True)

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            save_checkpoint(self.model, self.run_dir)
        return True


class EpisodeCurve(BaseCallback):
    """Collects one number per finished episode from the infos (`metric(info)`, None to
    skip), logs their recent mean to TensorBoard and appends a row per rollout to
    run_dir/curve.csv: timesteps, wall seconds, episodes, mean of the last `window`.
    A resumed run's wall clock counts on from curve.csv's last kept row, or from
    `wall_floor` (seconds) if that is later: another file of the run may have recorded
    work done after that row (a gate and panel of `train multi --gate-every`)."""

    def __init__(
        self,
        run_dir: Path,
        metrics: dict[str, Callable[[dict], float | None]],
        window: int = 200,
        wall_floor: float = 0.0,
    ) -> None:
        super().__init__()
        self.path = run_dir / CURVE_FILE
        self.metrics, self.wall_floor = metrics, wall_floor
        self.columns = ["timesteps", "wall_s", "episodes", *metrics]
        self.recent: dict[str, deque[float]] = {k: deque(maxlen=window) for k in metrics}
        self.episodes = 0
        self.wall0 = 0.0

    def _on_training_start(self) -> None:
        self.wall0 = time.perf_counter() - max(self._continue_file(), self.wall_floor)

    def _continue_file(self) -> float:
        """Start curve.csv or keep its rows up to the (resumed) model's timesteps;
        returns the wall time so far."""
        self.episodes, wall = continue_curve(self.path, self.columns, self.num_timesteps)
        return wall

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done:
                self.episodes += 1
                for key, metric in self.metrics.items():
                    value = metric(info)
                    if value is not None:
                        self.recent[key].append(value)
        return True

    def means(self) -> dict[str, float]:
        """The mean of each recorded quantity over the last `window` episodes."""
        return {k: float(np.mean(v)) for k, v in self.recent.items() if v}

    def describe(self) -> str:
        """The means as the progress bar shows them ("result=8.12 ...")."""
        return " ".join(f"{k}={v:.2f}" for k, v in self.means().items())

    def _on_rollout_end(self) -> None:
        means = self.means()
        for key, value in means.items():
            self.logger.record(f"curve/{key}", value)
        append_row(
            self.path,
            self.columns,
            {
                "timesteps": self.num_timesteps,
                "wall_s": round(time.perf_counter() - self.wall0, 1),
                "episodes": self.episodes,
                **{k: round(means.get(k, float("nan")), 3) for k in self.metrics},
            },
        )
