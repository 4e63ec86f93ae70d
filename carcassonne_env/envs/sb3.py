"""Stable-Baselines3 `VecEnv` over `SoloVectorEnv` or `VsBotsVectorEnv` (needs the
`train` extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

if TYPE_CHECKING:
    from .solo import SoloVectorEnv
    from .vs_bots import VsBotsVectorEnv


class SB3VecEnv(VecEnv):
    """SB3's VecEnv protocol over a `SoloVectorEnv` (or `VsBotsVectorEnv`);
    ``action_masks()`` (and ``env_method("action_masks")``) serve sb3-contrib's
    MaskablePPO. Finished games restart at once; ``infos[i]`` holds the final info's
    entries for game i (those its ``_key`` masks give it), its last observation as
    ``"terminal_observation"`` and ``"TimeLimit.truncated"``: True for a game cut short
    (``on_overflow="truncate"``, with ``"window_overflow"``), so that SB3 bootstraps
    its value from the last observation."""

    def __init__(self, venv: SoloVectorEnv | VsBotsVectorEnv) -> None:
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self):
        seeds = self._seeds
        seed = None if seeds[0] is None else [int(s) for s in seeds]
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        out = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_info, final_obs = infos["final_info"], infos["final_obs"]
            for i in np.flatnonzero(dones):
                out[i] = {
                    k: v[i]
                    for k, v in final_info.items()
                    if not k.startswith("_") and final_info.get(f"_{k}", dones)[i]
                }
                out[i]["terminal_observation"] = final_obs[i]
                out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """The legal-action masks of every game, bool[num_envs, n_actions] (sb3-contrib's
        MaskablePPO reads them)."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.venv, attr_name)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.venv, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self.venv.action_masks()[idx])
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]
