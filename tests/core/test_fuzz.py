"""Random-play fuzzing: thousands of whole games inside numba with the state's invariants
checked after every move, then Python-API fuzzing of move legality, illegal-move refusal,
records and determinism."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from carcassonne_env import Game, IllegalMoveError, Move, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.board import root_of
from carcassonne_env.core.playout import random_move, shuffle
from carcassonne_env.core.state import SCRATCH_FIELDS
from carcassonne_env.core.turn import reset

DX = np.array(C.DX)
DY = np.array(C.DY)

OK = 0
BAD_FOLLOWER_COUNT = 1
SCORE_DECREASED = 2
BAD_FRONTIER = 3
BAD_FEATURE_COUNTS = 4
FOLLOWER_ON_COMPLETED = 5
NEGATIVE_OPEN = 6
TILES_NOT_USED_UP = 7
BAD_OWNER = 8
SHARED_NEW_FOLLOWER = 9
NAMES = [
    "ok",
    "followers not conserved",
    "a score decreased",
    "frontier inconsistent",
    "feature follower counts inconsistent",
    "follower left on a completed feature",
    "negative open count",
    "game ended with tiles left",
    "owner/active mismatch",
    "a follower was placed into an occupied feature",
]


@njit(cache=True)
def _check(st, tb, prev_scores, figures_total):
    """Invariants of a resting state; returns an error code. Figures: followers and the
    expansions' large followers (2 for the majority), builders and pigs (none)."""
    sc = st.sc
    S = st.cfg[C.CFG_NSEG]
    P = st.scores.shape[0]
    for p in range(P):
        if st.scores[p] < prev_scores[p]:
            return SCORE_DECREASED
    in_supply = st.supply.sum() + st.xsupply.sum()
    if not sc[C.SC_DONE] and in_supply + sc[C.SC_NACTIVE] != figures_total:
        return BAD_FOLLOWER_COUNT
    # Followers per feature, builders and pigs: recount from the active list.
    G = sc[C.SC_PLACED] * S
    tally = np.zeros((G, P), np.int64)
    builders = np.zeros(G, np.int64)
    pigs = np.zeros(G, np.int64)
    for k in range(sc[C.SC_NACTIVE]):
        g = st.active[k]
        if st.owner[g] < 0:
            return BAD_OWNER
        root, fig = root_of(st.parent, g), st.ofig[g]
        if fig <= C.FIG_LARGE:
            tally[root, st.owner[g]] += 1 + fig
        elif fig == C.FIG_BUILDER:
            builders[root] |= 1 << st.owner[g]
        else:
            pigs[root] |= 1 << st.owner[g]
        if fig >= C.FIG_BUILDER and st.fmeep[root, st.owner[g]] == 0:
            return SHARED_NEW_FOLLOWER  # a builder or pig without its owner's follower
    owned = 0
    for i in range(sc[C.SC_PLACED]):
        t = st.ptype[i]
        for s in range(tb.n_seg[t]):
            g = i * S + s
            if st.owner[g] >= 0:
                owned += 1
            if st.parent[g] != g:
                continue
            for p in range(P):
                if tally[g, p] != st.fmeep[g, p]:
                    return BAD_FEATURE_COUNTS
            if builders[g] != st.fbuild[g] or pigs[g] != st.fpig[g]:
                return BAD_FEATURE_COUNTS
            kind = tb.seg_kind[t, s]
            if kind != C.K_FIELD and st.fopen[g] < 0:
                return NEGATIVE_OPEN
            if st.fdone[g] and (st.fmeep[g].sum() > 0 or st.fbuild[g]):
                return FOLLOWER_ON_COMPLETED
    if owned != sc[C.SC_NACTIVE]:
        return BAD_OWNER
    # A follower placed this turn (on the newest tile) stands alone on its feature.
    last = sc[C.SC_PLACED] - 1
    for s in range(tb.n_seg[st.ptype[last]]):
        g = last * S + s
        if (
            st.owner[g] >= 0
            and st.ofig[g] <= C.FIG_LARGE
            and st.fmeep[root_of(st.parent, g)].sum() != 1 + st.ofig[g]
        ):
            return SHARED_NEW_FOLLOWER
    # Frontier: exactly the empty cells next to a tile, each pointing at its slot, with the
    # terrain of every placed neighbour's facing edge as its constraint.
    n_open = 0
    for y in range(sc[C.SC_YMIN] - 1, sc[C.SC_YMAX] + 2):
        for x in range(sc[C.SC_XMIN] - 1, sc[C.SC_XMAX] + 2):
            if st.board[y, x] >= 0:
                continue
            want = 0
            for d in range(4):
                j = st.board[y + DY[d], x + DX[d]]
                if j >= 0:
                    od = (d + 2) % 4
                    ter = (np.int64(tb.edge_code[st.ptype[j], st.prot[j]]) >> (2 * od)) & 3
                    want |= (3 << (8 + 2 * d)) | (ter << (2 * d))
            if want == 0:
                if st.board[y, x] != -1:
                    return BAD_FRONTIER
                continue
            n_open += 1
            k = -2 - st.board[y, x]
            if k < 0 or k >= sc[C.SC_NFRONT] or st.frontier[k, 2] != want:
                return BAD_FRONTIER
            if st.frontier[k, 0] != x or st.frontier[k, 1] != y:
                return BAD_FRONTIER
    if n_open != sc[C.SC_NFRONT]:
        return BAD_FRONTIER
    return OK


