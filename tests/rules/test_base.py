"""Rule-by-rule scenarios for the base game (docs/rules.md 1-4), scores worked by hand.

Maps: one cell per tile, ``Xr`` = tile letter X in rotation r; (0, 0) is the start tile D0
(city N, road W-E, field S). Followers: s0 / s1 = seat 0 / seat 1. Two players unless said
otherwise, so move i is played by seat i % 2. The last tile of `tile_order` ends the game.
"""

from __future__ import annotations

import pytest

from carcassonne_env import IllegalMoveError, Move, Rules
from tests.support.scenarios import (
    followers_offered,
    new_game,
    placements,
    play,
    run,
    scored,
    snapshot,
)

# --------------------------------------------------------------------------- placement


def test_start_position():
    """Start tile D0 at (0, 0), 7 followers each, seat 0 to move, nothing scored."""
    game = new_game(Rules(), "U")
    assert list(game.board) == [(0, 0)]
    assert game.board[(0, 0)].tile == "D" and game.board[(0, 0)].rotation == 0
    assert game.board[(0, 0)].follower is None
    assert game.scores == [0, 0]
    assert game.followers_in_supply == [7, 7]
    assert game.current_player == 0 and game.current_tile == "U" and game.turn == 0
    assert not game.done and game.result is None


def test_placement_must_touch_a_full_edge():
    """A tile far away or touching only a corner is refused; the state is unchanged."""
    game = new_game(Rules(), "UU")
    before = snapshot(game)
    for x, y in [(5, 5), (1, 1), (-1, -1), (1, -1), (-1, 1)]:  # far, then the 4 corners
        for r in range(4):
            with pytest.raises(IllegalMoveError):
                game.play(Move(x, y, r))
            assert (x, y, r) not in placements(game)
    with pytest.raises(IllegalMoveError):
        game.play(Move(0, 0, 0))  # cell taken
    assert snapshot(game) == before
    # U next to the start: road E/W continues the start road at (1,0) and (-1,0) (U0/U2);
    # north of the start needs a city edge, south a field edge (U0, U2: N and S are field).
    # (U2 is U0 turned half-way; an engine may list such twins once, so check cells.)
    legal = placements(game)
    assert {(x, y) for x, y, _ in legal} == {(1, 0), (-1, 0), (0, 1)}
    assert {r for _, _, r in legal} <= {0, 2}
    assert {(1, 0, 0), (-1, 0, 0), (0, 1, 0)} <= legal


def test_placement_every_touching_edge_must_match():
    """Matching one neighbour but not the other is refused, state untouched.

    ``(0,-1) E2 | (1,-1) ?``   cell (1,-1) needs field W (E2's E edge) and field S (U0's N).
    ``(0, 0) D0 | (1, 0) U0``  K1 has S field but W road; K2 has W field but S city.
    """
    game = run(Rules(), "EUKU", [(0, -1, 2, None), (1, 0, 0, None)])
    assert game.current_tile == "K"
    before = snapshot(game)
    for r in (1, 2, 0, 3):
        with pytest.raises(IllegalMoveError):
            game.play(Move(1, -1, r))
    assert not any((x, y) == (1, -1) for x, y, _ in placements(game))
    assert snapshot(game) == before
    game.play(Move(2, 0, 0))  # K0: W road meets U0's E road
    assert game.board[(2, 0)].tile == "K"


def test_unplaceable_tile_is_discarded_and_next_drawn():
    """After E2 closes the start city no city edge is open: C (all city) fits nowhere.

    C is discarded automatically and seat 1 draws the next tile, U.
    """
    game = run(Rules(), "ECU", [(0, -1, 2, None)])
    assert game.discarded == ["C"]
    assert game.current_tile == "U"
    assert game.current_player == 1
    assert game.turn == 1 and not game.done
    game.play(Move(1, 0, 0))
    assert game.done and game.discarded == ["C"]
    assert "C" not in {p.tile for p in game.board.values()}


def test_unplaceable_last_tile_ends_the_game():
    """If the only tile left cannot be placed it is discarded and the game is over."""
    game = run(Rules(), "EC", [(0, -1, 2, "city:S")])
    assert game.discarded == ["C"]
    assert game.done and game.current_player is None
    assert game.scores == [4, 0] and game.result == [4, 0]


# --------------------------------------------------------------------------- followers


