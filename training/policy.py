"""The default PPO policy for this package's observations: a small CNN over the board
planes whose action head is fully convolutional, so the policy costs the same for any
window size and the huge turn-mode action space (hand x B x B x 4 x SLOTS) needs no
giant linear layer.

    board int8[3B, 3B, C] --conv 3x3 stride 3--> cells [K, B, B]  (one vector per cell)
        + Linear(features) broadcast to every cell (tile to place, scores, supply, ...)
        --> `blocks` residual 3x3 convs over the cells (with global_pool, each block also
            adds Linear(mean and max over all cells) to every cell: the whole board in
            view, whatever the receptive field)
    actor:  1x1 conv K -> hand x 4 x SLOTS logits per cell, laid out as the action index
            (((hand * B + row) * B + col) * 4 + rotation) * SLOTS + slot
    critic: mean and max over the cells -> MLP -> value

Use it with sb3-contrib's MaskablePPO: ``MaskablePPO(BoardPolicy, env,
policy_kwargs={"channels": 32, "blocks": 2})``. Only the "turn" action mode is supported
(one action per turn).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from carcassonne_env.bots.move_prior import PRIOR_KEY
from carcassonne_env.checks import check_space, discrete_size
from carcassonne_env.tiles import base_tileset


def _shape(observation_space: spaces.Space, key: str) -> tuple[int, ...]:
    """The shape of the Box entry `key` of a Dict observation space (ValueError if none)."""
    return check_space(observation_space, spaces.Box, key).shape


def board_layout(
    observation_space: spaces.Dict, action_space: spaces.Discrete
) -> tuple[int, int, int]:
    """(B, hand size, actions per cell) of an env's spaces; raises ValueError for spaces
    that are not this package's turn-mode layout."""
    if not isinstance(observation_space, spaces.Dict) or set(observation_space.spaces) - {
        PRIOR_KEY
    } != {"board", "features"}:
        raise ValueError(
            "BoardPolicy needs the Dict(board, features) observations of the "
            "carcassonne_env envs (and optionally the move prior)"
        )
    height, width, channels = _shape(observation_space, "board")
    if height != width or height % 3:
        raise ValueError(f"board planes must be [3B, 3B, C], got {(height, width, channels)}")
    B = height // 3
    n = discrete_size(action_space)
    per_hand = 4 * base_tileset().max_segments + 4  # rotations x (no follower + segments)
    if n % (B * B * per_hand):
        raise ValueError(
            f"{n} actions are not hand x {B} x {B} x {per_hand}: BoardPolicy "
            "supports the 'turn' action mode only"
        )
    return B, n // (B * B * per_hand), n // (B * B)


class BoardExtractor(BaseFeaturesExtractor):
    """CNN trunk: board planes and feature vector -> a K-vector per window cell,
    returned flattened as [N, B * B * K] (cell-major: [N, row, col, K] viewed flat).
    In channels-last memory format (`BoardPolicy` sets it) nothing is copied on the way:
    the planes arrive channels-last.

    Args:
        observation_space: Dict(board, features) of a carcassonne_env env.
        channels: K, width of every layer.
        blocks: residual 3x3 conv blocks over the cells (receptive field 2 * blocks + 1
            cells).
        global_pool: each block adds a linear map of the mean and max over all cells
            to every cell.
    """

    def __init__(
        self,
        observation_space: spaces.Dict,
        channels: int = 32,
        blocks: int = 2,
        global_pool: bool = False,
    ) -> None:
        board = check_space(observation_space, spaces.Box, "board")
        B = board.shape[0] // 3
        self.prior = PRIOR_KEY in observation_space.spaces  # passed on after the cells
        n_prior = _shape(observation_space, PRIOR_KEY)[0] if self.prior else 0
        super().__init__(observation_space, features_dim=channels * B * B + n_prior)
        in_planes = board.shape[2]
        n_features = _shape(observation_space, "features")[0]
        self.board_size, self.channels = B, channels
        self.cell = nn.Conv2d(in_planes, channels, kernel_size=3, stride=3)
        self.context = nn.Linear(n_features, channels)
        self.blocks = nn.ModuleList(
            nn.Conv2d(channels, channels, 3, padding=1) for _ in range(blocks)
        )
        self.pools = nn.ModuleList(
            nn.Linear(2 * channels, channels) for _ in range(blocks if global_pool else 0)
        )
        # Planes above 1 (the aggregate observation's points and counts) are scaled by
        # their space's high into [0, 1]; not saved: the space gives it back.
        high = board.high[0, 0].astype("float32")
        if (high > 1).any():
            self.register_buffer("scale", th.as_tensor(1.0 / high)[:, None, None], persistent=False)
        else:
            self.scale = None

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        board = obs["board"].permute(0, 3, 1, 2)  # NHWC planes seen as channels-last NCHW
        if self.scale is not None:
            board = board * self.scale
        h = th.relu(self.cell(board) + self.context(obs["features"])[:, :, None, None])
        for k, conv in enumerate(self.blocks):
            if self.pools:
                pooled = th.cat([h.mean((2, 3)), h.amax((2, 3))], 1)
                h = th.relu(h + conv(h) + self.pools[k](pooled)[:, :, None, None])
            else:
                h = th.relu(h + conv(h))
        cells = h.permute(0, 2, 3, 1).flatten(1)
        return th.cat([cells, obs[PRIOR_KEY]], 1) if self.prior else cells


