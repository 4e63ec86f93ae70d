"""The heuristic bot: one-ply search over a hand-made estimate of the final scores."""

from __future__ import annotations

import random

import numpy as np

from carcassonne_env.checks import check_optional_int
from carcassonne_env.core.state import copy_state

from ..game import Game, Move
from . import evaluation as E
from .base import auto_scoring_choice, check_weight

#: Default weights (meaning in `carcassonne_env.bots.evaluation`'s docstring and docs/bots.md).
DEFAULT_WEIGHTS = {
    "cell": 0.85,  # chance an open cell with plenty of fitting tiles gets filled
    "fit": 4.0,  # fitting unseen tiles that make an open cell a safe bet
    "farm": 1.0,  # weight of the points farmers would score now
    "follower": 2.5,  # points a follower in supply is worth early in the game
    "horizon": 10.0,  # own turns left below which followers lose value
    "solo_sum": 0.25,  # solo: weight of the mean colour value beside the lowest one
    "solo_follower": 12.0,  # solo: "follower" (followers also keep end A away)
    "solo_empty": 25.0,  # solo: penalty for a colour with no follower left (end A risk)
}
_ORDER = (
    "cell",
    "fit",
    "farm",
    "follower",
    "horizon",
    "solo_sum",
    "solo_follower",
    "solo_empty",
)  # evaluation.W_*


def weight_vector(overrides: dict[str, float]) -> np.ndarray:
    """DEFAULT_WEIGHTS with `overrides` as the jitted evaluation's weight vector."""
    unknown = set(overrides) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise TypeError(f"unknown weights {sorted(unknown)}; known: {list(_ORDER)}")
    weights = {**DEFAULT_WEIGHTS, **overrides}
    return np.array([check_weight(k, weights[k]) for k in _ORDER], np.float64)


class HeuristicAgent:
    """Plays the move whose resulting position has the best estimated value
    (`carcassonne_env.bots.evaluation`): its own estimated final score minus the best opponent's; in
    the solo variant the lowest colour's. Ties are broken at random (seeded).

    Args:
        seed: seeds the tie-breaks.
        **weights: override entries of `DEFAULT_WEIGHTS` (e.g. ``follower=3.0``).
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None, **weights: float) -> None:
        self.weight_array = weight_vector(weights)  # what the jitted evaluation takes
        self.weights = dict(zip(_ORDER, self.weight_array.tolist(), strict=True))
        self._rng = random.Random(check_optional_int("seed", seed))
        self._buffers: dict = {}

    def move_values(self, game: Game) -> tuple[list[Move], np.ndarray]:
        """The legal moves and the objective each one reaches (higher is better)."""
        st, ts = game.state, game.tileset
        key = (st.ptype.shape[0], ts)
        if key not in self._buffers:  # scratch states sized for this kind of game
            self._buffers = {
                key: (
                    copy_state(st),
                    copy_state(st),
                    np.zeros(st.scores.shape[0]),
                    np.zeros(len(ts.names), np.int64),
                )
            }
        after, scratch, values, unseen = self._buffers[key]
        rows = game.legal_rows()
        E.unseen_tiles(st, len(ts.names), unseen)
        out = np.empty(len(rows))
        E.evaluate_moves(
            st, ts.tables, rows, len(rows), self.weight_array, unseen, after, scratch, values, out
        )
        return game.legal_moves(), out

    def act(self, game: Game) -> Move:
        """The legal move whose position the heuristic values best (ties broken by the seeded
        generator)."""
        if (choice := auto_scoring_choice(game)) is not None:
            return choice
        moves, values = self.move_values(game)
        best = values.max()
        return moves[self._rng.choice(np.flatnonzero(values >= best - 1e-9).tolist())]
