"""The jitted bots (`agents.jitted_bots`) against the Python bots move for move, and the
batched `VsBots` vector env (`carcassonne_env.envs.vector_multi`) against independent
`VsBots-v0` envs step for step."""

from __future__ import annotations

import random

import numpy as np
import pytest

import carcassonne_env  # noqa: F401 - registers the ids
from agents import make_agent
from agents.jitted_bots import MT_WORDS, JittedBot, bot_spec, mt_below, mt_seed
from carcassonne_env import Game, Rules

# --------------------------------------------------------------------------- jitted bots


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 98765432123456789])
def test_mersenne_twister_matches_python_random(seed):
    mt = np.zeros(MT_WORDS, np.int64)
    mt_seed(mt, seed)
    py = random.Random(seed)
    assert tuple(int(x) for x in mt) == py.getstate()[1]
    for n in [1, 2, 3, 7, 64, 65, 1000] * 120:  # runs past one 624-word twist
        assert mt_below(mt, n) == py._randbelow(n)


@pytest.mark.parametrize(("spec", "rules"), [
    ("random", Rules(players=2)),
    ("greedy", Rules(players=2)),
    ("greedy", Rules(players=4, hand_size=3)),
    ("greedy", Rules(variant="solo")),
    ("heuristic", Rules(players=3)),
    ("heuristic:follower=4.0:farm=0.5", Rules(players=2)),
    ("heuristic", Rules(variant="solo", solo_colours=4)),
])
def test_jitted_bots_play_the_python_bots_moves(spec, rules):
    """Every seat asks both bots, seeded alike, for its move: always the same."""
    game = Game(rules, seed=11)
    seats = rules.seats
    python = [make_agent(spec, seed=1000 + p) for p in range(seats)]
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
