"""The fast candidate-move encoder (`core.candidates.encode_candidates`: each placement
evaluated once, followers derived from it, pending end-game points by difference) equals
the plain one (`encode_candidates_reference`: every move played on a copy and scored to
the end by the engine), column for column, on every position of random games of every
rule set."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.candidate_columns import HEAD_FIXED, SLOT_FIXED
from carcassonne_env.core.candidates import encode_candidates
from carcassonne_env.core.closers import new_closers_memo
from carcassonne_env.core.state import max_legal_rows
from carcassonne_env.core.turn import lift_figure, place_figure, put_tile, tile_to_place
from carcassonne_env.encoding import Encoder
from tests.support.candidates_reference import encode_candidates_reference

pytestmark = pytest.mark.xdist_group("candidates")  # on one worker: tests/conftest.py

IC, TB = "inns_cathedrals", "traders_builders"
RULE_SETS = [
    {"players": 2},
    {"players": 3, "small_city": True},
    {"players": 4, "farm_scoring": "city", "farm_city_points": 4},
    {"players": 2, "farm_scoring": "city", "expansions": (IC, TB)},
    {"players": 2, "hand_size": 3},
    {"variant": "solo"},
    {"variant": "solo", "solo_colours": 4, "scoring_order": "player"},
    {"players": 2, "expansions": (IC, TB)},
    {"players": 2, "expansions": (IC, TB), "goods_from_unowned_city": False},
    {"players": 3, "expansions": (IC, TB), "hand_size": 3},
    {"players": 2, "expansions": (IC, TB), "expansion_mode": "tiles_only"},
    {"variant": "solo", "expansions": (IC,), "expansion_mode": "tiles_only"},
]


def _rules_id(rules: dict) -> str:
    return "-".join(f"{k}={'+'.join(v) if isinstance(v, tuple) else v}" for k, v in rules.items())


def _both(enc: Encoder, game: Game, K: int, memo: np.ndarray) -> tuple:
    """(count, feats, actions) of the fast and of the reference encoder; the fast one
    with `closers`' `memo`, which the caller keeps from position to position."""
    st = game.state
    observer = 0 if game.rules.variant == "solo" else int(st.sc[C.SC_SEAT])
    results = []
    for fn in (encode_candidates, encode_candidates_reference):
        cand = enc.scratch_buffers(st)[1]._replace(memo=memo)
        rows = np.empty((max_legal_rows(st), 5), np.int64)
        feats = np.full((K, enc.n_candidate_columns), 7.0, np.float32)  # overwritten
        actions = np.full(K, 7, np.int64)
        n = fn(
            st, enc.tileset.tables, rows, enc.board_size, enc.slots, observer, cand, feats, actions
        )
        results.append((int(n), feats, actions))
    return results


@pytest.mark.parametrize("rules", RULE_SETS, ids=_rules_id)
def test_the_fast_candidates_equal_the_plain_ones(rules):
    """Every turn of 2 random games (moves without a figure preferred, so that the
    followers last and most placements offer several figures); `closers`' memo kept
    through each game, the second game's so small that its entries overwrite each
    other."""
    checked = figures = 0
    for seed in range(2):
        rng = random.Random(seed)
        game = Game(Rules(**rules), seed=seed)
        enc = Encoder(game.rules, 32, candidate_moves=256, tileset=game.tileset, on_overflow="warn")
        memo = new_closers_memo(3 if seed else 2048)
        while not game.done:
            (n, feats, actions), (n_ref, feats_ref, actions_ref) = _both(enc, game, 256, memo)
            assert n == n_ref
            assert np.array_equal(actions, actions_ref)
            bad = np.argwhere(feats != feats_ref)
            assert bad.size == 0, (
                game.turn,
                [enc.candidate_names[c] for c in bad[:8, 1]],
                feats[tuple(bad[0])],
                feats_ref[tuple(bad[0])],
            )
            checked += 1
            figures += int((feats[:, 0] == 1).sum() - (feats[:, 4] == 1).sum())
            moves = game.legal_moves()
            plain = [m for m in moves if getattr(m, "follower", None) is None]
            game.play(rng.choice(plain if plain and rng.random() < 0.7 else moves))
    assert checked > 20 and figures > 50


