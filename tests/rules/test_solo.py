"""Scenario tests for the 2020 Hans im Glück solo variant (docs/rules.md 6).

Every expected score below was worked out by hand from the rules, not read off the engine.

Notation: one cell per tile, ``Xr`` = tile letter X in rotation r (clockwise quarter turns),
(0, 0) is the start tile D0 (city N, road W-E, field S); x grows east, y grows south.
``c0 c1 c2`` are the colours; scores start [1, 2, 3]; with no discard move i is played by
colour i % 3 and uses ``tile_order[i]`` (colour c's stack is ``tile_order[c::3]``).

End B with a short tile_order: the game ends after the first colour places the last tile of
its stack. With n tiles and 3 colours the last indices of the stacks are n-3, n-2 and n-1
(in some order of colours), so the game ends after move n-3 and the last two tiles are never
drawn (with 4 colours: after move n-4). The scenarios pad the order accordingly.

Edges used (N E S W): A0 F F R F (+monastery), B all F (+monastery), C all city,
D0 C R F R, E0 C F F F, L0 C R R R (junction), U0 F R F R, V0 F F R R (S-W curve),
W0 F R R R (junction). Rotation r moves the edge at index i to index i + r.
"""

from __future__ import annotations

from collections import Counter

import pytest

from carcassonne_env import Game, IllegalMoveError, Move, Rules

SOLO = Rules(variant="solo")

# Base-game draw pile (start tile excluded): scenarios stay within it.
DECK = {
    "A": 2, "B": 4, "C": 1, "D": 3, "E": 5, "F": 2, "G": 1, "H": 3, "I": 2, "J": 3, "K": 3,
    "L": 3, "M": 2, "N": 3, "O": 2, "P": 3, "Q": 1, "R": 3, "S": 2, "T": 1, "U": 8, "V": 9,
    "W": 4, "X": 1,
}  # fmt: skip


# --------------------------------------------------------------------------- helpers


def _new(tile_order: str, rules: Rules = SOLO) -> Game:
    over = {t: n for t, n in Counter(tile_order).items() if n > DECK[t]}
    assert not over, f"scenario uses more tiles than the deck has: {over}"
    return Game(rules, tile_order=tile_order)


def _offered(game: Game, x: int, y: int, rotation: int) -> set[str | None]:
    """Followers legal_moves() offers for one placement of the current tile."""
    return {m.follower for m in game.legal_moves() if (m.x, m.y, m.rotation) == (x, y, rotation)}


def _check_offer_rules(game: Game) -> dict[tuple[int, int, int], set[str | None]]:
    """Solo invariants of legal_moves(): never a farmer; a follower-less move for a placement
    only when it is the sole choice there (no free city/road/monastery, or empty supply)."""
    groups: dict[tuple[int, int, int], set[str | None]] = {}
    for m in game.legal_moves():
        assert m.follower is None or not m.follower.startswith("field"), f"farmer offered: {m}"
        groups.setdefault((m.x, m.y, m.rotation), set()).add(m.follower)
    for place, fs in groups.items():
        assert None not in fs or fs == {None}, f"optional follower at {place}: {fs}"
    return groups


def _step(game: Game, order: str, colours: int, step: tuple) -> None:
    """Play one scenario step ``(x, y, rot, follower, offered, scores, supply)`` with checks.

    ``offered``: the exact follower set legal_moves() must give for that placement.
    ``scores`` / ``supply``: expected after the move (None: not checked).
    """
    x, y, rot, follower, offered, scores, supply = step
    i = game.turn
    assert game.current_player == i % colours
    assert game.current_tile == order[i]
    _check_offer_rules(game)
    assert _offered(game, x, y, rot) == set(offered), f"move {i}"
    game.play(Move(x, y, rot, follower))
    if scores is not None:
        assert game.scores == scores, f"after move {i}"
    if supply is not None:
        assert game.followers_in_supply == supply, f"after move {i}"


def _run(order: str, steps: list[tuple], rules: Rules = SOLO, colours: int = 3) -> Game:
    game = _new(order, rules)
    for step in steps:
        _step(game, order, colours, step)
    return game


def _events(game: Game, turn: int | None = None, final: bool = False) -> set[tuple]:
    """Scoring events as (kind, tiles, majority, scorers, points); points only when scored
    (what `points` holds for a feature nobody may score is not fixed by the API)."""
    out = set()
    for e in game.events:
        if bool(e.final) != final or (turn is not None and e.turn != turn):
            continue
        scorers = tuple(sorted(int(s) for s in e.scorers))
        out.add(
            (
                e.kind,
                frozenset(tuple(t) for t in e.tiles),
                tuple(sorted(int(s) for s in e.majority)),
                scorers,
                int(e.points) if scorers else None,
            )
        )
    return out


