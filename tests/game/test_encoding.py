"""`carcassonne_env.encoding.Encoder`: the action mask is exactly the legal moves (turn and
two_step modes), actions and moves round-trip, the board planes and feature vector hold
what they claim, and the window overflow policy. (Replaces the old ActionCodec tests.)"""

from __future__ import annotations

import random
import warnings
from collections import Counter

import numpy as np
import pytest

from carcassonne_env import Game, IllegalMoveError, Move, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.encoding import (
    Encoder,
    WindowOverflowError,
    WindowOverflowWarning,
    subtile_table,
)
from carcassonne_env.tiles import base_tileset
from tests.support.scenarios import run

TS = base_tileset()
SUB = subtile_table(TS)

# rules -> number of random games walked for the mask checks (thousands of states in all)
MASK_RULES = [
    (Rules(players=2), 14),
    (Rules(players=4, hand_size=3), 8),
    (Rules(variant="solo"), 30),
    (Rules(variant="solo", solo_colours=4), 30),
    (Rules(players=3, small_city=True), 8),
]
PLANES = {name: i for i, name in enumerate(Encoder(Rules()).plane_names)}  # fixed ones


def rid(value) -> str:
    """Short test ids for rule sets."""
    if not isinstance(value, Rules):
        return str(value)
    if value.variant == "solo":
        return f"solo{value.solo_colours}"
    return "_".join(
        [f"{value.players}p"]
        + ["hand3"] * (value.hand_size > 1)
        + ["small_city"] * value.small_city
        + [f"farms_{value.farm_scoring}"] * (value.farm_scoring != "field")
    )


def random_states(rules: Rules, games: int, seed: int):
    """Every state (between turns) of `games` uniformly random games; don't play on them."""
    rng = random.Random(seed)
    for g in range(games):
        game = Game(rules, seed=1000 * seed + g)
        while not game.done:
            yield game, rng
            game.play(rng.choice(game.legal_moves()))


def hand_index(game: Game, move: Move) -> int:
    return game.hand.index(move.tile) if game.rules.hand_size > 1 else 0


def cells(plane: np.ndarray) -> set[tuple[int, int]]:
    """(col, row) of the window cells with any pixel set in a [3B, 3B] plane."""
    B = plane.shape[0] // 3
    hit = plane.reshape(B, 3, B, 3).any(axis=(1, 3))
    return {(int(c), int(r)) for r, c in zip(*np.nonzero(hit), strict=True)}


def full_cells(plane: np.ndarray) -> set[tuple[int, int]]:
    """Cells with all nine pixels set."""
    B = plane.shape[0] // 3
    hit = plane.reshape(B, 3, B, 3).all(axis=(1, 3))
    return {(int(c), int(r)) for r, c in zip(*np.nonzero(hit), strict=True)}


def frontier(game: Game) -> set[tuple[int, int]]:
    """Empty cells sharing an edge with a placed tile (computed from `game.board`)."""
    board = game.board
    return {
        (x + dx, y + dy)
        for x, y in board
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))
        if (x + dx, y + dy) not in board
    }


def features(enc: Encoder, obs: dict) -> dict[str, float]:
    return dict(zip(enc.feature_names, obs["features"].tolist(), strict=True))


# --------------------------------------------------------------------------- masks


@pytest.mark.parametrize(("rules", "games"), MASK_RULES, ids=rid)
def test_turn_mask_is_exactly_the_legal_moves(rules, games):
    enc = Encoder(rules)
    states = 0
    for game, rng in random_states(rules, games, seed=1):
        legal = game.legal_moves()
        mask = enc.encode(game, game.current_player)["action_mask"]
        assert enc.last_outside == 0
        assert mask.shape == (enc.n_actions,) and mask.dtype == np.int8
        actions = np.flatnonzero(mask)
        assert len(actions) == len(legal) == int(mask.sum())
        assert {enc.action_to_move(game, int(a)) for a in actions} == set(legal)
        assert np.array_equal(enc.action_mask(game), mask)
        for move in rng.sample(legal, min(4, len(legal))):  # round trip
            action = enc.move_to_action(game, move)
            assert isinstance(action, int) and mask[action] == 1
            assert enc.action_to_move(game, action) == move
            h, x, y, r = enc.placement(game, action)
            assert (h, x, y, r) == (hand_index(game, move), move.x, move.y, move.rotation)
        states += 1
    assert states >= 300


