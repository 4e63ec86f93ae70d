"""The jitted heuristic evaluation equals its reference (tests/support/reference_evaluation.py,
the code before the issue-26 speed-up) to the last bit, over random positions of every
kind of game and random weights."""

import random

import numpy as np
import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.bots.evaluation import position_values, unseen_tiles
from carcassonne_env.bots.heuristic import DEFAULT_WEIGHTS, weight_vector
from carcassonne_env.core.state import copy_state
from tests.support import reference_evaluation as ref

BOTH = ["inns_cathedrals", "traders_builders"]
RULES = {
    "base": Rules(players=2),
    "base-4p-city-farms": Rules(players=4, farm_scoring="city"),
    "solo": Rules(variant="solo"),
    "solo-4-colours": Rules(variant="solo", solo_colours=4),
    "both": Rules(players=3, expansions=BOTH),
}


@pytest.mark.parametrize("name", list(RULES))
def test_position_values_equal_the_reference(name):
    rng = random.Random(name)
    checked = 0
    for deal in range(3):
        game = Game(RULES[name], seed=deal)
        st, ts = game.state, game.tileset
        scratch_new, scratch_ref = copy_state(st), copy_state(st)
        unseen = np.zeros(len(ts.names), np.int64)
        got, want = np.zeros(st.scores.shape[0]), np.zeros(st.scores.shape[0])
        while not game.done:
            if rng.random() < 0.5:
                w = weight_vector(
                    {}
                    if deal == 0
                    else {k: v * rng.uniform(0.3, 3) for k, v in DEFAULT_WEIGHTS.items()}
                )
                unseen_tiles(st, len(ts.names), unseen)
                position_values(st, ts.tables, scratch_new, unseen, w, got)
                ref.position_values(st, ts.tables, scratch_ref, unseen, w, want)
                assert got.tolist() == want.tolist(), (deal, game.turn)
                checked += 1
            game.play(rng.choice(game.legal_moves()))
    assert checked >= 20