def _final_bonus(game: Game) -> list[int]:
    """Points each colour got from the end-of-game follower bonus."""
    got = [0] * len(game.scores)
    for e in game.events:
        if e.final:
            assert e.kind == "follower"
            for s in e.scorers:
                got[int(s)] += int(e.points)
    return got


def _cells(*cells: tuple[int, int]) -> frozenset:
    return frozenset(cells)


# --------------------------------------------------------------------------- setup


def test_solo_rules_validation():
    with pytest.raises(ValueError):
        Rules(variant="solo", players=2)
    for colours in (2, 5):
        with pytest.raises(ValueError):
            Rules(variant="solo", solo_colours=colours)
    assert Rules(variant="solo", followers=3).followers == 3


def test_solo_start_position():
    """Three colours with 4 followers, scores 1/2/3, colour 0 draws tile_order[0]."""
    assert SOLO.players == 1 and SOLO.followers == 4 and SOLO.seats == 3
    game = _new("EUU")
    assert game.scores == [1, 2, 3]
    assert game.followers_in_supply == [4, 4, 4]
    assert game.current_player == 0 and game.current_tile == "E" and game.turn == 0
    assert not game.done and game.result is None and game.end_reason is None


# --------------------------------------------------------------------------- compulsory follower


def test_compulsory_city_follower_and_lowest_scores():
    """E next to the start tile always has a free city: every E move carries a knight.

    E fits only at (0,-1) as E2 (closing the start city) or at (0,1) as E1/E2/E3 (N field).
    c0 closes the start city with E2 + knight: c0 (1) is lowest -> 1 + 4 = 5; the knight
    returns at once.
    """
    game = _new("EUUU")
    _check_offer_rules(game)
    moves = {(m.x, m.y, m.rotation, m.follower) for m in game.legal_moves()}
    assert moves == {
        (0, -1, 2, "city:S"),
        (0, 1, 1, "city:E"),
        (0, 1, 2, "city:S"),
        (0, 1, 3, "city:W"),
    }
    with pytest.raises(IllegalMoveError):
        game.play(Move(0, -1, 2, None))  # skipping the compulsory knight is illegal
    assert game.turn == 0 and game.scores == [1, 2, 3]
    game.play(Move(0, -1, 2, "city:S"))
    assert game.scores == [5, 2, 3]
    assert game.followers_in_supply == [4, 4, 4]
    assert game.board[(0, -1)].follower is None
    assert _events(game, turn=0) == {("city", _cells((0, 0), (0, -1)), (0,), (0,), 4)}
    assert not game.done and game.current_player == 1


def test_followerless_move_only_when_spots_are_occupied_and_no_farmers():
    """U next to the start: its road is free, so the thief is compulsory (never a farmer).

    Move 0, c0: U0 at (1,0) + thief on the start road.  Move 1, c1: U0 at (2,0) only
    lengthens that occupied road -> the only offer there is "no follower"; at (0,1) or
    (1,-1)/(1,1) a new road starts -> thief compulsory.
    """
    game = _new("UUUUUU")
    for fs in _check_offer_rules(game).values():
        assert fs == {"road:E"}
    assert {(1, 0, 0), (-1, 0, 0), (0, 1, 0)} <= set(_check_offer_rules(game))
    for bad in (None, "field:N_w", "field:S_e"):
        with pytest.raises(IllegalMoveError):
            game.play(Move(1, 0, 0, bad))
    assert game.turn == 0 and game.followers_in_supply == [4, 4, 4]
    game.play(Move(1, 0, 0, "road:E"))
    assert game.followers_in_supply == [3, 4, 4]

    _check_offer_rules(game)
    assert _offered(game, 2, 0, 0) == {None}
    assert _offered(game, -1, 0, 0) == {None}
    assert _offered(game, 0, 1, 0) == {"road:E"}
    assert _offered(game, 1, -1, 0) == {"road:E"}
    assert _offered(game, 1, 1, 0) == {"road:E"}
    for bad in ("road:E", "field:N_w"):
        with pytest.raises(IllegalMoveError):
            game.play(Move(2, 0, 0, bad))
    game.play(Move(2, 0, 0, None))
    assert game.followers_in_supply == [3, 4, 4]
    assert game.scores == [1, 2, 3]


# --------------------------------------------------------------------------- who scores

