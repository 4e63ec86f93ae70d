"""The naive reference scorer (tests/support/reference.py) and its cross-check against the engine.

Part (a) tests the reference on hand-made boards, so it can fail on its own.
Part (b) plays seeded random games through the public API across rule options and
asserts that the reference, replaying only each record's moves, reproduces every
per-move score vector and the final result exactly. Both parts cover the Inns & Cathedrals
expansion (inns, cathedrals, large follower; and its tiles only, with Traders & Builders'
tiles too) and Traders & Builders in full mode (trade goods, the builder's extra turn, the
pig), alone and with Inns & Cathedrals.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest

from tests.support import reference as ref

# --------------------------------------------------------------------------- helpers


def mv(
    player: int,
    tile: str,
    x: int,
    y: int,
    rotation: int,
    follower: str | None = None,
    figure: str | None = None,
):
    """One recorded move (``figure``: ``"large"``, Inns & Cathedrals' large follower;
    ``"builder"`` or ``"pig"``, Traders & Builders')."""
    move = {"player": player, "tile": tile, "x": x, "y": y, "rotation": rotation,
            "follower": follower}  # fmt: skip
    if figure is not None:
        move["figure"] = figure
    return move


def record(moves: list[dict], **rules: Any) -> dict[str, Any]:
    """A minimal finished record (the reference reads only rules and moves)."""
    return {"rules": rules, "moves": moves}


# The "loop" block south of the start tile: four tiles whose city runs from the I tile's
# north cap round three diagonal pieces back into its west cap, so the city covers the
# I tile twice (two separate segments) and must count it once: 4 tiles, 8 points.
LOOP = [
    ("N", 0, 1, 2),  # NW corner: city E+S
    ("N", 1, 1, 3),  # north of I: city W+S
    ("N", 0, 2, 1),  # west of I: city N+E
    ("I", 1, 2, 0),  # caps N and W (separate segments on this tile)
]


def loop_moves(followers: list[str | None], players: int = 1) -> list[dict]:
    """The LOOP tiles played in order with the given followers."""
    return [
        mv(k % players, t, x, y, r, f)
        for k, ((t, x, y, r), f) in enumerate(zip(LOOP, followers, strict=True))
    ]


# --------------------------------------------------------------------------- (a) reference


def test_tile_data_rotation_maps_edges_and_half_edges():
    """Rotating D once clockwise puts its city east and its road north-south."""
    segs = ref.segments("D", 1)
    assert [s.sides for s in segs if s.kind == "city"] == [("E",)]
    assert [s.sides for s in segs if s.kind == "road"] == [("S", "N")]
    fields = [s.sides for s in segs if s.kind == "field"]
    assert fields == [("S_e", "N_e"), ("S_w", "W_s", "W_n", "N_w")]
    assert ref.edge_terrain("D", 1, "E") == "city"


# Hand-made games with hand-computed scores after every move. Each entry: rules, moves,
# expected scores; "tiles" (optional) is the engine's tile order when the moves' own tiles
# would end a solo game too early. Both the reference and the engine must reproduce them.
FARM_MERGE = [
    mv(0, "U", 1, 0, 0, "field:N_w"),  # north of the start road
    mv(1, "U", -1, 0, 0, "field:E_s"),  # south of the start road
    mv(0, "E", 0, -1, 2, "field:N_w"),  # closes D's city; field above it
    mv(1, "B", 1, -1, 0),  # joins the field above the city with the north one
    mv(0, "A", 2, 0, 1),  # the road ends at the monastery: north and south join
]
SCENARIOS: dict[str, dict[str, Any]] = {
    # A 2-tile city scores 4 normally, 2 under the old small-city rule.
    "city_2_tiles": {
        "rules": {"players": 2},
        "moves": [mv(0, "E", 0, -1, 2, "city:S")],
        "scores": [[4, 0]],
    },
    "city_2_tiles_small_city": {
        "rules": {"players": 2, "small_city": True},
        "moves": [mv(0, "E", 0, -1, 2, "city:S")],
        "scores": [[2, 0]],
    },
    # Junction - start tile - junction: a 3-tile road.
    "road_between_junctions": {
        "rules": {"players": 2},
        "moves": [mv(0, "W", 1, 0, 0, "road:W"), mv(1, "W", -1, 0, 0)],
        "scores": [[0, 0], [3, 0]],
    },
    # Two knights of different players meet in one city: both get the full 10.
    "city_tie": {
        "rules": {"players": 2},
        "moves": [
            mv(0, "R", 0, -1, 2, "city:S"),
            mv(1, "K", 1, 0, 0, "city:N"),
            mv(0, "N", 1, -1, 3),
            mv(1, "E", -1, -1, 1),
        ],
        "scores": [[0, 0]] * 3 + [[10, 10]],
    },
    # Two knights against one: only the majority scores.
    "city_majority": {
        "rules": {"players": 2},
        "moves": [
            mv(0, "R", 0, -1, 2, "city:S"),  # city S/W/E above the start tile
            mv(1, "K", 1, 0, 0, "city:N"),  # separate cap city of seat 1
            mv(0, "J", -1, 0, 0, "city:N"),  # separate cap city of seat 0
            mv(1, "N", 1, -1, 3),  # joins seat 1's cap into seat 0's city
            mv(0, "N", -1, -1, 2),  # joins seat 0's cap and closes: 6 tiles, 2 vs 1
        ],
        "scores": [[0, 0]] * 4 + [[12, 0]],
    },
    # The loop city covers the I tile with two segments: 4 tiles, 8 points.
    "city_tile_counted_once": {
        "rules": {"players": 1},
        "moves": loop_moves(["city:E", None, None, None]),
        "scores": [[0], [0], [0], [8]],
    },
    # Two fields of one player touch the same completed city: 3rd edition pays per field
    # (twice), 1st edition once per city.
    **{
        f"farms_{scoring}_{per}": {
            "rules": {"players": 1, "farm_scoring": scoring, "farm_city_points": per},
            "moves": loop_moves(["city:E", "field:N_w", "field:S_e", None]),
            "scores": [[0], [0], [0], [8 + total]],
        }
        for scoring, per, total in [
            ("field", 3, 6),
            ("city", 3, 3),
            ("city", 4, 4),
            ("field", 4, 8),
        ]
    },
    # Seat 1 farms two fields of the loop city, seat 0 one: 3rd edition pays each field's
    # owner, 1st edition gives the city once, to seat 1 (2 farmers near it against 1).
    **{
        f"farms_majority_near_city_{scoring}": {
            "rules": {"players": 2, "farm_scoring": scoring},
            "moves": [
                mv(0, "N", 0, 1, 2, "city:E"),
                mv(1, "N", 1, 1, 3, "field:N_w"),
                mv(0, "N", 0, 2, 1, "field:S_e"),
                mv(1, "I", 1, 2, 0, "field:E_n"),
            ],
            "scores": [[0, 0]] * 3 + [final],
        }
        for scoring, final in [("field", [8 + 3, 6]), ("city", [8, 3])]
    },
    # Farmers whose fields touch only the start tile's open city score nothing.
    "farms_incomplete_city": {
        "rules": {"players": 2},
        "moves": [mv(0, "U", 1, 0, 0, "field:N_w"), mv(1, "U", -1, 0, 0, "field:E_s")],
        "scores": [[0, 0], [0, 0]],
    },
    # Three separately occupied fields merge: 2 farmers beat 1, and 1 against 1 ties.
    **{
        f"farms_merge_{scoring}": {
            "rules": {"players": 2, "farm_scoring": scoring},
            "moves": FARM_MERGE,
            "scores": [[0, 0]] * 4 + [[3, 0]],
        }
        for scoring in ("field", "city")
    },
    "farms_merge_tie": {
        "rules": {"players": 2},
        "moves": FARM_MERGE[:2] + [mv(0, "E", 0, -1, 2)] + FARM_MERGE[3:],
        "scores": [[0, 0]] * 4 + [[3, 3]],
    },
    # Seat 0's monastery completes on the last move (9); seat 1's open one scores itself
    # plus its 5 neighbours at the end.
    "monasteries": {
        "rules": {"players": 2},
        "moves": [
            mv(0, "B", 0, 1, 0, "monastery"),
            mv(1, "U", 1, 0, 0),
            mv(0, "U", -1, 0, 0),
            mv(1, "B", -1, 1, 0, "monastery"),
            mv(0, "B", 1, 1, 0),
            mv(1, "B", -1, 2, 0),
            mv(0, "E", 0, 2, 2),  # city cap facing south, away from everything
            mv(1, "E", 1, 2, 1),  # closes the ring round (0, 1)
        ],
        "scores": [[0, 0]] * 7 + [[9, 6]],
    },
    # An open city at the end: 1 per tile and 1 per pennant.
    "open_city_with_pennant": {
        "rules": {"players": 2},
        "moves": [mv(0, "F", 0, -1, 1, "city:N")],
        "scores": [[3, 0]],
    },
    # Solo: colour 0 (score 1) is lowest, so its completed city pays.
    "solo_city": {
        "rules": {"variant": "solo"},
        "moves": [mv(0, "E", 0, -1, 2, "city:S")],
        "scores": [[5, 2, 3]],
    },
    # Solo: colour 2 closes colour 0's city; colour 0 is lowest and scores 8. Colour 2
    # places the last tile of its stack (end B).
    "solo_city_closed_by_another_colour": {
        "rules": {"variant": "solo"},
        "tiles": "REEBB",  # stacks R B / E B / E
        "moves": [mv(0, "R", 0, -1, 2, "city:S"), mv(1, "E", 1, -1, 3), mv(2, "E", -1, -1, 1)],
        "scores": [[1, 2, 3], [1, 2, 3], [9, 2, 3]],
    },
    # Solo end: colour 0's thief pays 2 first (lowest), then colour 1's monk (now lowest).
    "solo_end_bonus": {
        "rules": {"variant": "solo"},
        "tiles": "UBEE",  # stacks U E / B / E
        "moves": [mv(0, "U", 1, 0, 0, "road:W"), mv(1, "B", 0, 1, 0, "monastery")],
        "scores": [[1, 2, 3], [3, 4, 3]],
    },
}


# Inns & Cathedrals with its rules ("full", the default mode) and with its tiles only.
IC = {"expansions": ["inns_cathedrals"]}
IC_TILES = {"expansions": ["inns_cathedrals"], "expansion_mode": "tiles_only"}
# The "city_majority" block with followers of other kinds: the city above the start tile
# takes in two cap cities and closes with 6 tiles (12 points).
CITY_BLOCK = [
    ("R", 0, -1, 2, "city:S"),  # city S/W/E above the start tile
    ("K", 1, 0, 0, "city:N"),  # separate cap city east of the start tile
    ("J", -1, 0, 0, "city:N"),  # separate cap city west of the start tile
    ("N", 1, -1, 3, None),  # joins the east cap into the city
    ("N", -1, -1, 2, None),  # joins the west cap and closes it
]


def city_block(figures: list[str | None], places: list[bool]) -> list[dict]:
    """CITY_BLOCK for two players, with or without a follower on each of the first three
    moves (``places``), of the given figure (None: an ordinary one)."""
    moves = []
    for k, (tile, x, y, r, loc) in enumerate(CITY_BLOCK):
        put = k < 3 and places[k]
        figure = figures[k] if put and k < len(figures) else None
        moves.append(mv(k % 2, tile, x, y, r, loc if put else None, figure))
    return moves


# Hand-made Inns & Cathedrals games, hand-computed like SCENARIOS (and added to them).
IC_SCENARIOS: dict[str, dict[str, Any]] = {
    # Junction W - start tile D - inn EB - junction W: a completed 4-tile road with an inn
    # scores 2 per tile (8); with the tiles only, 1 per tile (4).
    **{
        f"ic_inn_road_completed{suffix}": {
            "rules": {"players": 2, **rules},
            "moves": [
                mv(0, "EB", 1, 0, 0, "road:E"),
                mv(1, "W", 2, 0, 0),
                mv(0, "W", -1, 0, 0),
            ],
            "scores": [[0, 0], [0, 0], [points, 0]],
        }
        for suffix, rules, points in (("", IC, 8), ("_tiles_only", IC_TILES, 4))
    },
    # At the end, seat 0's open 2-tile road with an inn scores 0 (tiles only: 2); seat 1's
    # open 1-tile road without one scores 1 as usual.
    **{
        f"ic_inn_road_open_at_end{suffix}": {
            "rules": {"players": 2, **rules},
            "moves": [mv(0, "EB", 1, 0, 0, "road:E"), mv(1, "U", 0, 1, 0, "road:E")],
            "scores": [[0, 0], [points, 1]],
        }
        for suffix, rules, points in (("", IC, 0), ("_tiles_only", IC_TILES, 2))
    },
    # The cathedral EK above the start tile, closed by three caps: 5 tiles, 3 per tile
    # (15); tiles only: 10. Left open at the end (EK alone): 0; tiles only: 2.
    **{
        f"ic_cathedral_city{suffix}": {
            "rules": {"players": 2, **rules},
            "moves": [
                mv(0, "EK", 0, -1, 0, "city:N"),
                mv(1, "E", 0, -2, 2),
                mv(0, "E", 1, -1, 3),
                mv(1, "E", -1, -1, 1),
            ],
            "scores": [[0, 0]] * 3 + [[points, 0]],
        }
        for suffix, rules, points in (("", IC, 15), ("_tiles_only", IC_TILES, 10))
    },
    **{
        f"ic_cathedral_city_open_at_end{suffix}": {
            "rules": {"players": 2, **rules},
            "moves": [mv(0, "EK", 0, -1, 0, "city:N")],
            "scores": [[points, 0]],
        }
        for suffix, rules, points in (("", IC, 0), ("_tiles_only", IC_TILES, 2))
    },
    # Seat 0's large follower against seat 1's follower: 2 against 1, seat 0 alone scores
    # the 12 points (not doubled). Ordinary followers would tie (12 each).
    "ic_large_beats_one": {
        "rules": {"players": 2, **IC},
        "moves": city_block(["large"], [True, True, False]),
        "scores": [[0, 0]] * 4 + [[12, 0]],
    },
    "ic_one_against_one_ties": {
        "rules": {"players": 2, **IC},
        "moves": city_block([], [True, True, False]),
        "scores": [[0, 0]] * 4 + [[12, 12]],
    },
    # Seat 1's large follower against two followers of seat 0: a tie, both score 12.
    "ic_large_ties_two": {
        "rules": {"players": 2, **IC},
        "moves": city_block([None, "large", None], [True, True, True]),
        "scores": [[0, 0]] * 4 + [[12, 12]],
    },
    # Fields too: seat 1's large farmer ties seat 0's two farmers (farms_merge: 2 vs 1).
    **{
        f"ic_large_farmer_ties_two_{scoring}": {
            "rules": {"players": 2, "farm_scoring": scoring, **IC},
            "moves": [
                mv(0, "U", 1, 0, 0, "field:N_w"),
                mv(1, "U", -1, 0, 0, "field:E_s", "large"),
                mv(0, "E", 0, -1, 2, "field:N_w"),
                mv(1, "B", 1, -1, 0),
                mv(0, "A", 2, 0, 1),
            ],
            "scores": [[0, 0]] * 4 + [[3, 3]],
        }
        for scoring in ("field", "city")
    },
    # Solo with Inns & Cathedrals: colour 0 (score 1, lowest) closes its cathedral city
    # (D + EK + three caps by colours 1, 2, 0: 15 points). The caps of colours 1 and 2
    # leave no free spot (the city is taken, no farmers), so no follower is compulsory;
    # colour 0 places the last tile of its stack (end B); no follower is left for the bonus.
    "ic_solo_cathedral": {
        "rules": {"variant": "solo", **IC},
        "tiles": ["EK", "E", "E", "E", "B", "B"],  # stacks EK E / E B / E B
        "moves": [
            mv(0, "EK", 0, -1, 0, "city:N"),
            mv(1, "E", 0, -2, 2),
            mv(2, "E", 1, -1, 3),
            mv(0, "E", -1, -1, 1),
        ],
        "scores": [[1, 2, 3]] * 3 + [[16, 2, 3]],
    },
}
SCENARIOS.update(IC_SCENARIOS)


# Traders & Builders with its rules ("full", the default mode) and with its tiles only.
TB = {"expansions": ["traders_builders"]}
TB_TILES = {"expansions": ["traders_builders"], "expansion_mode": "tiles_only"}
TB_BGA = {**TB, "goods_from_unowned_city": False}  # no goods from a city nobody owns
BOTH = {"expansions": ["inns_cathedrals", "traders_builders"]}
# City A (D, TT, cap) completed by seat 1, city B (cap, TW, cap) south of D by seat 0,
# one wine each, no follower anywhere (played under both goods rules below).
TWO_UNOWNED_CITIES = [
    mv(0, "TT", 0, -1, 2),
    mv(1, "E", 1, -1, 3),
    mv(0, "E", 0, 1, 2),
    mv(1, "TW", 0, 2, 0),
    mv(0, "E", -1, 2, 1),
]


# A road W-E through the start tile (tests/rules/test_traders_builders.py): seat 0's thief on U
# east of D (``first``: its figure), its builder on the next U; seat 0 extends the road
# again (an extra turn) and again in that extra turn (no chain); monastery stubs A close
# both ends, the east one by seat 0 (7 tiles: it completes and extends the builder's road,
# so one more extra turn).
def builder_moves(first: str | None = None) -> list[dict]:
    return [
        mv(0, "U", 1, 0, 0, "road:E", first),
        mv(1, "B", 0, 1, 0),
        mv(0, "U", 2, 0, 0, "road:E", "builder"),
        mv(1, "B", 1, 1, 0),
        mv(0, "U", 3, 0, 0),  # extends the builder's road: an extra turn
        mv(0, "U", 4, 0, 0),  # the extra turn extends it again: no second one
        mv(1, "A", -1, 0, 3),
        mv(0, "A", 5, 0, 1),  # completes the road: 7 tiles, 7 points; an extra turn
        mv(0, "B", 2, 1, 0),
    ]


# Seat 0's farmer on U east of D (the field north of the road, touching D's city), its
# pig (or nothing) on the next U in that field; seat 1 completes D's city with a cap.
def pig_moves(pig: bool) -> list[dict]:
    return [
        mv(0, "U", 1, 0, 0, "field:N_w"),
        mv(1, "B", 0, 1, 0),
        mv(0, "U", 2, 0, 0, "field:N_w", "pig") if pig else mv(0, "U", 2, 0, 0),
        mv(1, "E", 0, -1, 2),
    ]


# Hand-made Traders & Builders games (the worked examples of
# tests/rules/test_traders_builders.py and a few more), hand-computed and added to SCENARIOS.
TB_SCENARIOS: dict[str, dict[str, Any]] = {
    # Seat 0 claims the city of D + TT (wine) + a cap; seat 1 places the cap: seat 0 scores
    # the city (3 tiles: 6), seat 1 takes the wine and its 10 points at the end. With the
    # tiles only, no goods.
    **{
        f"tb_goods_go_to_the_completer{suffix}": {
            "rules": {"players": 2, **rules},
            "moves": [mv(0, "TT", 0, -1, 2, "city:E"), mv(1, "E", 1, -1, 3)],
            "scores": [[0, 0], [6, goods]],
        }
        for suffix, rules, goods in (
            ("", TB, 10),
            ("_tiles_only", TB_TILES, 0),
            ("_both", BOTH, 10),
        )
    },
    # City A (D, TT, cap) completed by seat 1, city B (cap, TW, cap) south of D by seat 0:
    # one wine each, no follower anywhere: 10 points each.
    "tb_tied_goods_all_score": {
        "rules": {"players": 2, **TB},
        "moves": TWO_UNOWNED_CITIES,
        "scores": [[0, 0]] * 4 + [[10, 10]],
    },
    # The same two games with goods_from_unowned_city=False (BGA's way): the owned city
    # still gives its wine; the two cities without followers give none.
    "tb_goods_from_an_owned_city_bga": {
        "rules": {"players": 2, **TB_BGA},
        "moves": [mv(0, "TT", 0, -1, 2, "city:E"), mv(1, "E", 1, -1, 3)],
        "scores": [[0, 0], [6, 10]],
    },
    "tb_no_goods_from_unowned_cities_bga": {
        "rules": {"players": 2, **TB_BGA},
        "moves": TWO_UNOWNED_CITIES,
        "scores": [[0, 0]] * 5,
    },
    # Solo with Traders & Builders: no goods. Colour 0 (lowest) scores the 3-tile city
    # colour 1 closes (no wine for colour 1); colour 1's stack is used up (end B).
    "tb_solo_has_no_goods": {
        "rules": {"variant": "solo", **TB},
        "tiles": ["TT", "E", "B", "B"],  # stacks TT B / E / B
        "moves": [mv(0, "TT", 0, -1, 2, "city:E"), mv(1, "E", 1, -1, 3)],
        "scores": [[1, 2, 3], [7, 2, 3]],
    },
    # The builder's extra turns (seat 0 moves twice in a row, twice), never chained; the
    # builder scores nothing. With a large follower as the thief (both expansions), the
    # same.
    "tb_builder_extra_turn_no_chain": {
        "rules": {"players": 2, **TB},
        "moves": builder_moves(),
        "scores": [[0, 0]] * 7 + [[7, 0]] * 2,
    },
    "tb_builder_beside_a_large_follower": {
        "rules": {"players": 2, **BOTH},
        "moves": builder_moves("large"),
        "scores": [[0, 0]] * 7 + [[7, 0]] * 2,
    },
    # The builder never counts for majority: seat 1's knight and builder against seat 0's
    # knight tie in the 6-tile city (12 each). Seat 0 closes it: no extra turn for anyone.
    "tb_builder_not_in_majority": {
        "rules": {"players": 2, **TB},
        "moves": [
            mv(0, "R", 0, -1, 2, "city:S"),
            mv(1, "K", 1, 0, 0, "city:N"),
            mv(0, "J", -1, 0, 0),
            mv(1, "N", 1, -1, 3, "city:S", "builder"),  # joins seat 1's cap to the city
            mv(0, "N", -1, -1, 2),
        ],
        "scores": [[0, 0]] * 4 + [[12, 12]],
    },
    # The pig: seat 0's field touches D's completed city: 4 points with its pig, 3
    # without, in both farm editions.
    **{
        f"tb_pig_{'adds_a_point' if pig else 'absent'}_{scoring}": {
            "rules": {"players": 2, "farm_scoring": scoring, **TB},
            "moves": pig_moves(pig),
            "scores": [[0, 0]] * 3 + [[4 if pig else 3, 0]],
        }
        for pig in (True, False)
        for scoring in ("field", "city")
    },
    # The pig never counts for majority: FARM_MERGE's fields with one farmer each and
    # seat 0's pig, placed on the tile that merges them: both win the field, seat 0 with
    # 4 (its pig), seat 1 with 3 (both editions: one field, one city).
    **{
        f"tb_pig_not_in_majority_{scoring}": {
            "rules": {"players": 2, "farm_scoring": scoring, **TB},
            "moves": FARM_MERGE[:2]
            + [mv(0, "E", 0, -1, 2), FARM_MERGE[3], mv(0, "A", 2, 0, 1, "field:N_w", "pig")],
            "scores": [[0, 0]] * 4 + [[4, 3]],
        }
        for scoring in ("field", "city")
    },
}
SCENARIOS.update(TB_SCENARIOS)


@pytest.mark.parametrize("name", SCENARIOS)
def test_reference_scenario(name):
    """The reference reproduces the hand-computed scores of each scenario."""
    case = SCENARIOS[name]
    assert ref.replay_scores(record(case["moves"], **case["rules"])) == case["scores"]


def test_illegal_placement_and_unfinished_game():
    """A city edge facing a road is refused; without final scoring open features pay 0."""
    with pytest.raises(ValueError):
        ref.replay_scores(record([mv(0, "K", -1, 0, 1)], players=2))  # cap facing D's road
    monasteries = record(SCENARIOS["monasteries"]["moves"], players=2)
    assert ref.replay_scores(monasteries, final=False)[-1] == [9, 0]


def test_occupied_feature_and_missing_supply_are_rejected():
    """Placing into an occupied feature, or without followers left, is refused."""
    moves = [mv(0, "U", 1, 0, 0, "road:W"), mv(1, "U", 2, 0, 0, "road:W")]
    with pytest.raises(ValueError, match="occupied"):
        ref.replay_scores(record(moves, players=2))
    moves = [mv(0, "U", 1, 0, 0, "road:W")]
    with pytest.raises(ValueError, match="no follower"):
        ref.replay_scores(record(moves, players=2, followers=0))


# A field that reaches the new tile on both sides of a road (round the monastery at the
# road's end) joins the tile's two fields; the north one also touches seat 1's farmer.
MERGE = [
    mv(0, "A", 1, 0, 1),  # road W ends at the monastery: D's two fields become one
    mv(1, "E", 0, -1, 2, "field:N_w"),  # closes D's city; farmer in the field around it
    mv(0, "B", -1, -1, 0),  # extends that farmer's field down to (-1, 0)
]


def test_follower_check_sees_merges_made_by_the_tile_itself():
    """U at (-1, 0): its south field touches only D's free field, but its north field joins
    that field to seat 1's farmer, so after placement the south field is occupied too."""
    game = ref.RefGame({"players": 2})
    for move in MERGE:
        game.play(move)
    options = {f for x, y, r, f, _ in game.legal_moves("U", 1) if (x, y, r) == (-1, 0, 0)}
    assert options == {None, "road:E"}
    with pytest.raises(ValueError, match="occupied"):
        ref.replay_scores(record(MERGE + [mv(1, "U", -1, 0, 0, "field:E_s")], players=2))


def test_placement_rules():
    """Edges must match and the tile must touch the board."""
    with pytest.raises(ValueError):
        ref.replay_scores(record([mv(0, "E", 0, 1, 0)], players=2))  # city onto field
    with pytest.raises(ValueError):
        ref.replay_scores(record([mv(0, "B", 5, 5, 0)], players=2))  # floating
    with pytest.raises(ValueError):
        ref.replay_scores(record([mv(0, "B", 0, 0, 0)], players=2))  # occupied cell


def test_solo_order_example_from_the_rules():
    """The solo rules' example (docs/rules.md 6.4): yellow road 3, green city 4, red road 4
    all score in the right order."""
    yellow, green, red = 0, 1, 2
    items = (((yellow,), 3), ((green,), 4), ((red,), 4))
    outcomes = ref.solo_outcomes((2, 4, 3), items)
    assert ref.best_outcomes(outcomes) == [(5, 8, 7)]
    assert (5, 4, 3) in outcomes  # yellow only, e.g. when green is tried first


def test_solo_shared_majority_needs_one_lowest():
    """Tied colours all score if at least one of them is lowest."""
    assert ref.solo_outcomes((1, 2, 3), (((1, 2), 5),)) == {(1, 2, 3)}
    assert ref.solo_outcomes((1, 2, 3), (((0, 2), 5),)) == {(6, 2, 8)}


def test_solo_end_bonus_order():
    """End bonus: 2 per follower for a lowest colour, in the best order."""
    items = (((0,), 2), ((0,), 2), ((1,), 2))
    assert ref.best_outcomes(ref.solo_outcomes((1, 2, 3), items)) == [(5, 4, 3)]


def test_solo_best_equals_exhaustive_search():
    """The pruned order search finds exactly the best of all outcomes."""
    rng = random.Random(3)
    for _ in range(300):
        colours = rng.choice((3, 4))
        scores = tuple(rng.randint(1, 12) for _ in range(colours))
        items = tuple(
            (tuple(sorted(rng.sample(range(colours), rng.choice((1, 1, 2))))), rng.randint(1, 9))
            for _ in range(rng.randint(0, 6))
        )
        want = ref.best_outcomes(ref.solo_outcomes(scores, items))
        assert ref.solo_best(scores, items) == want, (scores, items)


def test_solo_illegal_records_and_end_a():
    """Solo records: occupied spots, skipped compulsory followers and farmers are refused;
    a compulsory follower with an empty supply is end A. (Scores: see SCENARIOS.)"""
    solo = {"variant": "solo", "players": 1}
    moves = [mv(0, "R", 0, -1, 2, "city:S"), mv(1, "E", 1, -1, 3, "city:W")]
    with pytest.raises(ValueError, match="occupied"):  # E's cap joins colour 0's city
        ref.replay_scores(record(moves, **solo))
    with pytest.raises(ValueError, match="compulsory"):  # the start road is free
        ref.replay_scores(record([mv(0, "U", 1, 0, 0)], **solo))
    moves = [mv(0, "U", 1, 0, 0, "road:W"), mv(1, "U", -1, 0, 0, "field:E_n")]
    with pytest.raises(ValueError, match="farmers"):
        ref.replay_scores(record(moves, **solo))
    game = ref.replay_game(record([mv(0, "U", 1, 0, 0)], **solo, followers=0))
    assert game.solo_end_a == [0]
    assert game.end_reason() == "A"
    assert ref.replay_result(record([mv(0, "E", 0, -1, 2, "city:S")], **solo)) == 2


def test_legal_moves_of_first_tile():
    """E next to the start tile: north (closing the city) or south in three turns."""
    moves = ref.RefGame({"players": 2}).legal_moves("E", 0)
    north = {(0, -1, 2, f, "follower") for f in (None, "city:S", "field:N_w")}
    assert {m for m in moves if m[1] == -1} == north
    assert {m[:3] for m in moves} == {(0, -1, 2), (0, 1, 1), (0, 1, 2), (0, 1, 3)}
    assert len(moves) == 12


def test_legal_moves_offer_the_large_follower():
    """Inns & Cathedrals (full): each free spot once per figure in supply; a seat without
    ordinary followers may still place its large one; none in tiles_only or solo."""
    north = ref.RefGame({"players": 2, **IC}).legal_moves("E", 0)
    assert {m for m in north if m[1] == -1} == {(0, -1, 2, None, "follower")} | {
        (0, -1, 2, loc, fig) for loc in ("city:S", "field:N_w") for fig in ("follower", "large")
    }
    assert len(north) == 20  # 4 placements x (1 + 2 spots x 2 figures)
    empty = ref.RefGame({"players": 2, "followers": 0, **IC})
    assert {m[3:] for m in empty.legal_moves("B", 0)} == {
        (None, "follower"), ("monastery", "large"), ("field:N_w", "large")
    }  # fmt: skip
    for rules in ({"players": 2, **IC_TILES}, {"variant": "solo", **IC}):
        assert {m[4] for m in ref.RefGame(rules).legal_moves("E", 0)} == {"follower"}


def test_large_follower_supply_and_return():
    """One large follower per player: a second one is refused while the first stands, and
    it returns to the supply when its feature is scored during the game."""
    game = ref.RefGame({"players": 2, **IC})
    game.play(mv(0, "EB", 1, 0, 0, "road:E", "large"))
    assert (game.supply(0), game.supply(0, "large")) == (7, 0)
    assert {m[4] for m in game.legal_moves("E", 0)} == {"follower"}
    second = [mv(0, "EB", 1, 0, 0, "road:E", "large"), mv(1, "W", 2, 0, 0),
              mv(0, "E", 0, -1, 2, "city:S", "large")]  # fmt: skip
    with pytest.raises(ValueError, match="no large follower"):
        ref.replay_scores(record(second, players=2, **IC))
    game.play(mv(1, "W", 2, 0, 0))
    game.play(mv(0, "W", -1, 0, 0))  # closes the 4-tile inn road: 8 points
    assert game.scores == [8, 0]
    assert game.supply(0, "large") == 1
    with pytest.raises(ValueError, match="no large follower"):  # tiles only: none at all
        ref.replay_scores(record([mv(0, "EB", 1, 0, 0, "road:E", "large")], **IC_TILES))


def test_legal_moves_respect_occupation_supply_and_solo():
    """Occupied features, an empty supply and the solo rules shape the follower options."""
    game = ref.RefGame({"players": 2})
    game.play(mv(0, "U", 1, 0, 0, "road:W"))  # seat 0 holds the start road
    options = {m[3] for m in game.legal_moves("U", 1) if m[:3] == (2, 0, 0)}
    assert options == {None, "field:N_w", "field:E_s"}  # road taken, both fields free
    game = ref.RefGame({"players": 2, "followers": 0})
    assert {m[3] for m in game.legal_moves("B", 0)} == {None}
    solo = ref.RefGame({"variant": "solo", "players": 1})
    assert {m[3] for m in solo.legal_moves("B", 0)} == {"monastery"}  # compulsory, no farmer


def test_canonical_names_use_first_side():
    """A segment is named by its first edge (N,E,S,W) or half-edge (N_w..W_n)."""
    assert [ref.canonical(s) for s in ref.segments("D", 1)] == [
        "city:E", "road:N", "field:N_e", "field:N_w"
    ]  # fmt: skip
    for seg in ref.segments("K", 3):
        name = ref.canonical(seg)
        kind, side = name.split(":")
        order = ref.HALF_EDGES if kind == "field" else ref.EDGES
        assert kind == seg.kind and side in seg.sides
        assert all(order.index(side) <= order.index(o) for o in seg.sides)


def test_check_draws_finds_skipped_and_discarded_tiles():
    """Drawn tiles are taken in order; only unplaceable ones may be skipped."""
    moves = [mv(0, "E", 0, -1, 2), mv(1, "U", 1, 0, 0)]
    good = {"rules": {"players": 2}, "tile_order": ["E", "U"], "moves": moves, "discarded": []}
    assert ref.check_draws(good) == []
    bad = dict(good, tile_order=["E", "B", "U"])  # B fits: it may not be skipped
    assert ref.check_draws(bad)
    late = dict(good, tile_order=["E", "U", "B"])  # B left over although it fits
    assert ref.check_draws(late)


def test_reference_self_play_is_consistent():
    """Random games driven by the reference's own legal moves (and its own turn order:
    builders' extra turns) replay to the same scores."""
    rng = random.Random(5)
    base = list("UVVEKJDNRBLWACFSTPOHIMQGX")
    ic_tiles = [f"E{c}" for c in "ABCDEFGHIJKLMNOPQ"]
    tb_tiles = [f"T{c}" for c in "ABCDEFGHIJKLMNOPQRSTUVWX"]
    extra = 0
    for rules, tiles in (
        ({"players": 2}, base * 2),
        ({"variant": "solo", "players": 1}, base * 2),
        ({"players": 2, **IC}, (base + ic_tiles) * 2),
        ({"players": 2, **TB}, (base + tb_tiles) * 2),
        ({"players": 3, **BOTH}, base + ic_tiles + tb_tiles),
    ):
        game = ref.RefGame(rules)
        moves, scores = [], []
        for letter in tiles:
            seat = game.to_move
            options = sorted(game.legal_moves(letter, seat), key=str)
            if not options:
                continue
            special = [o for o in options if o[4] in ("builder", "pig")]
            x, y, r, f, figure = rng.choice(special if special and rng.random() < 0.5 else options)
            moves.append(mv(seat, letter, x, y, r, f, None if figure == "follower" else figure))
            before = list(game.scores)
            scores.append(game.play(moves[-1]))
            assert all(a >= b for a, b in zip(scores[-1], before, strict=True))
        rec = {"rules": rules, "moves": moves, "result": None}
        assert ref.replay_scores(rec) == scores
        extra += len(game.extra_turns)
        assert ref.replay_game(rec).extra_turns == game.extra_turns
    assert extra > 0


def test_legal_moves_offer_builder_and_pig_beside_own_followers():
    """Traders & Builders (full): the builder only on a road or city, the pig only on a
    field, where the mover already has a follower (a large one too); one each; none in
    tiles_only or solo."""
    game = ref.RefGame({"players": 2, **TB})
    assert {m[4] for m in game.legal_moves("U", 0)} == {"follower"}  # nothing of seat 0's
    with pytest.raises(ValueError, match="a builder goes on a road/city where seat 0"):
        game.play(mv(0, "U", 1, 0, 0, "road:E", "builder"))
    start = [mv(0, "U", 1, 0, 0, "field:N_w"), mv(1, "U", -1, 0, 0)]
    game = ref.replay_game(record(start, players=2, **TB), final=False)
    east = {m[3:] for m in game.legal_moves("U", 0) if m[:3] == (2, 0, 0)}
    assert east == {(None, "follower"), ("road:E", "follower"), ("field:E_s", "follower"),
                    ("field:N_w", "pig")}  # fmt: skip
    assert {m[3:] for m in game.legal_moves("U", 1) if m[:3] == (2, 0, 0)} == {
        (None, "follower"), ("road:E", "follower"), ("field:E_s", "follower")
    }  # fmt: skip
    with pytest.raises(ValueError, match="a pig goes on a field where seat 0"):
        game.play(mv(0, "U", 2, 0, 0, "field:E_s", "pig"))  # the south field
    pig = start + [mv(0, "U", 2, 0, 0, "field:N_w", "pig"), mv(1, "U", 3, 0, 0)]
    game = ref.replay_game(record(pig, players=2, **TB), final=False)
    assert (game.supply(0, "pig"), game.supply(0, "builder")) == (0, 1)
    assert {m[4] for m in game.legal_moves("U", 0)} == {"follower"}
    with pytest.raises(ValueError, match="no pig left"):  # one pig per player
        game.play(mv(0, "U", 4, 0, 0, "field:N_w", "pig"))
    both = ref.RefGame({"players": 2, **BOTH})
    both.play(mv(0, "U", 1, 0, 0, "road:E", "large"))
    both.play(mv(1, "B", 0, 1, 0))
    east = {m[3:] for m in both.legal_moves("U", 0) if m[:3] == (2, 0, 0)}
    assert ("road:E", "builder") in east and ("road:E", "follower") not in east
    for rules in ({"players": 2, **TB_TILES}, {"variant": "solo", **BOTH}):
        game = ref.RefGame(rules)
        game.play(mv(0, "U", 1, 0, 0, "road:E"))
        assert {m[4] for m in game.legal_moves("U", 1) | game.legal_moves("U", 0)} <= {
            "follower", "large"
        }  # fmt: skip
    assert ref.figures({"players": 2, **BOTH}) == ref.FIGURES
    assert ref.figures({"variant": "solo", **BOTH}) == ("follower",)
    assert ref.figures({"players": 2, **TB, "followers": 0}) == ("follower", "builder", "pig")


def test_turn_order_derives_extra_turns():
    """The seat to move comes from the rules, not the record: the builder's extra turns
    (moves 5 and 8 of builder_moves) must be taken, and never chained; with the tile
    order the draws are checked too (check_draws)."""
    moves = builder_moves()
    game = ref.replay_game(record(moves, players=2, **TB))
    assert game.extra_turns == [5, 8]
    rotation = [dict(m, player=k % 2) for k, m in enumerate(moves)]
    with pytest.raises(ValueError, match="move 5: seat 1 moved, seat 0 was to"):
        ref.replay_scores(record(rotation, players=2, **TB))
    chained = moves[:6] + [dict(moves[6], player=0)]
    with pytest.raises(ValueError, match="move 6: seat 0 moved, seat 1 was to"):
        ref.replay_scores(record(chained, players=2, **TB))
    plain = moves[:2] + [dict(moves[2], follower=None, figure=None)] + moves[3:]
    with pytest.raises(ValueError, match="move 5: seat 0 moved, seat 1 was to"):
        ref.replay_scores(record(plain, players=2, **TB))  # no builder, no extra turn
    tiles = [m["tile"] for m in moves]
    rec = {"rules": {"players": 2, **TB}, "tile_order": tiles, "moves": moves, "discarded": []}
    assert ref.check_draws(rec) == []
    assert ref.check_draws(dict(rec, moves=rotation)) == [
        "move 5: seat 1 moved, seat 0 was to"
    ]  # fmt: skip


def test_builder_returns_when_its_feature_is_scored():
    """The builder comes back with the followers: when its road is completed during the
    game, and in the end-of-game scoring of an open road; goods go to the completer."""
    moves = builder_moves()
    game = ref.RefGame({"players": 2, **TB})
    for move in moves[:7]:
        game.play(move)
    assert (game.supply(0), game.supply(0, "builder")) == (6, 0)
    game.play(moves[7])  # completes the road
    assert (game.supply(0), game.supply(0, "builder")) == (7, 1)
    opened = record(moves[:3], players=2, **TB)
    assert ref.replay_game(opened, final=False).supply(0, "builder") == 0
    assert ref.replay_game(opened).supply(0, "builder") == 1  # the open road was scored
    goods = ref.replay_game(record(TB_SCENARIOS["tb_tied_goods_all_score"]["moves"], **TB))
    assert goods.goods == [{"wine": 1, "grain": 0, "cloth": 0}] * 2


# --------------------------------------------------------------------------- (b) engine


def _engine():
    """The engine module, or None while it cannot be imported yet."""
    try:
        module = importlib.import_module("carcassonne_env")
    except Exception:  # noqa: BLE001 - any import failure means "not built yet"
        return None
    # Until its __init__ exists the package imports as an empty namespace package.
    return module if hasattr(module, "Game") else None


ENGINE = _engine()
needs_engine = pytest.mark.skipif(
    ENGINE is None, reason="carcassonne_env is not importable yet (engine under construction)"
)

# (rules, games in the default run, tiles): tiles None plays the seeded 71-tile deck; a
# number deals that many random tiles instead, so that solo games reach end B (a used-up
# stack) with followers on the board, which full random solo games never do (they hit end
# A within ~15 moves). About 1,500 games in all.
CONFIGS: list[tuple[dict[str, Any], int, int | None]] = [
    ({"players": 2}, 200, None),
    ({"players": 1}, 60, None),
    ({"players": 3}, 100, None),
    ({"players": 4}, 100, None),
    ({"players": 5}, 60, None),
    ({"players": 6}, 60, None),
    ({"players": 2, "small_city": True}, 100, None),
    ({"players": 3, "farm_scoring": "city"}, 100, None),
    ({"players": 2, "farm_scoring": "city", "farm_city_points": 4}, 100, None),
    ({"players": 4, "farm_scoring": "field", "farm_city_points": 4}, 60, None),
    ({"players": 2, "hand_size": 3}, 80, None),
    ({"players": 4, "hand_size": 3, "small_city": True, "farm_scoring": "city"}, 40, None),
    ({"players": 2, "followers": 1}, 60, None),
    ({"players": 3, "followers": 3}, 60, None),
    ({"players": 2, "farm_scoring": "city"}, 40, 20),
    ({"variant": "solo"}, 110, None),
    ({"variant": "solo", "solo_colours": 4}, 60, None),
    ({"variant": "solo", "followers": 3}, 40, None),
    ({"variant": "solo", "solo_colours": 4, "followers": 7, "small_city": True}, 30, None),
    ({"variant": "solo", "followers": 7}, 60, 24),
    ({"variant": "solo", "solo_colours": 4, "followers": 5}, 40, 24),
    # Expansions: Inns & Cathedrals with its rules (IC) or its tiles only, and with Traders
    # & Builders' tiles (89- and 113-tile decks; about 90 games, 6 s in the default run).
    ({"players": 2, **IC}, 16, None),
    ({"players": 4, **IC}, 8, None),
    ({"players": 2, **IC_TILES}, 8, None),
    (
        {
            "players": 3,
            "expansions": ["inns_cathedrals", "traders_builders"],
            "expansion_mode": "tiles_only",
        },
        6,
        None,
    ),
    ({"variant": "solo", **IC}, 20, None),
    ({"variant": "solo", "followers": 7, **IC}, 12, 30),
    ({"players": 2, "hand_size": 3, **IC}, 6, None),
    ({"players": 2, "farm_scoring": "city", **IC}, 8, None),
    ({"players": 3, "small_city": True, "followers": 3, **IC}, 6, None),
]


def deal(seed: int, count: int, expansions: tuple[str, ...] | list[str] = ()) -> list[str]:
    """``count`` random tiles of the draw pile (base: 71 tiles, the start D is out; plus
    the tiles of ``expansions``)."""
    return random.Random(seed).sample(ref.draw_pile(expansions), count)


def pick(rng: random.Random, legal: list) -> Any:
    """A random legal move; when builder or pig moves are legal, one of them half the time
    (so that extra turns and pigs occur; without them the choice is uniform as before)."""
    special = [m for m in legal if m.figure in ("builder", "pig")]
    if special and rng.random() < 0.5:
        return rng.choice(special)
    return rng.choice(legal)


def play_random(rules: dict[str, Any], seed: int, tiles: int | None = None) -> Any:
    """One game with random legal moves (`pick`), reproducible from ``seed``."""
    if tiles is None:
        game = ENGINE.Game(ENGINE.Rules(**rules), seed=seed)
    else:
        dealt = deal(seed, tiles, rules.get("expansions", ()))
        game = ENGINE.Game(ENGINE.Rules(**rules), tile_order=dealt)
    rng = random.Random(seed)
    while not game.done:
        game.play(pick(rng, game.legal_moves()))
    return game


def check_game(rules: dict[str, Any], seed: int, tiles: int | None = None) -> ref.RefGame:
    """Replay one random game's record with the reference and compare everything (the
    seat of every move, the draws, the scores after every move, goods, the result);
    return the reference's final state."""
    game = play_random(rules, seed, tiles)
    rec = game.to_record()
    label = f"rules={rules} seed={seed} tiles={tiles}"
    assert len(rec["scores"]) == len(rec["moves"]), label
    try:
        mine = ref.replay_game(rec)
    except ValueError as error:  # the reference found an illegal move in the record
        pytest.fail(f"{label}: reference rejects the engine's record: {error}")
    for turn, (want, got) in enumerate(zip(mine.history, rec["scores"], strict=True)):
        assert list(got) == want, f"{label}: turn {turn}: engine {got} reference {want}"
    assert rec["result"] == mine.result(), label
    assert game.result == rec["result"], label
    assert list(game.scores) == mine.scores, label
    assert game.end_reason == mine.end_reason(), label
    assert game.goods == mine.goods, label
    assert ref.end_problems(mine, rec) == [], label  # (the draws were checked on the way)
    check_events(game, rec, label)
    return mine


def check_events(game: Any, rec: dict[str, Any], label: str) -> None:
    """The engine's scoring events add up to its per-move score changes."""
    before = ref.RefGame(rec["rules"]).scores  # scores before the first move
    seats = len(before)
    gained = [[0] * seats for _ in rec["moves"]]
    for event in game.events:
        for seat in event.scorers:
            gained[event.turn][seat] += event.points
    for turn, after in enumerate(rec["scores"]):
        delta = [a - b for a, b in zip(after, before, strict=True)]
        assert delta == gained[turn], f"{label}: turn {turn}: events {gained[turn]} != {delta}"
        before = list(after)


def check_live(rules: dict[str, Any], seed: int) -> None:
    """Play a random game, checking the engine turn by turn against a live reference game.

    Every turn: the seat to move (builders' extra turns), its tile or hand, the tiles
    discarded, the full set of legal moves (figures included), the scores, the figures
    standing on the board, the supplies and the trade goods. Returns the reference's
    final state.
    """
    game = ENGINE.Game(ENGINE.Rules(**rules), seed=seed)
    start = game.to_record()
    mine = ref.RefGame(start["rules"], start["tile_order"])
    rng = random.Random(seed)
    label = f"rules={rules} seed={seed}"
    while not game.done:
        seat = game.current_player
        tiles = list(game.hand) if rules.get("hand_size", 1) > 1 else [game.current_tile]
        assert sorted(tiles) == sorted(mine.tiles_to_play()), f"{label} turn {game.turn}"
        assert seat == mine.to_move, f"{label} turn {game.turn}: seat to move"
        assert list(game.discarded) == mine.discarded, f"{label} turn {game.turn}: discards"
        legal = game.legal_moves()
        engine = {(m.tile or tiles[0], m.x, m.y, m.rotation, m.follower, m.figure) for m in legal}
        want = {(t, *m) for t in set(tiles) for m in mine.legal_moves(t, seat)}
        assert engine == want, f"{label} turn {game.turn}: {sorted(engine ^ want, key=str)[:6]}"
        assert len(engine) == len(legal), f"{label} turn {game.turn}: duplicate moves"
        move = pick(rng, legal)
        game.play(move)
        played = {"player": seat, "tile": move.tile or tiles[0], "x": move.x, "y": move.y,
                  "rotation": move.rotation, "follower": move.follower}  # fmt: skip
        if move.figure != "follower":
            played["figure"] = move.figure
        assert game.to_record()["moves"][-1] == played, f"{label} turn {game.turn - 1}"
        mine.play(played, last=game.done, hint=list(game.scores))
        assert list(game.scores) == mine.scores, f"{label} turn {game.turn - 1}"
        assert game.goods == mine.goods, f"{label} turn {game.turn - 1}: goods"
        if not game.done:
            standing = {
                pos: (*t.follower, t.figure)
                for pos, t in game.board.items()
                if t.follower is not None
            }
            assert standing == {
                pos: (s, ref.canonical(mine.board.segs(pos)[i]), figure)
                for pos, (s, i, figure) in mine.board.followers.items()
            }, f"{label} turn {game.turn - 1}: followers"
            supply = [mine.supply(s) for s in range(mine.seats)]
            assert list(game.followers_in_supply) == supply, f"{label}: supply"
            figures = [
                {f: mine.supply(s, f) for f in game.rules.figures} for s in range(mine.seats)
            ]
            assert game.figures_in_supply == figures, f"{label}: figures in supply"
            assert game.rules.figures == ref.figures(mine.rules), label
    if not mine.solo:
        assert mine.tiles_to_play() == [], f"{label}: a placeable tile is left"
    assert list(game.discarded) == mine.discarded, f"{label}: discards"
    return mine


@needs_engine
def test_engine_follower_check_sees_merges_made_by_the_tile_itself():
    """Regression (found by the cross-check): the engine offered a farmer on a field that
    the placed tile's other field joins to an occupied one (rules section 2.2: the feature
    *after this tile joined it* must be empty)."""
    game = ENGINE.Game(ENGINE.Rules(players=2), tile_order="AEBU")
    for m in MERGE:
        game.play(ENGINE.Move(m["x"], m["y"], m["rotation"], m["follower"]))
    offered = {m.follower for m in game.legal_moves() if (m.x, m.y, m.rotation) == (-1, 0, 0)}
    assert offered == {None, "road:E"}


@needs_engine
def test_engine_pig_sees_merges_made_by_the_tile_itself():
    """The same merge for a seat holding only its builder and pig (its one follower is
    the farmer): the pig may go on U's south field too, which the tile's north field
    joins to that farmer's field (the reference agrees)."""
    rules = {"players": 2, "followers": 1, **TB}
    game = ENGINE.Game(ENGINE.Rules(**rules), tile_order="AEBU")
    mine = ref.RefGame(rules)
    for m in MERGE:
        game.play(ENGINE.Move(m["x"], m["y"], m["rotation"], m["follower"]))
        mine.play(m)
    offered = {
        (m.follower, m.figure) for m in game.legal_moves() if (m.x, m.y, m.rotation) == (-1, 0, 0)
    }
    want = {(None, "follower"), ("field:N_w", "pig"), ("field:E_s", "pig")}
    assert offered == want
    assert {
        (f, fig) for x, y, r, f, fig in mine.legal_moves("U", 1) if (x, y, r) == (-1, 0, 0)
    } == want


# Random solo games in which one tile completes two scoring features and only the best
# order scores both (found by searching seeds; e.g. scores (5, 6, 3), colour 2's road
# first makes colour 0 lowest for its own road). Random play rarely produces these. If
# the engine's shuffle or move order changes they stay valid games, just less pointed.
SOLO_ORDER_CASES = [
    ({"variant": "solo", "followers": 7}, 381, 24),
    ({"variant": "solo", "followers": 7}, 1313, 24),
    ({"variant": "solo", "solo_colours": 4, "followers": 5}, 197, 24),
    ({"variant": "solo", "solo_colours": 4, "followers": 5}, 699, 24),
    ({"variant": "solo"}, 30, None),
    ({"variant": "solo"}, 410, None),
    ({"variant": "solo", "followers": 7}, 147, None),
]


@needs_engine
@pytest.mark.parametrize(("rules", "seed", "tiles"), SOLO_ORDER_CASES)
def test_engine_solo_scoring_order(rules, seed, tiles):
    """Simultaneous solo scorings where the order decides who scores."""
    check_game(rules, seed, tiles)


# Random Inns & Cathedrals games in which a city with a cathedral is completed during the
# game (rare in random play: EK opens four sides; found by searching seeds). Seed 203:
# 8 tiles, 2 pennants, 30 points at turn 58; seed 225: 7 tiles, 2 pennants, 27 points at
# turn 13. If the engine's shuffle changes they stay valid games, just less pointed.
IC_CATHEDRAL_CASES = [({"players": 2, **IC}, 203), ({"players": 2, **IC}, 225)]


@needs_engine
@pytest.mark.parametrize(("rules", "seed"), IC_CATHEDRAL_CASES)
def test_engine_completed_cathedral_city(rules, seed):
    """Random games where a cathedral city is completed: record replay and turn by turn."""
    check_game(rules, seed)
    check_live(rules, seed)


@needs_engine
@pytest.mark.parametrize("name", SCENARIOS)
def test_engine_scenario(name):
    """The engine reproduces the hand-computed scores of each scenario."""
    case = SCENARIOS[name]
    tiles = case.get("tiles") or [m["tile"] for m in case["moves"]]
    game = ENGINE.Game(ENGINE.Rules(**case["rules"]), tile_order=list(tiles))
    scores = []
    for m in case["moves"]:
        game.play(
            ENGINE.Move(
                m["x"], m["y"], m["rotation"], m["follower"], figure=m.get("figure", "follower")
            )
        )
        scores.append(list(game.scores))
    assert game.done
    assert scores == case["scores"]
    moves = game.to_record()["moves"]
    assert [m.get("figure") for m in moves] == [m.get("figure") for m in case["moves"]]
    assert [m["player"] for m in moves] == [m["player"] for m in case["moves"]]  # extra turns


def _cases(scale: int) -> list[tuple[dict[str, Any], int, int, int | None]]:
    """(rules, first seed, count, tiles) per configuration, ``scale`` times the default."""
    return [(rules, 1000 * k, n * scale, tiles) for k, (rules, n, tiles) in enumerate(CONFIGS)]


def _id(case: tuple[dict[str, Any], int, int, int | None]) -> str:
    rules, _, n, tiles = case
    deck = "" if tiles is None else f"-{tiles}tiles"
    return "-".join(f"{k}={v}" for k, v in rules.items()) + f"{deck}-x{n}"


@needs_engine
@pytest.mark.parametrize("case", _cases(1), ids=_id)
def test_engine_matches_reference(case):
    """Random games across rule options: every per-move score and the result agree."""
    rules, first, count, tiles = case
    for seed in range(first, first + count):
        check_game(rules, seed, tiles)


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("case", _cases(20), ids=_id)
def test_engine_matches_reference_many(case):
    """The same cross-check with twenty times as many games (other seeds)."""
    rules, first, count, tiles = case
    for seed in range(first + 100_000, first + 100_000 + count):
        check_game(rules, seed, tiles)


LIVE = [
    {"players": 2},
    {"players": 5, "followers": 3},
    {"players": 3, "hand_size": 3},
    {"variant": "solo"},
    {"variant": "solo", "solo_colours": 4, "followers": 3},
]


@needs_engine
@pytest.mark.parametrize("rules", LIVE, ids=str)
def test_engine_turn_by_turn(rules):
    """Legal moves, discards, followers and scores agree with the reference every turn."""
    for seed in range(10):
        check_live(rules, seed)


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("rules", LIVE, ids=str)
def test_engine_turn_by_turn_many(rules):
    """The turn-by-turn check over more games."""
    for seed in range(10, 210):
        check_live(rules, seed)


# Turn-by-turn checks with expansions: (rules, games in the default run). The large
# follower shows in the legal moves (each free spot once per figure in supply), in the
# followers standing on the board and in the supplies.
LIVE_EXPANSIONS: list[tuple[dict[str, Any], int]] = [
    ({"players": 2, **IC}, 4),
    ({"players": 4, "followers": 2, **IC}, 3),
    ({"players": 2, **IC_TILES}, 2),
    (
        {
            "players": 2,
            "expansions": ["inns_cathedrals", "traders_builders"],
            "expansion_mode": "tiles_only",
        },
        2,
    ),
    ({"variant": "solo", **IC}, 10),
    ({"players": 3, "hand_size": 3, **IC}, 2),
    ({"players": 2, "farm_scoring": "city", "followers": 1, **IC}, 2),
]


def _live_id(case: tuple[dict[str, Any], int]) -> str:
    rules, n = case
    return "-".join(f"{k}={v}" for k, v in rules.items()) + f"-x{n}"


@needs_engine
@pytest.mark.parametrize("case", LIVE_EXPANSIONS, ids=_live_id)
def test_engine_turn_by_turn_expansions(case):
    """Legal moves (figures included), discards, followers, supplies and scores agree with
    the reference every turn, with expansion tiles and Inns & Cathedrals' rules."""
    rules, count = case
    for seed in range(count):
        check_live(rules, seed)


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("case", LIVE_EXPANSIONS, ids=_live_id)
def test_engine_turn_by_turn_expansions_many(case):
    """The expansion turn-by-turn check over twenty times as many games (other seeds)."""
    rules, count = case
    for seed in range(1000, 1000 + 20 * count):
        check_live(rules, seed)


# Traders & Builders in full mode (goods, builder, pig), alone and with Inns & Cathedrals:
# (rules, games in the default run) for the record replay (`check_game`) and for the
# turn-by-turn check (`check_live`). The random policy picks a builder or pig move half the
# time one is legal (`pick`), so that extra turns and pigs occur: every case asserts that
# its games had extra turns, points from pigs and goods tokens (solo: none of them).
TB_CONFIGS: list[tuple[dict[str, Any], int]] = [
    ({"players": 2, **TB}, 10),
    ({"players": 4, **TB}, 6),
    ({"players": 2, **BOTH}, 8),
    ({"players": 2, "hand_size": 3, **TB}, 6),
    ({"players": 2, "farm_scoring": "city", **TB}, 6),
    ({"players": 3, **TB_BGA}, 6),
    ({"variant": "solo", **BOTH}, 20),
]
LIVE_TB: list[tuple[dict[str, Any], int]] = [
    ({"players": 2, **TB}, 3),
    ({"players": 4, **TB}, 3),
    ({"players": 2, **BOTH}, 3),
    ({"players": 2, "hand_size": 3, **TB}, 2),
    ({"players": 2, "farm_scoring": "city", **TB}, 2),
    ({"players": 4, **TB_BGA}, 3),
    ({"variant": "solo", **BOTH}, 10),
]


def check_traders_builders(rules: dict[str, Any], games: list[ref.RefGame]) -> None:
    """The games' extra turns, pig points and goods (as the reference found them) show
    the expansion at work: some of each outside solo, none in solo."""
    extra = sum(len(g.extra_turns) for g in games)
    pigs = sum(sum(g.pig_points) for g in games)
    goods = sum(n for g in games for seat in g.goods for n in seat.values())
    if rules.get("variant") == "solo":
        assert (extra, pigs, goods) == (0, 0, 0), rules
    else:
        assert extra > 0 and pigs > 0 and goods > 0, (rules, extra, pigs, goods)


@needs_engine
@pytest.mark.parametrize("case", TB_CONFIGS, ids=_live_id)
def test_engine_matches_reference_traders_builders(case):
    """Random Traders & Builders games (full mode): the reference replays every record
    (seats to move with the builders' extra turns, draws, scores after every move, goods,
    pigs) exactly."""
    rules, count = case
    check_traders_builders(rules, [check_game(rules, seed) for seed in range(count)])


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("case", TB_CONFIGS, ids=_live_id)
def test_engine_matches_reference_traders_builders_many(case):
    """The same record replay over twenty times as many games (other seeds)."""
    rules, count = case
    seeds = range(1000, 1000 + 20 * count)
    check_traders_builders(rules, [check_game(rules, seed) for seed in seeds])


@needs_engine
@pytest.mark.parametrize("case", LIVE_TB, ids=_live_id)
def test_engine_turn_by_turn_traders_builders(case):
    """Turn by turn with Traders & Builders (full mode): the seat to move, its tiles, the
    legal moves with builder and pig variants, supplies, goods and scores agree."""
    rules, count = case
    check_traders_builders(rules, [check_live(rules, seed) for seed in range(count)])


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("case", LIVE_TB, ids=_live_id)
def test_engine_turn_by_turn_traders_builders_many(case):
    """The Traders & Builders turn-by-turn check over twenty times as many games."""
    rules, count = case
    seeds = range(1000, 1000 + 20 * count)
    check_traders_builders(rules, [check_live(rules, seed) for seed in seeds])


@needs_engine
@pytest.mark.parametrize(
    "rules",
    [{"players": 2, **TB}, {"players": 2, **BOTH}, {"players": 2, "followers": 1, **TB}],
    ids=str,
)
def test_engine_moves_with_only_a_builder_or_pig_left(rules):
    """A seat whose followers (and large follower) are all on the board but which still
    holds its builder and / or pig: the engine takes a shorter path there (only the kinds
    those figures can take are looked at). Its legal moves equal the reference's, and
    each case (builder only, pig only, both) occurs with such a figure offered."""
    offered = {"builder": 0, "pig": 0}
    seen = set()
    for seed in range(6):
        game = ENGINE.Game(ENGINE.Rules(**rules), seed=seed)
        start = game.to_record()
        mine = ref.RefGame(start["rules"], start["tile_order"])
        rng = random.Random(seed)
        while not game.done:
            seat, tile = game.current_player, game.current_tile
            legal = game.legal_moves()
            left = {f: mine.supply(seat, f) for f in ref.figures(mine.rules)}
            if (
                left["follower"] == 0
                and left.get("large", 0) == 0
                and (left["builder"] or left["pig"])
            ):
                seen.add((left["builder"] > 0, left["pig"] > 0))
                engine = {(m.x, m.y, m.rotation, m.follower, m.figure) for m in legal}
                assert engine == set(mine.legal_moves(tile, seat)), f"seed {seed}"
                for m in legal:
                    if m.figure in offered:
                        offered[m.figure] += 1
            move = rng.choice(legal)  # uniform: builders and pigs stay in hand longer
            game.play(move)
            played = {
                "player": seat,
                "tile": tile,
                "x": move.x,
                "y": move.y,
                "rotation": move.rotation,
                "follower": move.follower,
            }
            if move.figure != "follower":
                played["figure"] = move.figure
            mine.play(played, last=game.done, hint=list(game.scores))
    assert seen == {(True, False), (False, True), (True, True)}, seen
    assert offered["builder"] > 0 and offered["pig"] > 0, offered