def test_follower_only_on_a_segment_of_the_tile_just_placed():
    """A location the placed tile does not have is refused (U has no city, no monastery)."""
    game = new_game(Rules(), "UU")
    before = snapshot(game)
    for loc in ("city:N", "monastery", "road:N", "field:inner"):
        with pytest.raises(IllegalMoveError):
            game.play(Move(1, 0, 0, loc))
    assert snapshot(game) == before
    # U0 at (1,0): road, north field (joined with the start's north field), south field.
    assert followers_offered(game, 1, 0, 0) == {None, "road:E", "field:N_w", "field:E_s"}


def test_follower_named_by_any_edge_of_its_segment():
    """docs/api.md: any edge / half-edge a segment touches names it (U0: W end of the road)."""
    game = run(Rules(), "UU", [(1, 0, 0, "road:W")])
    assert game.followers_in_supply == [6, 7]
    assert game.board[(1, 0)].follower is not None
    assert game.board[(1, 0)].follower[0] == 0
    assert game.board[(1, 0)].follower[1] in {"road:E", "road:W"}
    with pytest.raises(IllegalMoveError):
        game.play(Move(2, 0, 0, "road:W"))  # same road, occupied


def test_follower_refused_on_occupied_feature_own_or_other():
    """A feature that already holds a follower (anyone's, even one's own) takes no new one.

    ``(0,-1) N2 city s1 | (1,-1) N0 | (1,-2) N2``
    ``(0, 0) D0         | (1, 0) U0 road s0 | (2, 0) U0``
    End: road (0,0),(1,0),(2,0) incomplete = 3 for s0; city (0,0),(0,-1),(1,-1),(1,-2)
    incomplete, no pennant = 4 for s1.
    """
    game = run(Rules(), "UNUNN", [(1, 0, 0, "road:E"), (0, -1, 2, "city:E")])
    assert game.followers_in_supply == [6, 6]
    # s0 extends its own road east: no second thief on it.
    before = snapshot(game)
    with pytest.raises(IllegalMoveError):
        game.play(Move(2, 0, 0, "road:E"))
    assert snapshot(game) == before
    assert "road:E" not in followers_offered(game, 2, 0, 0)
    game.play(Move(2, 0, 0))
    # s1 extends its own city: no second knight.
    with pytest.raises(IllegalMoveError):
        game.play(Move(1, -1, 0, "city:N"))
    assert followers_offered(game, 1, -1, 0) == {None, "field:E_n"}
    game.play(Move(1, -1, 0))
    # s0 extends s1's city: refused as well.
    with pytest.raises(IllegalMoveError):
        game.play(Move(1, -2, 2, "city:E"))
    assert "city:E" not in followers_offered(game, 1, -2, 2)
    game.play(Move(1, -2, 2))
    assert game.done
    assert game.scores == [3, 4]
    assert game.followers_in_supply == [7, 7]


def test_separate_features_joined_later_share_tied_knights_score_full():
    """Rulebook: two knights of different players in one completed city score 10 each.

    ``(0,-1) N2 city s0 | (1,-1) M3 (joins, pennant)``
    ``(0, 0) D0         | (1, 0) K0 city s1``
    City (0,0),(0,-1),(1,-1),(1,0): 4 tiles * 2 + 1 pennant * 2 = 10, tie 1-1: both score 10.
    """
    game = run(Rules(), "NKM", [(0, -1, 2, "city:E"), (1, 0, 0, "city:N")])
    assert game.followers_in_supply == [6, 6]
    assert game.board[(0, -1)].follower == (0, "city:E")
    assert game.board[(1, 0)].follower == (1, "city:N")
    game.play(Move(1, -1, 3))
    assert game.scores == [10, 10]
    assert game.followers_in_supply == [7, 7]
    assert game.board[(0, -1)].follower is None and game.board[(1, 0)].follower is None
    city = frozenset({(0, 0), (0, -1), (1, -1), (1, 0)})
    assert scored(game, "city") == [("city", city, 10, (0, 1), False)]
    assert game.done and game.result == [10, 10]


