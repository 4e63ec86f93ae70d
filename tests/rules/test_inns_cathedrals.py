"""Inns & Cathedrals in full mode (docs/rules.md 7.3-7.6): scenarios on fixed tile
orders with exact scores worked out by hand, the large follower's moves, supply and
errors, records.

Coordinates: the start tile D lies at (0, 0) turned 0 (city N, road W-E, field S); x grows
east, y south. Tiles: base letters, Inns & Cathedrals tiles "E" + letter (EB: straight
road W-E with an inn; EK: city on all four sides with a cathedral)."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env import Game, IllegalMoveError, Move, Rules
from tests.support.scenarios import assert_figures_conserved

IC = "inns_cathedrals"
FULL = Rules(expansions=[IC])
TILES_ONLY = Rules(expansions=[IC], expansion_mode="tiles_only")


def _play(rules: Rules, moves: list[Move]) -> Game:
    game = Game(rules, tile_order=[m.tile for m in moves])
    for m in moves:
        game.play(m._replace(tile=None))
    return game


# A road W-E through the start tile, an inn on EB east of it, closed at both ends by
# monasteries with a road stub (A turned 3: stub E; turned 1: stub W).
_INN_ROAD = [Move(1, 0, 0, "road:E", "EB"), Move(-1, 0, 3, None, "A"), Move(2, 0, 1, None, "A")]


@pytest.mark.parametrize(("rules", "points"), [(FULL, 8), (TILES_ONLY, 4)], ids=["full", "tiles"])
def test_a_completed_road_with_an_inn_scores_two_per_tile(rules, points):
    """4 tiles (A, D, EB, A): 2 x 4 = 8 with the inn, 4 as an ordinary road."""
    game = _play(rules, _INN_ROAD)
    assert game.done and game.scores == [points, 0]
    road = [e for e in game.events if e.kind == "road"]
    assert [(e.points, e.scorers, e.final) for e in road] == [(points, (0,), False)]


def test_an_incomplete_road_with_an_inn_scores_nothing_at_the_end():
    game = _play(FULL, _INN_ROAD[:2])  # the east end stays open
    assert game.done and game.scores == [0, 0]
    game = _play(TILES_ONLY, _INN_ROAD[:2])
    assert game.scores == [3, 0]


# The start tile's city (N edge) continued by EK at (0, -1), closed by three city caps E.
_CATHEDRAL = [
    Move(0, -1, 0, "city:N", "EK"),
    Move(0, -2, 2, None, "E"),
    Move(1, -1, 3, None, "E"),
    Move(-1, -1, 1, None, "E"),
]


@pytest.mark.parametrize(("rules", "points"), [(FULL, 15), (TILES_ONLY, 10)], ids=["full", "tiles"])
def test_a_completed_city_with_a_cathedral_scores_three_per_tile(rules, points):
    """5 tiles, no pennant: 3 x 5 = 15 with the cathedral, 2 x 5 = 10 without."""
    game = _play(rules, _CATHEDRAL)
    assert game.scores == [points, 0]


def test_an_incomplete_city_with_a_cathedral_scores_nothing_at_the_end():
    assert _play(FULL, _CATHEDRAL[:3]).scores == [0, 0]
    assert _play(TILES_ONLY, _CATHEDRAL[:3]).scores == [4, 0]  # 4 tiles, 1 each


def test_two_cathedrals_in_one_city_do_not_stack():
    """D's city, EK at (0, -1) and EK at (0, -2), closed by five caps: 8 tiles, 3 x 8 = 24
    (not 6 per tile)."""
    moves = [
        Move(0, -1, 0, "city:N", "EK"),
        Move(0, -2, 0, None, "EK"),
        Move(0, -3, 2, None, "E"),
        Move(1, -2, 3, None, "E"),
        Move(-1, -2, 1, None, "E"),
        Move(1, -1, 3, None, "E"),
        Move(-1, -1, 1, None, "E"),
    ]
    game = _play(FULL, moves)
    assert game.scores == [24, 0]
    (city,) = [e for e in game.events if e.kind == "city"]
    assert len(city.tiles) == 8 and city.points == 24


def _joined_road(first: str, second: str) -> list[Move]:
    """Seat 0 puts a `first` figure on the road of U east of the start tile, seat 1 a
    `second` figure on a separate road U at (1, -1); two curves V join both roads into
    one of 5 tiles (D, U, V, V, U) whose two west ends stay open."""
    return [
        Move(1, 0, 0, "road:E", "U", first),
        Move(1, -1, 0, "road:E", "U", second),
        Move(2, 0, 1, None, "V"),
        Move(2, -1, 0, None, "V"),
    ]


@pytest.mark.parametrize(
    ("first", "second", "scores"),
    [
        ("large", "follower", [5, 0]),  # 2 against 1
        ("follower", "large", [0, 5]),
        ("large", "large", [5, 5]),  # a tie: both score, neither doubles
        ("follower", "follower", [5, 5]),
    ],
)
def test_a_large_follower_counts_as_two_for_the_majority(first, second, scores):
    game = _play(FULL, _joined_road(first, second))
    assert game.done and game.scores == scores
    (road,) = [e for e in game.events if e.kind == "road"]
    assert road.points == 5 and road.final


def test_a_large_follower_on_a_farm_counts_as_two():
    """The cathedral city again (seat 0's follower: 15 points), and two farmers that end
    in one field touching it: seat 1's on the cap east of EK, seat 0's on U west of the
    start tile; U east of the start tile joins their fields. Seat 0's large farmer (2
    against 1) takes the field's 3 points alone; an ordinary one ties."""
    for figure, scores in (("large", [18, 0]), ("follower", [18, 3])):
        game = Game(FULL, tile_order=["EK", "E", "U", "U", "E", "E"])
        game.play(Move(0, -1, 0, "city:N"))
        cap_farmer = next(
            m
            for m in game.legal_moves()
            if (m.x, m.y, m.rotation) == (1, -1, 3)
            and (m.follower or "").startswith("field")
            and m.figure == "follower"
        )
        game.play(cap_farmer)
        game.play(Move(-1, 0, 0, "field:N_w", figure=figure))
        game.play(Move(1, 0, 0))  # joins both farmers' fields
        game.play(Move(0, -2, 2))
        game.play(Move(-1, -1, 1))  # completes the city
        assert game.done and game.scores == scores
        (farm,) = [e for e in game.events if e.kind == "field"]
        assert farm.points == 3 and farm.scorers == ((0,) if figure == "large" else (0, 1))