@njit(cache=True)
def fuzz_games(st, tb, full_deck, n_games, rng):
    """Play random games checking invariants after every move. Returns (games, moves,
    failing game or -1, error code)."""
    n = full_deck.shape[0]
    prev = np.zeros(st.scores.shape[0], np.int32)
    moves = 0
    for game in range(n_games):
        st.deck[:n] = full_deck
        shuffle(st.deck, n, rng)
        reset(st, tb, n)
        figures_total = st.supply.sum() + st.xsupply.sum()
        prev[:] = st.scores
        code = _check(st, tb, prev, figures_total)
        while code == OK and not st.sc[C.SC_DONE]:
            prev[:] = st.scores
            random_move(st, tb, rng)
            moves += 1
            code = _check(st, tb, prev, figures_total)
        if code == OK and not st.cfg[C.CFG_SOLO]:
            if st.sc[C.SC_DECK_POS] != st.sc[C.SC_DECK_LEN]:
                code = TILES_NOT_USED_UP
        if code != OK:
            return game, moves, game, code
    return n_games, moves, -1, OK


FUZZ_RULES = [
    Rules(players=2),
    Rules(players=3, small_city=True),
    Rules(players=4, farm_scoring="city", farm_city_points=4),
    Rules(players=6, followers=2),
    Rules(players=1),
    Rules(players=2, hand_size=3),
    Rules(players=5, hand_size=3, followers=1),
    Rules(variant="solo"),
    Rules(variant="solo", solo_colours=4, followers=3),
    Rules(players=2, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(players=4, hand_size=3, expansions=["inns_cathedrals", "traders_builders"]),
    Rules(players=3, farm_scoring="city", expansions=["traders_builders"]),
    Rules(players=2, expansions=["inns_cathedrals"], expansion_mode="tiles_only"),
    Rules(variant="solo", expansions=["inns_cathedrals", "traders_builders"]),
]


def _run_fuzz(rules: Rules, n_games: int, seed: int) -> None:
    game = Game(rules, seed=0)
    ts = game.tileset
    deck = np.array(ts.full_deck(), np.int8)
    rng = np.array([seed], np.uint64)
    played, moves, bad, code = fuzz_games(game.state, ts.tables, deck, n_games, rng)
    assert code == OK, f"{rules}: game {bad}: {NAMES[code]}"
    assert played == n_games and moves > 0


@pytest.mark.parametrize("rules", FUZZ_RULES, ids=str)
def test_jitted_fuzz_invariants(rules):
    # 14 rule sets (5 with expansions) x 1,200 games = 16,800 games in CI.
    _run_fuzz(rules, 1200, seed=12345)


@pytest.mark.slow
@pytest.mark.parametrize("rules", FUZZ_RULES, ids=str)
def test_jitted_fuzz_invariants_long(rules):
    _run_fuzz(rules, 50_000, seed=987)


# ----------------------------------------------------------------------------- Python API


def _snapshot(game: Game):
    arrays = [a.copy() for name, a in game.state.fields().items() if name not in SCRATCH_FIELDS]
    return (
        game.scores,
        game.turn,
        game.current_player,
        game.hand,
        game.board,
        game.followers_in_supply,
        game.discarded,
        len(game.events),
        arrays,
    )


def _same(a, b) -> bool:
    *pa, arrays_a = a
    *pb, arrays_b = b
    return pa == pb and all(np.array_equal(x, y) for x, y in zip(arrays_a, arrays_b, strict=True))


def _canonical(game: Game, move: Move) -> Move | None:
    """The canonical spelling of `move`'s follower, or None if the tile has no such spot."""
    ts = game.tileset
    if move.follower is None:
        return move
    tile = move.tile or game.current_tile
    t = ts.index(tile)
    slot = ts.slot_aliases[t][move.rotation].get(move.follower)
    if slot is None:
        return None
    return move._replace(follower=ts.slot_names[t][move.rotation][slot])


def _random_candidate(game: Game, rng: random.Random) -> Move:
    xs = [x for x, _ in game.board]
    ys = [y for _, y in game.board]
    tile = rng.choice(game.hand)
    t = game.tileset.index(tile)
    r = rng.randrange(4)
    spots = [None, *game.tileset.slot_aliases[t][r], "city:N", "road:E", "field:S_w", "monastery"]
    spot = rng.choice(spots)
    figure = rng.choice(game.rules.figures) if spot is not None else "follower"
    return Move(
        rng.randint(min(xs) - 2, max(xs) + 2),
        rng.randint(min(ys) - 2, max(ys) + 2),
        r,
        spot,
        tile if game.rules.hand_size > 1 else None,
        figure,
    )


API_RULES = [
    Rules(players=2),
    Rules(players=3, farm_scoring="city"),
    Rules(players=2, hand_size=3),
    Rules(variant="solo"),
    Rules(players=2, followers=1),
    Rules(players=2, followers=2, expansions=["inns_cathedrals", "traders_builders"]),
]


@pytest.mark.parametrize(
    "seeds",
    [  # CI plays the first games; -m slow plays more
        pytest.param(range(3), id="games0-2"),
        pytest.param(range(3, 12), id="games3-11", marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize("rules", API_RULES, ids=str)
def test_api_fuzz_legality(rules, seeds):
    """Every listed move is accepted; random candidates are accepted exactly when their
    canonical form is listed, and refused ones leave the state unchanged."""
    rng = random.Random(7 + seeds[0])
    for seed in seeds:
        game = Game(rules, seed=seed)
        while not game.done:
            legal = game.legal_moves()
            assert legal and len(set(legal)) == len(legal)
            if game.turn % 7 == 0:
                for move in legal:
                    game.clone().play(move)
            for _ in range(15):
                cand = _random_candidate(game, rng)
                canon = _canonical(game, cand)
                if canon is not None and canon in legal:
                    game.clone().play(cand)
                    continue
                before = _snapshot(game)
                with pytest.raises(IllegalMoveError):
                    game.play(cand)
                assert _same(before, _snapshot(game)), cand
            game.play(rng.choice(legal))
        assert game.legal_moves() == []
        with pytest.raises(IllegalMoveError, match="over"):
            game.play(Move(0, 1, 0))


@pytest.mark.parametrize("rules", API_RULES, ids=str)
def test_records_round_trip_and_seeds_reproduce(rules):
    rng = random.Random(3)
    for seed in range(20):
        game = Game(rules, seed=seed)
        while not game.done:
            game.play(rng.choice(game.legal_moves()))
        record = game.to_record()
        replay = Game.from_record(record)
        assert replay.to_record() == record
        assert replay.board == game.board and replay.events == game.events
        again = Game(rules, seed=seed)
        assert again.tile_order() == game.tile_order()


def test_record_with_wrong_scores_is_rejected():
    game = Game(Rules(players=2), seed=1)
    rng = random.Random(0)
    for _ in range(10):
        game.play(rng.choice(game.legal_moves()))
    record = game.to_record()
    record["scores"][-1] = [999, 0]
    with pytest.raises(ValueError, match="differ"):
        Game.from_record(record)
    record = game.to_record()
    record["moves"][3]["x"] += 50
    with pytest.raises(ValueError, match="illegal"):
        Game.from_record(record)
    with pytest.raises(ValueError, match="record"):
        Game.from_record({"format": "something else"})
