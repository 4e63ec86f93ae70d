"""Candidate-move observations (`Encoder(candidate_moves=K)`, issue 25): every column of
every candidate equals what the rules give for its move, on random positions of every
rule set. Each candidate's move is played on a `Game.clone()` (points now, supply, extra
turn, game end, projected gain through the aggregate observation) and on the naive
reference scorer's board (tests/support/reference.py: the features the tile joins, their sizes,
open edges, values, farm cities, followers and majorities; closers by trying every unseen
tile type and rotation on the open cell)."""

from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.candidate_columns import HEAD_FIXED, N_SLOTS, SLOT_FIXED
from carcassonne_env.encoding import Encoder
from tests.support import reference as ref

pytestmark = pytest.mark.xdist_group("candidates")  # on one worker: tests/conftest.py

IC, TB = "inns_cathedrals", "traders_builders"
RULE_SETS = [
    {"players": 2},
    {"players": 3, "small_city": True},
    {"players": 4, "farm_scoring": "city", "farm_city_points": 4},
    {"players": 2, "hand_size": 3},
    {"variant": "solo"},
    {"variant": "solo", "solo_colours": 4, "scoring_order": "player"},
    {"players": 2, "expansions": (IC, TB)},
    {"players": 3, "expansions": (IC, TB), "hand_size": 3},
    {"players": 2, "expansions": (IC, TB), "expansion_mode": "tiles_only"},
    {"variant": "solo", "expansions": (IC,), "expansion_mode": "tiles_only"},
]


def _rules_id(rules: dict) -> str:
    return "-".join(f"{k}={'+'.join(v) if isinstance(v, tuple) else v}" for k, v in rules.items())


def _seat_cols(names: list[str], prefix: str) -> list[int]:
    return [i for i, n in enumerate(names) if n.startswith(prefix)]


def _ref_board(game: Game) -> ref.Board:
    """The reference's board of `game` (tiles and standing figures)."""
    board = ref.Board()
    for pos, placed in game.board.items():
        board.tiles[pos] = (placed.tile, placed.rotation)
        if placed.follower is not None:
            seat, loc = placed.follower
            board.followers[pos] = (
                seat,
                ref.locate(placed.tile, placed.rotation, loc),
                placed.figure,
            )
    return board


def _unseen(game: Game, observer: int) -> Counter:
    """Tiles `observer` has not seen: every tile of the game but those placed, discarded
    and in the observer's own hand (the tile drawn)."""
    out = Counter(ref.draw_pile(game.rules.expansions))
    start = True
    for placed in game.board.values():
        if start:  # the start tile is not in the draw pile
            start = False
            continue
        out[placed.tile] -= 1
    out.subtract(game.discarded)
    if game.rules.variant == "solo" or game.rules.hand_size == 1:
        out[game.current_tile] -= 1
    else:
        out.subtract(game.hand)
    assert min(out.values()) >= 0
    return +out


def _open_cells(board: ref.Board, feature: ref.Feature) -> set:
    """The empty cells a road or city's open sides face (a monastery: its missing
    neighbours)."""
    if feature.kind == "monastery":
        ((x, y),) = {n[:2] for n in feature.nodes}
        return {(x + dx, y + dy) for dx, dy in ref.RING if (x + dx, y + dy) not in board.tiles}
    cells = set()
    for x, y, i in feature.nodes:
        for side in board.segs((x, y))[i].sides:
            dx, dy = ref.STEP[side[0]]
            if (x + dx, y + dy) not in board.tiles:
                cells.add((x + dx, y + dy))
    return cells


def _closers(board: ref.Board, feature: ref.Feature, unseen: Counter) -> int:
    """Unseen tiles that complete `feature` with one placement: tried on its one open
    cell in every rotation."""
    if feature.kind == "field" or feature.complete:
        return 0
    cells = _open_cells(board, feature)
    if len(cells) != 1:
        return 0
    (cell,) = cells
    node = next(iter(feature.nodes))
    total = 0
    for letter, n in unseen.items():
        for r in range(4):
            if ref.placement_error(board, letter, *cell, r) is not None:
                continue
            board.tiles[cell] = (letter, r)
            after = ref.feature_of(board, node)
            del board.tiles[cell]
            if after.complete:
                total += n
                break
    return total