@pytest.mark.parametrize(("rules", "games"), [(r, max(g // 2, 3)) for r, g in MASK_RULES], ids=rid)
def test_two_step_masks_are_exactly_the_legal_moves(rules, games):
    enc = Encoder(rules, action_mode="two_step")
    assert enc.n_actions == rules.hand_size * 32 * 32 * 4
    states = 0
    for game, rng in random_states(rules, games, seed=2):
        legal = game.legal_moves()
        mask = enc.encode(game, game.current_player)["action_mask"]
        placements = {enc.placement(game, int(a)) for a in np.flatnonzero(mask)}
        expected = {(hand_index(game, m), m.x, m.y, m.rotation) for m in legal}
        assert placements == expected
        assert int(mask.sum()) == len(expected)
        checked = 0
        for pending in rng.sample(sorted(placements), min(3, len(placements))):
            obs = enc.encode(game, game.current_player, pending=pending)
            slots = np.flatnonzero(obs["action_mask"])
            assert slots.max() < enc.slots
            moves = {enc.action_to_move(game, int(s), pending) for s in slots}
            with_it = {m for m in legal if (hand_index(game, m), m.x, m.y, m.rotation) == pending}
            assert moves == with_it and len(slots) == len(with_it)
            assert features(enc, obs)["follower_phase"] == 1.0
            checked += 1
        assert features(enc, enc.encode(game, game.current_player))["follower_phase"] == 0.0
        for move in rng.sample(legal, min(3, len(legal))):  # round trip
            place, slot = enc.move_to_action(game, move)
            pending = enc.placement(game, place)
            assert mask[place] == 1
            assert enc.action_to_move(game, slot, pending) == move
            assert enc.action_mask(game, pending)[slot] == 1
        states += checked > 0
    assert states >= 150


def test_action_layout_formula():
    """index = (((hand * B + row) * B + col) * 4 + rotation) * SLOTS + slot."""
    rules = Rules(players=3, hand_size=3)
    B = 7
    enc = Encoder(rules, board_size=B)
    assert enc.slots == TS.max_segments + 1 == 9
    assert enc.n_actions == 3 * B * B * 4 * 9
    assert enc.n_placements == 3 * B * B * 4
    a = (((2 * B + 5) * B + 3) * 4 + 1) * 9 + 4
    assert enc.split(a) == (2, 5, 3, 1, 3)
    assert enc.split(0) == (0, 0, 0, 0, -1)
    two = Encoder(rules, board_size=B, action_mode="two_step")
    assert two.n_actions == two.n_placements
    assert two.split(((2 * B + 5) * B + 3) * 4 + 1) == (2, 5, 3, 1, -1)
    game = Game(rules, seed=0)
    x0, y0 = enc.window_origin(game)
    assert (x0, y0) == (-(B - 1) // 2, -(B - 1) // 2)
    assert enc.placement(game, a) == (2, x0 + 3, y0 + 5, 1)


def test_window_recentres_on_the_bounding_box():
    """Centred on the placed tiles' bounding box, odd leftovers east / south."""
    game = run(Rules(), "UUUE", [(1, 0, 0, None), (2, 0, 0, None)])  # x in [0, 2]
    for B, expect in ((32, (1 - 15, -15)), (5, (1 - 2, -2)), (6, (1 - 2, -2))):
        assert Encoder(Rules(), board_size=B).window_origin(game) == expect
    game.play(Move(3, 0, 0))  # x in [0, 3]: centre 1.5 -> column of x = 1 is the centre
    assert Encoder(Rules(), board_size=32).window_origin(game) == (1 - 15, -15)


def test_far_corner_action_decodes_to_an_illegal_move():
    game = Game(Rules(players=2), seed=1)
    enc = Encoder(game.rules)
    move = enc.action_to_move(game, 0)
    assert move == Move(-15, -15, 0, None, None)
    with pytest.raises(IllegalMoveError):
        game.play(move)
    with pytest.raises(ValueError, match="not a legal move"):
        enc.move_to_action(game, move)


# --------------------------------------------------------------------------- board planes


def test_subtile_table_rotates_clockwise():
    assert SUB.shape == (len(TS.names), 4, 3, 3, 2) and SUB.dtype == np.int8
    for t in range(len(TS.names)):
        for r in range(4):
            assert np.array_equal(SUB[t, (r + 1) % 4], np.rot90(SUB[t, r], k=-1)), (t, r)


def test_subtile_table_shows_every_segment_with_its_kind():
    """Every segment (follower slot) has a pixel, painted with the segment's kind."""
    tb = TS.tables
    for t in range(len(TS.names)):
        n = int(tb.n_seg[t])
        for r in range(4):
            segs = SUB[t, r, :, :, 1]
            assert set(segs[segs >= 0].tolist()) == set(range(n)), (TS.names[t], r)
            for a in range(3):
                for b in range(3):
                    kind, seg = SUB[t, r, a, b]
                    assert kind in (C.K_CITY, C.K_ROAD, C.K_FIELD, C.K_MONASTERY)
                    if seg >= 0:
                        assert kind == tb.seg_kind[t, seg]
                    else:
                        assert kind == C.K_ROAD and (a, b) == (1, 1)  # road junction


def test_subtile_table_start_tile():
    """D0: city N, road W-E, fields; corners next to the city show the field above the
    road."""
    d = TS.index("D")
    city, road, field = C.K_CITY, C.K_ROAD, C.K_FIELD
    assert SUB[d, 0, :, :, 0].tolist() == [
        [field, city, field],
        [road, road, road],
        [field, field, field],
    ]
    names = TS.slot_names[d][0]
    assert SUB[d, 0, 0, 1, 1] == names.index("city:N")
    assert SUB[d, 0, 1, 1, 1] == names.index("road:E")
    assert SUB[d, 0, 0, 0, 1] == names.index("field:E_n")
    assert SUB[d, 0, 2, 1, 1] == names.index("field:E_s")
    assert SUB[TS.index("B"), 0, 1, 1, 0] == C.K_MONASTERY


def test_start_position_planes():
    enc = Encoder(Rules(players=2))
    game = Game(Rules(players=2), seed=5)
    board = enc.encode(game, 0)["board"]
    B = 32
    assert board.shape == (3 * B, 3 * B, 10) and board.dtype == np.int8
    assert enc.plane_names == [
        "city",
        "road",
        "field",
        "monastery",
        "pennant",
        "open_cell",
        "completed_feature",
        "last_tile",
        "follower_me",
        "follower_opponent_1",
    ]
    c = 15  # the start tile lies at the window's centre cell
    px = board[3 * c : 3 * c + 3, 3 * c : 3 * c + 3]
    assert np.array_equal(px[:, :, :4], np.eye(4, dtype=np.int8)[SUB[TS.index("D"), 0, :, :, 0]])
    assert int(board[:, :, :4].sum()) == 9  # nothing else painted
    assert full_cells(board[:, :, PLANES["last_tile"]]) == {(c, c)}
    assert int(board[:, :, PLANES["last_tile"]].sum()) == 9
    assert full_cells(board[:, :, PLANES["open_cell"]]) == {
        (c, c - 1),
        (c + 1, c),
        (c, c + 1),
        (c - 1, c),
    }
    assert int(board[:, :, PLANES["open_cell"]].sum()) == 4 * 9
    for name in ("pennant", "completed_feature", "follower_me", "follower_opponent_1"):
        assert not board[:, :, PLANES[name]].any(), name


def expected_planes(enc: Encoder, game: Game, observer: int) -> np.ndarray:
    """Terrain, pennant, open, last-tile and follower planes built from the public API."""
    B = enc.board_size
    x0, y0 = enc.window_origin(game)
    out = np.zeros(enc.board_shape, np.int8)
    seats = game.rules.seats
    eye = np.eye(4, dtype=np.int8)
    for (x, y), placed in game.board.items():
        col, row = x - x0, y - y0
        if not (0 <= col < B and 0 <= row < B):
            continue
        t, r = TS.index(placed.tile), placed.rotation
        px = out[3 * row : 3 * row + 3, 3 * col : 3 * col + 3]
        px[:, :, :4] = eye[SUB[t, r, :, :, 0]]
        segs = SUB[t, r, :, :, 1]
        for s in range(int(TS.tables.n_seg[t])):
            if TS.tables.seg_kind[t, s] == C.K_CITY and TS.tables.seg_pennants[t, s]:
                px[:, :, PLANES["pennant"]] |= (segs == s).astype(np.int8)
        if placed.follower is not None:
            seat, where = placed.follower
            s = TS.slot_names[t][r].index(where)
            px[:, :, 8 + (seat - observer) % seats] |= (segs == s).astype(np.int8)
    for x, y in frontier(game):
        col, row = x - x0, y - y0
        if 0 <= col < B and 0 <= row < B:
            out[3 * row : 3 * row + 3, 3 * col : 3 * col + 3, PLANES["open_cell"]] = 1
    x, y = list(game.board)[-1]
    out[3 * (y - y0) : 3 * (y - y0) + 3, 3 * (x - x0) : 3 * (x - x0) + 3, PLANES["last_tile"]] = 1
    return out


@pytest.mark.parametrize(
    "rules", [Rules(players=3), Rules(variant="solo", solo_colours=4)], ids=rid
)
def test_board_planes_match_the_board_on_random_states(rules):
    """Every plane but completed_feature rebuilt from game.board for random states and
    every observer (reusing the output arrays, as the envs do)."""
    enc = Encoder(rules)
    out = None
    states = 0
    rng = random.Random(3)
    for game, _ in random_states(rules, 3, seed=3):
        observer = rng.randrange(rules.seats)
        out = enc.encode(game, observer, out=out)
        board = out["board"]
        expected = expected_planes(enc, game, observer)
        completed = PLANES["completed_feature"]
        others = [i for i in range(enc.board_shape[2]) if i != completed]
        assert np.array_equal(board[:, :, others], expected[:, :, others]), game.turn
        assert not (board[:, :, completed] & board[:, :, PLANES["field"]]).any()
        states += 1
    assert states > 40


def test_follower_planes_are_relative_to_the_observer():
    """Seat 0's thief on U at (1, 0): follower_me for seat 0, follower_opponent_2 for
    seat 1 and follower_opponent_1 for seat 2 (3 players)."""
    rules = Rules(players=3)
    game = run(rules, "UVVEK", [(1, 0, 0, "road:W")])
    enc = Encoder(rules)
    x0, y0 = enc.window_origin(game)
    assert (x0, y0) == (0 - 15, -15)
    u = TS.index("U")
    slot = TS.slot_names[u][0].index(game.board[(1, 0)].follower[1])
    road = (SUB[u, 0, :, :, 1] == slot).astype(np.int8)
    assert road.sum() >= 1
    col, row = 1 - x0, 0 - y0
    names = enc.plane_names
    assert names[8:] == ["follower_me", "follower_opponent_1", "follower_opponent_2"]
    for observer, plane in (
        (0, "follower_me"),
        (1, "follower_opponent_2"),
        (2, "follower_opponent_1"),
    ):
        board = enc.encode(game, observer)["board"]
        k = names.index(plane)
        assert np.array_equal(board[3 * row : 3 * row + 3, 3 * col : 3 * col + 3, k], road)
        assert int(board[:, :, k].sum()) == int(road.sum())
        assert int(board[:, :, 8:].sum()) == int(road.sum())


def test_solo_follower_planes_are_absolute_colours():
    rules = Rules(variant="solo")
    enc = Encoder(rules)
    assert enc.plane_names[8:] == ["follower_colour_0", "follower_colour_1", "follower_colour_2"]
    game = Game(rules, seed=4)
    rng = random.Random(4)
    while game.turn < 3 and not game.done:
        game.play(rng.choice([m for m in game.legal_moves() if m.follower] or game.legal_moves()))
    standing = {p.follower[0] for p in game.board.values() if p.follower}
    assert standing
    for observer in range(3):
        board = enc.encode(game, observer)["board"]
        assert {c for c in range(3) if board[:, :, 8 + c].any()} == standing


def test_pennant_and_completed_feature_planes():
    """M2 (pennant) with a knight closes into a 3-tile city with E3 (tests/rules/
    test_base.py: scores 8). Completed: exactly the city pixels of D, M and E."""
    rules = Rules(players=2)
    enc = Encoder(rules)
    game = run(rules, "MEU", [(0, -1, 2, "city:E")])
    board = enc.encode(game, 1)["board"]
    x0, y0 = enc.window_origin(game)
    m = TS.index("M")

    def cell(b, x, y, plane):
        return b[3 * (y - y0) : 3 * (y - y0) + 3, 3 * (x - x0) : 3 * (x - x0) + 3, PLANES[plane]]

    m_city = (SUB[m, 2, :, :, 0] == C.K_CITY).astype(np.int8)
    assert np.array_equal(cell(board, 0, -1, "pennant"), m_city)
    assert int(board[:, :, PLANES["pennant"]].sum()) == int(m_city.sum())
    assert not board[:, :, PLANES["completed_feature"]].any()
    assert board[:, :, PLANES["follower_opponent_1"]].any()  # seat 0's knight, seen by 1

    game.play(Move(1, -1, 3))
    assert game.scores == [8, 0]
    board = enc.encode(game, 0)["board"]
    x0, y0 = enc.window_origin(game)
    done = board[:, :, PLANES["completed_feature"]]
    for (x, y), placed in game.board.items():
        city = SUB[TS.index(placed.tile), placed.rotation, :, :, 0] == C.K_CITY
        assert np.array_equal(cell(board, x, y, "completed_feature"), city.astype(np.int8))
    assert int(done.sum()) == sum(
        int((SUB[TS.index(p.tile), p.rotation, :, :, 0] == C.K_CITY).sum())
        for p in game.board.values()
    )
    assert not board[:, :, 8:].any()  # the knight went home
    assert full_cells(board[:, :, PLANES["last_tile"]]) == {(1 - x0, -1 - y0)}
    assert int(board[:, :, PLANES["last_tile"]].sum()) == 9


def test_completed_road_and_monastery_are_marked():
    """Random 2-player games: every tile of every completed (scored during play) road,
    city or monastery has a completed_feature pixel; fields never."""
    rules = Rules(players=2)
    enc = Encoder(rules)
    for game, _ in random_states(rules, 2, seed=9):
        if game.turn % 10:
            continue
        board = enc.encode(game, 0)["board"]
        x0, y0 = enc.window_origin(game)
        done = cells(board[:, :, PLANES["completed_feature"]])
        scored = {
            (x - x0, y - y0)
            for e in game.events
            if not e.final and e.kind in ("road", "city", "monastery")
            for x, y in e.tiles
        }
        assert scored <= done
        assert not (board[:, :, PLANES["completed_feature"]] & board[:, :, PLANES["field"]]).any()


def test_pending_placement_is_drawn_as_the_last_tile():
    rules = Rules(players=2)
    enc = Encoder(rules, action_mode="two_step")
    game = run(rules, "UVV", [])
    pending = (0, 1, 0, 0)  # U east of the start tile
    board = enc.encode(game, 0, pending=pending)["board"]
    x0, y0 = enc.window_origin(game)
    col, row = 1 - x0, 0 - y0
    assert full_cells(board[:, :, PLANES["last_tile"]]) == {(col, row)}
    assert int(board[:, :, PLANES["last_tile"]].sum()) == 9
    px = board[3 * row : 3 * row + 3, 3 * col : 3 * col + 3, :4]
    assert np.array_equal(px, np.eye(4, dtype=np.int8)[SUB[TS.index("U"), 0, :, :, 0]])
    assert (col, row) not in cells(board[:, :, PLANES["open_cell"]])
    assert len(full_cells(board[:, :, PLANES["open_cell"]])) == 3


# --------------------------------------------------------------------------- features


def check_features(enc: Encoder, game: Game, observer: int) -> None:
    obs = enc.encode(game, observer, with_mask=False)
    assert "action_mask" not in obs
    f = features(enc, obs)
    rules, seats, T = game.rules, game.rules.seats, len(TS.names)
    assert obs["features"].dtype == np.float32
    assert enc.observation_space().contains(obs)
    # tile(s) to place: the drawn tile, or the observer's own hand
    hand = [f[n] for n in enc.feature_names[: rules.hand_size * T]]
    if game.done:
        assert not any(hand)
    elif rules.hand_size == 1:
        assert f[f"tile_{game.current_tile}"] == 1.0 and sum(hand) == 1.0
    else:
        own = game.state.hands[observer].tolist()  # raw slots (another seat's hand may
        assert sum(hand) == sum(t >= 0 for t in own)  # hold a gap until its turn)
        for h, t in enumerate(own):
            if t >= 0:
                assert f[f"hand{h}_{TS.names[t]}"] == 1.0
    # unseen tiles: undrawn (solo: all stacks) plus other seats' hands
    unseen = {t: round(f[f"unseen_{t}"] * 10) for t in TS.names}
    if rules.hand_size > 1:
        others = sum(int((game.state.hands[p] >= 0).sum()) for p in range(seats) if p != observer)
    else:
        others = 0
    assert sum(unseen.values()) == game.tiles_left + others
    order = game.tile_order()
    if rules.variant != "solo" and rules.hand_size == 1:
        rest = Counter(order[len(order) - game.tiles_left :])
        assert {t: n for t, n in unseen.items() if n} == dict(rest)
    assert f["unseen_fraction"] == pytest.approx((game.tiles_left + others) / len(order), abs=1e-5)
    # scores, supply, seat to move: relative to the observer
    for q in range(seats):
        p = (observer + q) % seats
        assert f[f"score_{q}"] == pytest.approx(game.scores[p] / 100)
        assert f[f"supply_{q}"] == pytest.approx(game.followers_in_supply[p] / rules.followers)
        assert f[f"to_move_{q}"] == float(game.current_player == p)
    assert f["follower_phase"] == 0.0
    if rules.variant != "solo":  # solo: see test_solo_players_one_hot
        assert [f[f"players_{k}"] for k in range(1, 7)] == [float(k == seats) for k in range(1, 7)]
    assert sum(f[f"players_{k}"] for k in range(1, 7)) == 1.0
    assert f["small_city"] == float(rules.small_city)
    assert f["farms_per_city"] == float(rules.farm_scoring == "city")
    assert f["farm_city_points"] == rules.farm_city_points / 4
    assert f["strategic_hand"] == float(rules.hand_size > 1)
    assert f["solo"] == float(rules.variant == "solo")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2),
        Rules(players=4, hand_size=3),
        Rules(variant="solo"),
        Rules(players=5, small_city=True, farm_scoring="city", farm_city_points=4),
    ],
    ids=rid,
)
def test_features(rules):
    enc = Encoder(rules)
    names = enc.feature_names
    assert len(names) == len(set(names)) == enc.n_features
    T, seats = len(TS.names), rules.seats
    assert enc.n_features == rules.hand_size * T + T + 1 + 3 * seats + 1 + 6 + 5
    assert enc.observation_space()["features"].shape == (enc.n_features,)
    rng = random.Random(5)
    last = None
    for game, _ in random_states(rules, 2, seed=5):
        if game.turn % 7 == 0:
            check_features(enc, game, rng.randrange(seats))
        last = game
    while not last.done:
        last.play(rng.choice(last.legal_moves()))
    check_features(enc, last, 0)  # game over: no tile, nobody to move
    assert not enc.encode(last, 0)["action_mask"].any()


def test_solo_unseen_counts_cover_every_stack():
    rules = Rules(variant="solo")
    enc = Encoder(rules)
    game = Game(rules, seed=8)
    f = features(enc, enc.encode(game, 0))
    assert sum(round(f[f"unseen_{t}"] * 10) for t in TS.names) == game.tiles_left == 70
    assert f[f"tile_{game.current_tile}"] == 1.0
    assert [f["score_0"], f["score_1"], f["score_2"]] == pytest.approx([0.01, 0.02, 0.03])
    assert [f["supply_0"], f["supply_1"], f["supply_2"]] == [1.0, 1.0, 1.0]
    assert [f["to_move_0"], f["to_move_1"], f["to_move_2"]] == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("colours", [3, 4])
def test_solo_players_one_hot(colours):
    rules = Rules(variant="solo", solo_colours=colours)
    enc = Encoder(rules)
    f = features(enc, enc.encode(Game(rules, seed=0), 0))
    assert [f[f"players_{k}"] for k in range(1, 7)] == [1.0, 0, 0, 0, 0, 0]


# --------------------------------------------------------------------------- overflow


def game_after(moves: int, seed: int = 0) -> Game:
    game = Game(Rules(players=2), seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def test_overflow_warn_masks_moves_out_and_warns_once():
    game = game_after(30)
    enc = Encoder(game.rules, board_size=5, on_overflow="warn")
    legal = game.legal_moves()
    with pytest.warns(WindowOverflowWarning, match="outside the 5-cell window"):
        mask = enc.encode(game, game.current_player)["action_mask"]
    assert 0 < enc.last_outside < len(legal)
    assert int(mask.sum()) + enc.last_outside == len(legal)
    x0, y0 = enc.window_origin(game)
    inside = {m for m in legal if 0 <= m.x - x0 < 5 and 0 <= m.y - y0 < 5}
    assert {enc.action_to_move(game, int(a)) for a in np.flatnonzero(mask)} == inside
    off = next(m for m in legal if m not in inside)
    with pytest.raises(ValueError, match="outside"):
        enc.move_to_action(game, off)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per encoder
        enc.encode(game, game.current_player)
        game.play(next(iter(inside)))
        enc.encode(game, game.current_player)
    # a fitting board resets last_outside
    enc.encode(Game(Rules(players=2), seed=0), 0)
    assert enc.last_outside == 0


def test_overflow_raise():
    game = game_after(30)
    enc = Encoder(game.rules, board_size=5, on_overflow="raise")
    with pytest.raises(WindowOverflowError, match="use a larger board_size"):
        enc.encode(game, 0)
    assert issubclass(WindowOverflowError, RuntimeError)
    enc.encode(game, 0, with_mask=False)  # no mask, no legal moves to lose


def test_overflow_when_no_legal_move_fits_raises_even_with_warn():
    game = game_after(5, seed=1)  # 16 legal moves, none in the 3x3 window
    assert game.legal_moves()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(WindowOverflowError, match="16 of 16 legal moves"):
            Encoder(game.rules, board_size=3, on_overflow="warn").encode(game, 0)


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"board_size": 2}, "board_size must be an integer >= 3"),
        ({"board_size": 8.0}, "board_size"),
        ({"board_size": True}, "board_size"),
        ({"board_size": "32"}, "board_size"),
        ({"action_mode": "both"}, r"action_mode must be one of \('turn', 'two_step'\)"),
        ({"on_overflow": "ignore"}, r"on_overflow must be one of \('warn', 'raise', 'truncate'\)"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Encoder(Rules(), **kwargs)


def test_bad_calls():
    enc = Encoder(Rules(players=2))
    game = Game(Rules(players=2), seed=0)
    with pytest.raises(ValueError, match="other rules"):
        enc.encode(Game(Rules(players=3), seed=0), 0)
    with pytest.raises(ValueError, match="observer"):
        enc.encode(game, 2)
    with pytest.raises(ValueError, match="action must be in"):
        enc.split(enc.n_actions)
    with pytest.raises(ValueError, match="action must be in"):
        enc.action_to_move(game, -1)
    two = Encoder(Rules(players=2), action_mode="two_step")
    with pytest.raises(ValueError, match="pending"):
        two.action_to_move(game, 0)
    with pytest.raises(ValueError, match="follower action"):
        two.action_to_move(game, two.slots, pending=(0, 1, 0, 0))
    assert Encoder(board_size=np.int64(9)).board_size == 9
    assert Encoder().rules == Rules()
