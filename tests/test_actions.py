"""Flat action indices and masks agree with legal_moves (groundwork of the environments)."""

from __future__ import annotations

import random

import pytest

from carcassonne_env import Game, IllegalMoveError, Rules
from carcassonne_env.actions import ActionCodec

RULES = [Rules(players=2), Rules(players=4, hand_size=3), Rules(variant="solo")]


@pytest.mark.parametrize("rules", RULES, ids=str)
def test_mask_matches_legal_moves_on_random_states(rules):
    rng = random.Random(11)
    states = 0
    for seed in range(15):
        game = Game(rules, seed=seed)
        codec = ActionCodec(game, board_size=32)
        while not game.done:
            legal = game.legal_moves()
            mask, outside = codec.mask(game)
            assert outside == 0  # random 2-4 seat games stayed inside 32 cells here
            assert int(mask.sum()) == len(legal)
            assert {codec.decode(game, a) for a in mask.nonzero()[0]} == set(legal)
            for move in rng.sample(legal, min(5, len(legal))):
                action = codec.encode(game, move)
                assert mask[action] == 1 and codec.decode(game, action) == move
            game.play(rng.choice(legal))
            states += 1
    assert states > 200


def test_small_window_reports_moves_outside_instead_of_dropping_them():
    game = Game(Rules(players=2), seed=3)
    rng = random.Random(0)
    for _ in range(30):
        game.play(rng.choice(game.legal_moves()))
    codec = ActionCodec(game, board_size=3)
    mask, outside = codec.mask(game)
    assert outside > 0 and int(mask.sum()) + outside == len(game.legal_moves())
    off = next(m for m in game.legal_moves()
               if not 0 <= m.x - codec.window_origin(game)[0] < 3)
    with pytest.raises(ValueError, match="outside"):
        codec.encode(game, off)


def test_bad_actions_and_sizes():
    game = Game(Rules(players=2), seed=1)
    codec = ActionCodec(game)
    with pytest.raises(ValueError):
        codec.decode(game, codec.n_actions)
    with pytest.raises(ValueError):
        ActionCodec(game, board_size=2)
    illegal = codec.decode(game, 0)  # far corner of the window: never legal at the start
    with pytest.raises(IllegalMoveError):
        game.play(illegal)