def test_the_large_follower_moves_supply_and_return():
    game = Game(FULL, tile_order=["EB", "A", "A"])
    moves = game.legal_moves()
    large = [m for m in moves if m.figure == "large"]
    follower = [m for m in moves if m.figure == "follower" and m.follower is not None]
    assert large and {m._replace(figure="follower") for m in large} == set(follower)
    assert game.figures_in_supply == [{"follower": 7, "large": 1}] * 2
    game.play(Move(1, 0, 0, "road:E", figure="large"))
    assert game.figures_in_supply[0] == {"follower": 7, "large": 0}
    assert game.board[(1, 0)].figure == "large"
    game.play(Move(-1, 0, 3))
    assert not [m for m in game.legal_moves() if m.figure == "large"]  # none left
    with pytest.raises(IllegalMoveError, match="seat 0 has no large follower in supply"):
        game.play(Move(2, 0, 1, "field:N_w", figure="large"))
    game.play(Move(2, 0, 1))  # completes the inn road: 8 points, the large one comes back
    assert game.scores == [8, 0]
    assert game.figures_in_supply[0] == {"follower": 7, "large": 1}
    assert game.board[(1, 0)].follower is None


def test_large_follower_errors_and_records():
    base = Game(Rules(), seed=1)
    move = next(m for m in base.legal_moves() if m.follower)
    with pytest.raises(IllegalMoveError, match="figure must be one of .'follower'. .* Inns"):
        base.play(move._replace(figure="large"))
    with pytest.raises(IllegalMoveError, match="figure must be a string"):
        base.play(move._replace(figure=None))
    game = Game(FULL, seed=1)
    move = game.legal_moves()[0]
    with pytest.raises(IllegalMoveError, match="without a location"):
        game.play(Move(move.x, move.y, move.rotation, None, figure="large"))
    solo = Game(Rules(variant="solo", expansions=[IC]), seed=1)
    assert {m.figure for m in solo.legal_moves()} == {"follower"}
    game = _play(FULL, _joined_road("large", "follower"))
    record = game.to_record()
    assert record["moves"][0]["figure"] == "large" and "figure" not in record["moves"][1]
    assert Game.from_record(record).scores == game.scores == [5, 0]