def _farm_cities(board: ref.Board, field: ref.Feature) -> tuple[int, int]:
    """(completed, incomplete) distinct cities a field touches."""
    cities = {}
    for x, y, i in field.nodes:
        for c in board.segs((x, y))[i].cities:
            city = ref.flood(board, (x, y, c))
            cities[frozenset(city.nodes)] = city.complete
    return sum(cities.values()), len(cities) - sum(cities.values())


def _slot_features(board: ref.Board, pos: tuple[int, int], fig_index: int | None) -> list:
    """The distinct features of the tile at `pos` in slot order: the figure's first,
    then cities, roads, monastery, fields (segment order), at most N_SLOTS."""
    segs = board.segs(pos)
    order = ([fig_index] if fig_index is not None else []) + [
        i
        for kind in ("city", "road", "monastery", "field")
        for i, s in enumerate(segs)
        if s.kind == kind
    ]
    out, seen = [], set()
    for i in order:
        feature = ref.feature_of(board, (*pos, i))
        key = frozenset(feature.nodes)
        if key not in seen:
            seen.add(key)
            out.append(feature)
    return out[:N_SLOTS]


def _expected_slot(
    rules: dict,
    before: ref.Board,
    played: ref.Board,
    after: ref.Board,
    feature: ref.Feature,
    holds: bool,
    unseen: Counter,
    seats: list[int],
    pos: tuple[int, int],
) -> dict[str, float]:
    """The slot columns of `feature` (flooded on `played`: tile and figure down, nothing
    scored yet) by the reference. `after`: completed features' followers gone home."""
    ic = ref.inns_cathedrals(rules)
    kind = feature.kind
    out = dict.fromkeys(("city", "road", "field", "monastery"), 0.0)
    out[kind] = 1.0
    out["holds_figure"] = float(holds)
    node = next(iter(feature.nodes))
    if kind == "field":
        done, still_open = _farm_cities(played, feature)
        value = done * rules.get("farm_city_points", 3)
        out.update(
            tiles=0,
            pennants=0,
            open_edges=0,
            completed=0,
            points_if_completed=value,
            points_at_end=value,
            farm_completed_cities=done,
            farm_open_cities=still_open,
            closers=0,
        )
    else:
        complete = feature.complete
        if kind == "monastery":
            opened = 9 - len(feature.tiles)
        else:
            opened = sum(ref.open_sides(played, n) for n in feature.nodes)
        out.update(
            tiles=len(feature.tiles),
            pennants=feature.pennants,
            open_edges=opened,
            completed=float(complete),
            points_if_completed=ref.completed_value(feature, rules.get("small_city", False), ic),
            points_at_end=0 if complete else ref.incomplete_value(feature, ic),
            farm_completed_cities=0,
            farm_open_cities=0,
            closers=_closers(played, feature, unseen),
        )
    # the expansions' symbols count where their rules are played (tiles_only: plain tiles)
    out["inn"] = float(ic and feature.inn)
    out["cathedral"] = float(ic and feature.cathedral)
    out["goods"] = len(feature.goods) if ref.traders_builders(rules) else 0
    if kind == "monastery":
        out["joined"] = 0
    else:  # features of the board before the move that this one now includes
        olds = {frozenset(ref.feature_of(before, n).nodes) for n in feature.nodes if n[:2] != pos}
        out["joined"] = len(olds)
    now = ref.feature_of(after, node).followers(after)
    scored = feature.followers(played)  # a completed feature scored with these
    top = ref.majority(scored if kind != "field" and feature.complete else now)
    for q, p in enumerate(seats):
        out[f"followers_{q}"] = now.count(p)
        out[f"majority_{q}"] = float(p in top)
    return out


def _window_actions(enc: Encoder, game: Game) -> list[int]:
    """The action of every legal move inside the window, in `legal_moves()` order."""
    out = []
    for move in game.legal_moves():
        try:
            out.append(enc.move_to_action(game, move))
        except ValueError:  # outside the window
            continue
    return out


def _play_turn(game: Game, move) -> Game:
    """A clone after `move`, with a player-order scoring decision it opens resolved in
    the automatic order (the candidates score a placement's completions that way)."""
    clone = game.clone()
    clone.play(move)
    while clone.decision == "score_feature" and game.decision == "place":
        clone.play(clone.auto_scoring_move())
    return clone