def test_outvoted_player_scores_nothing_but_gets_follower_back():
    """Two knights of s0 against one of s1: s0 alone scores the city.

    ``(0,-1) N2 city s1 | (1,-1) R2 joins | (2,-1) E3 city s0``
    ``(-1,0) U0 | (0,0) D0 | (1, 0) K0 city s0 | (2, 0) B0``
    City (0,0),(0,-1),(1,-1),(1,0),(2,-1): 5 tiles, no pennant = 10 to s0, 0 to s1.
    """
    moves = [(1, 0, 0, "city:N"), (0, -1, 2, "city:E"), (2, 0, 0, None), (-1, 0, 0, None),
             (2, -1, 3, "city:W")]  # fmt: skip
    game = run(Rules(), "KNBUER", moves)
    assert game.followers_in_supply == [5, 6]
    game.play(Move(1, -1, 2))
    assert game.scores == [10, 0]
    assert game.followers_in_supply == [7, 7]
    city = frozenset({(0, 0), (0, -1), (1, -1), (1, 0), (2, -1)})
    assert scored(game, "city") == [("city", city, 10, (0,), False)]
    assert game.done and game.result == [10, 0]


def test_no_follower_with_empty_supply_and_reuse_after_return():
    """followers=1: with the thief out, only follower-less moves exist; it comes back.

    ``(-1,0) W0 | (0,0) D0 | (1,0) U0 road s0 | (2,0) A1``
    ``          | (0,1) B0 | (1,1) B0 monk s0``
    Road junction (-1,0) .. monastery (2,0): 4 tiles = 4 to s0. End: monastery (1,1) has
    neighbours (0,0),(1,0),(2,0),(0,1) = 1 + 4 = 5 for s0 (rulebook: incomplete monastery 5).
    """
    game = run(Rules(followers=1), "UWABB", [(1, 0, 0, "road:E"), (-1, 0, 0, None)])
    assert game.followers_in_supply == [0, 1]
    assert game.current_player == 0 and game.current_tile == "A"
    assert all(m.follower is None for m in game.legal_moves())
    before = snapshot(game)
    with pytest.raises(IllegalMoveError):
        game.play(Move(2, 0, 1, "monastery"))
    assert snapshot(game) == before
    game.play(Move(2, 0, 1))
    assert game.scores == [4, 0]
    assert game.followers_in_supply == [1, 1]
    play(game, [(0, 1, 0, None)])
    assert "monastery" in followers_offered(game, 1, 1, 0)
    game.play(Move(1, 1, 0, "monastery"))
    assert game.done
    assert game.scores == [9, 0]
    assert game.followers_in_supply == [1, 1]


def test_no_follower_on_a_junction():
    """W0 west of the start: its three road arms and three fields, nothing on the village."""
    game = new_game(Rules(), "W")
    assert followers_offered(game, -1, 0, 0) == {
        None, "road:E", "road:S", "road:W", "field:N_w", "field:E_s", "field:S_w"
    }  # fmt: skip
    with pytest.raises(IllegalMoveError):
        game.play(Move(-1, 0, 0, "field:inner"))


def test_farmer_on_monastery_tile_field():
    """A farmer may lie in a monastery tile's field; it never returns.

    ``(0,-1) E2 | (1,-1) B0 farmer s1``
    ``(0, 0) D0 |``
    E2 closes the start city (2 tiles, nobody on it). The field of B0 + E2 touches that
    completed city: s1 scores 3 at the end. The empty monastery scores nothing.
    """
    game = run(Rules(), "EB", [(0, -1, 2, None)])
    assert game.scores == [0, 0]
    assert followers_offered(game, 1, -1, 0) == {None, "monastery", "field:N_w"}
    game.play(Move(1, -1, 0, "field:N_w"))
    assert game.done
    assert game.scores == [0, 3]
    assert game.followers_in_supply == [7, 6]
    assert game.board[(1, -1)].follower == (1, "field:N_w")


@pytest.mark.parametrize("knight", [None, "city:S"])
def test_follower_on_feature_completed_this_turn_scores_and_returns(knight):
    """E2 north of the start closes a 2-tile city: 4 points; the knight is back at once."""
    game = run(Rules(), "EU", [(0, -1, 2, knight)])
    points = 4 if knight else 0
    assert game.scores == [points, 0]
    assert game.followers_in_supply == [7, 7]
    assert game.board[(0, -1)].follower is None
    assert not game.done and game.current_player == 1
    game.play(Move(1, 0, 0))
    assert game.scores == [points, 0]