def test_the_fast_candidates_keep_the_first_K():
    """With more legal moves than K (a placement's follower options cut in the middle
    too), the same first K rows and the same count."""
    rules = {"players": 2, "expansions": (IC, TB), "hand_size": 3}
    rng = random.Random(3)
    game = Game(Rules(**rules), seed=3)
    enc = Encoder(game.rules, 32, candidate_moves=5, tileset=game.tileset)
    memo = new_closers_memo()
    cut = 0
    while not game.done and game.turn < 30:
        for K in (1, 5, 7):
            (n, feats, actions), (n_ref, feats_ref, actions_ref) = _both(enc, game, K, memo)
            assert n == n_ref and np.array_equal(actions, actions_ref)
            assert np.array_equal(feats, feats_ref)
            cut += n > K
        game.play(rng.choice(game.legal_moves()))
    assert cut > 50


def test_a_symmetric_tiles_alike_rotations_copy_their_rows():
    """A symmetric tile (U, the straight road: rotations 0 and 2 lie alike) has its
    rotation-2 rows copied from rotation 0's, with its feature blocks in rotation 2's
    order: still equal to the plain encoder, and the no-figure rows of the two rotations
    hold the same header and the same feature blocks, reordered (the fields swap sides)."""
    game = Game(Rules(players=2), tile_order="UUHUBCUUHU")
    enc = Encoder(game.rules, 32, candidate_moves=256, tileset=game.tileset)
    head, width = HEAD_FIXED + 3 * 2, SLOT_FIXED + 2 * 2
    twins = reordered = 0
    memo = new_closers_memo()
    while not game.done:
        (n, feats, actions), (n_ref, feats_ref, actions_ref) = _both(enc, game, 256, memo)
        assert n == n_ref and np.array_equal(actions, actions_ref)
        assert np.array_equal(feats, feats_ref)
        moves = game.legal_moves()
        assert n == len(moves)  # all inside the window, in legal-move order
        if game.current_tile == "U":
            plain = {(m.x, m.y, m.rotation): k for k, m in enumerate(moves) if m.follower is None}
            for (x, y, rotation), k in plain.items():
                twin = plain.get((x, y, rotation - 2))
                if twin is None:
                    continue
                assert np.array_equal(feats[k, :head], feats[twin, :head])
                blocks = sorted(map(tuple, feats[k, head:].reshape(-1, width)))
                assert blocks == sorted(map(tuple, feats[twin, head:].reshape(-1, width)))
                twins += 1
                reordered += not np.array_equal(feats[k], feats[twin])
        game.play(moves[0])  # no follower: they stay in supply
    assert twins > 5 and reordered > 0


def _roots(parent: np.ndarray) -> np.ndarray:
    """The union-find root of every segment."""
    roots = parent.copy()
    while not np.array_equal(roots, parent[roots]):
        roots = parent[roots]
    return roots


@pytest.mark.parametrize(
    "rules", [{"players": 2}, {"players": 2, "expansions": (IC, TB)}], ids=_rules_id
)
def test_lifting_a_figure_gives_back_the_state_before_it(rules):
    """`turn.lift_figure` (how the fast pass tries a figure option on the no-figure
    move) leaves every array as it was before `turn.place_figure` (`ofig` is read only
    where a figure stands, `active` only below its count, `parent` up to the paths
    `find` halved), for every figure kind."""
    rng = random.Random(5)
    game = Game(Rules(**rules), seed=5)
    tb = game.tables
    kinds = set()
    while not game.done:
        seat = int(game.state.sc[C.SC_SEAT])
        o = int(game.state.ptype.shape[0])
        for row in game.legal_rows():
            h, x, y, r, slot = (int(v) for v in row)
            if slot < 0:
                continue
            st = game.clone().state
            S = st.parent.shape[0] // st.ptype.shape[0]
            i = put_tile(st, tb, tile_to_place(st, h), r, x + o, y + o)
            before = {f: getattr(st, f).copy() for f in st.layout.names}
            place_figure(st, i * S + slot % S, slot // S, seat)
            assert not np.array_equal(st.sc, before["sc"])
            lift_figure(st, i * S + slot % S, slot // S, seat)
            for f in st.layout.names:
                if f == "active":
                    live = int(st.sc[C.SC_NACTIVE])
                    assert np.array_equal(st.active[:live], before["active"][:live])
                elif f == "parent":  # the same features (find halves paths)
                    assert np.array_equal(_roots(st.parent), _roots(before["parent"]))
                elif f != "ofig":
                    assert np.array_equal(getattr(st, f), before[f]), f
            kinds.add(slot // S)
        game.play(rng.choice(game.legal_moves()))
    assert kinds == ({0} if "expansions" not in rules else {0, 1, 2, 3})