# Non-lowest colour completes its own city; lowest colour's road is completed by another.
#   (-1,0) A3 | (0,0) D0 | (1,0) A1        (0,-1) E2 above the start tile
NONLOW_ORDER = "AEA" + "UU"  # 5 tiles: c2's stack [A] runs out at move 2 -> end B
NONLOW_STEPS = [
    # 0 c0: A1 (road W) continues the start road: monastery or road, c0 takes the road.
    (1, 0, 1, "road:W", {"monastery", "road:W"}, [1, 2, 3], [3, 4, 4]),
    # 1 c1: E2 closes the start city (4) with c1's knight; c1 (2) is not lowest (c0 1):
    #   no points, the knight comes straight back.
    (0, -1, 2, "city:S", {"city:S"}, [1, 2, 3], [3, 4, 4]),
    # 2 c2: A3 (road E) closes the road A3-D0-A1 (3 tiles); road taken -> monk compulsory.
    #   c0 holds the road and is lowest -> 1 + 3 = 4. Game over (end B): only c2's monk is
    #   on the board, c2 (3) is not lowest (c1 2) -> no bonus. Final [4, 2, 3], result 2.
    (-1, 0, 3, "monastery", {"monastery"}, [4, 2, 3], None),
]


def test_non_lowest_colour_gets_nothing_but_follower_returns():
    game = _new(NONLOW_ORDER)
    for step in NONLOW_STEPS[:2]:
        _step(game, NONLOW_ORDER, 3, step)
    assert game.board[(0, -1)].follower is None
    assert _events(game, turn=1) == {("city", _cells((0, 0), (0, -1)), (1,), (), None)}


def test_lowest_colour_scores_feature_closed_by_another_colour_then_end_b():
    game = _run(NONLOW_ORDER, NONLOW_STEPS)
    assert _events(game, turn=2) == {("road", _cells((-1, 0), (0, 0), (1, 0)), (0,), (0,), 3)}
    assert game.board[(1, 0)].follower is None
    assert game.done and game.end_reason == "B"
    assert game.scores == [4, 2, 3]
    assert _final_bonus(game) == [0, 0, 0]
    assert game.result == 2
    assert len(game.board) == 4  # the last two tiles were never drawn
    assert game.current_player is None and game.current_tile is None


# Ties for lowest, then an end-of-game bonus whose order matters.
#   (-1,-1) B0 | (0,-1) E2 | (1,-1) B0
#   (-2,0) U0 | (-1,0) W0 | (0,0) D0 | (1,0) U0 | (2,0) A1
#                           (0,1) W0
#                           (0,2) A2
TIE_ORDER = "WAUAEWBUB" + "EE"  # 11 tiles: c2's stack [U, W, B] runs out first, at move 8
TIE_STEPS = [
    # 0 c0: W0 south of the start, three free road ends: c0 takes the S end.
    (0, 1, 0, "road:S", {"road:E", "road:S", "road:W"}, [1, 2, 3], [3, 4, 4]),
    # 1 c1: A2 (road N) closes the 2-tile road W0-A2: c0 lowest -> 3. c1 monk compulsory.
    (0, 2, 2, "monastery", {"monastery"}, [3, 2, 3], [4, 3, 4]),
    # 2 c2: U0 east of the start: start road free -> c2 thief.
    (1, 0, 0, "road:E", {"road:E"}, [3, 2, 3], [4, 3, 3]),
    # 3 c0: A1 closes the east end of that road; road taken -> monk.
    (2, 0, 1, "monastery", {"monastery"}, [3, 2, 3], [3, 3, 3]),
    # 4 c1: E2 closes the start city (4); c1 (2) lowest -> 6. Now c0 and c2 tie at 3.
    (0, -1, 2, "city:S", {"city:S"}, [3, 6, 3], [3, 3, 3]),
    # 5 c2: W0 closes the start road W0-D0-U0-A1 (4 tiles) held by c2 alone; c2 is tied
    #   for lowest with c0 -> counts as lowest -> 3 + 4 = 7. New thief on the W end.
    (-1, 0, 0, "road:W", {"road:S", "road:W"}, [3, 6, 7], [3, 3, 3]),
    # 6 c0: B0 north-east, monk compulsory.
    (1, -1, 0, "monastery", {"monastery"}, [3, 6, 7], [2, 3, 3]),
    # 7 c1: U0 lengthens c2's road -> no follower possible.
    (-2, 0, 0, None, {None}, [3, 6, 7], [2, 3, 3]),
    # 8 c2: B0 north-west, monk; c2's stack is empty -> end B. Followers on the board:
    #   c0 2 (monks at (2,0), (1,-1)), c1 1 (monk (0,2)), c2 2 (thief (-1,0), monk (-1,-1)).
    #   Bonus from [3,6,7]: c0 +2 -> 5 (still lowest) +2 -> 7; now c1 (6) lowest +2 -> 8;
    #   c0 and c2 tie at 7, c0 has none left, c2 +2 -> 9; c0 (7) lowest with none: stop.
    #   c2's second follower gives nothing. No order does better (c0 can reach 7 at most).
    (-1, -1, 0, "monastery", {"monastery"}, [7, 8, 9], None),
]