def test_tile_with_two_cities_completes_one_and_keeps_a_knight_on_the_other():
    """docs/rules.md 3.3: I2 closes the start city with its S cap; the knight goes on the E cap.

    The closed 2-tile city has no knight: nobody scores. End: the open E cap is a 1-tile
    incomplete city = 1 for s0.
    """
    game = new_game(Rules(), "IU")
    assert followers_offered(game, 0, -1, 2) == {None, "city:E", "city:S", "field:N_w"}
    game.play(Move(0, -1, 2, "city:E"))
    assert game.scores == [0, 0]
    assert game.followers_in_supply == [6, 7]
    assert game.board[(0, -1)].follower == (0, "city:E")
    game.play(Move(1, 0, 0))
    assert game.done
    assert game.scores == [1, 0]
    assert game.followers_in_supply == [7, 7]


def test_knight_on_the_closing_cap_of_a_two_city_tile():
    """Same I2, knight on the S cap that completes the start city: 4, returned at once."""
    game = run(Rules(), "IU", [(0, -1, 2, "city:S")])
    assert game.scores == [4, 0]
    assert game.followers_in_supply == [7, 7]


# --------------------------------------------------------------------------- roads


def test_road_from_junction_to_monastery():
    """Rulebook "red scores 4": road junction -> monastery.

    ``(-1,0) W0 | (0,0) D0 | (1,0) U0 thief s0 | (2,0) A1 (road ends at the monastery)``
    4 tiles = 4 points to s0, thief returns.
    """
    game = run(Rules(), "UWA", [(1, 0, 0, "road:E"), (-1, 0, 0, None)])
    assert game.scores == [0, 0] and game.followers_in_supply == [6, 7]
    game.play(Move(2, 0, 1))
    assert game.scores == [4, 0]
    assert game.followers_in_supply == [7, 7]
    road = frozenset({(-1, 0), (0, 0), (1, 0), (2, 0)})
    assert scored(game, "road") == [("road", road, 4, (0,), False)]
    assert game.done and game.result == [4, 0]


def test_road_from_city_to_city():
    """Rulebook "red scores 3": road between two cities.

    ``(-1,0) T3 (road E ends at city) | (0,0) D0 | (1,0) S1 thief s0 (road W ends at city)``
    3 tiles = 3. The cities (1-tile each, incomplete, no knights) score nothing.
    """
    game = run(Rules(), "ST", [(1, 0, 1, "road:W")])
    game.play(Move(-1, 0, 3))
    assert game.scores == [3, 0]
    assert game.followers_in_supply == [7, 7]
    assert scored(game, "road") == [("road", frozenset({(-1, 0), (0, 0), (1, 0)}), 3, (0,), False)]


def test_road_loop():
    """A closed loop of four curves is complete: 4 tiles = 4 points.

    ``(0,1) V3 thief s0 | (1,1) V0``
    ``(0,2) V2          | (1,2) V1``
    """
    game = run(Rules(), "VVVV", [(0, 1, 3, "road:E"), (1, 1, 0, None), (0, 2, 2, None)])
    assert game.scores == [0, 0]
    game.play(Move(1, 2, 1))
    assert game.scores == [4, 0]
    assert game.followers_in_supply == [7, 7]
    loop = frozenset({(0, 1), (1, 1), (0, 2), (1, 2)})
    assert scored(game, "road") == [("road", loop, 4, (0,), False)]


def test_road_leaving_and_reentering_one_junction_counts_that_tile_once():
    """Road from W0's E arm around to its S arm: both ends at the same junction tile.

    ``(0,1) W0 (junction) | (1,1) V0 thief s1``
    ``(0,2) V2            | (1,2) V1``
    Tiles (0,1),(1,1),(1,2),(0,2) = 4 (the junction tile once, not twice).
    """
    game = run(Rules(), "WVVV", [(0, 1, 0, None), (1, 1, 0, "road:S"), (1, 2, 1, None)])
    assert game.scores == [0, 0]
    game.play(Move(0, 2, 2))
    assert game.scores == [0, 4]
    assert game.followers_in_supply == [7, 7]
    road = frozenset({(0, 1), (1, 1), (1, 2), (0, 2)})
    assert scored(game, "road") == [("road", road, 4, (1,), False)]


