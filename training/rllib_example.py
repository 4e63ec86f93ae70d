"""PPO self-play on the PettingZoo AEC env with RLlib: the scale-out path (RLlib's default
MLP, or with ``--policy candidates`` the candidate-move network SB3 trains on a laptop).

The AEC env (`carcassonne_env.carcassonne_v0`) with ``obs_layout="classic"`` (PettingZoo's
classic layout: one float32 array under "observation", board planes flattened then the
features, and an int8 "action_mask") is wrapped by RLlib's `PettingZooEnv` into a
`MultiAgentEnv`; `CarcassonneRLlibEnv` only renames each observation to the keys RLlib's
action masking uses, ``{"action_mask": float32[n_actions], "observations":
float32[3B * 3B * C + F]}``. `MaskedPPOTorchRLModule` (RLlib's default PPO
networks, like RLlib's example `ActionMaskingTorchRLModule`) runs on the vector and sets
the logits of masked-out actions to the most negative float, so sampling, greedy
inference and the PPO loss only ever consider legal actions. Both players map to one
shared policy (self-play). RLlib's new API stack (RLModule / Learner / EnvRunner) is
used throughout.

Install: ``pip install -e '.[rllib]'`` (Ray's own ``ray[rllib]`` extra pins an older
gymnasium; the ``rllib`` extra lists the few packages RLlib really imports).

Run locally (starts a private Ray instance on this machine)::

    python -m training.rllib_example --iterations 2 --board-size 16 --train-batch-size 1000
    python -m training.rllib_example --iterations 200 --num-env-runners 4

The first line is a quick look (about a minute per iteration on a busy 2-core CPU). At
the defaults (B = 24, 4000 steps per iteration) the MLPs have ~30M parameters and an
iteration takes minutes on a CPU; ``--num-gpus-per-learner 1`` trains on a GPU.

Run on a Ray cluster: every node needs `carcassonne_env` and its dependencies (install
the package in the cluster's image, or ship the repository as the job's working
directory), then attach to the running cluster with ``--address auto`` (the driver runs
on a node of the cluster, as with ``ray job submit``) or ``--address <head-ip>:6379``::

    ray job submit --working-dir . -- \\
        python -m training.rllib_example --address auto --iterations 500 \\
        --num-env-runners 32 --num-gpus-per-learner 1

EnvRunners (one CPU each) sample games in parallel on the cluster; the Learner (local to
the driver, or ``--num-learners`` remote ones, each on ``--num-gpus-per-learner`` GPUs,
each taking ``--train-batch-size`` steps per iteration) updates the shared policy.

Each iteration prints the mean episode return (summed over both players: with ``--reward
score`` the total points of a game), the env steps sampled, the losses, the number of
illegal moves (always 0: the policy is masked) and of games cut short because no legal
move fitted the observation window (``window_overflows``; use a larger ``--board-size``
if it is not 0). A checkpoint is saved at the end; ``Algorithm.from_checkpoint(path)``
restores it (``algo.get_module("shared")`` is the policy).

The window is B = ``--board-size`` cells wide: the action space has B * B * 4 * 9 actions
and the flattened board 9 * B * B * (8 + players) inputs, so the default MLP grows fast
with B. B = 24 never overflowed in 10,000 random 2-player games; B = 12-16 are for quick
tests (legal moves outside the window are masked out, with a `WindowOverflowWarning`).

``--policy candidates`` trains the network of ``carcassonne train multi --policy
candidates`` instead (needs the ``train`` extra too, for `training.policy`)::

    python -m training.rllib_example --policy candidates --candidate-moves 128 \\
        --hidden 64 --obs-features aggregate --iterations 200 --num-env-runners 4

`CandidateRLlibEnv` makes the AEC env with ``candidate_moves=K`` and observes
``{"features", "candidates", "candidate_actions"}`` only (no planes, no mask: the
candidates are legal actions); `CandidateTorchRLModule` runs the same
`training.policy.CandidateNet` and value head as SB3's `CandidatePolicy`, and its action
distribution `CandidateTorchCategorical` is a categorical over the candidates' env action
indices (no mass off them), so its size does not depend on B. `copy_candidate_weights`
moves the weights between the two either way: start a cluster run from a laptop's
model, or play a cluster's module with ``predict``, the ``sb3:`` bot and the arena::

    module = Algorithm.from_checkpoint(path).get_module("shared")
    model = MaskablePPO(CandidatePolicy, env, policy_kwargs={"hidden": 64})
    copy_candidate_weights(module, model)  # env: candidate_moves=K, same features
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from carcassonne_env import carcassonne_v0
from carcassonne_env.checks import install_hint
from carcassonne_env.cli_errors import OneLineParser
from carcassonne_env.encoding import OBS_FEATURES, WindowOverflowError, empty_observation

try:
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.distribution.torch.torch_distribution import (
        TorchDeterministic,
        TorchDistribution,
    )
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from torch import nn
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"the RLlib example needs ray's RLlib and torch: {install_hint('rllib')}") from err

POLICY_ID = "shared"
"""The one policy (RLModule) both players map to."""

POLICIES = ("mlp", "candidates")
"""`build_config`'s networks: RLlib's default MLP over the flattened planes
(`MaskedPPOTorchRLModule`) or the candidate-move network (`CandidateTorchRLModule`)."""

CANDIDATE_OBS_KEYS = ("features", "candidates", "candidate_actions")
"""What `CandidateRLlibEnv` observes (the board planes and the mask are left out)."""


def flatten_observation(obs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The AEC env's classic observation ``{"observation": float32 vector, "action_mask":
    int8 mask}`` as ``{"action_mask": float32 mask, "observations": float32 vector}``."""
    return {"action_mask": np.asarray(obs["action_mask"], np.float32),
            "observations": obs["observation"]}


