"""`CandidateTorchCategorical`: the action distribution of
`training.rllib.modules.CandidateTorchRLModule`, a categorical over an observation's
candidate moves whose samples are the env's action indices."""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from ray.rllib.core.distribution.torch.torch_distribution import (
    TorchDeterministic,
    TorchDistribution,
)


class CandidateTorchCategorical(TorchDistribution):
    """RLlib's action distribution of `CandidateTorchRLModule`: a categorical over an
    observation's candidate moves, as SB3's `training.policy.CandidateCategorical`.
    Its inputs (the module's ``action_dist_inputs``) are [N, 2K]: the K candidates'
    logits, then their env action indices as floats (-1: absent; exact below 2**24).
    Absent candidates get probability 0 (a large finite penalty, not -inf: 0 * -inf
    would make NaN entropies and gradients). Samples, modes and the actions `logp`
    takes are the env's `Discrete` action indices, so RLlib's EnvRunners, GAE and PPO
    loss use it unchanged; every sampled action is a candidate, hence legal."""

    def __init__(self, logits: torch.Tensor) -> None:
        K = logits.shape[-1] // 2
        self.actions = logits[..., K:].long()
        self.present = self.actions >= 0
        self.logits = torch.where(
            self.present, logits[..., :K], torch.full_like(logits[..., :K], -1e9)
        )
        super().__init__(logits=self.logits)

    def _get_torch_distribution(self, logits: torch.Tensor) -> torch.distributions.Categorical:
        return torch.distributions.Categorical(logits=logits, validate_args=False)

    @staticmethod
    def required_input_dim(space: spaces.Space, **kwargs: Any) -> int:
        """2K; K is not in the action space: ``candidate_moves`` must be given."""
        return 2 * int(kwargs["candidate_moves"])

    def _position(self, actions: torch.Tensor) -> torch.Tensor:
        """The candidate position of each row's env action."""
        hit = self.actions == actions.long().unsqueeze(-1)
        return hit.to(torch.uint8).argmax(-1)

    # RLlib's Distribution declares any framework's tensors and more keywords than its torch
    # subclasses (TorchDistribution among them) take: this one takes what they do
    def logp(self, value: torch.Tensor, **kwargs: Any) -> torch.Tensor:  # type: ignore[override]
        """Log-probability of env actions `value` (each one of its row's candidates)."""
        return self._dist.log_prob(self._position(value))

    def sample(self, *, sample_shape: Any = None) -> torch.Tensor:  # type: ignore[override]
        """Env actions drawn from the candidates."""
        k = self._dist.sample(sample_shape if sample_shape is not None else torch.Size())
        return self.actions.gather(-1, k.unsqueeze(-1)).squeeze(-1)

    def rsample(self, *, sample_shape: Any = None) -> torch.Tensor:  # type: ignore[override]
        """Not available (RLlib's PPO never asks for it)."""
        raise NotImplementedError("a categorical has no reparameterised sample")

    def mode(self) -> torch.Tensor:
        """The most likely candidate's env action; among equals (candidates with the
        same columns score the same) the lowest action index, as SB3's
        `CandidateCategorical.mode`."""
        logp = self._dist.logits
        best = self.present & (logp == logp.max(-1, keepdim=True).values)
        sentinel = torch.full_like(self.actions, torch.iinfo(self.actions.dtype).max)
        return torch.where(best, self.actions, sentinel).min(-1).values

    def to_deterministic(self) -> TorchDeterministic:
        """Greedy play (RLlib's inference without exploration): always `mode`."""
        return TorchDeterministic(loc=self.mode())

    def dense_logp(self, n_actions: int) -> torch.Tensor:
        """[N, n_actions] normalised log-probabilities over the env's whole action space:
        -inf off the candidates (as SB3's ``CandidateCategorical.logits``)."""
        logp = torch.where(
            self.present, self._dist.logits, torch.full_like(self._dist.logits, -torch.inf)
        )
        index = torch.where(self.present, self.actions, torch.full_like(self.actions, n_actions))
        dense = torch.full(
            (*logp.shape[:-1], n_actions + 1), -torch.inf, dtype=logp.dtype, device=logp.device
        )
        return dense.scatter(-1, index, logp)[..., :n_actions]
