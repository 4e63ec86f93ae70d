"""The league of self-play opponents of ``carcassonne train multi --env batched``: frozen
policy snapshots as one batched opponent (`League`), and the jitted games (one
`VsBotsVectorEnv` per built-in opponent and one against the league) joined into one
Stable-Baselines3 `VecEnv` (`JoinedVecEnv`)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from carcassonne_env.bots.move_prior import PRIOR_KEY, prior_from_probs, prior_space
from carcassonne_env.checks import discrete_size
from carcassonne_env.envs import VsBotsVectorEnv


def frozen_copy(policy: Any, weights: dict | None = None) -> Any:
    """A copy of `policy` for playing only (with `weights`, a state dict, if given): no
    optimizer, evaluation mode."""
    frozen = copy.deepcopy(policy)
    if weights is not None:
        frozen.load_state_dict(weights)
    frozen.optimizer = None
    frozen.set_training_mode(False)
    return frozen


class League:
    """Frozen snapshots of the learner as one batched policy opponent
    (`carcassonne_env.envs.vs_bots.Policy`): each game plays one snapshot for a
    whole episode (`new_episodes` picks it, called by the env before a game starts:
    the newest, or half of the time an older one); one forward pass per snapshot for all
    the games it moves in. Snapshots sample their moves, for variety."""

    name = "self"

    def __init__(self, num_games: int, size: int, seed: int = 0) -> None:
        self.size = size
        self.snapshots: list[tuple[str, Any]] = []
        self.assigned = np.zeros(num_games, np.int64)
        self.rng = np.random.default_rng(seed)

    def add(self, label: str, policy: Any, weights: dict | None = None) -> None:
        """A frozen copy of `policy` (with `weights`, a state dict, if given) joins;
        the oldest leaves beyond `size`. Games keep their snapshot where it stays."""
        dropped = max(0, len(self.snapshots) + 1 - self.size)
        self.snapshots.append((label, frozen_copy(policy, weights)))
        del self.snapshots[:dropped]
        self.assigned = np.maximum(self.assigned - dropped, 0)

    def new_episodes(self, games: np.ndarray) -> None:
        """Games `games` start: each gets the newest snapshot, or half of the time an
        older one."""
        k = len(self.snapshots) - 1
        for i in games:
            self.assigned[i] = k if k == 0 or self.rng.random() < 0.5 else self.rng.integers(k)

    def __call__(
        self, obs: dict[str, np.ndarray], masks: np.ndarray, seats: np.ndarray, games: np.ndarray
    ) -> np.ndarray:
        if not self.snapshots:
            raise ValueError("the league has no snapshot yet: add one before playing")
        actions = np.zeros(len(games), np.int64)
        which = self.assigned[games]
        with th.no_grad():
            for k in np.unique(which):
                rows = np.flatnonzero(which == k)
                policy = self.snapshots[int(k)][1]
                sub = {key: value[rows] for key, value in obs.items()}
                actions[rows], _ = policy.predict(
                    sub, action_masks=masks[rows], deterministic=False
                )
        return actions


class JoinedVecEnv(VecEnv):
    """Several `VsBotsVectorEnv` (as SB3 VecEnvs) stepped as one SB3 `VecEnv`: games
    numbered group after group; rewards times `reward_scale`; a finished game's info
    names its opponent ("opponent": the group's label). ``action_masks()`` serves
    MaskablePPO. With `prior`, the observations also hold the heuristic's move prior
    of the seat to move (key "prior", `carcassonne_env.bots.move_prior`). Projected
    rewards: wrap it in `training.shaping.ProjectedReward`."""

    render_mode = None

    def __init__(
        self,
        groups: Sequence[tuple[str, VsBotsVectorEnv]],
        reward_scale: float = 1.0,
        prior: bool = False,
    ) -> None:
        self.labels = [label for label, _ in groups]
        self.groups = [venv for _, venv in groups]
        self.envs = [venv.to_sb3() for venv in self.groups]
        self.bounds = np.cumsum([0] + [e.num_envs for e in self.envs])
        first = groups[0][1]
        space = first.single_observation_space
        if prior:
            space = spaces.Dict(
                {**space.spaces, PRIOR_KEY: prior_space(first.single_action_space.n)}
            )
        super().__init__(int(self.bounds[-1]), space, first.single_action_space)
        self.reward_scale = reward_scale
        self.prior = prior
        self._actions: np.ndarray | None = None

    def _join(self, parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        obs = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        if self.prior:
            out = np.empty((self.num_envs, discrete_size(self.action_space)), np.float32)
            for k, venv in enumerate(self.groups):
                prior_from_probs(
                    venv.teacher("heuristic").probs, out[self.bounds[k] : self.bounds[k + 1]]
                )
            obs[PRIOR_KEY] = out
        return obs

    def reset(self):
        parts = []
        for k, env in enumerate(self.envs):
            seed = self._seeds[self.bounds[k]]
            if seed is not None:
                env.seed(int(seed))
            parts.append(env.reset())
        self._reset_seeds()
        return self._join(parts)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        parts, rewards, dones, infos = [], [], [], []
        for k, env in enumerate(self.envs):
            env.step_async(self._actions[self.bounds[k] : self.bounds[k + 1]])
            obs, rew, done, info = env.step_wait()
            for i in np.flatnonzero(done):
                info[i]["opponent"] = self.labels[k]
            parts.append(obs)
            rewards.append(rew * self.reward_scale)
            dones.append(done)
            infos.extend(info)
        return self._join(parts), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        """The legal-action masks of every env of every part, in order."""
        return np.concatenate([env.action_masks() for env in self.envs])

    def close(self) -> None:
        for env in self.envs:
            env.close()

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name != "action_masks":
            raise NotImplementedError(f"{type(self).__name__} has no method {method_name}")
        return list(self.action_masks()[self._indices(indices)])

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]