class _Heads(nn.Module):
    """SB3's `mlp_extractor` slot: the actor keeps the cell map, the critic pools it."""

    def __init__(self, channels: int, board_size: int, hidden: int, n_prior: int = 0) -> None:
        super().__init__()
        self.channels, self.board_size = channels, board_size
        self.latent_dim_pi = channels * board_size * board_size + n_prior
        self.latent_dim_vf = hidden
        self.critic = nn.Sequential(nn.Linear(2 * channels, hidden), nn.ReLU())

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return features

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        n_cells = self.board_size * self.board_size
        cells = features[:, : n_cells * self.channels].reshape(-1, n_cells, self.channels)
        return self.critic(th.cat([cells.mean(1), cells.amax(1)], 1))


class ConvActionHead(nn.Module):
    """A 1x1 convolution from the cell map to per-cell logits, flattened in action-index
    order (written as a Linear layer over channels-last cells: faster on CPU). With
    `prior`, the latent ends with the move prior and the logits are the convolution's
    plus ``prior_weight`` (learned, starts at `prior_weight`) times the prior."""

    def __init__(
        self,
        channels: int,
        board_size: int,
        per_cell: int,
        hand_size: int,
        prior: bool = False,
        prior_weight: float = 1.0,
    ) -> None:
        super().__init__()
        self.channels, self.board_size, self.hand_size = channels, board_size, hand_size
        self.linear = nn.Linear(channels, per_cell)
        self.prior_weight = nn.Parameter(th.full((1,), float(prior_weight))) if prior else None

    def forward(self, latent: th.Tensor) -> th.Tensor:
        B, hand = self.board_size, self.hand_size
        n_cells = B * B * self.channels
        cells = latent[:, :n_cells].reshape(-1, B, B, self.channels)
        logits = self.linear(cells)  # [N, row, col, per cell]
        n = logits.shape[0]
        if hand > 1:  # action = ((hand * B + row) * B + col) * 4 * SLOTS + ...
            logits = logits.view(n, B, B, hand, -1).permute(0, 3, 1, 2, 4)
        logits = logits.reshape(n, -1)
        if self.prior_weight is not None:
            logits = logits + self.prior_weight * latent[:, n_cells:]
        return logits


class LeanMaskedCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical, computed over the legal actions only. With ~10^4
    actions per decision of which a few hundred are legal, torch's Categorical
    (normalising twice, validating, `multinomial`) cost several times more than the
    policy network, and even one dense masked log-softmax (with its exp for the entropy
    and its backward) cost a quarter of a PPO update. With a mask, the logits of the
    legal actions are gathered into one flat vector (row-major, `rows` says whose) and
    normalised per row with segment reductions; log-probabilities, entropy, samples
    (Gumbel-max) and modes read that vector. ``distribution.logits`` are the normalised
    log-probabilities, as with torch's Categorical (dense, masked entries -inf; built on
    first use)."""

    def proba_distribution(self, action_logits: th.Tensor) -> LeanMaskedCategorical:
        self.raw = action_logits.view(-1, self.action_dim)
        self._dense: th.Tensor | None = None
        self._rows: th.Tensor | None = None  # set by apply_masking: the legal (row, col) pairs
        return self

    @property  # SB3 declares a torch Categorical; it only reads `.distribution.logits`
    def distribution(self) -> LeanMaskedCategorical:  # type: ignore[override]
        """This object: SB3 code reads `.distribution.logits`."""
        return self

    def apply_masking(self, masks: Any) -> None:
        if masks is None:
            return
        masks = th.as_tensor(masks, dtype=th.bool, device=self.raw.device)
        rows, cols = masks.view_as(self.raw).nonzero(as_tuple=True)
        n = self.raw.shape[0]
        values = self.raw[rows, cols]
        top = th.full((n,), -th.inf, device=values.device).scatter_reduce(
            0, rows, values.detach(), "amax"
        )
        total = th.zeros(n, device=values.device).index_add(0, rows, th.exp(values - top[rows]))
        self._lse = top + th.log(total)
        self._rows, self._cols = rows, cols
        self._logp = values - self._lse[rows]
        self._dense = None

    @property
    def logits(self) -> th.Tensor:
        """The masked logits, dense over every action (illegal ones at the minimum)."""
        if self._dense is None:
            if self._rows is None:
                self._dense = th.log_softmax(self.raw, 1)
            else:
                dense = th.full_like(self.raw, -th.inf)
                dense[self._rows, self._cols] = self._logp
                self._dense = dense
        return self._dense

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        actions = actions.long().view(-1, 1)
        if self._rows is None:
            return self.logits.gather(1, actions).squeeze(1)
        return self.raw.gather(1, actions).squeeze(1) - self._lse

    def entropy(self) -> th.Tensor:
        if self._rows is None:
            return -(self.logits.exp() * self.logits).sum(1)
        p_logp = self._logp.exp() * self._logp
        return -th.zeros(self.raw.shape[0], device=p_logp.device).index_add(0, self._rows, p_logp)

    def _best(self, rows: th.Tensor, scores: th.Tensor) -> th.Tensor:
        """Per row, the legal action of the highest `scores` (one per legal pair, `rows`
        saying whose)."""
        n = self.raw.shape[0]
        top = th.full((n,), -th.inf, device=scores.device).scatter_reduce(0, rows, scores, "amax")
        # the lowest action index among a row's best (as argmax takes the first)
        cand = th.where(scores == top[rows], self._cols, self.action_dim)
        return th.full((n,), self.action_dim, device=scores.device).scatter_reduce(
            0, rows, cand, "amin"
        )

    def sample(self) -> th.Tensor:
        with th.no_grad():
            if self._rows is None:
                cdf = self.logits.exp().cumsum(1)
                u = (1.0 - th.rand(cdf.shape[0], 1, device=cdf.device)) * cdf[:, -1:]
                return th.searchsorted(cdf, u).clamp_(max=self.action_dim - 1).squeeze(1)
            u = th.rand(self._logp.shape, device=self._logp.device).clamp_(min=1e-20)
            return self._best(self._rows, self._logp - th.log(-th.log(u)))  # Gumbel-max

    def mode(self) -> th.Tensor:
        if self._rows is None:
            return self.logits.argmax(1)
        with th.no_grad():
            return self._best(self._rows, self._logp)


class BoardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy: `BoardExtractor` trunk, `ConvActionHead` actor, pooled critic.

    Args (besides SB3's): channels, blocks, global_pool (the trunk, see
    `BoardExtractor`), critic_hidden (critic MLP width). The hand size (3 in the
    strategic variant) is read off the action space.
    """

    observation_space: spaces.Dict  # checked by board_layout
    features_extractor: BoardExtractor
    # SB3 declares its MlpExtractor: it calls latent_dim_pi/vf and forward_actor/critic
    mlp_extractor: _Heads  # type: ignore[assignment]

    def __init__(
        self,
        observation_space: spaces.Dict,
        action_space: spaces.Discrete,
        lr_schedule: Any,
        channels: int = 32,
        blocks: int = 2,
        critic_hidden: int = 64,
        global_pool: bool = False,
        prior_weight: float = 1.0,
        **kwargs: Any,
    ) -> None:
        B, hand_size, per_cell = board_layout(observation_space, action_space)
        self.board_size, self.per_cell = B, per_cell
        self.channels, self.critic_hidden, self.hand_size = channels, critic_hidden, hand_size
        self.prior_weight = prior_weight
        kwargs.setdefault("features_extractor_class", BoardExtractor)
        kwargs.setdefault(
            "features_extractor_kwargs",
            {"channels": channels, "blocks": blocks, "global_pool": global_pool},
        )
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        prior = PRIOR_KEY in self.observation_space.spaces
        self.mlp_extractor = _Heads(
            self.channels,
            self.board_size,
            self.critic_hidden,
            _shape(self.observation_space, PRIOR_KEY)[0] if prior else 0,
        )

    def _build(self, lr_schedule: Any) -> None:
        # As MaskableActorCriticPolicy._build, with the conv head instead of a Linear one
        # (a Linear layer from K*B*B to every action would have ~10^9 weights).
        self._build_mlp_extractor()
        self.lean_dist = LeanMaskedCategorical(discrete_size(self.action_space))
        self.action_net = ConvActionHead(
            self.channels,
            self.board_size,
            self.per_cell,
            self.hand_size,
            PRIOR_KEY in self.observation_space.spaces,
            self.prior_weight,
        )
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            gains = {
                self.features_extractor: 2**0.5,
                self.mlp_extractor: 2**0.5,
                self.action_net: 0.01,
                self.value_net: 1.0,
            }
            for module, gain in gains.items():
                module.apply(partial(self.init_weights, gain=gain))
        # after the init; torch's overloads of `to` leave out its memory_format form
        self.features_extractor.to(memory_format=th.channels_last)  # type: ignore[call-overload]
        # SB3 types optimizer_class as the Optimizer base, whose __init__ takes no lr
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> LeanMaskedCategorical:
        # a new distribution per call (SB3 reuses one): the learner evaluates minibatch
        # shards on several threads at once (training.learner)
        return LeanMaskedCategorical(self.lean_dist.action_dim).proba_distribution(
            self.action_net(latent_pi)
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            channels=self.channels, critic_hidden=self.critic_hidden, prior_weight=self.prior_weight
        )
        data["blocks"] = len(self.features_extractor.blocks)
        data["global_pool"] = bool(len(self.features_extractor.pools))
        return data


