"""Regression scenarios for bugs found by fuzzing (each once failed)."""

from __future__ import annotations

import pytest

from carcassonne_env import Game, IllegalMoveError, Move, Rules

# Seed 94, turn 22 of a random 2-player game: the V to place at (0, -4) turned 3 has a
# field on each side of its road. East of it lies an A (monastery whose road ends at the
# monastery) turned 1: its one field wraps around its road end, so it touches both of the
# V's fields and merges them into a single feature. The V's other field meets an occupied
# field, so a farmer on either V field would join an occupied feature. Checking each
# segment's own neighbours only used to allow field:N_w.
TILES = "REUUEIVHPJTLDXSOFVARUPV"
MOVES = [
    (0, -1, 3, "city:N"),
    (1, -1, 1, "field:N_w"),
    (0, 1, 0, "field:E_s"),
    (0, 2, 2, None),
    (1, -2, 0, None),
    (2, -2, 1, None),
    (-1, 2, 2, None),
    (2, -3, 0, "field:E_n"),
    (-1, 0, 0, "field:E_n"),
    (0, -2, 2, "road:N"),
    (-1, -1, 2, "field:N_e"),
    (1, 1, 1, None),
    (-2, -1, 1, None),
    (0, -3, 1, "field:N_e"),
    (3, -2, 3, "city:N"),
    (-2, -2, 1, "field:S_w"),
    (2, -4, 1, None),
    (-1, 3, 3, "road:E"),
    (1, -4, 1, None),
    (3, -4, 1, "field:W_s"),
    (-1, -3, 0, None),
    (2, -5, 2, None),
]


def test_fields_merged_through_a_neighbour_count_as_one_feature():
    game = Game(Rules(players=2), tile_order=TILES)
    for move in MOVES:
        game.play(Move(*move))
    assert game.current_tile == "V" and game.board[(1, -4)] == ("A", 1, None, None)
    legal = game.legal_moves()
    assert Move(0, -4, 3) in legal and Move(0, -4, 3, "road:E") in legal
    for farmer in ("field:N_w", "field:E_s"):
        assert Move(0, -4, 3, farmer) not in legal
        with pytest.raises(IllegalMoveError, match="already holds a follower"):
            game.play(Move(0, -4, 3, farmer))


def test_farm_scoring_without_jit_equals_the_jitted_core():
    """Under NUMBA_DISABLE_JIT=1 the farm adjacency keys (`core.scoring.adjacency_keys`)
    once overflowed int16 (numpy keeps `int16 * int` in int16, numba widens), so farm
    points, the pending points and the aggregate observation differed from the jitted
    core. Both must score random games with farmers alike."""
    import json
    import os
    import subprocess
    import sys

    code = """
import json, random
from carcassonne_env import Game, Rules
out = []
for seed in (0, 1, 2):
    game, rng = Game(Rules(), seed=seed), random.Random(seed)
    while not game.done:
        game.play(rng.choice(game.legal_moves()))
    out.append([game.scores, sum(e.points for e in game.events if e.kind == "field")])
print(json.dumps(out))
"""
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, **env},
            ).stdout
        )
        for env in ({}, {"NUMBA_DISABLE_JIT": "1"})
    ]
    assert runs[0] == runs[1]
    assert sum(farms for _, farms in runs[0]) > 0  # farms were scored