OPTIONS = [
    {},
    {"players": 4},
    {"hand_size": 3},
    {"farm_scoring": "city"},
    {"variant": "solo"},
    {"variant": "solo", "solo_colours": 4},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_random_full_games_keep_their_invariants_and_replay(options):
    """Random games with Inns & Cathedrals in full mode under every option: figures are
    conserved (supply + board = what each seat started with), scores never decrease,
    the records replay to the same events."""
    rules = Rules(expansions=[IC], **options)
    rng = np.random.default_rng(7)
    for seed in range(3):
        game = Game(rules, seed=seed)
        start = game.figures_in_supply
        before = game.scores
        while not game.done:
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
            assert all(b >= a for a, b in zip(before, game.scores, strict=True))
            before = game.scores
            if not game.done:
                assert_figures_conserved(game, start)
        again = Game.from_record(game.to_record())
        assert again.scores == game.scores and again.events == game.events


@pytest.mark.parametrize("options", [{}, {"hand_size": 3}, {"variant": "solo"}], ids=str)
def test_env_actions_name_the_figures(options):
    """The turn-mode action space holds a slot per figure and segment: masks equal the
    legal moves and every legal move round-trips through its action."""
    from carcassonne_env.encoding import Encoder

    rules = Rules(expansions=[IC], **options)
    enc = Encoder(rules, 24)
    assert enc.slots == 1 + enc.tileset.max_segments * len(rules.figures)
    game = Game(rules, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs = enc.encode(game, 0 if rules.variant == "solo" else game.current_player)
        actions = {enc.move_to_action(game, m): m for m in game.legal_moves()}
        assert sorted(actions) == np.flatnonzero(obs["action_mask"]).tolist()
        for a, m in actions.items():
            assert enc.action_to_move(game, a) == m._replace(tile=m.tile)
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    if "large" in rules.figures:
        assert enc.plane_names[-3:] == ["inn_road", "cathedral_city", "large_follower"]
        assert "large_supply_0" in enc.feature_names


def test_planes_show_inns_cathedrals_and_the_large_follower():
    from carcassonne_env.encoding import Encoder

    game = Game(FULL, tile_order=["EB", "EK"])
    game.play(Move(1, 0, 0, "road:E", figure="large"))
    enc = Encoder(FULL, 8)
    board = enc.encode(game, 0)["board"]
    names = enc.plane_names
    inn, large = board[..., names.index("inn_road")], board[..., names.index("large_follower")]
    x0, y0 = enc.window_origin(game)
    cells = {
        (c + x0, r + y0)
        for r, c in zip(*np.nonzero(inn.reshape(8, 3, 8, 3).any((1, 3))), strict=True)
    }
    assert cells == {(0, 0), (1, 0)}  # the whole road with the inn, start tile included
    assert {
        (c + x0, r + y0)
        for r, c in zip(*np.nonzero(large.reshape(8, 3, 8, 3).any((1, 3))), strict=True)
    } == {(1, 0)}
    assert not board[..., names.index("cathedral_city")].any()
    assert enc.encode(game, 0)["features"][enc.feature_names.index("large_supply_0")] == 0


def test_pictures_show_inns_cathedrals_and_the_large_follower():
    from carcassonne_env.rendering.image import render_rgb
    from carcassonne_env.rendering.palette import CATHEDRAL, INN_LAKE, SEAT_COLOURS
    from carcassonne_env.rendering.tile_pictures import tile_raster

    ts = Game(FULL, seed=0).tileset
    for name, colour, absent in (("EB", INN_LAKE, "EK"), ("EK", CATHEDRAL, "EB")):
        for r in range(4):
            img = tile_raster(ts, ts.index(name), r, 48)
            assert (img == colour).all(-1).sum() > 20, (name, r)
        assert not (tile_raster(ts, ts.index(absent), 0, 48) == colour).all(-1).any()

    def red_pixels(figure: str) -> int:
        game = Game(FULL, tile_order=["EB", "EB"])
        game.play(Move(1, 0, 0, "road:E", figure=figure))
        img = render_rgb(game, cell=48, show_scores=False)
        return int((img == SEAT_COLOURS[0]).all(-1).sum())

    assert red_pixels("large") > 1.6 * red_pixels("follower")
    game = Game(FULL, tile_order=["EB", "EB"])
    game.play(Move(1, 0, 0, "road:E", figure="large"))
    text = str(game)
    assert "a" in text.splitlines()[2] and "large [0, 1]" in text


def test_two_inns_on_one_road_do_not_stack():
    """EB and EA (both with an inn) on one road of 5 tiles, closed by monastery stubs:
    2 per tile once, 10 points (not 20)."""
    game = Game(FULL, tile_order=["EB", "EA", "A", "A"])
    for move in (Move(1, 0, 0, "road:E"), Move(2, 0, 0), Move(-1, 0, 3), Move(2, 1, 2)):
        game.play(move)
    assert game.scores == [10, 0]
    (road,) = [e for e in game.events if e.kind == "road"]
    assert (len(road.tiles), road.points, road.detail) == (5, 10, "inn")


def test_the_inn_of_the_junction_belongs_to_its_east_road_only():
    """EC's three roads end at its junction; the inn sits by the east road. Seat 0 claims
    the east road, seat 1 the west one (with the start tile): the west road (A, D, EC)
    scores 1 per tile, 3; the east road (EC, A) 2 per tile, 4."""
    game = Game(FULL, tile_order=["EC", "A", "A"])
    game.play(Move(1, 0, 0, "road:E"))
    game.play(Move(-1, 0, 3, "road:E"))  # completes the west road at once
    assert game.scores == [0, 3]
    game.play(Move(2, 0, 1))
    assert game.done and game.scores == [4, 3]
    details = {e.points: e.detail for e in game.events if e.kind == "road"}
    assert details == {3: None, 4: "inn"}


def test_the_monastery_of_ed_splits_its_road():
    """ED's two road stubs both end at its monastery: the start tile's road ends there.
    Seat 0's follower on the west stub joins the start tile's road, which seat 1 closes
    with a monastery stub: 3 tiles, 3 points; the east stub stays a road of its own."""
    game = Game(FULL, tile_order=["ED", "A"])
    locations = {m.follower for m in game.legal_moves() if (m.x, m.y, m.rotation) == (1, 0, 0)}
    assert {"road:W", "road:E", "monastery"} <= locations
    game.play(Move(1, 0, 0, "road:W"))
    game.play(Move(-1, 0, 3))
    assert game.scores == [3, 0]
    (road,) = [e for e in game.events if e.kind == "road"]
    assert sorted(road.tiles) == [(-1, 0), (0, 0), (1, 0)]


def test_the_walled_city_tip_of_eg_closes_like_a_cap_and_splits_its_field():
    """EG's city touches its N edge only (its wall runs to the opposite corner): turned
    to face the start tile's city it completes a 2-tile city (4 points); its field is
    two fields (east part, south-west part)."""
    game = Game(FULL, tile_order=["EG"])
    moves = [m for m in game.legal_moves() if (m.x, m.y, m.rotation) == (0, -1, 2)]
    fields = {m.follower for m in moves if m.follower and m.follower.startswith("field")}
    assert len(fields) == 2
    game.play(Move(0, -1, 2, "city:S"))
    assert game.scores == [4, 0]