# ------------------------------------------------------------------- candidate moves
CANDIDATE_KEYS = ("candidates", "candidate_actions")


def symlog(x: th.Tensor) -> th.Tensor:
    """sign(x) * log(1 + |x|): points and counts of any size into a range a network
    takes (0 and 1 stay close to themselves)."""
    return th.sign(x) * th.log1p(th.abs(x))


class CandidateNet(nn.Module):
    """The candidate-move network, framework-free (SB3's `CandidatePolicy` and the RLlib
    module of `training.rllib.modules` both run it): one shared network scores every
    candidate move of the observation (`Encoder(candidate_moves=K)`):

        context = MLP(features)                           (tile, scores, supply, deck...)
        e_k     = MLP(relu(Linear(symlog(candidate_k)) + context))
        logit_k = Linear(e_k)
        value   = MLP([max_k e_k, mean_k e_k, context])   (over present candidates)

    Only present candidates go through the network (gathered into one batch: a position
    has far fewer legal moves than K); absent ones get logit 0 (the caller masks them).
    `candidates` is [N, K, F], or packed: [n, F], the n present rows (actions >= 0) in
    row-major order already through `inputs` (symlog), as the rollout buffer gives them
    (`training.buffers`: once per rollout, not once per epoch).
    """

    inputs = staticmethod(symlog)  # what the first layer reads of a candidate's columns

    def __init__(self, n_features: int, n_columns: int, hidden: int = 128) -> None:
        super().__init__()
        self.hidden = hidden
        self.context = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU())
        self.embed = nn.Linear(n_columns, hidden)
        self.body = nn.Sequential(
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.score = nn.Linear(hidden, 1)
        self.value = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.ReLU())

    def forward(
        self, features: th.Tensor, candidates: th.Tensor, actions: th.Tensor
    ) -> tuple[th.Tensor, th.Tensor]:
        """(logits [N, K], value latent [N, hidden]) of a batch of observations."""
        logits, pooled = self.trunk(features, candidates, actions)
        return logits, self.value(pooled)

    def trunk(
        self, features: th.Tensor, candidates: th.Tensor, actions: th.Tensor
    ) -> tuple[th.Tensor, th.Tensor]:
        """(logits [N, K], the value MLP's input [N, 3 hidden]: max and mean of the
        candidates' embeddings and the context) of a batch of observations."""
        N, K = actions.shape
        present = actions >= 0  # [N, K]
        rows, cols = present.nonzero(as_tuple=True)
        context = self.context(features)
        picked = candidates if candidates.dim() == 2 else self.inputs(candidates[rows, cols])
        e = self.body(th.relu(self.embed(picked) + context[rows]))
        logits = th.zeros(N, K, dtype=e.dtype, device=e.device)
        logits = logits.index_put((rows, cols), self.score(e).squeeze(-1))
        # pools over each row's candidates (e >= 0 after the ReLU: 0 is a neutral max)
        pooled_max = th.zeros(N, self.hidden, dtype=e.dtype, device=e.device).scatter_reduce(
            0, rows[:, None].expand_as(e), e, "amax", include_self=True
        )
        count = present.sum(1, keepdim=True).clamp(min=1).to(e.dtype)
        pooled_mean = (
            th.zeros(N, self.hidden, dtype=e.dtype, device=e.device).index_add(0, rows, e) / count
        )
        return logits, th.cat([pooled_max, pooled_mean, context], 1)


