"""`copy_into(dst, src)` makes dst play on exactly like src, whatever game dst held
before (it copies only the live part of each array, with one memcpy per range)."""

import random

import numpy as np
import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.scoring import score_game_end
from carcassonne_env.core.state import SCRATCH_FIELDS, copy_into, copy_state, make_state
from carcassonne_env.core.turn import place_and_score, undo_place
from tests.support.games import RULES, played


def _finish(game: Game, seed: int) -> tuple:
    rng = random.Random(seed)
    while not game.done:
        game.play(rng.choice(game.legal_moves()))
    st = game.state
    return game.scores, st.events[: st.sc[C.SC_NEVENTS]].tolist()


@pytest.mark.parametrize("rules", RULES, ids=["base", "expansions", "solo"])
@pytest.mark.parametrize(("src_turns", "dst_turns"), [(30, 5), (5, 40), (0, 60)])
def test_copy_plays_on_like_the_source(rules, src_turns, dst_turns):
    src = played(rules, 1, src_turns)
    dst = played(rules, 2, dst_turns)
    copy_into(dst.state, src.state)
    assert np.array_equal(dst.state.board, src.state.board)  # whole board, not just the box
    assert np.array_equal(dst.state.sc, src.state.sc)
    twin = Game.over_state(src.rules, src.tileset, copy_state(src.state))
    assert _finish(Game.over_state(dst.rules, dst.tileset, dst.state), 9) == _finish(twin, 9)


def test_copy_from_and_to_a_state_never_reset():
    """A fresh record (empty board, bounding box at 0) copies both ways, within the
    board: the played game's whole board comes over, and going back empties it."""
    game = played(Rules(players=2), 3, 20)
    st = game.state
    shape = (
        st.cfg,
        st.ptype.shape[0],
        int(st.cfg[C.CFG_NSEG]),
        st.pairs.shape[0] // st.ptype.shape[0],
    )
    fresh = make_state(*shape)
    copy_into(fresh, st)
    assert np.array_equal(fresh.board, st.board)
    copy_into(st, make_state(*shape))
    assert st.sc[C.SC_PLACED] == 0
    assert (st.board == -1).all()


def _live(st) -> dict:
    """Every array of a state cut to the part the game reads."""
    n, nf = int(st.sc[C.SC_PLACED]), int(st.sc[C.SC_NFRONT])
    g = n * int(st.cfg[C.CFG_NSEG])
    counts = {
        "frontier": nf,
        "ptype": n,
        "prot": n,
        "px": n,
        "py": n,
        "active": int(st.sc[C.SC_NACTIVE]),
        "pairs": int(st.sc[C.SC_NPAIRS]),
        "events": int(st.sc[C.SC_NEVENTS]),
        "discards": int(st.sc[C.SC_NDISC]),
    }
    for f in (
        "parent",
        "fbits",
        "fntiles",
        "fpenn",
        "fopen",
        "fmeep",
        "fdone",
        "fflag",
        "fgoods",
        "fbuild",
        "fpig",
        "owner",
        "ofig",
    ):
        counts[f] = g
    return {
        f: getattr(st, f)[: counts[f]] if f in counts else getattr(st, f)
        for f in st.layout.names
        if f not in SCRATCH_FIELDS
    }


@pytest.mark.parametrize("rules", RULES, ids=["base", "expansions", "solo"])
def test_undo_place_gives_back_the_position(rules):
    """`turn.undo_place` (the candidate pass's restore between the placements of a
    position) makes a state on which one move was played, with or without the end
    scoring after it, equal to the position again in every live part and play on like
    it; one state takes every legal move of a position in turn."""
    game, rng = Game(rules, seed=4), random.Random(4)
    tb = game.tables
    undone = 0
    while not game.done:
        st = game.state
        dst = copy_state(st)
        live = _live(st)
        if int(st.sc[C.SC_PHASE]) == C.PHASE_PLACE:
            for k, row in enumerate(game.legal_rows()):
                h, x, y, r, slot = (int(v) for v in row)
                place_and_score(dst, tb, h, x, y, r, slot, False)
                if k % 3 == 2:
                    score_game_end(dst, tb)
                undo_place(dst, st, tb)
                for f, a in _live(dst).items():
                    assert np.array_equal(a, live[f]), (game.turn, k, f)
                undone += 1
            if game.turn % 10 == 0:
                twin = Game.over_state(game.rules, game.tileset, copy_state(st))
                assert _finish(Game.over_state(game.rules, game.tileset, dst), 7) == _finish(
                    twin, 7
                )
        game.play(rng.choice(game.legal_moves()))
    assert undone > 200
