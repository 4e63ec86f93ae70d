"""Games built for tests: random games of a few rule sets played to a given turn, and fixed
openings the viewer's tests show."""

from __future__ import annotations

import random

from carcassonne_env import Game, Move, Rules

# Base, both expansions in full, solo.
RULES = [
    Rules(players=2),
    Rules(players=3, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(variant="solo", players=1),
]


def played(rules: Rules, seed: int, turns: int) -> Game:
    """A game of `rules` (deck seed `seed`) after `turns` random legal moves (fewer where it
    ends first)."""
    game, rng = Game(rules, seed=seed), random.Random(seed)
    for _ in range(turns):
        if game.done:
            break
        game.play(rng.choice(game.legal_moves()))
    return game


def issue_28_opening() -> Game:
    """`play --bots heuristic,greedy --seed 5`'s first moves: on move 2 red's follower on
    city:S completes a 2-tile city and scores in the same turn."""
    game = Game(seed=5)
    for move in (Move(-1, 0, 2, "road:E"), Move(-2, 0, 3, "city:S"), Move(0, -1, 3, "city:S")):
        game.play(move)
    return game


def expansion_game(moves: int | None = None) -> Game:
    """Both expansions in full: a large follower, builder and pig on every fifth turn."""
    game = Game(Rules(expansions=("traders_builders", "inns_cathedrals")), seed=3)
    while not game.done and (moves is None or game.turn < moves):
        legal = game.legal_moves()
        figures = [m for m in legal if m.figure != "follower"]
        game.play(
            figures[0] if figures and game.turn % 5 == 0 else legal[(game.turn * 7) % len(legal)]
        )
    return game
