"""The RLModules (RLlib's new API stack) of the example's two policies.

`MaskedPPOTorchRLModule` (RLlib's default PPO networks, like RLlib's example
`ActionMaskingTorchRLModule`) runs on the flattened planes and features of
`CarcassonneRLlibEnv` and sets the logits of masked-out actions to the most negative
float, so sampling, greedy inference and the PPO loss only ever consider legal actions.

`CandidateTorchRLModule` runs the same `training.policy.CandidateNet` and value head as
SB3's `CandidatePolicy` on the observations of `CandidateRLlibEnv`; its action
distribution `CandidateTorchCategorical` is a categorical over the candidates' env action
indices (no mass off them), so its size does not depend on B. `copy_candidate_weights`
moves the weights between the two either way: start a cluster run from a laptop's
model, or play a cluster's module with ``predict``, the ``sb3:`` bot and the arena::

    module = Algorithm.from_checkpoint(path).get_module("shared")
    model = MaskablePPO(CandidatePolicy, env, policy_kwargs={"hidden": 64})
    copy_candidate_weights(module, model)  # env: candidate_moves=K, same features
"""

from __future__ import annotations

from functools import partial
from typing import Any

import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from carcassonne_env.checks import check_space, install_hint
from training.rllib.distribution import CandidateTorchCategorical
from training.rllib.envs import CANDIDATE_OBS_KEYS


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module (MLP encoders, policy and value heads) on the
    ``"observations"`` entry of a ``{"action_mask", "observations"}`` observation, with
    the logits of masked-out actions set to the most negative float: sampling
    (exploration), greedy inference and the PPO loss only see legal actions.

    The same idea as RLlib's example `ActionMaskingTorchRLModule`, written out here so the
    example depends on no module of ``ray.rllib.examples`` and leaves the batches it is
    given unchanged.
    """

    def __init__(self, *, observation_space: spaces.Dict | None = None, **kwargs: Any) -> None:
        if not (
            isinstance(observation_space, spaces.Dict)
            and {"action_mask", "observations"} <= set(observation_space.spaces)
        ):
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space with "
                f"'action_mask' and 'observations', got {observation_space}"
            )
        self._space_with_mask = observation_space
        # The networks are built for the observations alone.
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        """Build the networks, then expose the full (masked) observation space."""
        super().setup()
        self.observation_space = self._space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(mask, a shallow copy of `batch` whose observations are the vector alone);
        a batch whose observations are not a dict passes through (mask None)."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):
            return None, batch
        return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        """Masked-out actions' logits -> FLOAT_MIN (finite: no NaN in softmax / KL)."""
        if mask is not None:
            logits = out[Columns.ACTION_DIST_INPUTS]
            out[Columns.ACTION_DIST_INPUTS] = torch.where(
                mask > 0, logits, torch.full_like(logits, FLOAT_MIN)
            )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration forward pass, masked."""
        mask, batch = self._split(batch)
        return self._mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training forward pass (logits masked, critic embeddings kept)."""
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """Value estimates (the mask plays no part)."""
        return super().compute_values(self._split(batch)[1], embeddings)


