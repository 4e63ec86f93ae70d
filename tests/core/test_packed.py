"""The packed game state (`core.packed`, `core.state`): one buffer per game whose arrays
are attributes. A state round-trips exactly through a clone, a copy, pickle and a game
record; two clones never share memory; a vector env's states are views of the rows of
one buffer; jitted code refuses what is not a state."""

import json
import pickle
import random

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.state import (
    SCRATCH_FIELDS,
    STATE,
    GameState,
    as_state,
    copy_state,
    state_rows,
)
from carcassonne_env.core.turn import legal_moves

RULES = [
    Rules(players=2),
    Rules(players=3, hand_size=3),
    Rules(variant="solo"),
    Rules(players=4, expansions=("inns_cathedrals", "traders_builders")),
]
IDS = ["base", "strategic", "solo", "expansions"]


def _played(rules: Rules, seed: int, moves: int) -> Game:
    game, rng = Game(rules, seed=seed), random.Random(seed)
    for _ in range(moves):
        if game.done:
            break
        game.play(rng.choice(game.legal_moves()))
    return game


def _same(a: GameState, b: GameState) -> None:
    x, y = a.fields(), b.fields()
    assert x.keys() == y.keys() == set(STATE.names)
    for name in x:
        if name not in SCRATCH_FIELDS:
            assert x[name].dtype == y[name].dtype and np.array_equal(x[name], y[name]), name


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_a_state_round_trips_through_clone_copy_pickle_and_a_record(rules, tmp_path):
    game = _played(rules, 3, 25)
    st = game.state
    clone = game.clone()
    for other in (
        clone.state,
        copy_state(st),
        pickle.loads(pickle.dumps(st)),
        pickle.loads(pickle.dumps(game)).state,
    ):
        assert type(other) is GameState
        _same(st, other)
        assert not np.shares_memory(st, other)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()))
    _same(st, Game.from_record(json.loads(path.read_text())).state)


def test_two_clones_never_share_memory_and_play_apart():
    game = _played(Rules(players=2), 4, 10)
    a, b = game.clone(), game.clone()
    assert not np.shares_memory(a.state, b.state)
    a.play(a.legal_moves()[0])
    assert b.turn == game.turn == a.turn - 1
    _same(b.state, game.state)


def test_the_fields_are_views_of_the_one_buffer_with_their_own_dtypes():
    st = Game(Rules(players=2), seed=0).state
    assert st.dtype.itemsize == 8 and st.ndim == 1
    for name, a in st.fields().items():
        assert np.shares_memory(a, st), name
    assert st.board.dtype == np.int16 and st.fbits.dtype == np.uint64
    assert st.cfg.shape == (C.CFG_SIZE,) and st.sc.shape == (C.SC_SIZE,)
    assert st.board.shape == (2 * 72 + 1, 2 * 72 + 1)
    st.scores[1] = 41  # a write through a field lands in the buffer
    assert st.copy().scores[1] == 41


def test_a_vector_envs_states_are_the_rows_of_one_buffer():
    proto = Game(Rules(variant="solo"), seed=0).state
    rows, views = state_rows(proto, 3)
    assert rows.dtype == np.int64 and rows.shape == (3, proto.size)
    for i, view in enumerate(views):
        assert np.shares_memory(view, rows[i]) and not np.shares_memory(view, rows[i - 1])
        _same(view, proto)

    @njit
    def tiles_placed(rows, i):
        return as_state(rows[i]).sc[C.SC_PLACED]

    views[1].sc[C.SC_PLACED] = 5
    assert tiles_placed(rows, 1) == 5 and tiles_placed(rows, 0) == proto.sc[C.SC_PLACED]


def test_jitted_code_refuses_what_is_not_a_state():
    game = Game(Rules(players=2), seed=0)
    rows = np.empty((400, 5), np.int64)
    assert legal_moves(game.state, game.tables, rows) > 0
    with pytest.raises(TypingError):  # a plain array never passes for a state
        legal_moves(game.state.view(np.ndarray).view(np.int64), game.tables, rows)
    with pytest.raises(TypingError):  # nor the tile tables for one
        legal_moves(game.tables, game.tables, rows)