def test_tied_lowest_colours_both_count_as_lowest():
    game = _new(TIE_ORDER)
    for step in TIE_STEPS[:6]:
        _step(game, TIE_ORDER, 3, step)
    assert _events(game) == {
        ("road", _cells((0, 1), (0, 2)), (0,), (0,), 2),
        ("city", _cells((0, 0), (0, -1)), (1,), (1,), 4),
        ("road", _cells((-1, 0), (0, 0), (1, 0), (2, 0)), (2,), (2,), 4),
    }
    assert not game.done


def test_final_bonus_two_points_per_follower_only_for_lowest_in_best_order():
    game = _run(TIE_ORDER, TIE_STEPS)
    assert game.done and game.end_reason == "B"
    assert game.scores == [7, 8, 9]
    assert _final_bonus(game) == [4, 2, 2]
    assert game.result == 7 == min(game.scores)
    assert len(game.board) == 10
    replay = Game.from_record(game.to_record())
    assert replay.scores == [7, 8, 9] and replay.result == 7 and replay.end_reason == "B"


# Shared feature: two roads (c0, c1) are joined, then closed while c0 is lowest.
#   (-1,0) W0 | (0,0) D0 | (1,0) U0 | (2,0) V0
#   (-1,1) V2 | (0,1) W0 | (1,1) U0 | (2,1) V1
SHARED_ORDER = "UUVVWWV" + "EEE"  # 10 tiles: the game runs past move 6
SHARED_STEPS = [
    # 0 c0: U0 + thief on the start road.
    (1, 0, 0, "road:E", {"road:E"}, [1, 2, 3], [3, 4, 4]),
    # 1 c1: U0 under it, a new road (not connected) -> c1 thief.
    (1, 1, 0, "road:E", {"road:E"}, [1, 2, 3], [3, 3, 4]),
    # 2 c2: V0 turns the start road south; occupied -> no follower.
    (2, 0, 0, None, {None}, [1, 2, 3], [3, 3, 4]),
    # 3 c0: V1 joins both roads (now c0 1, c1 1); no follower possible.
    (2, 1, 1, None, {None}, [1, 2, 3], [3, 3, 4]),
    # 4 c1: W0 ends the road on the west; its S and W ends are free -> c1 takes S.
    (-1, 0, 0, "road:S", {"road:S", "road:W"}, [1, 2, 3], [3, 2, 4]),
    # 5 c2: W0 at (0,1) ends the other side: road W0-D0-U0-V0-V1-U0-W0 = 7 tiles complete.
    #   Majority c0 and c1 (one each); c0 is lowest -> both score 7: [8, 9, 3].
    #   Both thieves return; c2 must take a free end of its W0 (S).
    (0, 1, 0, "road:S", {"road:S", "road:W"}, [8, 9, 3], [4, 3, 3]),
    # 6 c0: V2 joins W0(-1,0)'s S end to W0(0,1)'s W end: 3-tile road, c1 alone; c1 (9)
    #   is not lowest (c2 3) -> nothing; the thief returns. Road occupied -> no follower.
    (-1, 1, 2, None, {None}, [8, 9, 3], [4, 4, 3]),
]


def test_shared_feature_all_tied_majority_colours_score_if_one_is_lowest():
    game = _run(SHARED_ORDER, SHARED_STEPS[:6])
    big_road = _cells((-1, 0), (0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1))
    assert _events(game, turn=5) == {("road", big_road, (0, 1), (0, 1), 7)}
    assert game.board[(1, 0)].follower is None and game.board[(1, 1)].follower is None
    assert game.result is None and game.end_reason is None
    _step(game, SHARED_ORDER, 3, SHARED_STEPS[6])
    small_road = _cells((-1, 0), (-1, 1), (0, 1))
    assert _events(game, turn=6) == {("road", small_road, (1,), (), None)}
    assert game.board[(-1, 0)].follower is None
    assert game.board[(0, 1)].follower == (2, "road:S")
    assert not game.done


