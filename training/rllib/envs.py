"""The Carcassonne AEC env as RLlib sees it.

`CarcassonneRLlibEnv` wraps ``carcassonne_v0.env(obs_layout="classic")`` (PettingZoo's
classic layout: one float32 array under "observation", board planes flattened then the
features, and an int8 "action_mask") in RLlib's `PettingZooEnv`, a `MultiAgentEnv`, and
only renames each observation to the keys RLlib's action masking uses,
``{"action_mask": float32[n_actions], "observations": float32[3B * 3B * C + F]}``
(`flatten_observation`), for `training.rllib.modules.MaskedPPOTorchRLModule`.

`CandidateRLlibEnv` makes the AEC env with ``candidate_moves=K`` and observes
``{"features", "candidates", "candidate_actions"}`` only (`candidate_observation`: no
planes, no mask, the candidates are legal actions), for
`training.rllib.modules.CandidateTorchRLModule`.

`count_game_ends` is the episode callback that counts the games these envs end with an
illegal move or cut short at the window's edge.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.typing import MultiAgentDict

from carcassonne_env import carcassonne_v0
from carcassonne_env.checks import check_space
from carcassonne_env.encoding import WindowOverflowError, empty_observation

CANDIDATE_OBS_KEYS = ("features", "candidates", "candidate_actions")
"""What `CandidateRLlibEnv` observes (the board planes and the mask are left out)."""


def flatten_observation(obs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The AEC env's classic observation ``{"observation": float32 vector, "action_mask":
    int8 mask}`` as ``{"action_mask": float32 mask, "observations": float32 vector}``."""
    return {
        "action_mask": np.asarray(obs["action_mask"], np.float32),
        "observations": obs["observation"],
    }


def flat_observation_space(space: spaces.Dict) -> spaces.Dict:
    """The space of `flatten_observation` for the classic AEC observation space."""
    n_actions = check_space(space, spaces.Box, "action_mask").shape[0]
    return spaces.Dict(
        {
            "action_mask": spaces.Box(0.0, 1.0, (n_actions,), np.float32),
            "observations": space["observation"],
        }
    )


def candidate_observation(obs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The AEC env's dict-layout observation made with ``candidate_moves=K`` as
    ``{"features": float32[F], "candidates": float32[K, FC], "candidate_actions":
    int64[K]}`` (what `CandidateTorchRLModule` reads; the candidates are legal actions,
    so the mask is not needed)."""
    return {k: obs["observation"][k] for k in CANDIDATE_OBS_KEYS}


def candidate_observation_space(space: spaces.Dict) -> spaces.Dict:
    """The space of `candidate_observation` for the dict-layout AEC observation space."""
    inner = check_space(space, spaces.Dict, "observation")
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
        self.observation_spaces = {
            agent: self._observation_space(check_space(space, spaces.Dict))
            for agent, space in (self.observation_spaces or {}).items()
        }
        self.observation_space = spaces.Dict(  # the agents are named by strings
            {str(agent): space for agent, space in self.observation_spaces.items()}
        )

    def _env_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The keywords of `carcassonne_v0.env` for an ``env_config``."""
        return options

    # the AEC env's observation, and its space, as this env gives them
    _observation = staticmethod(flatten_observation)
    _observation_space = staticmethod(flat_observation_space)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game; returns the first agent's observation (and empty infos)."""
        obs, infos = super().reset(seed=seed, options=options)
        return {a: self._observation(o) for a, o in obs.items()}, infos

    def step(self, action_dict: MultiAgentDict):
        """Play the acting agent's action; returns the next agent's observation (every
        agent's final one when the game ends), as `PettingZooEnv.step` does."""
        try:
            obs, rewards, terminateds, truncateds, infos = super().step(action_dict)
        except WindowOverflowError as err:
            return self._truncate(str(err))
        return (
            {a: self._observation(o) for a, o in obs.items()},
            rewards,
            terminateds,
            truncateds,
            infos,
        )

    def _truncate(self, reason: str):
        """End the episode for everyone (no legal move fits the window)."""
        raw = self.env.unwrapped
        agents = list(self.possible_agents)
        spaces_by_agent = self.observation_spaces or {}
        obs = {a: empty_observation(check_space(spaces_by_agent[a], spaces.Dict)) for a in agents}
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

    _observation = staticmethod(candidate_observation)
    _observation_space = staticmethod(candidate_observation_space)


def count_game_ends(*, episode, metrics_logger=None, **kwargs) -> None:
    """`on_episode_end` callback: logs ``illegal_moves`` (games ended by an illegal
    action; 0 with the masked policy) and ``window_overflows`` (games truncated by
    `CarcassonneRLlibEnv` because no legal move fitted the window) as per-iteration sums
    under the result's ``env_runners`` key."""
    last_infos = [
        agent_episode.get_infos(-1) or {}
        for agent_episode in episode.agent_episodes.values()
        if agent_episode.infos
    ]
    if metrics_logger is not None:
        metrics_logger.log_value(
            "illegal_moves", int(any("illegal_move" in i for i in last_infos)), reduce="sum"
        )
        metrics_logger.log_value(
            "window_overflows", int(any("window_overflow" in i for i in last_infos)), reduce="sum"
        )
