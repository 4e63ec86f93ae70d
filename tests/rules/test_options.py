"""Rule options (docs/rules.md 5): small_city, farm scoring, followers, players, hand.

Same conventions as test_base.py: start tile D0 at (0, 0) (city N, road W-E), x east,
y south, ``Xr`` = tile X in rotation r, s0 / s1 = seats. Scores are worked by hand.
"""

from __future__ import annotations

import pytest

from carcassonne_env import IllegalMoveError, Move, Rules
from tests.support.scenarios import new_game, run, snapshot

# --------------------------------------------------------------------------- small_city


@pytest.mark.parametrize("small_city, points", [(False, 4), (True, 2)])
def test_small_city_two_tiles(small_city, points):
    """E2 closes the start city: 2 tiles. Default 2 * 2 = 4; small_city 1 * 2 = 2."""
    game = run(Rules(small_city=small_city), "EU", [(0, -1, 2, "city:S")])
    assert game.scores == [points, 0]
    assert game.followers_in_supply == [7, 7]
    game.play(Move(1, 0, 0))
    assert game.done and game.scores == [points, 0]


@pytest.mark.parametrize("small_city, points", [(False, 4), (True, 2)])
def test_small_city_closed_by_a_two_city_tile(small_city, points):
    """I2's S cap closes the 2-tile start city (knight there); its E cap stays open."""
    game = run(Rules(small_city=small_city), "IU", [(0, -1, 2, "city:S")])
    assert game.scores == [points, 0]
    assert game.followers_in_supply == [7, 7]


@pytest.mark.parametrize("small_city", [False, True])
def test_small_city_leaves_a_three_tile_city_alone(small_city):
    """M2 (pennant) + E3 + start: 3 tiles + 1 pennant = 8 with or without small_city."""
    game = run(Rules(small_city=small_city), "ME", [(0, -1, 2, "city:E"), (1, -1, 3, None)])
    assert game.scores == [8, 0]
    assert game.followers_in_supply == [7, 7]


@pytest.mark.parametrize("small_city", [False, True])
def test_small_city_leaves_incomplete_cities_alone(small_city):
    """An incomplete 2-tile city with a pennant scores 1 + 1 + 1 = 3 at the end either way."""
    game = run(Rules(small_city=small_city), "MU", [(0, -1, 2, "city:E"), (1, 0, 0, None)])
    assert game.done
    assert game.scores == [3, 0]


@pytest.mark.parametrize("small_city, points", [(False, 8), (True, 8)])
def test_small_city_four_tile_ring(small_city, points):
    """The 4-tile city around I0 (see test_rules_base) is not small: 8 either way."""
    moves = [(0, 1, 2, "city:E"), (1, 1, 3, None), (0, 2, 1, None), (1, 2, 0, None)]
    game = run(Rules(small_city=small_city), "NNNI", moves)
    assert game.scores == [points, 0]


# --------------------------------------------------------------------------- farm scoring

# "FEB": one completed city (0,0)+(0,-1)+(0,-2) with three farmed fields around it:
#   ``            | (0,-2) E2 farmer s1 |``
#   ``(-1,-1) B0 farmer s0 | (0,-1) F1 farmer s0 (east field) |``
#   ``            | (0, 0) D0 |``
FEB_MOVES = [(0, -1, 1, "field:E_n"), (0, -2, 2, "field:N_w"), (-1, -1, 0, "field:N_w")]


@pytest.mark.parametrize(
    "mode, pts, expected",
    [
        # 3rd ed.: each field's owner scores the city: s0 owns two fields -> 2 * pts, s1 one.
        ("field", 3, [6, 3]),
        ("field", 4, [8, 4]),
        # 1st ed.: the city scores once, to the most farmers over all its fields: s0 (2 vs 1).
        ("city", 3, [3, 0]),
        ("city", 4, [4, 0]),
    ],
)
def test_farm_scoring_city_touching_several_fields(mode, pts, expected):
    """One city, three fields: field mode pays per field, city mode once per city."""
    game = run(Rules(farm_scoring=mode, farm_city_points=pts), "FEB", FEB_MOVES)
    assert game.done
    assert game.scores == expected
    assert game.followers_in_supply == [5, 6]  # farmers never return