# Lowest colour only in the minority: nobody scores.
#   (0,-2) E2 | (1,-2) B0
#   (-1,-1) E1 | (0,-1) C0 | (1,-1) E3
#   (-1,0) U0 | (0,0) D0 | (1,0) U0 | (2,0) U0
MINORITY_ORDER = "UEBUEUEC" + "UUU"  # 11 tiles
MINORITY_STEPS = [
    (1, 0, 0, "road:E", {"road:E"}, [1, 2, 3], [3, 4, 4]),  # 0 c0 thief on start road
    (1, -1, 3, "city:W", {"city:W"}, [1, 2, 3], [3, 3, 4]),  # 1 c1 knight, cap facing W
    (1, -2, 0, "monastery", {"monastery"}, [1, 2, 3], [3, 3, 3]),  # 2 c2 monk
    (-1, 0, 0, None, {None}, [1, 2, 3], [3, 3, 3]),  # 3 c0: start road occupied
    (0, -2, 2, "city:S", {"city:S"}, [1, 2, 3], [3, 2, 3]),  # 4 c1 knight, cap facing S
    (2, 0, 0, None, {None}, [1, 2, 3], [3, 2, 3]),  # 5 c2: start road occupied
    (-1, -1, 1, "city:E", {"city:E"}, [1, 2, 3], [2, 2, 3]),  # 6 c0 knight, cap facing E
    # 7 c1: C joins the start city and the three caps: 5 tiles + pennant = 12, complete.
    #   Knights c1 2, c0 1 -> majority c1 only; c1 (2) is not lowest; c0 (1) is lowest but
    #   not in the majority -> nobody scores; all three knights return.
    (0, -1, 0, None, {None}, [1, 2, 3], [3, 4, 3]),
]


def test_lowest_colour_in_minority_does_not_make_majority_score():
    game = _run(MINORITY_ORDER, MINORITY_STEPS)
    city = _cells((0, 0), (0, -1), (-1, -1), (1, -1), (0, -2))
    assert _events(game, turn=7) == {("city", city, (1,), (), None)}
    assert not game.done


# --------------------------------------------------------------------------- simultaneous

# L2 at (0,-1) closes at once: start city (D0 + L2, 4), west road A3-U0-L2 (3) and east
# road L2-U0-U0-A1 (4).
#   (-2,-1) A3 | (-1,-1) U0 | (0,-1) L2 | (1,-1) U0 | (2,-1) U0 | (3,-1) A1
#                (-1,0) U0  | (0,0) D0  | (1,0) U0
SEED_ORDER = "UUUUUAAL" + "EEE"  # 11 tiles: game runs past move 7
SEED_STEPS = [
    (-1, 0, 0, "road:E", {"road:E"}, [1, 2, 3], [3, 4, 4]),  # 0 c0 thief, start road
    (1, 0, 0, None, {None}, [1, 2, 3], [3, 4, 4]),  # 1 c1: start road occupied
    (1, -1, 0, "road:E", {"road:E"}, [1, 2, 3], [3, 4, 3]),  # 2 c2 thief, east road
    (-1, -1, 0, "road:E", {"road:E"}, [1, 2, 3], [2, 4, 3]),  # 3 c0 thief, west road
    (2, -1, 0, None, {None}, [1, 2, 3], [2, 4, 3]),  # 4 c1: east road occupied
    (3, -1, 1, "monastery", {"monastery"}, [1, 2, 3], [2, 4, 2]),  # 5 c2 monk, closes E end
    (-2, -1, 3, "monastery", {"monastery"}, [1, 2, 3], [1, 4, 2]),  # 6 c0 monk, closes W end
    # 7 c1: L2 + knight on the start city. Completed: west road c0 3, city c1 4, east road
    #   c2 4, scores [1,2,3]. Only order west road, city, east road lets all score:
    #   c0 1 -> 4; c1 (2) now lowest -> 6; c2 (3) now lowest -> 7: [4, 6, 7].
    #   (Roads first: after c0, c2 (3) is not lowest (c1 2) -> min stays 3. City first:
    #   c1 is not lowest -> min 2. Scoring "lowest before the whole turn": [4, 2, 3].)
    (0, -1, 2, "city:S", {"city:S", "road:N"}, [4, 6, 7], [2, 4, 3]),
]


def test_simultaneous_completions_scored_in_the_best_order():
    game = _run(SEED_ORDER, SEED_STEPS)
    assert _events(game, turn=7) == {
        ("road", _cells((-2, -1), (-1, -1), (0, -1)), (0,), (0,), 3),
        ("city", _cells((0, 0), (0, -1)), (1,), (1,), 4),
        ("road", _cells((0, -1), (1, -1), (2, -1), (3, -1)), (2,), (2,), 4),
    }
    assert not game.done


