"""The Stable-Baselines3 callbacks of the PPO trainers: a progress bar, checkpoints and
the learning curve (curve.csv and TensorBoard)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from tqdm.auto import tqdm

from carcassonne_env.model_file import save_model

from .curves import append_row, continue_curve
from .run_folder import CHECKPOINTS, CURVE_FILE, checkpoint_path


class ProgressBar(BaseCallback):
    """tqdm bar over the run's timesteps (a resumed run starts at those done), with the
    latest curve metric."""

    def __init__(self, total: int, done: int, describe: Callable[[], str]) -> None:
        super().__init__()
        self.total, self.done, self.describe = total, done, describe
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total, initial=self.done, unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        self.bar.set_postfix_str(self.describe())

    def _on_training_end(self) -> None:
        self.bar.close()


class Checkpoints(BaseCallback):
    """Every `every` steps of the vector env (every x n_envs timesteps) the model is saved
    as run_dir/checkpoints/model_<timesteps>_steps.zip, whole and with its description
    (`carcassonne_env.model_file.save_model`)."""

    def __init__(self, every: int, run_dir: Path) -> None:
        super().__init__()
        self.every, self.run_dir = every, run_dir

    def _init_callback(self) -> None:
        (self.run_dir / CHECKPOINTS).mkdir(parents=True, exist_ok=True)

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            save_model(self.model, checkpoint_path(self.run_dir, self.num_timesteps))
        return True


class EpisodeCurve(BaseCallback):
    """Collects one number per finished episode from the infos (`metric(info)`, None to
    skip), logs their recent mean to TensorBoard and appends a row per rollout to
    run_dir/curve.csv: timesteps, wall seconds, episodes, mean of the last `window`.
    A resumed run's wall clock counts on from curve.csv's last kept row, or from
    `wall_floor` (seconds) if that is later: another file of the run may have recorded
    work done after that row (a gate and panel of `train multi --gate-every`)."""

    def __init__(self, run_dir: Path, metrics: dict[str, Callable[[dict], float | None]],
                 window: int = 200, wall_floor: float = 0.0) -> None:
        super().__init__()
        self.path = run_dir / CURVE_FILE
        self.metrics, self.wall_floor = metrics, wall_floor
        self.columns = ["timesteps", "wall_s", "episodes", *metrics]
        self.recent = {k: deque(maxlen=window) for k in metrics}
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
        append_row(self.path, self.columns, {
            "timesteps": self.num_timesteps, "wall_s": round(time.perf_counter() - self.wall0, 1),
            "episodes": self.episodes,
            **{k: round(means.get(k, float("nan")), 3) for k in self.metrics}})