# "UEEEE": s0's one field touches two completed cities and one incomplete city:
#   ``           | (1,-2) E2 |``
#   ``(0,-1) E2  | (1,-1) E0 | (2,-1) E1 (open)``
#   ``(0, 0) D0  | (1, 0) U0 farmer s0 N``
TWO_CITY_MOVES = [(1, 0, 0, "field:N_w"), (0, -1, 2, None), (1, -1, 0, None),
                  (1, -2, 2, None), (2, -1, 1, None)]  # fmt: skip


@pytest.mark.parametrize(
    "mode, pts, expected",
    [("field", 3, [6, 0]), ("city", 3, [6, 0]), ("city", 4, [8, 0]), ("field", 4, [8, 0])],
)
def test_farm_scoring_field_touching_two_cities(mode, pts, expected):
    """Two completed cities -> 2 * pts in both modes; the incomplete city gives nothing."""
    game = run(Rules(farm_scoring=mode, farm_city_points=pts), "UEEEE", TWO_CITY_MOVES)
    assert game.done
    assert game.scores == expected
    assert game.followers_in_supply == [6, 7]


@pytest.mark.parametrize("mode", ["field", "city"])
def test_farm_scoring_tie(mode):
    """One farmer each on the field of the completed start city: a tie, both score 3.

    ``(0,-1) E2 farmer s1 | (1,-1) B0``
    ``(0, 0) D0           | (1, 0) U0 farmer s0 N``
    """
    moves = [(1, 0, 0, "field:N_w"), (0, -1, 2, "field:N_w"), (1, -1, 0, None)]
    game = run(Rules(farm_scoring=mode), "UEB", moves)
    assert game.done
    assert game.scores == [3, 3]
    assert game.followers_in_supply == [6, 6]


@pytest.mark.parametrize("mode", ["field", "city"])
def test_farm_scoring_one_farmer_each_on_different_fields_of_one_city(mode):
    """Farmers of s0 and s1 on different fields of the same completed city, 1 each.

    ``(0,-2) E2 farmer s1``
    ``(0,-1) F1 farmer s0 (east field)``  + B0 at (-1,-1) without farmer.
    Field mode: each owns a field touching the city -> 3 each. City mode: 1 vs 1 over all
    fields touching the city -> tie -> 3 each as well.
    """
    moves = [(0, -1, 1, "field:E_n"), (0, -2, 2, "field:N_w"), (-1, -1, 0, None)]
    game = run(Rules(farm_scoring=mode), "FEB", moves)
    assert game.scores == [3, 3]


# --------------------------------------------------------------------------- followers


@pytest.mark.parametrize("n", [0, 1, 3, 12])
def test_follower_count(n):
    """Rules(followers=n): each seat starts with n; with 0 no move places a follower."""
    game = new_game(Rules(followers=n), "UU")
    assert game.followers_in_supply == [n, n]
    has_follower_moves = any(m.follower is not None for m in game.legal_moves())
    assert has_follower_moves == (n > 0)
    if n == 0:
        with pytest.raises(IllegalMoveError):
            game.play(Move(1, 0, 0, "road:E"))
    else:
        game.play(Move(1, 0, 0, "road:E"))
        assert game.followers_in_supply == [n - 1, n]


def test_default_followers_is_7():
    """Seven followers per seat by default, for every player count."""
    for p in range(1, 7):
        assert new_game(Rules(players=p), "U").followers_in_supply == [7] * p


# --------------------------------------------------------------------------- players


