"""The shortcuts random playouts take give exactly what the general functions give:
`options_after_put` (the follower slots read after the tile is down) lists what
`follower_options` lists before it goes down, in the same order and with the same solo
`blocked` flag; `count_placements` / `nth_placement` pick from `list_placements`' list;
`fit_bits` (the four rotations tested at once) agrees with `fits`."""

import random

import numpy as np
import pytest
from numba import njit

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.board import (
    count_placements,
    fit_bits,
    fits,
    four_rotations,
    list_placements,
    nth_placement,
)
from carcassonne_env.core.followers import follower_options, options_after_put
from carcassonne_env.core.state import copy_into, copy_state
from carcassonne_env.core.turn import put_tile, tile_to_place

RULE_SETS = [
    Rules(players=2),
    Rules(players=3, small_city=True),
    Rules(players=2, hand_size=3),
    Rules(players=2, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(players=4, hand_size=3, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(players=3, farm_scoring="city", expansions=["traders_builders"]),
    Rules(players=2, expansions=["inns_cathedrals"], expansion_mode="tiles_only"),
    # few followers: the supply runs dry, leaving only builders and pigs to place
    Rules(players=2, followers=1, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(players=2, followers=2, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(variant="solo"),
    Rules(variant="solo", solo_colours=4, followers=3),  # the supply runs dry: end A
    Rules(variant="solo", expansions=["inns_cathedrals", "traders_builders"]),
]


@njit(cache=True)
def _fit_mismatches(tb):
    """Tile rotations and packed constraints (every 16-bit value) where `fit_bits`
    disagrees with `fits`."""
    bad = 0
    for t in range(tb.edge_code.shape[0]):
        four = four_rotations(tb, t)
        for con in range(1 << 16):
            bits = fit_bits(four, con)
            for r in range(4):
                bad += ((bits >> (8 * r + 7)) & 1) != fits(tb.edge_code, t, r, con)
    return bad


@pytest.mark.parametrize(
    "rules",
    [Rules(players=2), Rules(players=2, expansions=["inns_cathedrals", "traders_builders"])],
)
def test_four_rotations_at_once_fit_as_each_alone(rules):
    assert _fit_mismatches(Game(rules).tileset.tables) == 0


@njit(cache=True)
def _mismatches(st, tb, scratch):
    """(placements checked, placements whose two slot lists differ or that
    `nth_placement` / `count_placements` miss, solo placements that end the game) over
    every hand tile's placements in st."""
    places = np.zeros((3, 4 * st.frontier.shape[0]), np.int64)
    before = np.zeros(st.work.shape[1], np.int64)
    after = np.zeros(st.work.shape[1], np.int64)
    checked = bad = ends = 0
    for h in range(st.cfg[C.CFG_HAND_SIZE]):
        t = tile_to_place(st, h)
        if t < 0:
            continue
        n_places = list_placements(st, tb, t, places)
        bad += count_placements(st, tb, t) != n_places
        for k in range(n_places):
            bx, by, r = places[0, k], places[1, k], places[2, k]
            bad += nth_placement(st, tb, t, k) != (bx, by, r)
            n, blocked = follower_options(st, tb, t, r, bx, by, before)
            copy_into(scratch, st)
            i = put_tile(scratch, tb, t, r, bx, by)
            m, blocked_after = options_after_put(scratch, tb, t, i, after)
            checked += 1
            if m != n or blocked_after != blocked or not np.array_equal(before[:n], after[:m]):
                bad += 1
            ends += blocked
    return checked, bad, ends


@pytest.mark.parametrize("rules", RULE_SETS)
def test_slots_after_the_tile_equal_slots_before_it(rules):
    checked = ends = 0
    for seed in range(3):
        game, rng = Game(rules, seed=seed), random.Random(seed)
        scratch = copy_state(game.state)
        while not game.done:
            if game.state.sc[C.SC_PHASE] == C.PHASE_PLACE:
                n, bad, n_ends = _mismatches(game.state, game.tileset.tables, scratch)
                assert bad == 0, f"seed {seed}, turn {game.state.sc[C.SC_TURN]}"
                checked += n
                ends += n_ends
            game.play(rng.choice(game.legal_moves()))
    assert checked > 500
    if rules.variant == "solo" and rules.followers < 4:
        assert ends > 0  # the end-A check was reached
