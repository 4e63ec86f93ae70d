"""`TurnDriver`: the part every env shares. It owns one `Game` and an `Encoder`, turns
flat actions into moves (the two_step mode's pending placement included), caches the
observation of the current decision and reports score gains. No rule logic: legality
comes from the action mask, which comes from the core's legal moves."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import numpy as np

from ..checks import is_int
from ..encoding import Encoder
from ..game import Game, IllegalMoveError
from ..rules import Rules

REWARDS = ("score", "margin", "win")


def seat_rewards(mode: str, gains: np.ndarray, game: Game) -> np.ndarray:
    """Reward of every seat for a step in which the scores rose by `gains`: "score" the
    gain, "margin" the gain minus the other seats' mean gain, "win" +1 / 0 / -1 once the
    game is over (sole top score / shared top score / otherwise), 0 before."""
    gains = gains.astype(np.float64)
    if mode == "score":
        return gains
    if mode == "margin":
        return gains - (gains.sum() - gains) / (len(gains) - 1)
    if not game.done:
        return np.zeros(len(gains))
    scores = np.array(game.scores)
    top = scores == scores.max()
    return np.where(top, 1.0 if top.sum() == 1 else 0.0, -1.0)


def check_rule_options(env: type, options: dict[str, Any]) -> None:
    """TypeError for a keyword of `env`'s constructor that is neither one of its parameters
    nor a `Rules` option (the constructors pass such keywords on to `Rules`, which would
    be blamed for them); the message lists both."""
    rule_names = [f.name for f in dataclasses.fields(Rules)]
    unknown = [key for key in options if key not in rule_names]
    if unknown:
        own = [
            name
            for name, p in inspect.signature(env).parameters.items()
            if p.kind is not p.VAR_KEYWORD
        ]
        raise TypeError(
            f"{env.__name__} got an unexpected keyword argument {unknown[0]!r}; "
            f"its parameters: {', '.join(own)}; Rules options: "
            f"{', '.join(rule_names)}"
        )


def action_index(action) -> int | None:
    """The flat action in `action` as an int: a Python int, a numpy integer scalar or a
    0-d integer array (what Stable-Baselines3's ``predict`` returns for one
    observation), the values `Discrete.contains` accepts. None for anything else
    (floats, bools, strings, arrays of other shapes)."""
    if isinstance(action, np.ndarray):
        return int(action) if action.ndim == 0 and action.dtype.kind in "iu" else None
    return int(action) if is_int(action) else None


class TurnDriver:
    """One game seen through an `Encoder` (see `Encoder` for the arguments)."""

    def __init__(
        self,
        rules: Rules,
        board_size: int = 32,
        action_mode: str = "turn",
        on_overflow: str = "warn",
        obs_features: str = "standard",
        candidate_moves: int = 0,
    ) -> None:
        self.rules = rules
        self._solo = rules.variant == "solo"
        self.encoder = Encoder(
            rules,
            board_size,
            action_mode,
            on_overflow,
            obs_features=obs_features,
            candidate_moves=candidate_moves,
        )
        self.game: Game | None = None
        self.pending: tuple[int, int, int, int] | None = None
        self._cache: dict[int, dict[str, np.ndarray]] = {}

    def new_game(self, seed: int | None) -> Game:
        """Start a new game under the driver's rules (`seed`: its deck), forgetting the pending
        placement."""
        self.game = Game(self.rules, seed=seed)
        self.pending = None
        self._cache = {}
        return self.game

    @property
    def live_game(self) -> Game:
        """The game being played; RuntimeError before the first `new_game` (the env's
        reset)."""
        if self.game is None:
            raise RuntimeError("no game yet: reset the env first")
        return self.game

    @property
    def seat(self) -> int | None:
        """Seat (solo: colour) to act, None when the game is over."""
        return self.live_game.current_player

    def observe(self, observer: int) -> dict[str, np.ndarray]:
        """Observation of `observer` at the current decision: board, features (with
        candidate_moves also the candidates, absent unless `observer` is to act) and the
        action mask (all zero unless `observer` is to act; in solo observer 0 always
        acts). Cached until the next step;
        the arrays are fresh for every decision, so callers may keep them."""
        obs = self._cache.get(observer)
        if obs is None:
            # In solo the one player (observer 0) acts for whichever colour is to move.
            acting = self.seat is not None and (observer == self.seat or self._solo)
            obs = self.encoder.encode(self.live_game, observer, self.pending, with_mask=acting)
            if not acting:
                obs["action_mask"] = np.zeros(self.encoder.n_actions, np.int8)
            self._cache[observer] = obs
        return obs

    def action_mask(self) -> np.ndarray:
        """Mask of the seat to act (all zero once the game is over)."""
        seat = self.seat
        if seat is None:
            return np.zeros(self.encoder.n_actions, np.int8)
        return self.observe(0 if self._solo else seat)["action_mask"]

    def step(self, action) -> tuple[np.ndarray, str | None]:
        """Apply `action` for the seat to act. Returns (score gain per seat, None), or
        (zeros, reason) for an illegal action of the action space, which changes nothing.
        ValueError for an action outside the action space (not an integer scalar, or out
        of range): a caller's bug, not a move the agent chose."""
        self.check_in_space(action)
        game = self.live_game
        before = game.state.scores.copy()
        reason = self._illegal_reason(action)
        if reason is not None:
            return np.zeros_like(before), reason
        enc, action = self.encoder, action_index(action)
        if enc.action_mode == "turn":
            h, x, y, r = enc.placement(game, action)
            game.play_row(h, x, y, r, enc.split(action)[4])
        elif self.pending is None:
            self.pending = enc.placement(game, action)
        else:
            pending, self.pending = self.pending, None
            game.play_row(*pending, action - 1)
        self.invalidate()
        return game.state.scores - before, None

    def invalidate(self) -> None:
        """Forget the cached observations (after moves played around the driver)."""
        self._cache = {}

    def check_in_space(self, action) -> None:
        """ValueError unless `action` is in the action space: an integer scalar in
        [0, n_actions)."""
        index, n = action_index(action), self.encoder.n_actions
        if index is None:
            raise ValueError(
                "action must be an integer in the action space (an int, a "
                f"numpy integer or a 0-d integer array), got {action!r}"
            )
        if not 0 <= index < n:
            raise ValueError(f"action {index} is outside the action space [0, {n})")

    def _illegal_reason(self, action) -> str | None:
        game = self.live_game
        if game.done:
            return "the game is over"
        action = action_index(action)
        if self.action_mask()[action]:
            return None
        enc = self.encoder
        if enc.action_mode == "two_step" and self.pending is not None:
            return (
                f"follower action {action} is not available for the pending placement "
                f"{self.pending} (slots {np.flatnonzero(self.action_mask()).tolist()})"
            )
        if enc.action_mode == "two_step":
            h, x, y, r = enc.placement(game, action)
            return f"placement of hand tile {h} at ({x}, {y}) turned {r} is not legal"
        try:
            game.row_of(enc.action_to_move(game, action))
        except IllegalMoveError as err:
            return f"action {action}: {err}"
        return f"action {action} is not in the action mask"