# Same L2 closing, but c0 holds both roads and c2 the city.
#   (-2,-1) A3 | (-1,-1) U0 | (0,-1) L2 | (1,-1) U0 | (2,-1) U0 | (3,-1) A1
#                (-1,0) U0  | (0,0) D0  | (1,0) U0
#                             (0,1) B0
SUM_ORDER = "UUBUUAUAL" + "EEE"  # 12 tiles: game runs past move 8
SUM_STEPS = [
    (1, 0, 0, "road:E", {"road:E"}, [1, 2, 3], [3, 4, 4]),  # 0 c0 thief, start road
    (-1, 0, 0, None, {None}, [1, 2, 3], [3, 4, 4]),  # 1 c1: start road occupied
    (0, 1, 0, "monastery", {"monastery"}, [1, 2, 3], [3, 4, 3]),  # 2 c2 monk
    (1, -1, 0, "road:E", {"road:E"}, [1, 2, 3], [2, 4, 3]),  # 3 c0 thief, east road
    (2, -1, 0, None, {None}, [1, 2, 3], [2, 4, 3]),  # 4 c1: east road occupied
    (3, -1, 1, "monastery", {"monastery"}, [1, 2, 3], [2, 4, 2]),  # 5 c2 monk
    (-1, -1, 0, "road:E", {"road:E"}, [1, 2, 3], [1, 4, 2]),  # 6 c0 thief, west road
    (-2, -1, 3, "monastery", {"monastery"}, [1, 2, 3], [1, 3, 2]),  # 7 c1 monk
    # 8 c2: L2 + knight on the start city. Completed: east road c0 4, west road c0 3,
    #   city c2 4, scores [1,2,3]. c0 can score only its first road (then c1 2 is lowest),
    #   c2 (3) is never lowest. Lowest after is 2 either way; the sum decides: the 4-road
    #   first -> [5, 2, 3] (not [4, 2, 3]). All knights/thieves of the 3 features return.
    (0, -1, 2, "city:S", {"city:S", "road:N"}, [5, 2, 3], [3, 3, 2]),
]


def test_simultaneous_completions_tie_on_lowest_broken_by_sum():
    game = _run(SUM_ORDER, SUM_STEPS)
    assert _events(game, turn=8) == {
        ("road", _cells((0, -1), (1, -1), (2, -1), (3, -1)), (0,), (0,), 4),
        ("road", _cells((-2, -1), (-1, -1), (0, -1)), (0,), (), None),
        ("city", _cells((0, 0), (0, -1)), (2,), (), None),
    }
    assert not game.done


# --------------------------------------------------------------------------- end of game


def test_end_b_when_first_stack_is_empty():
    """tile_order "EUU": c0's stack is just [E]; placing it ends the game (end B).

    E2 at (0,1) opens a city south with c0's knight: nothing completes; the bonus gives the
    knight's 2 points to c0 (lowest, 1) -> [3, 2, 3]; result = min = 2.
    """
    game = _new("EUU")
    assert _offered(game, 0, 1, 2) == {"city:S"}
    game.play(Move(0, 1, 2, "city:S"))
    assert game.done and game.end_reason == "B"
    assert game.scores == [3, 2, 3]
    assert _final_bonus(game) == [2, 0, 0]
    assert game.result == 2
    assert len(game.board) == 2 and game.discarded == []
    with pytest.raises(IllegalMoveError):
        game.play(Move(1, 0, 0, "road:E"))


def test_end_b_closing_move_scores_then_no_bonus():
    """Same order, E2 closes the start city: c0 1 -> 5, no follower left on the board."""
    game = _new("EUU")
    game.play(Move(0, -1, 2, "city:S"))
    assert game.done and game.end_reason == "B"
    assert game.scores == [5, 2, 3]
    assert _final_bonus(game) == [0, 0, 0]
    assert game.result == 2