@pytest.mark.parametrize("p", [1, 2, 3, 4, 5, 6])
def test_players_take_turns_in_order(p):
    """Seats 0..p-1 in turn, then seat 0 again; every seat has its own score and supply.

    Tiles: U0 at (1,0), (2,0), ... (p+1,0); seat 0 puts a thief on the first one. The road
    (0,0)..(p+1,0) stays open: p + 2 tiles -> p + 2 for seat 0 at the end.
    """
    game = new_game(Rules(players=p), "U" * (p + 1))
    assert game.scores == [0] * p
    seen = []
    for i in range(p + 1):
        seen.append(game.current_player)
        game.play(Move(i + 1, 0, 0, "road:E" if i == 0 else None))
    assert seen == [i % p for i in range(p + 1)]
    assert game.done and game.current_player is None
    assert game.scores == [p + 2] + [0] * (p - 1)
    assert game.followers_in_supply == [7] * p


def test_three_players_tie_on_a_city():
    """Three players, knights of s0 and s1 tie, s2 idle: both score, s2 nothing.

    Same map as the 10-10 rulebook tie: N2 (s0), K0 (s1), M3 joins (placed by s2).
    """
    game = run(Rules(players=3), "NKM", [(0, -1, 2, "city:E"), (1, 0, 0, "city:N")])
    assert game.current_player == 2
    game.play(Move(1, -1, 3))
    assert game.scores == [10, 10, 0]
    assert game.followers_in_supply == [7, 7, 7]


# --------------------------------------------------------------------------- hand_size 3


def test_hand_size_3_strategic_variant():
    """Strategic variant: seat p is dealt tile_order[3p:3p+3], places any hand tile, redraws.

    Tiles "EUV" (s0), "BUA" (s1), then "W" is the only replacement.
    1. s0 E2 (0,-1) knight: closes the 2-tile start city -> 4, knight back; draws W.
    2. s1 U0 (1,0).   3. s0 W0 (-1,0): road junction .. (1,0) open.
    4. s1 A1 (2,0) monk: closes the road (nobody on it).   5. s0 U0 (1,1).
    6. s1 B0 (2,-1).  7. s0 V0 (2,1): last tile.
    End: monastery (2,0) neighbours (2,-1),(1,0),(1,1),(2,1) = 1 + 4 = 5 for s1.
    """
    game = new_game(Rules(hand_size=3), "EUVBUAW")
    assert game.current_player == 0
    assert sorted(game.hand) == ["E", "U", "V"]
    before = snapshot(game)
    with pytest.raises(IllegalMoveError):
        game.play(Move(0, -1, 2, None, "B"))  # not in s0's hand
    with pytest.raises(IllegalMoveError):
        game.play(Move(0, -1, 2, None, "U"))  # in hand, but U does not fit there
    assert snapshot(game) == before
    assert {m.tile for m in game.legal_moves()} == {"E", "U", "V"}

    game.play(Move(0, -1, 2, "city:S", "E"))
    assert game.scores == [4, 0]
    assert game.followers_in_supply == [7, 7]
    assert game.current_player == 1
    assert sorted(game.hand) == ["A", "B", "U"]

    game.play(Move(1, 0, 0, None, "U"))
    assert game.current_player == 0
    assert sorted(game.hand) == ["U", "V", "W"]  # W was the replacement for E

    game.play(Move(-1, 0, 0, None, "W"))
    assert sorted(game.hand) == ["A", "B"]  # no tile left to replace s1's U
    game.play(Move(2, 0, 1, "monastery", "A"))
    assert game.scores == [4, 0]  # road closed, nobody on it
    assert game.followers_in_supply == [7, 6]
    game.play(Move(1, 1, 0, None, "U"))
    game.play(Move(2, -1, 0, None, "B"))
    assert not game.done
    assert sorted(game.hand) == ["V"]
    game.play(Move(2, 1, 0, None, "V"))
    assert game.done
    assert game.scores == [4, 5]
    assert game.followers_in_supply == [7, 7]
    assert len(game.board) == 8 and game.discarded == []


def test_hand_size_1_accepts_the_current_tile_name():
    """With hand_size 1, Move.tile may be None or the current tile; another letter is refused."""
    game = new_game(Rules(), "UU")
    with pytest.raises(IllegalMoveError):
        game.play(Move(1, 0, 0, None, "V"))
    game.play(Move(1, 0, 0, None, "U"))
    game.play(Move(2, 0, 0))
    assert game.done
