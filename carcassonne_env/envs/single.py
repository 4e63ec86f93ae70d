"""Gymnasium single-agent envs: `Carcassonne/Solo-v0` (the solo variant, one agent
playing every colour) and `Carcassonne/VsBots-v0` (one learning seat against built-in
bots). Both give ``action_masks()`` for sb3-contrib's MaskablePPO (and, with
``mask_in_obs=True``, the mask as the observation's "action_mask" entry, for libraries
that read it there: TorchRL, Tianshou, RLlib; docs/clients.md), take any integer scalar as
an action (int, numpy integer, 0-d integer array as SB3's ``predict`` returns) and raise
`gymnasium.error.ResetNeeded` on a step after the episode ended (game over or illegal
action) until ``reset()``.

`info` holds numpy arrays and scalars only, no lists: "scores" int64[P], "action_mask"
int8[n_actions], "moves_outside_window" an int, "end_reason" None while the game runs and
then "A" / "B" / "tiles". Readers that turn entries into tensors take the arrays (TorchRL:
an explicit ``default_info_dict_reader(["scores"], ...)``, docs/clients.md; its
``auto_register_info_dict`` wants every entry numpy, which "end_reason" is not)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from ..bots.base import Agent
from ..bots.plugins import make_opponent
from ..checks import check_bool, check_choice, check_int, check_real
from ..rendering.modes import RENDER_MODES, render_game
from ..rules import Rules
from .aec import SCORES_DTYPE, rules_from
from .driver import REWARDS, TurnDriver, check_rule_options, seat_rewards

#: The observation key of the action mask with ``mask_in_obs=True`` (the AEC env's name).
MASK_KEY = "action_mask"
#: A `VsBotsEnv` opponent: a bot spec, an agent, or a factory ``factory(seed=...) -> agent``.
Opponent = str | Agent | Callable[..., Agent]


def _is_agent(entry: Any) -> bool:
    """An agent object (a bot class is a factory: ``RandomAgent(seed=...)``)."""
    return not isinstance(entry, type) and callable(getattr(entry, "act", None))


def _opponent_name(entry: Opponent) -> str:
    if isinstance(entry, str):
        return entry
    return str(getattr(entry, "name", getattr(entry, "__name__", type(entry).__name__)))


class _SingleAgentEnv(gym.Env):
    """Shared part: spaces, seeding, masks, illegal actions, rendering."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, rules: Rules, board_size: int, action_mode: str, on_overflow: str,
                 illegal_reward: float, render_mode: str | None, obs_features: str,
                 candidate_moves: int, mask_in_obs: bool = False) -> None:
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.rules = rules
        self.render_mode = render_mode
        self.illegal_reward = check_real("illegal_reward", illegal_reward)
        self.driver = TurnDriver(rules, board_size, action_mode, on_overflow, obs_features,
                                 candidate_moves)
        self.mask_in_obs = check_bool("mask_in_obs", mask_in_obs)
        enc = self.driver.encoder
        self.observation_space = enc.observation_space()
        if self.mask_in_obs:  # the AEC env's key and space (`carcassonne_v0`)
            self.observation_space = gym.spaces.Dict({
                **self.observation_space.spaces,
                MASK_KEY: gym.spaces.Box(0, 1, (enc.n_actions,), np.int8)})
        self._obs_keys = tuple(self.observation_space.spaces)
        self.action_space = enc.action_space()
        self._over = "before the first reset()"  # why step() is refused; None: playing

    @property
    def game(self):
        """The `Game` being played (read it, don't play moves on it)."""
        return self.driver.game

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions (sb3-contrib's MaskablePPO calls this)."""
        return self.driver.action_mask().view(np.bool_)  # 0/1 int8 viewed as bool

    def _observer(self) -> int:
        raise NotImplementedError

    def _obs_info(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs = self.driver.observe(self._observer())
        game = self.driver.game
        info = {"scores": np.array(game.scores, SCORES_DTYPE), "end_reason": game.end_reason,
                "action_mask": self.driver.action_mask(),
                "moves_outside_window": int(self.driver.encoder.last_outside)}
        # with mask_in_obs, obs["action_mask"] (the driver's) equals info["action_mask"]
        return {k: obs[k] for k in self._obs_keys}, info

    def _new_game(self, seed: int | None) -> None:
        super().reset(seed=seed)
        self.driver.new_game(int(self.np_random.integers(2**63)))
        self._over = None

    def _check_playing(self) -> None:
        """ResetNeeded unless an episode is running: a step after the episode ended
        (game over or illegal action) must not play on in the finished game."""
        if self._over is not None:
            raise ResetNeeded(f"step() called {self._over}: call reset() to start a new "
                              "episode")

    def _finish_if_done(self) -> None:
        if self.driver.game.done:
            self._over = "after the game ended (terminated)"

    def _illegal(self, reason: str):
        self._over = "after an illegal action ended the episode (terminated)"
        obs, info = self._obs_info()
        obs = {k: v.copy() for k, v in obs.items()}  # same decision: never hand out twice
        info["action_mask"] = info["action_mask"].copy()
        info["illegal_move"] = reason
        return obs, self.illegal_reward, True, False, info

    def render(self):
        if self.render_mode is None:
            return None
        return render_game(self.driver.game, self.render_mode)


def _deal_option(options: dict | None) -> int | None:
    """The "deal" of `SoloEnv.reset`'s options (None: none); ValueError for another
    option or a deal that is not a non-negative integer."""
    if not options:
        return None
    if not isinstance(options, dict) or set(options) - {"deal"}:
        raise ValueError(f"SoloEnv.reset takes options={{'deal': d}} only, got {options!r}")
    return check_int("deal", options["deal"], 0)


class SoloEnv(_SingleAgentEnv):
    """The 2020 solo variant: one agent places every colour's tiles and followers.

    Reward: the increase of the lowest colour's score, so an episode's return is the
    result minus the starting 1. `info` carries "scores" (int64[colours]), "end_reason"
    ("A" / "B" / "tiles" once over, else None), "action_mask" (int8[n_actions]) and
    "moves_outside_window" (an int).

    Args:
        colours: 3 or 4 solo colours.
        board_size, action_mode, on_overflow, obs_features: see
            `carcassonne_env.encoding.Encoder` (obs_features="aggregate" adds per-feature
            planes and projected scores, docs/observations.md).
        candidate_moves: K > 0 adds the candidate-move observation: "candidates"
            float32[K, F], what the rules give for the position after each of up to K
            legal actions, and "candidate_actions" int64[K], their action indices (-1:
            absent); needs action_mode="turn" (`carcassonne_env.encoding.Encoder`,
            docs/observations.md "Candidate moves").
        illegal_reward: reward for an illegal action, which ends the episode
            (``info["illegal_move"]`` says why).
        render_mode: "ansi", "rgb_array" or "human".
        scoring_order: "auto" (default) or "player": the agent also chooses the order in
            which simultaneous completions and the end bonus are scored; such a step's
            action names a follower on the board (docs/observations.md, "Scoring
            decisions").
        mask_in_obs: True adds the action mask to the observation: "action_mask"
            int8[n_actions] (Box 0..1, 1: legal; the key and space of the PettingZoo env
            `carcassonne_v0`), for libraries that read the mask from the observation
            (TorchRL, Tianshou, RLlib; docs/clients.md). It equals
            ``info["action_mask"]`` and ``action_masks()``; all zero once the episode is
            over. Default False: the observation the shipped models were trained on.
        rule_options: further `Rules` options of the solo variant: ``followers`` (the
            seed's harder 3 or easier 5), ``expansions`` and ``expansion_mode``.
    """

    def __init__(self, colours: int = 3, board_size: int = 32, action_mode: str = "turn",
                 on_overflow: str = "warn", illegal_reward: float = -1.0,
                 render_mode: str | None = None, obs_features: str = "standard",
                 scoring_order: str = "auto", candidate_moves: int = 0,
                 mask_in_obs: bool = False, **rule_options: Any) -> None:
        check_rule_options(type(self), rule_options)
        check_int("colours", colours, 3, 4)
        rules = Rules(variant="solo", solo_colours=colours, scoring_order=scoring_order,
                      **rule_options)
        super().__init__(rules, board_size, action_mode, on_overflow, illegal_reward,
                         render_mode, obs_features, candidate_moves, mask_in_obs)

    def _observer(self) -> int:
        return 0  # colours are absolute in solo

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new game. ``options={"deal": d}`` deals ``Game(rules, seed=d)``, deal
        d of `carcassonne solo-bench` (so results compare deal for deal); otherwise the
        deck comes from the env's generator (seeded by `seed`)."""
        deal = _deal_option(options)
        self._new_game(seed)
        if deal is not None:
            self.driver.new_game(deal)
        return self._obs_info()

    def step(self, action):
        self._check_playing()
        low = min(self.driver.game.scores)
        _, reason = self.driver.step(action)
        if reason is not None:
            return self._illegal(reason)
        self._finish_if_done()
        obs, info = self._obs_info()
        reward = float(min(self.driver.game.scores) - low)
        if self.render_mode == "human":
            self.render()
        return obs, reward, self.driver.game.done, False, info


class VsBotsEnv(_SingleAgentEnv):
    """One learning seat against bots.

    Args:
        opponents: one entry per other seat (or a single entry for all of them), each a
            bot spec (a built-in bot: "random", "greedy", "heuristic" with options such
            as "heuristic:follower=3.0"; or one that a package registers,
            `carcassonne_env.bots.plugins`: "mcts", "sb3:model=ppo_duel"... of `agents`),
            an agent object (``act(game) -> Move``, played as is every episode) or a
            factory (``factory(seed=...) -> agent``, called every episode with a seed
            drawn from the env's generator). ``players`` defaults to
            ``len(opponents) + 1``.
        seat: the learning seat, or None to draw it per episode.
        reward: "score" (points the learning seat gained since its last action,
            opponents' turns and final scoring included), "margin" (that minus the
            opponents' mean gain) or "win" (+1 / 0 / -1 at the end).
        rules: a `Rules`, or its options as keywords.
        board_size, action_mode, on_overflow, illegal_reward, render_mode, obs_features,
        candidate_moves, mask_in_obs: as `SoloEnv` (the mask: the learning seat's).

    `info` carries what `SoloEnv`'s does ("scores": int64[players]) and "seat", the
    learning seat (an int).
    """

    def __init__(self, opponents: Sequence[Opponent] | Opponent = ("greedy",),
                 seat: int | None = None, reward: str = "score", rules: Rules | None = None,
                 board_size: int = 32, action_mode: str = "turn", on_overflow: str = "warn",
                 illegal_reward: float = -1.0, render_mode: str | None = None,
                 obs_features: str = "standard", candidate_moves: int = 0,
                 mask_in_obs: bool = False, **rule_options: Any) -> None:
        check_rule_options(type(self), rule_options)
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            entries = [opponents]
        else:
            entries = list(opponents)
        if not all(isinstance(e, str) or callable(e) or _is_agent(e) for e in entries):
            raise ValueError("opponents must be a bot spec or a list of bot specs (strings), "
                             f"agents (act(game) -> Move) or agent factories, got {opponents!r}")
        if not entries:
            raise ValueError("opponents must name at least one bot")
        if rules is None:
            rule_options.setdefault("players", len(entries) + 1)
        rules = rules_from(rules, rule_options)
        if rules.variant == "solo" or rules.players < 2:
            raise ValueError("VsBots is for 2-6 players; use 'Carcassonne/Solo-v0' for the "
                             "solo variant")
        if len(entries) == 1:
            entries *= rules.players - 1
        names = [_opponent_name(e) for e in entries]
        if len(entries) != rules.players - 1:
            raise ValueError(f"{rules.players} players need {rules.players - 1} opponents, "
                             f"got {len(entries)}: {names}")
        for spec in {e for e in entries if isinstance(e, str)}:
            make_opponent(spec)  # an unknown bot or bad option fails here, not at reset
        if seat is not None:
            seat = check_int("seat", seat, 0, rules.players - 1)
        check_choice("reward", reward, REWARDS)
        super().__init__(rules, board_size, action_mode, on_overflow, illegal_reward,
                         render_mode, obs_features, candidate_moves, mask_in_obs)
        self.opponents = entries
        self.opponent_names = names
        self.fixed_seat = seat
        self.reward_mode = reward
        self.seat = 0
        self._bots: dict[int, Any] = {}
        self._gains_before_first_turn: np.ndarray | int = 0

    def _observer(self) -> int:
        return self.seat

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        rng = self.np_random
        self.seat = (int(rng.integers(self.rules.players)) if self.fixed_seat is None
                     else self.fixed_seat)
        others = [p for p in range(self.rules.players) if p != self.seat]
        self._bots = self._make_bots(others)
        self._gains_before_first_turn = self._play_bots()  # counted in the first step
        obs, info = self._obs_info()
        info["seat"] = self.seat
        return obs, info

    def _make_bots(self, seats: list[int]) -> dict[int, Any]:
        """The opponents of a new episode by seat (a hook: self-play training draws them
        from a pool of past policies instead). Every seat draws a bot seed, whatever its
        entry, so the episode's other draws do not depend on the kind of opponent."""
        rng = self.np_random
        bots = {}
        for p, entry in zip(seats, self.opponents, strict=True):
            seed = int(rng.integers(2**63))
            if isinstance(entry, str):
                bots[p] = make_opponent(entry, seed=seed)
            elif _is_agent(entry):
                bots[p] = entry
            else:
                bots[p] = entry(seed=seed)
        return bots

    def _play_bots(self) -> np.ndarray:
        """Let the bots move until the learning seat is to act; their score gains."""
        game = self.driver.game
        before = game.state.scores.copy()
        while not game.done and game.current_player != self.seat:
            game.play(self._bots[game.current_player].act(game))
        self.driver.invalidate()
        return game.state.scores - before

    def step(self, action):
        self._check_playing()
        gains, reason = self.driver.step(action)
        if reason is not None:
            return self._illegal(reason)
        gains = gains + self._play_bots() + self._gains_before_first_turn
        self._finish_if_done()
        self._gains_before_first_turn = 0
        game = self.driver.game
        obs, info = self._obs_info()
        reward = float(seat_rewards(self.reward_mode, gains, game)[self.seat])
        info["seat"] = self.seat
        if self.render_mode == "human":
            self.render()
        return obs, reward, game.done, False, info