def test_discarded_tile_next_drawn_from_same_stack_and_end_b():
    """Stacks c0 [E U B], c1 [C V B], c2 [U B U] (tile_order "ECUUVBBBU").

    0 c0: E2 closes the start city: 1 -> 5. c1's C fits nowhere (no open city edge) -> it is
    discarded and c1 draws its own next tile V (not c2's U).
    1 c1: V0 at (1,0) + thief (road free; V0's road touches S and W -> "road:S").
    2 c2: U from c2's stack, U0 at (-1,0): road occupied. 3 c0: U0 at (-2,0), same.
    4 c1: B (index 7) at (1,-1) + monk: that is c1's last tile -> end B, although c0 and c2
    still hold tiles. Bonus from [5, 2, 3]: c1 (lowest, 2 followers) +2 -> 4; now c2 (3) is
    lowest, with no follower -> stop: c1's second follower gives nothing. [5, 4, 3].
    """
    order = "ECUUVBBBU"
    game = _new(order)
    game.play(Move(0, -1, 2, "city:S"))
    assert game.scores == [5, 2, 3]
    assert game.discarded == ["C"]
    assert game.current_player == 1 and game.current_tile == "V"
    assert _offered(game, 1, 0, 0) == {"road:S"}
    game.play(Move(1, 0, 0, "road:S"))
    assert game.current_player == 2 and game.current_tile == "U"
    assert _offered(game, -1, 0, 0) == {None}
    game.play(Move(-1, 0, 0, None))
    assert game.current_player == 0 and game.current_tile == "U"
    game.play(Move(-2, 0, 0, None))
    assert game.current_player == 1 and game.current_tile == "B"
    assert not game.done
    assert _offered(game, 1, -1, 0) == {"monastery"}
    game.play(Move(1, -1, 0, "monastery"))
    assert game.done and game.end_reason == "B"
    assert game.scores == [5, 4, 3]
    assert _final_bonus(game) == [0, 2, 0]
    assert game.result == 3


def test_end_a_compulsory_follower_with_empty_supply():
    """followers=1. 0 c0: U0 (1,0) + thief (supply 0). 1 c1: U0 (-1,0), road occupied.
    2 c2: B0 (0,1) + monk. 3 c0: U, supply empty: every move is follower-less.
    U0 at (2,0) only lengthens the occupied road -> game goes on. U0 at (1,-1) starts a free
    road -> compulsory but impossible -> end A after this move. Bonus from [1,2,3]: c0 +2
    (its thief) -> 3; c1 (2) lowest with none -> stop: [3, 2, 3], result 2.
    """
    rules = Rules(variant="solo", followers=1)
    order = "UUBU" + "EEE"  # 7 tiles: end B would only come after move 4
    game = _new(order, rules)
    assert game.followers_in_supply == [1, 1, 1]
    steps = [
        (1, 0, 0, "road:E", {"road:E"}, [1, 2, 3], [0, 1, 1]),
        (-1, 0, 0, None, {None}, [1, 2, 3], [0, 1, 1]),
        (0, 1, 0, "monastery", {"monastery"}, [1, 2, 3], [0, 1, 0]),
    ]
    for step in steps:
        _step(game, order, 3, step)
    assert all(m.follower is None for m in game.legal_moves())
    assert _offered(game, 1, -1, 0) == {None}
    with pytest.raises(IllegalMoveError):
        game.play(Move(1, -1, 0, "road:E"))

    other = game.clone()
    other.play(Move(2, 0, 0, None))  # no free spot on this placement: no end A
    assert not other.done and other.end_reason is None and other.current_player == 1

    game.play(Move(1, -1, 0, None))
    assert game.done and game.end_reason == "A"
    assert game.scores == [3, 2, 3]
    assert _final_bonus(game) == [2, 0, 0]
    assert game.result == 2


def test_end_a_even_if_the_move_returns_followers():
    """followers=1. The compulsory check comes before scoring (docs/rules.md 6.2).

    (-2,0) A3 | (-1,0) U0 | (0,0) D0 | (1,0) A1;  (0,1) B0.
    0 c0: A1 + thief on the road (supply 0). 1 c1: U0, road occupied. 2 c2: B0 + monk.
    3 c0: A3 closes the road A3-U0-D0-A1 (4): its monastery is free but c0 has no follower
    -> played without one, end A. Scoring still happens: c0 lowest -> 5, thief back.
    Bonus: only c2's monk, c1 (2) is lowest with none -> [5, 2, 3], result 2.
    """
    rules = Rules(variant="solo", followers=1)
    order = "AUBA" + "EEE"
    steps = [
        (1, 0, 1, "road:W", {"monastery", "road:W"}, [1, 2, 3], [0, 1, 1]),
        (-1, 0, 0, None, {None}, [1, 2, 3], [0, 1, 1]),
        (0, 1, 0, "monastery", {"monastery"}, [1, 2, 3], [0, 1, 0]),
        (-2, 0, 3, None, {None}, [5, 2, 3], None),
    ]
    game = _run(order, steps, rules)
    assert _events(game, turn=3) == {
        ("road", _cells((-2, 0), (-1, 0), (0, 0), (1, 0)), (0,), (0,), 4)
    }
    assert game.done and game.end_reason == "A"
    assert _final_bonus(game) == [0, 0, 0]
    assert game.result == 2