def test_one_tile_completes_a_road_and_a_city():
    """L0 ends the road at its junction and closes the city: both score at once.

    ``          | (0,-1) N2 knight s1 | (1,-1) N3``
    ``(-1,0) T3 thief s0 | (0,0) D0   | (1, 0) L0 (junction; new thief s1 on its E arm)``
    Road (-1,0),(0,0),(1,0), city end to junction: 3 to s0. City (0,0),(0,-1),(1,-1),(1,0):
    8 to s1. End: L0's E arm is a 1-tile open road: 1 to s1.
    """
    game = run(Rules(), "TNNL", [(-1, 0, 3, "road:E"), (0, -1, 2, "city:E"), (1, -1, 3, None)])
    assert game.followers_in_supply == [6, 6]
    game.play(Move(1, 0, 0, "road:E"))
    assert game.done
    assert sorted(scored(game, final=False)) == [
        ("city", frozenset({(0, 0), (0, -1), (1, -1), (1, 0)}), 8, (1,), False),
        ("road", frozenset({(-1, 0), (0, 0), (1, 0)}), 3, (0,), False),
    ]
    assert game.scores == [3, 9]
    assert game.followers_in_supply == [7, 7]


def test_road_tie_two_thieves_joined_later_both_score_full():
    """Two separate roads with one thief each are joined into a loop: 8 tiles, 8 each.

    ``(-1,0) V3 | (0,0) D0          | (1,0) U0 thief s0 | (2,0) V0``
    ``(-1,1) V2 | (0,1) U0 thief s1 | (1,1) U0 (joins) | (2,1) V1``
    """
    moves = [(1, 0, 0, "road:E"), (0, 1, 0, "road:E"), (2, 0, 0, None), (2, 1, 1, None)]
    game = run(Rules(), "UUVVUVV", moves)
    assert "road:E" not in followers_offered(game, 1, 1, 0)  # joins both occupied roads
    play(game, [(1, 1, 0, None), (-1, 0, 3, None)])
    assert game.scores == [0, 0]
    assert game.followers_in_supply == [6, 6]
    game.play(Move(-1, 1, 2))
    assert game.scores == [8, 8]
    assert game.followers_in_supply == [7, 7]
    loop = frozenset({(-1, 0), (0, 0), (1, 0), (2, 0), (-1, 1), (0, 1), (1, 1), (2, 1)})
    assert scored(game, "road") == [("road", loop, 8, (0, 1), False)]


# --------------------------------------------------------------------------- cities


def test_city_four_tiles_no_pennant_scores_8():
    """Rulebook "4 city tiles, no pennant = 8".

    ``(0,-1) N2 knight s0 | (1,-1) N3``
    ``(0, 0) D0           | (1, 0) K0 (N city, W road)``
    """
    game = run(Rules(), "NNK", [(0, -1, 2, "city:E"), (1, -1, 3, None)])
    assert game.scores == [0, 0]
    game.play(Move(1, 0, 0))
    assert game.scores == [8, 0]
    assert game.followers_in_supply == [7, 7]
    city = frozenset({(0, 0), (0, -1), (1, -1), (1, 0)})
    assert scored(game, "city") == [("city", city, 8, (0,), False)]
    assert game.result == [8, 0]


def test_city_three_tiles_one_pennant_scores_8():
    """Rulebook "3 city tiles + 1 pennant = 8": 3 * 2 + 1 * 2.

    ``(0,-1) M2 knight s0 (pennant) | (1,-1) E3``
    ``(0, 0) D0``
    """
    game = run(Rules(), "ME", [(0, -1, 2, "city:E")])
    game.play(Move(1, -1, 3))
    assert game.scores == [8, 0]
    assert game.followers_in_supply == [7, 7]
    city = frozenset({(0, 0), (0, -1), (1, -1)})
    assert scored(game, "city") == [("city", city, 8, (0,), False)]


def test_city_closing_around_both_caps_of_an_i_tile_counts_it_once():
    """A city ring joins I0's N cap and W cap: the I tile counts once.

    ``(0,0) D0``
    ``(0,1) N2 knight s0 | (1,1) N3``
    ``(0,2) N1           | (1,2) I0 (caps N and W, both in this city)``
    4 tiles * 2 = 8 (not 10). Once joined, I0 offers no knight (the city is occupied).
    """
    game = run(Rules(), "NNNI", [(0, 1, 2, "city:E"), (1, 1, 3, None), (0, 2, 1, None)])
    assert game.scores == [0, 0]
    assert followers_offered(game, 1, 2, 0) == {None, "field:E_n"}
    game.play(Move(1, 2, 0))
    assert game.scores == [8, 0]
    assert game.followers_in_supply == [7, 7]
    city = frozenset({(0, 1), (1, 1), (0, 2), (1, 2)})
    assert scored(game, "city") == [("city", city, 8, (0,), False)]


