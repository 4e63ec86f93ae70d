"""Copies of a `Game` (clone, copy.deepcopy, pickle) play on exactly like the original,
also after the game has resolved its compiled core calls (`clones.core_call`)."""

import copy
import pickle
import random

from carcassonne_env import Game, Rules


def _finish(game: Game, seed: int) -> tuple[list[int], list[dict]]:
    rng = random.Random(seed)
    while not game.done:
        game.play(rng.choice(game.legal_moves()))
    return game.scores, game.to_record()["moves"]


def test_copies_play_on_like_the_original():
    game = Game(Rules(players=3), seed=5)
    rng = random.Random(1)
    for _ in range(20):
        game.play(rng.choice(game.legal_moves()))
    copies = [game.clone(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    expected = _finish(game, 7)
    assert len(expected[1]) == game.turn
    for other in copies:
        assert _finish(other, 7) == expected


def test_expansion_game_after_a_plain_one():
    """Entry points are resolved per game: games of other rule sets in one process."""
    for rules in (
        Rules(players=2),
        Rules(players=2, expansions=["inns_cathedrals", "traders_builders"]),
        Rules(variant="solo", players=1),
    ):
        game = Game(rules, seed=2)
        scores, moves = _finish(game, 3)
        assert game.done and len(moves) == game.turn
        replay = Game.from_record(game.to_record())
        assert replay.scores == scores