def _check_position(
    game: Game, enc: Encoder, agg: Encoder, observer: int, full: bool, rng: random.Random
) -> int:
    """Check every candidate of `game` for `observer` (with `full` all of them, else a
    sample, the slots included). Returns how many were checked."""
    K = enc.candidate_moves
    obs = enc.encode(game, observer)
    feats, actions = obs["candidates"], obs["candidate_actions"]
    names = enc.candidate_names
    col = {n: i for i, n in enumerate(names)}
    legal = np.flatnonzero(obs["action_mask"])
    present = actions >= 0
    n = int(present.sum())
    # the candidate set: the window's legal actions (the mask), the first K kept in the
    # order of `Game.legal_moves()` (the core's)
    assert enc.last_candidates == len(legal)
    assert present[:n].all() and not present[n:].any()
    assert (feats[n:] == 0).all() and (feats[:n, col["present"]] == 1).all()
    assert actions[:n].tolist() == _window_actions(enc, game)[:K]
    if len(legal) <= K:
        assert sorted(actions[:n].tolist()) == legal.tolist()

    rules = game.rules.to_dict()
    P = game.rules.seats
    seats = [(observer + q) % P for q in range(P)]
    seat = game.current_player
    solo = game.rules.variant == "solo"
    placing = game.decision == "place"
    before = _ref_board(game)
    unseen = _unseen(game, observer) if placing else Counter()
    proj_before = agg.encode(game, observer)["features"][-P:]
    events_before = len(game.events)
    picks = range(n) if full else sorted(rng.sample(range(n), min(n, 6)))
    for k in picks:
        row = feats[k]
        got = dict(zip(names, row.tolist(), strict=True))
        move = enc.action_to_move(game, int(actions[k]))
        h = enc.split(int(actions[k]))[0]
        clone = _play_turn(game, move)
        # points now: the scoring events of this turn but the end-game ones (at a solo
        # end-bonus decision: the bonus the choice scores)
        now = [0] * P
        for ev in clone.events[events_before:]:
            if not ev.final or not placing:
                for p in ev.scorers:
                    now[p] += ev.points
        assert [got[f"points_now_{q}"] for q in range(P)] == [now[p] for p in seats], k
        # projected gain: score + pending end points after (the aggregate projection of
        # the clone, or its final scores) minus the same before
        proj_after = (
            np.array(clone.scores, np.float64)[seats]
            if clone.done
            else agg.encode(clone, observer)["features"][-P:] * 100
        )
        gain = np.round(proj_after - proj_before * 100)
        assert [got[f"projected_gain_{q}"] for q in range(P)] == gain.tolist(), k
        if not placing:  # a scoring choice: its points and projection, nothing else
            rest = {
                k: v for k, v in got.items() if not k.startswith(("points_now_", "projected_gain_"))
            }
            assert rest == {
                **dict.fromkeys(rest, 0.0),
                "present": 1.0,
                "hand_0": 1.0,
                "figure_none": 1.0,
            }, k
            continue
        assert [got[f"hand_{i}"] for i in range(C.HAND_MAX)] == [float(i == h) for i in range(3)]
        figure = move.figure if move.follower is not None else "none"
        assert [got[f"figure_{f}"] for f in ("none", *C.FIGURES)] == [
            float(f == figure) for f in ("none", *C.FIGURES)
        ], k
        # the reference's board after the move: tile and figure down, completions scored
        pos = (move.x, move.y)
        letter = move.tile or game.current_tile
        played = copy.deepcopy(before)
        played.tiles[pos] = (letter, move.rotation)
        fig_index = None
        if move.follower is not None:
            fig_index = ref.locate(letter, move.rotation, move.follower)
            played.followers[pos] = (seat, fig_index, move.figure)
        after = copy.deepcopy(played)
        done_now = ref.completed_now(played, pos)
        for feature in done_now:
            ref.remove_followers(after, feature)
        # supply after: the reference's count (and the clone's, while the game runs)
        supply = [
            ref.figure_size(rules, f)
            - sum(1 for s, _, fig in after.followers.values() if s == seat and fig == f)
            for f in C.FIGURES
        ]
        assert [got[f"supply_{f}"] for f in ("follower", "large", "builder", "pig")] == supply
        if not clone.done and clone.decision == "place":
            have = clone.figures_in_supply[seat]
            assert [have.get(f, 0) for f in C.FIGURES] == supply
        # extra turn: the tile (before its own figure) extends the mover's builder,
        # outside an extra turn
        placed = copy.deepcopy(before)
        placed.tiles[pos] = (letter, move.rotation)
        earned = (
            ref.traders_builders(rules)
            and not game.state.sc[C.SC_EXTRA]
            and any(
                s.kind in ("road", "city")
                and ref.feature_of(placed, (*pos, i)).holds(placed, seat, "builder")
                for i, s in enumerate(placed.segs(pos))
            )
        )
        assert got["extra_turn"] == float(earned), k
        if earned and not clone.done:
            assert clone.current_player == seat
        # game end: known from public information only (standard: nothing left to draw
        # and no other tile in any hand); when set, the game did end
        if got["game_ends"]:
            assert clone.done or clone.decision != "place", k
        if not solo:
            in_hands = 1 if game.rules.hand_size == 1 else int((game.state.hands >= 0).sum())
            assert got["game_ends"] == float(game.tiles_left == 0 and in_hands == 1), k
        # the monasteries around the tile
        around = [
            ((pos[0] + dx, pos[1] + dy), i)
            for dx, dy in ref.RING
            if (pos[0] + dx, pos[1] + dy) in before.tiles
            for i, s in enumerate(before.segs((pos[0] + dx, pos[1] + dy)))
            if s.kind == "monastery"
        ]
        assert got["monasteries_completed"] == sum(
            ref.monastery_feature(played, p, i).complete for p, i in around
        )
        held = Counter(
            s for p, i in around for s in ref.monastery_feature(before, p, i).followers(before)
        )
        assert [got[f"monastery_followers_{q}"] for q in range(P)] == [held[p] for p in seats]
        # the feature slots
        slots = _slot_features(played, pos, fig_index)
        width = SLOT_FIXED + 2 * P
        for q in range(N_SLOTS):
            block = row[HEAD_FIXED + 3 * P + q * width : HEAD_FIXED + 3 * P + (q + 1) * width]
            if q >= len(slots):
                assert not block.any(), (k, q)
                continue
            want = _expected_slot(
                rules,
                before,
                played,
                after,
                slots[q],
                q == 0 and fig_index is not None,
                unseen,
                seats,
                pos,
            )
            have = {name: got[f"f{q}_{name}"] for name in want}
            assert have == want, (k, q, move)
    return len(picks)


