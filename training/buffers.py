"""A rollout buffer that keeps what the envs give in their own dtypes, and a candidate
policy's observations packed.

sb3-contrib's `MaskableDictRolloutBuffer` stores every observation and the action mask
as float32 and allocates the mask array (steps x envs x ~10^4 actions, ~150 MB for the
2-player preset) afresh for every rollout, then copies it once more to flatten it. Here
the board planes stay int8 and the masks bool (a quarter of the memory and of the
copying), and the arrays are allocated once per buffer. The policy casts to float as
before (`preprocess_obs`), so training computes the same thing.

With ``pack_candidates`` (the candidate policy), the candidate rows are kept packed: only
the present ones (a 2-player position has 43 legal moves at the median, the observation
room for K = 512), and a minibatch gives them packed too (`CandidateNet` reads that form),
with ``candidate_actions`` cut to the minibatch's largest count. ``unread_keys`` (the
board planes, which the candidate policy does not read) are not stored at all. At K = 512
the dense form took 2.6 GB per 8,192 steps, twice over once flattened.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import (
    MaskableDictRolloutBuffer,
    MaskableDictRolloutBufferSamples,
)
from stable_baselines3.common.buffers import DictRolloutBuffer


class CompactMaskableDictRolloutBuffer(MaskableDictRolloutBuffer):
    """`MaskableDictRolloutBuffer` with observations in their spaces' dtypes and bool
    masks, reused from rollout to rollout (every slot is written before it is read).

    Args (besides SB3's): pack_candidates (keep only the present candidate rows and give
    minibatches in `CandidateNet`'s packed form), unread_keys (observation keys the
    policy does not read: not stored, absent from the minibatches)."""

    _kept: tuple[dict[str, np.ndarray], np.ndarray] | None = None

    def __init__(self, *args: Any, pack_candidates: bool = False,
                 unread_keys: tuple[str, ...] = (), **kwargs: Any) -> None:
        self.pack_candidates, self.unread_keys = pack_candidates, tuple(unread_keys)
        super().__init__(*args, **kwargs)

    def reset(self) -> None:
        DictRolloutBuffer.reset(self)  # the small per-step arrays, pos and flags
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"unsupported action space {self.action_space} (Discrete only)")
        self.mask_dims = int(self.action_space.n)
        if self._kept is None:
            dropped = set(self.unread_keys) | ({"candidates"} if self.pack_candidates else set())
            observations = {
                key: np.zeros((self.buffer_size, self.n_envs, *shape),
                              dtype=self.observation_space[key].dtype)
                for key, shape in self.obs_shape.items() if key not in dropped}
            masks = np.ones((self.buffer_size, self.n_envs, self.mask_dims), dtype=bool)
            self._kept = observations, masks
        # `get` replaces the arrays by flattened copies; the originals come back here.
        observations, self.action_masks = self._kept
        self.observations = dict(observations)
        self._rows: list[np.ndarray] = []  # packed candidate rows, one array per step
        self._packed = np.empty(0)
        self._counts = np.zeros((self.buffer_size, self.n_envs), np.int64)

    def add(self, obs: dict[str, np.ndarray], *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Store one step of every env (SB3's arguments); the present candidate rows
        packed, their actions first in each row."""
        if self.pack_candidates:
            present = np.asarray(obs["candidate_actions"]) >= 0
            # present candidates first, in their order (the encoders fill a prefix)
            order = np.argsort(~present, axis=1, kind="stable")
            obs = dict(obs, candidate_actions=np.take_along_axis(
                np.asarray(obs["candidate_actions"]), order, 1))
            self._rows.append(np.asarray(obs["candidates"])[present])
            self._counts[self.pos] = present.sum(1)
        super().add(obs, *args, **kwargs)

    def get(self, batch_size: int | None = None  # type: ignore[override]
            ) -> Generator[MaskableDictRolloutBufferSamples, None, None]:
        """SB3's minibatches of `batch_size` samples in a random order; with
        pack_candidates, their candidate rows packed (`_get_samples`)."""
        if self.pack_candidates and not self.generator_ready:
            # the rows were appended step by step, each step's games in order; samples
            # are flattened game-major (`swap_and_flatten`)
            starts = np.concatenate([[0], np.cumsum(self._counts)[:-1]])
            starts = starts.reshape(self._counts.shape)
            self._starts = self.swap_and_flatten(starts).ravel()
            self._flat_counts = self.swap_and_flatten(self._counts).ravel()
            self._packed = np.concatenate(self._rows)
            self._rows = []
        yield from super().get(batch_size)

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None  # type: ignore[override]
                     ) -> MaskableDictRolloutBufferSamples:
        samples = super()._get_samples(batch_inds, env)
        if not self.pack_candidates:
            return samples
        counts = self._flat_counts[batch_inds]
        # every present row of the batch, sample by sample (`CandidateNet`'s packed form)
        first = np.repeat(self._starts[batch_inds] - np.cumsum(counts) + counts, counts)
        rows = self._packed[first + np.arange(counts.sum())]
        observations = dict(samples.observations,
                            candidates=self.to_torch(rows.astype(np.float32, copy=False)))
        observations["candidate_actions"] = \
            observations["candidate_actions"][:, :max(int(counts.max()), 1)]
        return samples._replace(observations=observations)
