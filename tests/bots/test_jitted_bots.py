"""The jitted bots (`carcassonne_env.bots.jitted_bots`) against the Python bots move for
move, their Mersenne Twister against Python's `random`, and their spec errors."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_env import Game, Rules, make_bot
from carcassonne_env.bots.jitted_bots import MT_WORDS, JittedBot, bot_spec, mt_below, mt_seed


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 98765432123456789])
def test_mersenne_twister_matches_python_random(seed):
    mt = np.zeros(MT_WORDS, np.int64)
    mt_seed(mt, seed)
    py = random.Random(seed)
    assert tuple(int(x) for x in mt) == py.getstate()[1]
    for n in [1, 2, 3, 7, 64, 65, 1000] * 120:  # runs past one 624-word twist
        assert mt_below(mt, n) == py._randbelow(n)


@pytest.mark.parametrize(
    ("spec", "rules"),
    [
        ("random", Rules(players=2)),
        ("greedy", Rules(players=2)),
        ("greedy", Rules(players=4, hand_size=3)),
        ("greedy", Rules(variant="solo")),
        ("heuristic", Rules(players=3)),
        ("heuristic:follower=4.0:farm=0.5", Rules(players=2)),
        ("heuristic", Rules(variant="solo", solo_colours=4)),
        ("heuristic", Rules(players=2, expansions=["inns_cathedrals"])),  # the large follower
        ("greedy", Rules(players=3, expansions=["inns_cathedrals"])),
        ("heuristic", Rules(players=2, expansions=["inns_cathedrals", "traders_builders"])),
    ],
)
def test_jitted_bots_play_the_python_bots_moves(spec, rules):
    """Every seat asks both bots, seeded alike, for its move: always the same."""
    game = Game(rules, seed=11)
    seats = rules.seats
    python = [make_bot(spec, seed=1000 + p) for p in range(seats)]
    jitted = [JittedBot(spec, 1000 + p) for p in range(seats)]
    moves = 0
    while not game.done:
        p = game.current_player
        move = python[p].act(game)
        assert jitted[p].act(game) == move, (moves, move)
        game.play(move)
        moves += 1
    assert moves > 10  # solo games may end early (end A)


def test_bot_spec_errors():
    assert bot_spec("greedy")[0] == 1
    with pytest.raises(ValueError, match="no jitted version of bot 'mcts'"):
        bot_spec("mcts")
    with pytest.raises(ValueError, match="unknown weights"):
        bot_spec("heuristic:depth=3")
    with pytest.raises(ValueError, match="seed must be an integer"):
        JittedBot("random", -1)