def _random_positions(rules: dict, games: int, stops: int, seed0: int = 0):
    """(game, rng) at `stops` random turns of each of `games` random games."""
    for seed in range(seed0, seed0 + games):
        rng = random.Random(seed)
        game = Game(Rules(**rules), seed=seed)
        when = set(rng.sample(range(1, 25 if game.rules.variant == "solo" else 60), stops))
        while not game.done:
            if game.turn in when:
                yield game, rng
            game.play(rng.choice(game.legal_moves()))


def _check_rules(rules: dict, games: int, stops: int, full: bool, K: int = 64) -> int:
    enc = agg = None
    checked = 0
    for game, rng in _random_positions(rules, games, stops):
        enc = enc or Encoder(game.rules, 32, candidate_moves=K, tileset=game.tileset)
        agg = agg or Encoder(game.rules, 32, obs_features="aggregate", tileset=game.tileset)
        observer = 0 if game.rules.variant == "solo" else game.current_player
        checked += _check_position(game, enc, agg, observer, full, rng)
    return checked


@pytest.mark.parametrize("rules", RULE_SETS, ids=_rules_id)
def test_candidate_columns_equal_the_rules(rules):
    assert _check_rules(rules, games=2, stops=3, full=False) > 10


def test_with_more_legal_moves_than_K_the_first_K_are_kept():
    """K = 4 on the positions of a base game and of the expansions (dozens of legal
    moves): the first 4 of the core's order, every column as with a larger K."""
    for rules in ({"players": 2}, {"players": 2, "expansions": (IC, TB), "hand_size": 3}):
        small = big = None
        cut = 0
        for game, _ in _random_positions(rules, games=1, stops=8):
            small = small or Encoder(game.rules, 32, candidate_moves=4, tileset=game.tileset)
            big = big or Encoder(game.rules, 32, candidate_moves=512, tileset=game.tileset)
            seat = game.current_player
            few, many = small.encode(game, seat), big.encode(game, seat)
            assert few["candidate_actions"].tolist() == _window_actions(big, game)[:4]
            assert np.array_equal(few["candidates"], many["candidates"][:4])
            assert small.last_candidates == big.last_candidates
            cut += big.last_candidates > 4
        assert cut >= 6


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS, ids=_rules_id)
def test_candidate_columns_equal_the_rules_many_games(rules):
    assert _check_rules(rules, games=4, stops=6, full=True, K=256) > 100
