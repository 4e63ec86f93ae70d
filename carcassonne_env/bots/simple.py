"""Baseline bots: uniformly random, and greedy on this turn's points."""

from __future__ import annotations

import random

from carcassonne_env.checks import check_optional_int

from ..game import Game, Move
from .base import auto_scoring_choice


class RandomAgent:
    """Picks a uniformly random legal move."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(check_optional_int("seed", seed))

    def act(self, game: Game) -> Move:
        """A uniformly random legal move."""
        return self._rng.choice(game.legal_moves())


class GreedyAgent:
    """Maximises the points its seat scores this turn (in solo: the lowest colour's
    score, then the sum). Ties: prefer a follower on a road, city or monastery (a future
    score) over none, and none over a farmer (farmers never come back); then random."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(check_optional_int("seed", seed))

    def _value(self, game: Game, move: Move, seat: int) -> tuple:
        after = game.clone()
        after.play(move)
        while (choice := auto_scoring_choice(after)) is not None:  # as the auto order
            after.play(choice)
        scores = after.scores
        gain: tuple[int, ...]
        if game.rules.variant == "solo":
            gain = (min(scores), sum(scores))
        else:
            gain = (scores[seat] - game.scores[seat],)
        if move.follower is None:
            keep = 0
        elif move.follower.startswith("field"):
            keep = -1
        else:
            keep = 1
        return (*gain, keep)

    def act(self, game: Game) -> Move:
        """A move that scores the most points this turn (ties broken at random)."""
        if (choice := auto_scoring_choice(game)) is not None:
            return choice
        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: there is no move to choose")
        moves = game.legal_moves()
        values = [self._value(game, m, seat) for m in moves]
        best = max(values)
        return self._rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])