def flat_observation_space(space: spaces.Dict) -> spaces.Dict:
    """The space of `flatten_observation` for the classic AEC observation space."""
    n_actions = space["action_mask"].shape[0]
    return spaces.Dict({
        "action_mask": spaces.Box(0.0, 1.0, (n_actions,), np.float32),
        "observations": space["observation"],
    })


def candidate_observation(obs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The AEC env's dict-layout observation made with ``candidate_moves=K`` as
    ``{"features": float32[F], "candidates": float32[K, FC], "candidate_actions":
    int64[K]}`` (what `CandidateTorchRLModule` reads; the candidates are legal actions,
    so the mask is not needed)."""
    return {k: obs["observation"][k] for k in CANDIDATE_OBS_KEYS}


def candidate_observation_space(space: spaces.Dict) -> spaces.Dict:
    """The space of `candidate_observation` for the dict-layout AEC observation space."""
    inner = space["observation"]
    if "candidates" not in inner.spaces:
        raise ValueError("the candidate observation needs an env made with candidate_moves=K")
    return spaces.Dict({k: inner[k] for k in CANDIDATE_OBS_KEYS})


class CarcassonneRLlibEnv(PettingZooEnv):
    """``carcassonne_v0.env(obs_layout="classic", **config)`` as an RLlib `MultiAgentEnv`
    (observations renamed by `flatten_observation`); agents ``player_0`` ...
    ``player_{n-1}``, one acting per step, rewards as the AEC env gives them
    (``reward=`` in `config`).

    RLlib builds it from ``env_config``: any keyword of `carcassonne_v0.env` (players,
    board_size, reward, illegal_reward, rule options...). ``on_overflow`` defaults to
    "warn": legal moves outside the window are masked out, with one
    `WindowOverflowWarning` per env. If no legal move at all fits the window
    (`WindowOverflowError`), the episode is truncated for every agent instead of crashing
    the EnvRunner: empty observations (`empty_observation`), the rewards accumulated so
    far and ``infos[agent]["window_overflow"]`` for every agent.
    """

    obs_layout = "classic"
    """The AEC env's layout that `_observation` converts."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        options = self._env_options(dict(config or {}))
        options.setdefault("on_overflow", "warn")
        super().__init__(carcassonne_v0.env(obs_layout=self.obs_layout, **options))
        converted = {a: self._observation_space(self.observation_spaces[a])
                     for a in self.observation_spaces}
        self.observation_spaces = converted
        self.observation_space = spaces.Dict(converted)

    def _env_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The keywords of `carcassonne_v0.env` for an ``env_config``."""
        return options

    @staticmethod
    def _observation(obs: dict[str, Any]) -> dict[str, np.ndarray]:
        return flatten_observation(obs)

    @staticmethod
    def _observation_space(space: spaces.Dict) -> spaces.Dict:
        return flat_observation_space(space)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game; returns the first agent's observation (and empty infos)."""
        obs, infos = super().reset(seed=seed, options=options)
        return {a: self._observation(o) for a, o in obs.items()}, infos

    def step(self, action_dict: dict[str, int]):
        """Play the acting agent's action; returns the next agent's observation (every
        agent's final one when the game ends), as `PettingZooEnv.step` does."""
        try:
            obs, rewards, terminateds, truncateds, infos = super().step(action_dict)
        except WindowOverflowError as err:
            return self._truncate(str(err))
        return ({a: self._observation(o) for a, o in obs.items()},
                rewards, terminateds, truncateds, infos)

    def _truncate(self, reason: str):
        """End the episode for everyone (no legal move fits the window)."""
        raw = self.env.unwrapped
        agents = list(self.possible_agents)
        obs = {a: empty_observation(self.observation_spaces[a]) for a in agents}
        rewards = {a: float(raw._cumulative_rewards.get(a, 0.0)) for a in agents}
        terminateds = dict.fromkeys(agents, False) | {"__all__": False}
        truncateds = dict.fromkeys(agents, True) | {"__all__": True}
        infos = {a: {"window_overflow": reason} for a in agents}
        return obs, rewards, terminateds, truncateds, infos


class CandidateRLlibEnv(CarcassonneRLlibEnv):
    """`CarcassonneRLlibEnv` with the candidate-move observation (`candidate_observation`:
    features, candidates, candidate_actions; no board planes, no mask) for
    `CandidateTorchRLModule`. ``env_config`` as for `CarcassonneRLlibEnv`, with
    ``candidate_moves`` (K, default 128, as ``carcassonne train multi --policy
    candidates``) and optionally ``obs_features`` ("standard" or "aggregate")."""

    obs_layout = "dict"

    def _env_options(self, options: dict[str, Any]) -> dict[str, Any]:
        options.setdefault("candidate_moves", 128)
        k = options["candidate_moves"]
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"candidate_moves must be a positive integer, got {k!r}")
        return options

    @staticmethod
    def _observation(obs: dict[str, Any]) -> dict[str, np.ndarray]:
        return candidate_observation(obs)

    @staticmethod
    def _observation_space(space: spaces.Dict) -> spaces.Dict:
        return candidate_observation_space(space)


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
        if not (isinstance(observation_space, spaces.Dict)
                and {"action_mask", "observations"} <= set(observation_space.spaces)):
            raise ValueError("MaskedPPOTorchRLModule needs a Dict observation space with "
                             f"'action_mask' and 'observations', got {observation_space}")
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
                mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
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
        self.logits = torch.where(self.present, logits[..., :K],
                                  torch.full_like(logits[..., :K], -1e9))
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

    def logp(self, value: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        """Log-probability of env actions `value` (each one of its row's candidates)."""
        return self._dist.log_prob(self._position(value))

    def sample(self, *, sample_shape: Any = None) -> torch.Tensor:
        """Env actions drawn from the candidates."""
        k = self._dist.sample(sample_shape if sample_shape is not None else torch.Size())
        return self.actions.gather(-1, k.unsqueeze(-1)).squeeze(-1)

    def rsample(self, *, sample_shape: Any = None) -> torch.Tensor:
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
        logp = torch.where(self.present, self._dist.logits,
                           torch.full_like(self._dist.logits, -torch.inf))
        index = torch.where(self.present, self.actions, torch.full_like(self.actions, n_actions))
        dense = torch.full((*logp.shape[:-1], n_actions + 1), -torch.inf, dtype=logp.dtype,
                           device=logp.device)
        return dense.scatter(-1, index, logp)[..., :n_actions]


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
            raise ValueError("CandidateTorchRLModule needs the candidate observation "
                             f"(CandidateRLlibEnv: {', '.join(CANDIDATE_OBS_KEYS)}), "
                             f"got {space}")
        try:  # training.policy needs sb3-contrib (the train extra)
            from training.policy import CandidateNet
        except ImportError as err:  # pragma: no cover - depends on the installed extras
            raise ImportError("the candidate policy's network lives in training.policy: "
                              f"{install_hint('rllib,train')}") from err
        hidden = int(self.model_config.get("hidden", 128))
        n_features = space["features"].shape[0]
        self.net = CandidateNet(n_features, space["candidates"].shape[1], hidden)
        self.value_net = nn.Linear(hidden, 1)
        for layer, gain in ((self.net, 2 ** 0.5), (self.net.score, 0.01),
                            (self.value_net, 1.0)):
            layer.apply(lambda m, g=gain: _orthogonal_init(m, g))
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
    if isinstance(holder, TorchRLModule):  # by duck type: also a `__main__` copy's class
        if hasattr(holder, "net") and hasattr(holder, "value_net"):
            return holder.net, holder.value_net
    policy = getattr(holder, "policy", holder)
    net = getattr(getattr(policy, "features_extractor", None), "net", None)
    if net is None or not isinstance(getattr(policy, "value_net", None), nn.Linear):
        raise TypeError("expected a CandidateTorchRLModule, an SB3 CandidatePolicy or a "
                        f"MaskablePPO model with one, got {type(holder).__name__}")
    return net, policy.value_net


def copy_candidate_weights(source: Any, target: Any) -> None:
    """Copy the candidate network and value head between a `CandidateTorchRLModule` and
    SB3's `CandidatePolicy` (or a MaskablePPO model), either way: a model trained on a
    laptop goes on training on a cluster, and back (``policy.predict``, the ``sb3:``
    bot, the arena). The feature and column counts and the width must match
    (RuntimeError otherwise; K may differ)."""
    for src, dst in zip(candidate_parts(source), candidate_parts(target), strict=True):
        dst.load_state_dict(src.state_dict())


def count_game_ends(*, episode, metrics_logger=None, **kwargs) -> None:
    """`on_episode_end` callback: logs ``illegal_moves`` (games ended by an illegal
    action; 0 with the masked policy) and ``window_overflows`` (games truncated by
    `CarcassonneRLlibEnv` because no legal move fitted the window) as per-iteration sums
    under the result's ``env_runners`` key."""
    last_infos = [agent_episode.get_infos(-1) or {}
                  for agent_episode in episode.agent_episodes.values() if agent_episode.infos]
    if metrics_logger is not None:
        metrics_logger.log_value(
            "illegal_moves", int(any("illegal_move" in i for i in last_infos)), reduce="sum")
        metrics_logger.log_value(
            "window_overflows", int(any("window_overflow" in i for i in last_infos)),
            reduce="sum")


def build_config(
    board_size: int = 24,
    players: int = 2,
    reward: str = "score",
    *,
    num_env_runners: int = 0,
    num_learners: int = 0,
    num_gpus_per_learner: float = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 4,
    lr: float = 3e-4,
    gamma: float = 0.99,
    hiddens: Sequence[int] = (256, 256),
    seed: int | None = None,
    env_options: dict[str, Any] | None = None,
    policy: str = "mlp",
    candidate_moves: int = 128,
    hidden: int = 128,
) -> PPOConfig:
    """The PPO configuration (RLlib's new API stack) for self-play with one shared
    policy that plays legal moves only.

    Args:
        board_size: observation window B (cells); actions = B * B * 4 * 9.
        players: 2-6 seats, all played by the shared policy.
        reward: the AEC env's reward: "score", "margin" or "win".
        num_env_runners: remote EnvRunner actors sampling games (0: sample in the
            driver process, for local debugging and tests).
        num_learners: remote Learner actors (0: one Learner in the driver process).
        num_gpus_per_learner: GPUs for each Learner (the local one if `num_learners` is 0).
        train_batch_size: env steps (all players together) per training iteration and
            Learner.
        minibatch_size, num_epochs, lr, gamma: PPO's SGD settings.
        hiddens: MLP layer sizes of the policy and value networks (separate encoders;
            policy "mlp").
        seed: seeds RLlib (networks, EnvRunners and the games they play).
        env_options: further keywords for `carcassonne_v0.env` (rule options,
            obs_features, illegal_reward...).
        policy: "mlp" (`MaskedPPOTorchRLModule` on `CarcassonneRLlibEnv`: RLlib's
            default MLP over the flattened planes, masked) or "candidates"
            (`CandidateTorchRLModule` on `CandidateRLlibEnv`: the network of
            ``carcassonne train multi --policy candidates``).
        candidate_moves: K of the candidate observation (policy "candidates").
        hidden: `CandidateNet`'s width (policy "candidates").

    Returns:
        A `PPOConfig`; ``config.build_algo()`` makes the `Algorithm`.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    env_config = {"players": players, "board_size": board_size, "reward": reward,
                  **(env_options or {})}
    if policy == "candidates":
        env_class = CandidateRLlibEnv
        env_config["candidate_moves"] = candidate_moves
        module = RLModuleSpec(module_class=CandidateTorchRLModule,
                              model_config={"hidden": hidden})
    else:
        env_class = CarcassonneRLlibEnv
        module = RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            model_config={
                "fcnet_hiddens": list(hiddens),
                "fcnet_activation": "relu",
                "head_fcnet_hiddens": [],
                "vf_share_layers": False,
            },
        )
    config = (
        PPOConfig()
        .environment(env=env_class, env_config=env_config)
        .framework("torch")
        .multi_agent(
            policies={POLICY_ID},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY_ID,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module}))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=gamma,
        )
        .callbacks(on_episode_end=count_game_ends)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def _mean(value: Any) -> float:
    """A float out of an RLlib metric (None / missing: nan)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def summarize(result: dict[str, Any]) -> dict[str, float]:
    """The few numbers of one ``algo.train()`` result that `main` prints."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    return {
        "episode_return_mean": _mean(runners.get("episode_return_mean")),
        "episode_len_mean": _mean(runners.get("episode_len_mean")),
        "env_steps_sampled": _mean(runners.get("num_env_steps_sampled")),
        "env_steps_lifetime": _mean(result.get("num_env_steps_sampled_lifetime")),
        "episodes": _mean(runners.get("num_episodes")),
        "illegal_moves": _mean(runners.get("illegal_moves", 0)),
        "window_overflows": _mean(runners.get("window_overflows", 0)),
        "policy_loss": _mean(learner.get("policy_loss")),
        "vf_loss": _mean(learner.get("vf_loss")),
        "entropy": _mean(learner.get("entropy")),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options of `main`."""
    parser = OneLineParser(
        prog="carcassonne train rllib",
        description="PPO self-play on the Carcassonne PettingZoo env with RLlib.")
    parser.add_argument("--iterations", type=int, default=10, help="training iterations")
    parser.add_argument("--board-size", type=int, default=24, help="window B (cells)")
    parser.add_argument("--players", type=int, default=2, help="seats (2-6)")
    parser.add_argument("--reward", default="score", choices=["score", "margin", "win"])
    parser.add_argument("--policy", default="mlp", choices=POLICIES,
                        help="mlp: RLlib's default MLP over the flattened planes; "
                             "candidates: the candidate-move network of 'carcassonne "
                             "train multi --policy candidates' (CandidateTorchRLModule)")
    parser.add_argument("--candidate-moves", type=int, default=128,
                        help="K, candidate moves per observation (--policy candidates)")
    parser.add_argument("--hidden", type=int, default=128,
                        help="the candidate network's width (--policy candidates)")
    parser.add_argument("--obs-features", default="standard", choices=OBS_FEATURES,
                        help="the features vector (docs/observations.md)")
    parser.add_argument("--address", default=None,
                        help="Ray cluster to join ('auto', 'head-ip:6379'); "
                             "default: start a local Ray instance")
    parser.add_argument("--num-env-runners", type=int, default=0,
                        help="remote EnvRunners (0: sample in this process)")
    parser.add_argument("--num-learners", type=int, default=0,
                        help="remote Learner actors (0: learn in this process)")
    parser.add_argument("--num-gpus-per-learner", type=float, default=0,
                        help="GPUs per Learner (with --num-learners 0: the local one)")
    parser.add_argument("--train-batch-size", type=int, default=4000,
                        help="env steps per iteration (per Learner)")
    parser.add_argument("--minibatch-size", type=int, default=500)
    parser.add_argument("--num-epochs", type=int, default=4)
    parser.add_argument("--checkpoint-dir", default="~/ray_results/carcassonne_ppo",
                        help="where the final checkpoint goes (a directory on the driver)")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> str:
    """Train for ``--iterations``, print a line per iteration, save a checkpoint.

    Returns:
        The checkpoint's directory.
    """
    import ray

    args = parse_args(argv)
    started = not ray.is_initialized()
    if started:
        ray.init(address=args.address)
    try:
        config = build_config(
            board_size=args.board_size, players=args.players, reward=args.reward,
            num_env_runners=args.num_env_runners, num_learners=args.num_learners,
            num_gpus_per_learner=args.num_gpus_per_learner,
            train_batch_size=args.train_batch_size,
            minibatch_size=min(args.minibatch_size, args.train_batch_size),
            num_epochs=args.num_epochs, seed=args.seed, policy=args.policy,
            candidate_moves=args.candidate_moves, hidden=args.hidden,
            env_options={"obs_features": args.obs_features})
        algo = config.build_algo()
        try:
            for it in range(1, args.iterations + 1):
                s = summarize(algo.train())
                print(f"iter {it:4d}  return {s['episode_return_mean']:8.2f}  "
                      f"len {s['episode_len_mean']:6.1f}  "
                      f"steps {s['env_steps_sampled']:.0f} ({s['env_steps_lifetime']:.0f})  "
                      f"pi_loss {s['policy_loss']:.4f}  vf_loss {s['vf_loss']:.4f}  "
                      f"entropy {s['entropy']:.3f}  illegal {s['illegal_moves']:.0f}  "
                      f"overflows {s['window_overflows']:.0f}", flush=True)
            path = algo.save_to_path(os.path.abspath(os.path.expanduser(args.checkpoint_dir)))
            print(f"checkpoint: {path}")
            return path
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()


if __name__ == "__main__":
    # By its module's name, so RLlib records the classes above as
    # training.rllib_example.X (checkpoints and workers import them) and not __main__.X.
    from training.rllib_example import main as _main

    _main()