def test_three_followers_option_and_end_a():
    """followers=3: c0 places all three (moves 0, 3, 6), c1/c2 only lengthen c0's roads.

    (1,-1) B0 | (2,-1) E0
    (-2,0) U0 | (-1,0) U0 | (0,0) D0 | (1,0) U0 | (2,0) U0 | (3,0) V0
                            (0,1) U0 | (1,1) U0 | (2,1) U0
    Nothing completes (start road open at (-3,0) and (3,1); south road at (-1,1), (3,1)).
    9 c0: E0 at (2,-1) has a free city but c0's supply is empty -> end A.
    Bonus from [1,2,3]: c0 +2 -> 3, then c1 (2) lowest with none: [3, 2, 3], result 2.
    """
    rules = Rules(variant="solo", followers=3)
    order = "UUUUUUBVUE" + "EEE"  # 13 tiles: end B would only come after move 10
    steps = [
        (1, 0, 0, "road:E", {"road:E"}, [1, 2, 3], [2, 3, 3]),
        (2, 0, 0, None, {None}, [1, 2, 3], [2, 3, 3]),
        (-1, 0, 0, None, {None}, [1, 2, 3], [2, 3, 3]),
        (1, 1, 0, "road:E", {"road:E"}, [1, 2, 3], [1, 3, 3]),
        (2, 1, 0, None, {None}, [1, 2, 3], [1, 3, 3]),
        (0, 1, 0, None, {None}, [1, 2, 3], [1, 3, 3]),
        (1, -1, 0, "monastery", {"monastery"}, [1, 2, 3], [0, 3, 3]),
        (3, 0, 0, None, {None}, [1, 2, 3], [0, 3, 3]),
        (-2, 0, 0, None, {None}, [1, 2, 3], [0, 3, 3]),
    ]
    game = _new(order, rules)
    assert game.followers_in_supply == [3, 3, 3]
    for step in steps:
        _step(game, order, 3, step)
    assert not game.done
    assert all(m.follower is None for m in game.legal_moves())
    _step(game, order, 3, (2, -1, 0, None, {None}, [3, 2, 3], None))
    assert game.done and game.end_reason == "A"
    assert _final_bonus(game) == [2, 0, 0]
    assert game.result == 2


def test_four_colours():
    """solo_colours=4: scores 1,2,3,4, stacks tile_order[c::4], colours 0,1,2,3 in turn.

    (0,-1) E2 above; (-1,0) A3 | D0 | (1,0) U0 | (2,0) A1; (0,1) U0 below.
    0 c0: U0 + thief on the start road. 1 c1: U0 at (0,1), a new road -> thief.
    2 c2: E2 closes the start city (4); c2 (3) not lowest -> 0, knight back.
    3 c3: A1 closes the road's east end, road taken -> monk.
    4 c0: A3 closes the west end: road A3-D0-U0-A1 = 4 tiles, c0 lowest -> 5; monk.
    With 8 tiles the stacks hold 2 each: c0 placed its last -> end B.
    Bonus from [5,2,3,4]: c1 +2 (thief) -> 4; c2 (3) lowest with none -> stop.
    Final [5, 4, 3, 4], result 3.
    """
    rules = Rules(variant="solo", solo_colours=4)
    assert rules.seats == 4 and rules.followers == 4
    order = "UUEAA" + "EEE"
    game = _new(order, rules)
    assert game.scores == [1, 2, 3, 4]
    assert game.followers_in_supply == [4, 4, 4, 4]
    steps = [
        (1, 0, 0, "road:E", {"road:E"}, [1, 2, 3, 4], [3, 4, 4, 4]),
        (0, 1, 0, "road:E", {"road:E"}, [1, 2, 3, 4], [3, 3, 4, 4]),
        (0, -1, 2, "city:S", {"city:S"}, [1, 2, 3, 4], [3, 3, 4, 4]),
        (2, 0, 1, "monastery", {"monastery"}, [1, 2, 3, 4], [3, 3, 4, 3]),
    ]
    for step in steps:
        _step(game, order, 4, step)
    assert _events(game, turn=2) == {("city", _cells((0, 0), (0, -1)), (2,), (), None)}
    assert not game.done
    _step(game, order, 4, (-1, 0, 3, "monastery", {"monastery"}, [5, 4, 3, 4], None))
    assert _events(game, turn=4) == {
        ("road", _cells((-1, 0), (0, 0), (1, 0), (2, 0)), (0,), (0,), 4)
    }
    assert game.done and game.end_reason == "B"
    assert _final_bonus(game) == [0, 2, 0, 0]
    assert game.result == 3