class CandidateTorchRLModule(TorchRLModule, ValueFunctionAPI):
    """The candidate-move network of SB3's `training.policy.CandidatePolicy` as an RLlib
    RLModule (new API stack), so a Ray cluster trains what ``carcassonne train multi
    --policy candidates`` trains on a laptop: the same `training.policy.CandidateNet`
    scores every candidate move from its rule quantities and the global features and
    pools them for the value, whose head is the same ``Linear(hidden, 1)`` as SB3's
    ``value_net``; `CandidateTorchCategorical` puts the scores on the candidates' action
    indices (mass only on legal actions). Weights are initialised as `CandidatePolicy`
    does (orthogonal, gain sqrt 2; the score layer 0.01, the value head 1) and copy
    to and from it with `copy_candidate_weights`.

    Observation space: `candidate_observation_space` (`CandidateRLlibEnv`).
    ``model_config``: ``{"hidden": width of every layer (default 128)}``.
    """

    def setup(self) -> None:
        """Build `net` (`CandidateNet`) and `value_net`."""
        space = self.observation_space
        if not (isinstance(space, spaces.Dict) and set(CANDIDATE_OBS_KEYS) <= set(space.spaces)):
            raise ValueError(
                "CandidateTorchRLModule needs the candidate observation "
                f"(CandidateRLlibEnv: {', '.join(CANDIDATE_OBS_KEYS)}), "
                f"got {space}"
            )
        try:  # training.policy needs sb3-contrib (the train extra)
            from training.policy import CandidateNet
        except ImportError as err:  # pragma: no cover - depends on the installed extras
            raise ImportError(
                "the candidate policy's network lives in training.policy: "
                f"{install_hint('rllib,train')}"
            ) from err
        # None when the module is made without a config (RLlib's specs give a dict)
        config = self.model_config if isinstance(self.model_config, dict) else {}
        hidden = int(config.get("hidden", 128))
        n_features = check_space(space, spaces.Box, "features").shape[0]
        n_columns = check_space(space, spaces.Box, "candidates").shape[1]
        self.net = CandidateNet(n_features, n_columns, hidden)
        self.value_net = nn.Linear(hidden, 1)
        for layer, gain in ((self.net, 2**0.5), (self.net.score, 0.01), (self.value_net, 1.0)):
            layer.apply(partial(_orthogonal_init, gain=gain))
        self.action_dist_cls = CandidateTorchCategorical

    def _scores(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        """(action distribution inputs [N, 2K], value latent [N, hidden])."""
        obs = batch[Columns.OBS]
        actions = obs["candidate_actions"].long()
        logits, latent = self.net(obs["features"], obs["candidates"], actions)
        return torch.cat([logits, actions.to(logits.dtype)], -1), latent

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration forward pass."""
        return {Columns.ACTION_DIST_INPUTS: self._scores(batch)[0]}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training forward pass (the value latent kept for `compute_values`)."""
        inputs, latent = self._scores(batch)
        return {Columns.ACTION_DIST_INPUTS: inputs, Columns.EMBEDDINGS: latent}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """Value estimates [N]."""
        if embeddings is None:
            embeddings = self._scores(batch)[1]
        return self.value_net(embeddings).squeeze(-1)


def _orthogonal_init(layer: nn.Module, gain: float) -> None:
    """SB3's ``ActorCriticPolicy.init_weights``: orthogonal weights, zero biases."""
    if isinstance(layer, nn.Linear):
        nn.init.orthogonal_(layer.weight, gain=gain)
        nn.init.zeros_(layer.bias)


def candidate_parts(holder: Any) -> tuple[nn.Module, nn.Module]:
    """(`CandidateNet`, value head) of a `CandidateTorchRLModule`, an SB3
    `CandidatePolicy` or a MaskablePPO model with one."""
    if isinstance(holder, TorchRLModule):  # by duck type: any module with the two parts
        if hasattr(holder, "net") and hasattr(holder, "value_net"):
            return holder.net, holder.value_net
    policy = getattr(holder, "policy", holder)
    net = getattr(getattr(policy, "features_extractor", None), "net", None)
    if net is None or not isinstance(getattr(policy, "value_net", None), nn.Linear):
        raise TypeError(
            "expected a CandidateTorchRLModule, an SB3 CandidatePolicy or a "
            f"MaskablePPO model with one, got {type(holder).__name__}"
        )
    return net, policy.value_net


def copy_candidate_weights(source: Any, target: Any) -> None:
    """Copy the candidate network and value head between a `CandidateTorchRLModule` and
    SB3's `CandidatePolicy` (or a MaskablePPO model), either way: a model trained on a
    laptop goes on training on a cluster, and back (``policy.predict``, the ``sb3:``
    bot, the arena). The feature and column counts and the width must match
    (RuntimeError otherwise; K may differ)."""
    for src, dst in zip(candidate_parts(source), candidate_parts(target), strict=True):
        dst.load_state_dict(src.state_dict())
