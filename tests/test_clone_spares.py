"""`Game.clone` reuses the state of a dead game (copying into it) only when nothing else
holds that state or any of its arrays, and the copy is exact: a recycled clone equals a
freshly allocated one in every array but the scratch buffers."""

import random

import numpy as np
import pytest
from test_copy_into import RULES, _played

from carcassonne_env import Game, Rules
from carcassonne_env.core.state import SCRATCH_FIELDS, GameState, copy_state, copy_whole
from carcassonne_env.game import _SPARE_STATES


def _same_state(a: GameState, b: GameState) -> bool:
    x, y = a.fields(), b.fields()
    return all(np.array_equal(x[name], y[name]) for name in x if name not in SCRATCH_FIELDS)


def _spares(game: Game) -> list[GameState]:
    return _SPARE_STATES.setdefault(game._kind, [])


@pytest.mark.parametrize("rules", RULES, ids=["base", "expansions", "solo"])
def test_a_clone_reuses_a_dead_games_state_and_copies_it_exactly(rules):
    late = _played(rules, 1, 50)  # more tiles, followers and events than `early`
    early = _played(rules, 2, 6)
    _spares(early).clear()
    spare = late.clone()
    spare_id = id(spare._st)
    del spare  # nothing else holds its state: given back
    assert [id(st) for st in _spares(early)] == [spare_id]
    clone = early.clone()  # copies the 6-turn game into the 50-turn game's state
    assert _spares(early) == []
    assert _same_state(clone._st, copy_state(early._st))
    rng = random.Random(3)
    while not early.done:  # and both play on alike, independently
        move = rng.choice(early.legal_moves())
        early.play(move)
        clone.play(move)
    assert clone.scores == early.scores and clone.events == early.events
    assert _same_state(clone._st, early._st)


def test_a_state_held_elsewhere_is_never_reused():
    game = _played(Rules(players=2), 4, 20)
    _spares(game).clear()
    clone = game.clone()
    board = clone._st.board  # a user (or an env) kept one of its arrays
    kept = board.copy()
    del clone
    assert _spares(game) == []
    other = _played(Rules(players=2), 5, 30).clone()
    assert other._st.board is not board
    assert np.array_equal(board, kept)
    state = Game(Rules(players=2), seed=0)._st  # the vector envs keep states this way
    assert all(s is not state for s in _spares(game))


def test_copy_whole_copies_every_array_but_the_scratch_ones():
    """Every byte of every array (random here), the board aside: it copies the rows
    around the tiles of both games, the rest of a board being empty in any game."""
    src = copy_state(Game(Rules(players=2), seed=0)._st)
    rng = np.random.default_rng(0)
    for name, a in src.fields().items():
        if name in ("board", "sc"):  # (the scalars hold the tiles' bounding box)
            continue
        a.view(np.uint8)[...] = rng.integers(0, 256, a.nbytes, np.uint8).reshape(
            a.view(np.uint8).shape)
        assert name in SCRATCH_FIELDS or a.any()
    dst = copy_state(_played(Rules(players=2), 1, 30)._st)  # a larger board to clear
    copy_whole(dst, src)
    assert _same_state(dst, src)
