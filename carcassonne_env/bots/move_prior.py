"""The heuristic's evaluation of every legal move, as an extra policy input (the "move
prior"): ``prior[a]`` = log-softmax over the legal actions in the window of
the heuristic bot's value of action `a` (points of estimated final margin; temperature 1
point), `PRIOR_FLOOR` for every other action.

A policy given it (`training.policy.BoardPolicy` adds ``prior_weight x prior`` to its
logits) starts as the heuristic and learns corrections to it. Two ways to compute it,
equal up to float32 rounding (tests/bots/test_move_prior.py):

- for a batch of jitted games, from `BatchedGamesEnv.teacher("heuristic").probs`
  (`prior_from_probs`; `training.league.JoinedVecEnv(prior=True)` adds it to the
  observations);
- for one `Game`, `game_prior` (what the `sb3` bot computes when its model takes it),
  and `MovePriorObservation`, a wrapper adding it to a single env's observations
  (`carcassonne_env.envs.make_env_for_model` applies it for such models).
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from carcassonne_env.core.actions import turn_actions
from carcassonne_env.encoding import Encoder

from ..checks import check_space
from ..game import Game
from .heuristic import HeuristicAgent

#: The observation key of the prior.
PRIOR_KEY = "prior"
#: Log-probability given to illegal actions and to moves the heuristic finds hopeless.
PRIOR_FLOOR = -30.0


def prior_space(n_actions: int) -> spaces.Box:
    """The observation space of the prior: float32[n_actions] in [PRIOR_FLOOR, 0]."""
    return spaces.Box(PRIOR_FLOOR, 0.0, (n_actions,), np.float32)


def prior_from_probs(probs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The prior from the teacher's softmax `probs` (float32[..., n_actions])."""
    out = np.empty(probs.shape, np.float32) if out is None else out
    np.log(np.maximum(probs, math.exp(PRIOR_FLOOR)), out=out)
    return out


def game_prior(game: Game, encoder: Encoder, heuristic: HeuristicAgent | None = None) -> np.ndarray:
    """The prior of the seat to move in `game`, actions laid out by `encoder` (turn
    mode); `heuristic` (default weights if None) evaluates the moves."""
    if encoder.action_mode != "turn":
        raise ValueError("the move prior needs the 'turn' action mode")
    moves, values = (heuristic or HeuristicAgent()).move_values(game)
    out = np.full(encoder.n_actions, PRIOR_FLOOR, np.float32)
    if not moves:
        return out
    rows = np.array([game.row_of(m) for m in moves], np.int64)  # hand, x, y, rotation, slot
    x0, y0 = encoder.window_origin(game)
    B = encoder.board_size
    col, row = rows[:, 1] - x0, rows[:, 2] - y0
    inside = (col >= 0) & (col < B) & (row >= 0) & (row < B)
    if not inside.any():
        return out
    actions = turn_actions(rows[:, 0], row, col, rows[:, 3], rows[:, 4], B, encoder.slots)[inside]
    v = values[inside] - values.max()
    logp = v - math.log(np.exp(v).sum())
    out[actions] = np.maximum(logp, PRIOR_FLOOR)
    return out


class MovePriorObservation(gym.ObservationWrapper):
    """Adds the move prior of the seat to move (key "prior") to the observations of a
    single-agent env of this package in turn mode (``Carcassonne/VsBots-v0``,
    ``Carcassonne/Solo-v0``), for models trained with it."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._driver: Any = getattr(env.unwrapped, "driver", None)  # the envs' `TurnDriver`
        if self._driver is None:
            raise ValueError(
                "the move prior observes this package's single-agent envs "
                f"(Solo-v0, VsBots-v0), got {type(env.unwrapped).__name__}"
            )
        self.encoder = self._driver.encoder
        if self.encoder.action_mode != "turn":
            raise ValueError("the move prior needs the 'turn' action mode")
        self.observation_space = spaces.Dict(
            {
                **check_space(env.observation_space, spaces.Dict).spaces,
                PRIOR_KEY: prior_space(self.encoder.n_actions),
            }
        )
        self._heuristic = HeuristicAgent()

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        return {
            **observation,
            PRIOR_KEY: game_prior(self._driver.game, self.encoder, self._heuristic),
        }
