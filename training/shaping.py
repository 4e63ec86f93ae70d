"""Projected-score reward shaping for the batched trainers.

The game's own reward arrives late: a farm or an unfinished city pays at the end of the
game, many moves after the move that made it. The aggregate observation holds each
seat's projected score (score plus what the end-of-game scoring would add now, computed
by the rules core). Rewarding the rise of a potential made of those projections is
potential-based shaping (Ng et al., 1999): the potential equals the real result at the
end, so a game's rewards sum to its real result minus the potential of the learner's
first position (0 when it moves first; 1 point in solo, the follower bonus of a full
supply), the best policy is unchanged, and a move's effect on the end-game points is
credited when it is made.

With 3 or more players the result is a choice: the learner's score minus the best other
seat's (``"best"``: the margin over the leader, which decides the win) or minus the
others' mean (``"mean"``: every opponent's points count, not only the leader's). With 2
players both are the margin, value for value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

POTENTIALS = ("best", "mean", "lowest")
MARGINS = ("best", "mean")  # the potentials of 2 or more players


class ProjectedReward(VecEnvWrapper):
    """Replaces the rewards of `venv` (its observations must hold the aggregate
    ``features``) by the rise of a projected potential, times `scale`:

    - ``"best"``: the observer's projected score minus the best other seat's (the game's
      result: the final margin over the leader);
    - ``"mean"``: the observer's projected score minus the other seats' mean (with 2
      seats the same as ``"best"``);
    - ``"lowest"``: the lowest colour's projected score (solo; the result is the lowest
      colour's final score).

    `feature_names` are the encoder's; a finished game's last step uses its
    ``terminal_observation``. `win_bonus` (points; best or mean) is added to a won game's
    last reward and taken from a lost one's (won: the final score above every other
    seat's; lost: below one's): the return then weighs winning itself, not only the
    points (a final projected score equals the real one)."""

    def __init__(
        self,
        venv: VecEnv,
        feature_names: Sequence[str],
        seats: int,
        potential: str = "best",
        scale: float = 1.0,
        win_bonus: float = 0.0,
    ) -> None:
        if potential not in POTENTIALS:
            raise ValueError(f"potential must be one of {', '.join(POTENTIALS)}, got {potential!r}")
        if win_bonus and potential not in MARGINS:
            raise ValueError(
                "a win bonus needs a margin potential (best or mean: 2 players or more)"
            )
        names = list(feature_names)
        if "projected_score_0" not in names:
            raise ValueError(
                "projected rewards need obs_features='aggregate' (the "
                "projected scores are in that observation)"
            )
        super().__init__(venv)
        self._columns = [names.index(f"projected_score_{q}") for q in range(seats)]
        self.potential, self.scale, self.win_bonus = potential, scale, win_bonus
        self._before = np.zeros(venv.num_envs)

    def _projected(self, features: np.ndarray) -> np.ndarray:
        """The projected scores, observer first (the features hold points / 100)."""
        return features[:, self._columns] * 100.0

    def _value(self, features: np.ndarray) -> np.ndarray:
        proj = self._projected(features)
        if self.potential == "lowest":
            return proj.min(1)
        others = proj[:, 1:].max(1) if self.potential == "best" else proj[:, 1:].mean(1)
        return proj[:, 0] - others

    def reset(self):
        obs = self.venv.reset()
        self._before = self._value(obs["features"])
        return obs

    def step_wait(self):
        obs, _, dones, infos = self.venv.step_wait()
        now = self._value(obs["features"])
        after, bonus = now.copy(), np.zeros_like(now)
        for i in np.flatnonzero(dones):  # the finished game's last observation
            last = infos[i]["terminal_observation"]["features"][None]
            after[i] = self._value(last)[0]
            if self.win_bonus:
                final = self._projected(last)[0]  # the final scores
                bonus[i] = self.win_bonus * np.sign(final[0] - final[1:].max())
        rewards = (after - self._before + bonus) * self.scale
        self._before = now
        return obs, rewards.astype(np.float32), dones, infos


class ScaledReward(VecEnvWrapper):
    """The rewards of `venv` times `scale` (keeps value targets near 1)."""

    def __init__(self, venv: VecEnv, scale: float = 1.0) -> None:
        super().__init__(venv)
        self.scale = scale

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        return obs, rewards * self.scale, dones, infos
