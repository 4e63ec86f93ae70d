"""PettingZoo AEC environment for 2-6 players, in the shape of PettingZoo's classic envs:
`env()` = wrappers around `raw_env`. Import it as `carcassonne_env.carcassonne_v0`."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..checks import check_choice, check_real, check_space
from ..rendering.modes import RENDER_MODES, render_game
from ..rules import Rules
from .driver import REWARDS, TurnDriver, check_rule_options, seat_rewards

OBS_LAYOUTS = ("dict", "classic", "flat")
#: The dtype of ``info["scores"]`` in every env of this package (the single-agent envs'
#: and the AEC env's; int64 as the vector envs' "result" and "seat" entries).
SCORES_DTYPE = np.int64


def env(**kwargs: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (order enforcing). Illegal actions
    are handled inside `raw_env` (penalty, termination, reason in infos)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# The encoder's observation keys in the order the flat layouts concatenate them (the
# candidate keys only with candidate_moves).
FLAT_KEYS = ("board", "features", "candidates", "candidate_actions")


def flat_observation(
    board: np.ndarray,
    features: np.ndarray,
    candidates: np.ndarray | None = None,
    candidate_actions: np.ndarray | None = None,
) -> np.ndarray:
    """The "classic" observation: float32[3B * 3B * C + F (+ K * FC + K)], the board
    planes flattened in C order (cell row, cell column, channel), the features and, with
    candidate moves, the candidates' columns (row by row) and their action indices (-1:
    absent; exact as float32: fewer than 2**24 actions); so
    ``flat[:board.size].reshape(board.shape)`` gives the planes back, and
    `unflatten_observation` every part."""
    parts = [board.reshape(-1), features]
    if candidates is not None and candidate_actions is not None:
        parts += [candidates.reshape(-1), candidate_actions]
    return np.concatenate(parts, dtype=np.float32)


def flat_observation_space(space: spaces.Dict) -> spaces.Box:
    """The Box of `flat_observation` for an encoder's Dict(board, features[,
    candidates, candidate_actions]) space."""
    keys = [k for k in FLAT_KEYS if k in space.spaces]
    boxes = [check_space(space, spaces.Box, k) for k in keys]
    low = np.concatenate([box.low.reshape(-1) for box in boxes], dtype=np.float32)
    high = np.concatenate([box.high.reshape(-1) for box in boxes], dtype=np.float32)
    return spaces.Box(low, high, dtype=np.float32)


def unflatten_observation(flat: np.ndarray, space: spaces.Dict) -> dict[str, np.ndarray]:
    """The Dict observation (`space`: the encoder's) a flat one was made of (views into
    `flat` but for a dtype change: board int8, candidate_actions int64)."""
    keys = [k for k in FLAT_KEYS if k in space.spaces]
    sizes = [int(np.prod(check_space(space, spaces.Box, k).shape)) for k in keys]
    if flat.shape != (sum(sizes),):
        raise ValueError(
            f"a flat observation of shape {flat.shape} does not fit the space ({sum(sizes)} values)"
        )
    out, start = {}, 0
    for key, size in zip(keys, sizes, strict=True):
        sub = space[key]
        out[key] = flat[start : start + size].reshape(sub.shape).astype(sub.dtype, copy=False)
        start += size
    return out


def rules_from(rules: Rules | None, options: dict[str, Any]) -> Rules:
    """`rules`, or a `Rules` built from keyword options (players=..., small_city=...)."""
    if rules is not None:
        if options:
            raise ValueError(f"give either rules= or rule options, not both: {options}")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules instance, got {type(rules).__name__}")
        return rules
    return Rules(**options)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming)
    """Carcassonne for 2-6 players.

    Args:
        rules: a `Rules`; or give its options as keywords (``players=3, small_city=True``).
        reward: "score" (points gained this step, final scoring included), "margin" (own
            gain minus the opponents' mean gain) or "win" (+1 / 0 / -1 at the end: sole
            top score / shared top score / otherwise).
        board_size, action_mode, on_overflow, obs_features, candidate_moves: see
            `carcassonne_env.encoding.Encoder` (obs_features="aggregate" adds per-feature
            planes and projected scores, candidate_moves=K the rules' facts about up to K
            legal moves of the agent to move; docs/observations.md).
        illegal_reward: reward of an agent whose action is not legal; the game then ends
            for everyone (like PettingZoo's TerminateIllegalWrapper) and
            ``infos[agent]["illegal_move"]`` says why.
        render_mode: "ansi", "rgb_array" or "human".
        obs_layout: "dict" (default), "classic" or "flat" (see below).

    Observation of each agent, ``obs_layout="dict"``: ``{"observation": {"board":
    int8[3B, 3B, C], "features": float32[F]}, "action_mask": int8[n_actions]}``.
    ``"classic"``, the layout of PettingZoo's classic envs (chess, go...; one array under
    "observation", what Tianshou and RLlib's action masking read): ``{"observation":
    float32[3B * 3B * C + F], "action_mask": int8[n_actions]}``, the board planes
    flattened in C order followed by the features (`flat_observation`). ``"flat"``: the
    observation is that float32 array itself (a Box space, as SuperSuit's wrappers and
    PettingZoo's `api_test` want) and the mask is in ``infos[agent]["action_mask"]``.
    The mask is all zero when it is not that agent's turn.

    Infos: when the game ends, ``infos[agent]["scores"]`` (int64[players], a numpy array
    as in the Gymnasium envs); after an illegal action that agent's "illegal_move" (the
    reason); with ``obs_layout="flat"`` every agent's "action_mask".

    With ``candidate_moves=K`` the "dict" layout's observation also has "candidates"
    float32[K, FC] and "candidate_actions" int64[K]; the "classic" and "flat" arrays
    append them, the candidates row by row and then the action indices as float32
    (`flat_observation`; `unflatten_observation` splits an array back). An agent not to
    move sees every candidate absent (zeros, index -1).
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "carcassonne_v0",
        "is_parallelizable": True,
        "render_fps": 2,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        reward: str = "score",
        board_size: int = 32,
        action_mode: str = "turn",
        on_overflow: str = "warn",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        obs_layout: str = "dict",
        obs_features: str = "standard",
        candidate_moves: int = 0,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        check_rule_options(type(self), rule_options)
        rules = rules_from(rules, rule_options)
        if rules.variant == "solo" or not 2 <= rules.players <= 6:
            raise ValueError(
                "the AEC env is for 2-6 players; the solo variant is the "
                "Gymnasium env 'Carcassonne/Solo-v0'"
            )
        check_choice("reward", reward, REWARDS)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.rules = rules
        self.reward_mode = reward
        self.illegal_reward = check_real("illegal_reward", illegal_reward)
        self.render_mode = render_mode
        self.obs_layout = check_choice("obs_layout", obs_layout, OBS_LAYOUTS)
        self.driver = TurnDriver(
            rules, board_size, action_mode, on_overflow, obs_features, candidate_moves
        )
        self.possible_agents = [f"player_{p}" for p in range(rules.players)]
        self.agent_name_mapping = {a: p for p, a in enumerate(self.possible_agents)}
        enc = self.driver.encoder
        dict_space = enc.observation_space()
        flat_space = flat_observation_space(dict_space)
        self._obs_keys = tuple(dict_space.spaces)
        obs_space = (
            flat_space
            if obs_layout == "flat"
            else spaces.Dict(
                {
                    "observation": dict_space if obs_layout == "dict" else flat_space,
                    "action_mask": spaces.Box(0, 1, (enc.n_actions,), np.int8),
                }
            )
        )
        self._no_mask = np.zeros(enc.n_actions, np.int8)
        self._no_mask.flags.writeable = False  # shared by every agent not to move
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, enc.action_space())
        self._np_random, _ = seeding.np_random(None)
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self):
        """The `Game` being played (read it, don't play moves on it)."""
        return self.driver.game

    def observe(self, agent: str) -> dict[str, Any] | np.ndarray:
        obs = self.driver.observe(self.agent_name_mapping[agent])
        if self.obs_layout != "dict":
            if "flat" not in obs:  # the driver's cache of this decision keeps it too
                obs["flat"] = flat_observation(**{k: obs[k] for k in self._obs_keys})
            if self.obs_layout == "flat":
                return obs["flat"]
            return {"observation": obs["flat"], "action_mask": obs["action_mask"]}
        return {
            "observation": {k: obs[k] for k in self._obs_keys},
            "action_mask": obs["action_mask"],
        }

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.driver.new_game(int(self._np_random.integers(2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._agent_to_move()
        self._masks_in_infos()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        gains, reason = self.driver.step(action)
        if reason is not None:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = self.illegal_reward
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos[agent] = {"illegal_move": reason}
        else:
            game = self.driver.live_game
            values = seat_rewards(self.reward_mode, gains, game)
            self.rewards = {a: float(values[p]) for p, a in enumerate(self.possible_agents)}
            if game.done:
                self.terminations = dict.fromkeys(self.agents, True)
                scores = np.array(game.scores, SCORES_DTYPE)
                for a in self.agents:
                    self.infos[a] = {"scores": scores.copy()}
            else:
                self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()
        self._masks_in_infos()
        if self.render_mode == "human":
            self.render()

    def _agent_to_move(self) -> str:
        """The agent of the seat to move (the game is not over)."""
        seat = self.driver.seat
        assert seat is not None, "the game is over"
        return self.possible_agents[seat]

    def _masks_in_infos(self) -> None:
        """The "flat" layout's masks: ``infos[agent]["action_mask"]`` of every agent (all
        zero but the acting agent's while the episode runs)."""
        if self.obs_layout != "flat":
            return
        acting = self.agent_selection
        for agent in self.agents:
            live = agent == acting and not self.terminations[agent]
            self.infos[agent]["action_mask"] = (
                self.driver.observe(self.agent_name_mapping[agent])["action_mask"]
                if live
                else self._no_mask
            )

    def render(self):
        if self.render_mode is None:
            return None
        return render_game(self.driver.game, self.render_mode)

    def close(self) -> None:
        pass


def parallel_env(**kwargs: Any):
    """The same game as a PettingZoo ParallelEnv (only the agent to move acts each
    step), via `pettingzoo.utils.conversions.turn_based_aec_to_parallel`."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(env(**kwargs))
