"""A rollout buffer that keeps what the envs give in their own dtypes.

sb3-contrib's `MaskableDictRolloutBuffer` stores every observation and the action mask
as float32 and allocates the mask array (steps x envs x ~10^4 actions, ~150 MB for the
2-player preset) afresh for every rollout, then copies it once more to flatten it. Here
the board planes stay int8 and the masks bool (a quarter of the memory and of the
copying), and the arrays are allocated once per buffer. The policy casts to float as
before (`preprocess_obs`), so training computes the same thing.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer
from stable_baselines3.common.buffers import DictRolloutBuffer


class CompactMaskableDictRolloutBuffer(MaskableDictRolloutBuffer):
    """`MaskableDictRolloutBuffer` with observations in their spaces' dtypes and bool
    masks, reused from rollout to rollout (every slot is written before it is read)."""

    _kept: tuple[dict[str, np.ndarray], np.ndarray] | None = None

    def reset(self) -> None:
        DictRolloutBuffer.reset(self)  # the small per-step arrays, pos and flags
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"unsupported action space {self.action_space} (Discrete only)")
        self.mask_dims = int(self.action_space.n)
        if self._kept is None:
            observations = {
                key: np.zeros((self.buffer_size, self.n_envs, *shape),
                              dtype=self.observation_space[key].dtype)
                for key, shape in self.obs_shape.items()}
            masks = np.ones((self.buffer_size, self.n_envs, self.mask_dims), dtype=bool)
            self._kept = observations, masks
        # `get` replaces the arrays by flattened copies; the originals come back here.
        observations, self.action_masks = self._kept
        self.observations = dict(observations)