class CandidateExtractor(BaseFeaturesExtractor):
    """`CandidateNet` as SB3's features extractor: returns [N, K logits | K action
    indices | hidden value latent] for `CandidatePolicy`."""

    def __init__(self, observation_space: spaces.Dict, hidden: int = 128) -> None:
        K, F = _shape(observation_space, "candidates")
        super().__init__(observation_space, features_dim=2 * K + hidden)
        self.net = CandidateNet(_shape(observation_space, "features")[0], F, hidden)

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        actions = obs["candidate_actions"]
        logits, value = self.net(obs["features"], obs["candidates"], actions)
        return th.cat([logits, actions.to(logits.dtype), value], 1)


class _CandidateHeads(nn.Module):
    """SB3's `mlp_extractor` slot: the actor gets the logits and action indices, the
    critic the value latent (a packed minibatch has fewer than K candidates per row)."""

    def __init__(self, n_candidates: int, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden
        self.latent_dim_pi, self.latent_dim_vf = 2 * n_candidates, hidden

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return features[:, : -self.hidden]

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return features[:, -self.hidden :]


class CandidateCategorical(MaskableCategoricalDistribution):
    """A categorical over an observation's candidate moves, computed on the K candidates
    alone (not on the ~10^4 actions): `proba_distribution` takes [N, K logits | K action
    indices], absent candidates (index -1) get probability 0. Actions in and out are the
    env's action indices, so MaskablePPO, `predict` and the bots use it unchanged. The
    candidates are legal actions, so the action masks SB3 passes are not needed
    (`apply_masking` ignores them; with more than K legal actions, the ones left out of
    the candidates are never played). ``distribution.logits`` gives dense normalised
    log-probabilities over the whole action space (-inf off the candidates), built on
    first use."""

    def proba_distribution(self, action_logits: th.Tensor) -> CandidateCategorical:
        K = action_logits.shape[1] // 2
        logits, self.actions = action_logits[:, :K], action_logits[:, K:].long()
        self.present = self.actions >= 0
        # a large finite penalty, not -inf: 0 * -inf in the entropy would make NaN
        # gradients through th.where
        masked = th.where(self.present, logits, th.full_like(logits, -1e9))
        self.logp = th.log_softmax(masked, 1)
        self._dense: th.Tensor | None = None
        return self

    @property  # SB3 declares a torch Categorical; it only reads `.distribution.logits`
    def distribution(self) -> CandidateCategorical:  # type: ignore[override]
        """This object: SB3 code reads `.distribution.logits`."""
        return self

    def apply_masking(self, masks: Any) -> None:
        pass  # the candidates are legal actions (see the class docstring)

    @property
    def logits(self) -> th.Tensor:
        """The candidates' logits (absent candidates at the minimum)."""
        if self._dense is None:
            n = self.logp.shape[0]
            dense = th.full(
                (n, self.action_dim + 1), -th.inf, dtype=self.logp.dtype, device=self.logp.device
            )
            index = th.where(
                self.present, self.actions, th.full_like(self.actions, self.action_dim)
            )
            logp = th.where(self.present, self.logp, th.full_like(self.logp, -th.inf))
            self._dense = dense.scatter(1, index, logp)[:, : self.action_dim]
        return self._dense

    def _index(self, actions: th.Tensor) -> th.Tensor:
        """The candidate position of each row's action (env action indices)."""
        hit = self.actions == actions.long().view(-1, 1)
        return hit.to(th.uint8).argmax(1)

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        return self.logp.gather(1, self._index(actions).view(-1, 1)).squeeze(1)

    def entropy(self) -> th.Tensor:
        p_logp = th.where(self.present, self.logp.exp() * self.logp, th.zeros_like(self.logp))
        return -p_logp.sum(1)

    def _action_of(self, k: th.Tensor) -> th.Tensor:
        return self.actions.gather(1, k.view(-1, 1)).squeeze(1)

    def sample(self) -> th.Tensor:
        with th.no_grad():
            u = th.rand(self.logp.shape, device=self.logp.device).clamp_(min=1e-20)
            return self._action_of((self.logp - th.log(-th.log(u))).argmax(1))  # Gumbel-max

    def mode(self) -> th.Tensor:
        """The most likely candidate; among equals (candidates with the same columns
        score the same) the lowest action index, as an argmax over ``logits`` takes."""
        with th.no_grad():
            best = self.present & (self.logp == self.logp.max(1, keepdim=True).values)
            return (
                th.where(best, self.actions, th.full_like(self.actions, self.action_dim))
                .min(1)
                .values
            )


class CandidatePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy over the candidate-move observation (envs made with
    ``candidate_moves=K``, "turn" action mode): `CandidateExtractor` scores each
    candidate from its rule quantities and the global features; `CandidateCategorical`
    turns the scores into a distribution over the candidates' action indices; the
    critic pools the candidates. Learns from what the rules compute for each move, with no bot's
    evaluation in its input.

    Args (besides SB3's): hidden (width of every layer).
    """

    observation_keys = ("features", *CANDIDATE_KEYS)  # what the network reads
    observation_space: spaces.Dict  # checked by __init__
    features_extractor: CandidateExtractor
    # SB3 declares its MlpExtractor: it calls latent_dim_pi/vf and forward_actor/critic
    mlp_extractor: _CandidateHeads  # type: ignore[assignment]

    def __init__(
        self,
        observation_space: spaces.Dict,
        action_space: spaces.Discrete,
        lr_schedule: Any,
        hidden: int = 128,
        **kwargs: Any,
    ) -> None:
        if not isinstance(observation_space, spaces.Dict) or not set(CANDIDATE_KEYS) <= set(
            observation_space.spaces
        ):
            raise ValueError(
                "CandidatePolicy needs the candidate-move observation: make "
                "the env with candidate_moves=K (e.g. 128)"
            )
        self.hidden = hidden
        kwargs.setdefault("features_extractor_class", CandidateExtractor)
        kwargs.setdefault("features_extractor_kwargs", {"hidden": hidden})
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _CandidateHeads(
            _shape(self.observation_space, "candidates")[0], self.hidden
        )

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        self.candidate_dist = CandidateCategorical(discrete_size(self.action_space))
        self.action_net = nn.Identity()  # the extractor already scored the candidates
        self.value_net = nn.Linear(self.hidden, 1)
        if self.ortho_init:
            self.features_extractor.apply(lambda m: self.init_weights(m, gain=2**0.5))
            self.init_weights(self.features_extractor.net.score, gain=0.01)
            self.init_weights(self.value_net, gain=1.0)
        # SB3 types optimizer_class as the Optimizer base, whose __init__ takes no lr
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> CandidateCategorical:
        # a new distribution per call, as BoardPolicy's
        return CandidateCategorical(self.candidate_dist.action_dim).proba_distribution(latent_pi)

    def extract_features(self, obs: Any, features_extractor: Any = None) -> Any:
        # Only what the network reads: SB3 would turn every key to float first, the board
        # planes too (unused here, and a large share of PPO's update time).
        used = {key: obs[key] for key in self.observation_keys}
        return super().extract_features(used, features_extractor)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(hidden=self.hidden)
        return data
