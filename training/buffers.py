"""A rollout buffer that keeps what the envs give in their own dtypes, samples minibatches
out of tensors made once per rollout, and keeps a candidate policy's observations packed.

sb3-contrib's `MaskableDictRolloutBuffer` stores every observation and the action mask
as float32 and allocates the mask array (steps x envs x ~10^4 actions, ~150 MB for the
2-player preset) afresh for every rollout, copies it once more to flatten it, and makes
every minibatch by indexing each numpy array and copying the result into a new tensor.
Here the board planes stay int8 and the masks bool, the arrays are allocated once per
buffer, the rollout becomes tensors once (when the update starts) and a minibatch is
tensor indexing only. The policy casts to float as before (`preprocess_obs`), and the
minibatches are SB3's (the same permutation of the same samples), so training computes
the same losses (tests/training/test_learner.py).

With ``pack_candidates`` (the candidate policy), the candidate rows are kept packed: only
the present ones (a 2-player position has 43 legal moves at the median, the observation
room for K = 512), and a minibatch gives them packed too (`CandidateNet` reads that form,
its input transform applied once per rollout), with ``candidate_actions`` cut to the
minibatch's largest count; the action masks are not stored (the candidates are legal
moves: `CandidateCategorical` reads no mask). ``unread_keys`` (the board planes, which the
candidate policy does not read) are not stored at all. At K = 512 the dense form took
2.6 GB per 8,192 steps, twice over once flattened.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import (
    MaskableDictRolloutBuffer,
    MaskableDictRolloutBufferSamples,
)
from stable_baselines3.common.buffers import DictRolloutBuffer

from .policy import CandidateNet


class CompactMaskableDictRolloutBuffer(MaskableDictRolloutBuffer):
    """`MaskableDictRolloutBuffer` with observations in their spaces' dtypes and bool
    masks, reused from rollout to rollout (every slot is written before it is read), and
    minibatches indexed out of tensors (CPU only, as the trainers run).

    Args (besides SB3's): pack_candidates (keep only the present candidate rows and give
    minibatches in `CandidateNet`'s packed form, without action masks), unread_keys
    (observation keys the policy does not read: not stored, absent from the
    minibatches)."""

    _kept: tuple[dict[str, np.ndarray], np.ndarray] | None = None

    def __init__(
        self,
        *args: Any,
        pack_candidates: bool = False,
        unread_keys: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> None:
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
                key: np.zeros(
                    (self.buffer_size, self.n_envs, *shape), dtype=self.observation_space[key].dtype
                )
                for key, shape in self.obs_shape.items()
                if key not in dropped
            }
            masks = np.ones(
                (self.buffer_size, self.n_envs, 0 if self.pack_candidates else self.mask_dims),
                dtype=bool,
            )
            self._kept = observations, masks
        observations, self.action_masks = self._kept
        self.observations = dict(observations)
        self._rows: list[th.Tensor] = []  # packed candidate inputs, one tensor per step
        self._counts = np.zeros((self.buffer_size, self.n_envs), np.int64)
        self._tensors: dict[str, th.Tensor] = {}

    def add(  # type: ignore[override]
        self,
        obs: dict[str, np.ndarray],
        *args: Any,
        action_masks: np.ndarray | None = None,
        **kwargs: Any,
    ) -> None:
        """Store one step of every env (SB3's arguments); the present candidate rows
        packed, their actions first in each row."""
        if self.pack_candidates:
            present = np.asarray(obs["candidate_actions"]) >= 0
            # present candidates first, in their order (the encoders fill a prefix)
            order = np.argsort(~present, axis=1, kind="stable")
            obs = dict(
                obs,
                candidate_actions=np.take_along_axis(
                    np.asarray(obs["candidate_actions"]), order, 1
                ),
            )
            # the network's input transform, step by step while the rows are in cache
            rows = np.asarray(obs["candidates"])[present].astype(np.float32, copy=False)
            self._rows.append(CandidateNet.inputs(th.from_numpy(rows)))
            self._counts[self.pos] = present.sum(1)
            action_masks = None  # not read (see the module docstring)
        super().add(obs, *args, action_masks=action_masks, **kwargs)

    def get(  # type: ignore[override]
        self,
        batch_size: int | None = None,
    ) -> Generator[MaskableDictRolloutBufferSamples, None, None]:
        """Minibatches of `batch_size` samples in a random order (SB3's: the same
        permutation from numpy's global generator), indexed out of tensors made once per
        rollout (`_flat_tensors`); with pack_candidates, their candidate rows packed."""
        for index in self._minibatches(batch_size):
            yield self._get_samples(index)

    def get_shards(
        self, batch_size: int | None, shards: int
    ) -> Generator[list[MaskableDictRolloutBufferSamples], None, None]:
        """`get`'s minibatches (the same samples, in the same order), each cut into
        `shards` parts of consecutive samples (fewer if the minibatch is smaller)."""
        for index in self._minibatches(batch_size):
            yield [self._get_samples(part) for part in np.array_split(index, shards) if len(part)]

    def _minibatches(self, batch_size: int | None) -> Generator[np.ndarray, None, None]:
        """The sample indices of each minibatch (all samples for None)."""
        assert self.full, "a minibatch is read from a whole rollout"
        total = self.buffer_size * self.n_envs
        indices = np.random.permutation(total)
        if not self.generator_ready:
            self._tensors = self._flat_tensors()
            self.generator_ready = True
        batch_size = batch_size or total
        for start in range(0, total, batch_size):
            yield indices[start : start + batch_size]

    def _flat_tensors(self) -> dict[str, th.Tensor]:
        """The rollout as tensors, sample-major (game by game, as SB3's
        `swap_and_flatten`): observations in their own dtypes (the policy casts them),
        masks as bool; with pack_candidates, the packed rows (through `CandidateNet.inputs`
        as `add` stored them: once, not once per epoch), where each sample's rows start,
        and how many it has."""

        def flat(array: np.ndarray) -> th.Tensor:
            return th.from_numpy(np.ascontiguousarray(self.swap_and_flatten(array)))

        tensors = {f"obs/{key}": flat(array) for key, array in self.observations.items()}
        for name in ("actions", "values", "log_probs", "advantages", "returns"):
            tensors[name] = flat(getattr(self, name))
        if self.pack_candidates:
            # the rows were appended step by step, each step's games in order
            counts = self._counts
            starts = (np.cumsum(counts) - counts.ravel()).reshape(counts.shape)
            tensors["starts"], tensors["counts"] = flat(starts).ravel(), flat(counts).ravel()
            tensors["rows"] = th.cat(self._rows)
            self._rows = []
        else:
            tensors["masks"] = flat(self.action_masks)
        return tensors

    def _get_samples(  # type: ignore[override]
        self,
        batch_inds: np.ndarray,
        env: Any = None,
    ) -> MaskableDictRolloutBufferSamples:
        t, index = self._tensors, th.from_numpy(batch_inds)
        observations = {key[4:]: value[index] for key, value in t.items() if key.startswith("obs/")}
        if self.pack_candidates:
            counts = t["counts"][index]
            # every present row of the batch, sample by sample (`CandidateNet`'s packed form)
            first = th.repeat_interleave(t["starts"][index] - th.cumsum(counts, 0) + counts, counts)
            observations["candidates"] = t["rows"][first + th.arange(len(first))]
            observations["candidate_actions"] = observations["candidate_actions"][
                :, : max(int(counts.max()), 1)
            ]
        return MaskableDictRolloutBufferSamples(
            observations=observations,
            actions=t["actions"][index],
            old_values=t["values"][index].flatten(),
            old_log_prob=t["log_probs"][index].flatten(),
            advantages=t["advantages"][index].flatten(),
            returns=t["returns"][index].flatten(),
            # None: no masks (the candidate policy reads none), passed on as SB3 passes them
            action_masks=None
            if self.pack_candidates  # type: ignore[arg-type]
            else t["masks"][index],
        )