def test_city_closing_around_both_caps_of_an_h_tile_counts_it_once():
    """A 6-tile city ring joins H0's N and S caps: the H tile counts once.

    ``(0,0) D0``
    ``(0,1) N2 knight s0 | (1,1) N3``
    ``(0,2) H0 (last)    | (1,2) G1``
    ``(0,3) M1 (pennant) | (1,3) N0``
    6 tiles * 2 + 1 pennant * 2 = 14 (16 if H were counted twice).
    """
    moves = [(0, 1, 2, "city:E"), (1, 1, 3, None), (1, 2, 1, None), (1, 3, 0, None),
             (0, 3, 1, None)]  # fmt: skip
    game = run(Rules(), "NNGNMH", moves)
    assert game.scores == [0, 0]
    assert followers_offered(game, 0, 2, 0) == {None, "field:E_n"}
    game.play(Move(0, 2, 0))
    assert game.scores == [14, 0]
    assert game.followers_in_supply == [7, 7]
    city = frozenset({(0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)})
    assert scored(game, "city") == [("city", city, 14, (0,), False)]


# --------------------------------------------------------------------------- monasteries


def test_monastery_completed_scores_9():
    """Monastery B0 at (0,1) with all 8 neighbours placed: 9 to its monk.

    ``(-1,0) U0 | (0,0) D0 | (1,0) U0``
    ``(-1,1) E3 | (0,1) B0 monk s0 | (1,1) E1``
    ``(-1,2) E2 | (0,2) E2 | (1,2) E2``  (all outer edges are field or open city caps)
    """
    moves = [(0, 1, 0, "monastery"), (-1, 0, 0, None), (1, 0, 0, None), (-1, 1, 3, None),
             (1, 1, 1, None), (-1, 2, 2, None), (0, 2, 2, None)]  # fmt: skip
    game = run(Rules(), "BUUEEEEE", moves)
    assert game.scores == [0, 0] and game.followers_in_supply == [6, 7]
    game.play(Move(1, 2, 2))
    assert game.scores == [9, 0]
    assert game.followers_in_supply == [7, 7]
    mon = scored(game, "monastery")
    assert len(mon) == 1 and mon[0][2:] == (9, (0,), False)
    assert (0, 1) in mon[0][1]
    assert game.result == [9, 0]


def test_monastery_placed_into_a_full_ring_scores_9_at_once():
    """A monastery dropped into a hole with all 8 neighbours present is complete at once.

    Same ring as above, B0 placed last at (0,1) with a monk by s1: 9, not end scoring.
    """
    moves = [(-1, 0, 0, None), (1, 0, 0, None), (-1, 1, 3, None), (1, 1, 1, None),
             (-1, 2, 2, None), (0, 2, 2, None), (1, 2, 2, None)]  # fmt: skip
    game = run(Rules(), "UUEEEEEB", moves)
    assert "monastery" in followers_offered(game, 0, 1, 0)
    game.play(Move(0, 1, 0, "monastery"))
    assert game.scores == [0, 9]
    assert game.followers_in_supply == [7, 7]
    mon = scored(game, "monastery")
    assert len(mon) == 1 and mon[0][2:] == (9, (1,), False)


def test_incomplete_monastery_scores_one_plus_neighbours():
    """Rulebook "yellow scores 5": monastery + 4 neighbours at the end.

    ``(-1,0) U0 | (0,0) D0 | (1,0) U0``
    ``(-1,1) E3 | (0,1) B0 monk s0 | (1,1) -``   neighbours present: 4 -> 1 + 4 = 5.
    """
    moves = [(0, 1, 0, "monastery"), (-1, 0, 0, None), (1, 0, 0, None), (-1, 1, 3, None)]
    game = run(Rules(), "BUUE", moves)
    assert game.done
    assert game.scores == [5, 0]
    assert game.followers_in_supply == [7, 7]
    mon = scored(game, "monastery", final=True)
    assert len(mon) == 1 and mon[0][2:] == (5, (0,), True)


def test_adjacent_monasteries_each_score_their_own_ring():
    """docs/rules.md 3.4: monasteries may touch; each counts its own neighbours.

    ``(0,0) D0          | (1,0) U0``
    ``(0,1) B0 monk s0  | (1,1) B0 monk s1``
    Each has 3 neighbours present at the end: 1 + 3 = 4 each.
    """
    game = run(Rules(), "BBU", [(0, 1, 0, "monastery"), (1, 1, 0, "monastery")])
    assert game.followers_in_supply == [6, 6]
    game.play(Move(1, 0, 0))
    assert game.done
    assert game.scores == [4, 4]
    assert game.followers_in_supply == [7, 7]


# --------------------------------------------------------------------------- end scoring


def test_incomplete_road_and_city_at_the_end():
    """Rulebook: incomplete road 3 (1 per tile), incomplete city 1 per tile + 1 per pennant.

    ``(0,-1) M2 knight s1 (pennant, open E)``
    ``(0, 0) D0 | (1,0) U0 thief s0 | (2,0) U0``
    Road (0,0),(1,0),(2,0) open both ends: 3 to s0. City (0,0),(0,-1): 2 + 1 pennant = 3 to s1.
    """
    game = run(Rules(), "UMU", [(1, 0, 0, "road:E"), (0, -1, 2, "city:E"), (2, 0, 0, None)])
    assert game.done
    assert game.scores == [3, 3]
    assert game.result == [3, 3]
    assert game.followers_in_supply == [7, 7]
    assert scored(game, final=False) == []
    final = set(scored(game, final=True))
    assert ("road", frozenset({(0, 0), (1, 0), (2, 0)}), 3, (0,), True) in final
    assert ("city", frozenset({(0, 0), (0, -1)}), 3, (1,), True) in final


def test_incomplete_city_majority_at_the_end():
    """Rulebook: in an incomplete city the player with more knights scores, the other 0.

    ``          | (0,-1) N2 knight s1 | (1,-1) C0 (pennant, open N) | (2,-1) E3 knight s0``
    ``(-1,0) U0 | (0, 0) D0           | (1, 0) K0 knight s0         | (2, 0) B0``
    City 5 tiles + 1 pennant = 6 to s0 (2 knights vs 1).
    """
    moves = [(1, 0, 0, "city:N"), (0, -1, 2, "city:E"), (2, 0, 0, None), (-1, 0, 0, None),
             (2, -1, 3, "city:W"), (1, -1, 0, None)]  # fmt: skip
    game = run(Rules(), "KNBUEC", moves)
    assert game.done
    assert game.scores == [6, 0]
    assert game.followers_in_supply == [7, 7]
    city = frozenset({(0, 0), (0, -1), (1, -1), (1, 0), (2, -1)})
    assert ("city", city, 6, (0,), True) in scored(game, "city", final=True)


# --------------------------------------------------------------------------- farms


def test_field_scores_each_completed_city_and_not_an_incomplete_one():
    """Rulebook "blue 6, incomplete city gives nothing".

    ``           | (1,-2) E2            |``
    ``(0,-1) E2  | (1,-1) E0            | (2,-1) E1 (open city E)``
    ``(0, 0) D0  | (1, 0) U0 farmer s0 N``
    Farmer's field: north of the road, around E2(0,-1), E0, E2(1,-2), E1. It touches
    city 1 = (0,0)+(0,-1) and city 2 = (1,-1)+(1,-2), both complete: 2 * 3 = 6.
    City 3 at (2,-1) is incomplete: 0. The farmer never returns.
    """
    moves = [(1, 0, 0, "field:N_w"), (0, -1, 2, None), (1, -1, 0, None), (1, -2, 2, None)]
    game = run(Rules(), "UEEEE", moves)
    assert game.scores == [0, 0]
    assert game.followers_in_supply == [6, 7]
    game.play(Move(2, -1, 1))
    assert game.done
    assert game.scores == [6, 0]
    assert game.followers_in_supply == [6, 7]
    assert game.board[(1, 0)].follower == (0, "field:N_w")


def test_field_touching_three_completed_cities_scores_9():
    """Rulebook "blue scores 9": one field touching three completed cities.

    ``           |           | (1,-2) E2 |``
    ``(-1,-1) E2 | (0,-1) E2 | (1,-1) E0 |``
    ``(-1, 0) D0 | (0, 0) D0 | (1, 0) U0 farmer s0 N``
    Cities: (0,0)+(0,-1), (1,-1)+(1,-2), (-1,0)+(-1,-1); the north field touches all: 9.
    """
    moves = [(1, 0, 0, "field:N_w"), (0, -1, 2, None), (1, -1, 0, None), (1, -2, 2, None),
             (-1, 0, 0, None), (-1, -1, 2, None)]  # fmt: skip
    game = run(Rules(), "UEEEDE", moves)
    assert game.done
    assert game.scores == [9, 0]
    assert game.followers_in_supply == [6, 7]


def test_city_touching_several_fields_scores_for_each_field():
    """Rulebook "6 and 3": one completed city with three farmed fields around it.

    ``            | (0,-2) E2 farmer s1 |``
    ``(-1,-1) B0 farmer s0 | (0,-1) F1 farmer s0 (east field) |``
    ``            | (0, 0) D0 |``
    City (0,0),(0,-1),(0,-2) is complete (3 tiles + pennant, no knight: nobody scores it).
    Fields touching it: F1 east (s0), F1 west + B0 (s0), E2's field (s1).
    3rd edition: s0 owns two of those fields -> 3 + 3 = 6; s1 -> 3.
    """
    game = run(Rules(), "FEB", [(0, -1, 1, "field:E_n"), (0, -2, 2, "field:N_w")])
    assert game.scores == [0, 0]  # the city is complete but holds no knight
    assert game.followers_in_supply == [6, 6]
    game.play(Move(-1, -1, 0, "field:N_w"))
    assert game.done
    assert game.scores == [6, 3]
    assert game.followers_in_supply == [5, 6]
    assert game.board[(0, -1)].follower == (0, "field:E_n")
    assert game.board[(0, -2)].follower == (1, "field:N_w")


def test_field_majority_tie_both_score():
    """Two farmers placed in separate fields, joined later: a tie, both own the field.

    ``(0,-1) E2 farmer s1 | (1,-1) B0 (joins the fields)``
    ``(0, 0) D0           | (1, 0) U0 farmer s0 N``
    The field touches the completed city (0,0)+(0,-1): 3 each.
    """
    game = run(Rules(), "UEB", [(1, 0, 0, "field:N_w"), (0, -1, 2, "field:N_w")])
    assert game.scores == [0, 0]
    assert game.followers_in_supply == [6, 6]
    assert "field:N_w" not in followers_offered(game, 1, -1, 0)  # now joined and occupied
    game.play(Move(1, -1, 0))
    assert game.done
    assert game.scores == [3, 3]
    assert game.followers_in_supply == [6, 6]


def test_occupied_field_refused_at_a_distance():
    """The start's north field joins the fields of U0 east and U0 west: one farmer only."""
    game = run(Rules(), "UU", [(1, 0, 0, "field:N_w")])
    offered = followers_offered(game, -1, 0, 0)
    assert "field:N_w" not in offered  # north field of U0 west = start north field
    assert "field:E_s" in offered  # south field is separate from s0's farmer
    with pytest.raises(IllegalMoveError):
        game.play(Move(-1, 0, 0, "field:N_w"))


def test_rulebook_tied_big_field_and_small_field():
    """Rulebook: red and yellow tie on the big field (6 each: cities A and B), blue owns the
    small field (3: city A). Three players: s0 red, s1 yellow, s2 blue.

    ``            | (0,-2) E2       | (1,-2) E2 (closes B)``
    ``(-1,-1) B0 s2 | (0,-1) F1 s0 E  | (1,-1) E0 (city B, joins)``
    ``            | (0, 0) D0       | (1, 0) U0 s1 N``
    City A = (0,0),(0,-1),(0,-2); city B = (1,-1),(1,-2); both complete, no knights.
    Big field (F1 east, E0, U0 north, start north, both E2 fields) touches A and B.
    Small field (F1 west + B0) touches A only.
    """
    moves = [(0, -1, 1, "field:E_n"), (1, 0, 0, "field:N_w"), (-1, -1, 0, "field:N_w"),
             (0, -2, 2, None), (1, -1, 0, None)]  # fmt: skip
    game = run(Rules(players=3), "FUBEEE", moves)
    assert game.scores == [0, 0, 0]
    assert game.followers_in_supply == [6, 6, 6]
    game.play(Move(1, -2, 2))
    assert game.done
    assert game.scores == [6, 6, 3]
    assert game.followers_in_supply == [6, 6, 6]
