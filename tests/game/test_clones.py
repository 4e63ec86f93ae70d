"""`Game.clone` reuses the state of a dead game (copying into it) only when nothing else
holds that state or any of its arrays, and the copy is exact: a recycled clone equals a
freshly allocated one in every array but the scratch buffers.

Internals: the spare states are `clones`' and `Game`'s private machinery, so these tests
read `game._st`, `_spares` and `_handed_out`: reading the public `game.state` marks a state
handed out, which changes how its clones copy it, the very behaviour under test."""

import random

import numpy as np
import pytest

from carcassonne_env import Game, Rules, clones
from carcassonne_env.core import constants as C
from carcassonne_env.core.state import SCRATCH_FIELDS, GameState, copy_game, copy_state
from tests.support.games import RULES, played


def _same_state(a: GameState, b: GameState) -> bool:
    x, y = a.fields(), b.fields()
    return all(np.array_equal(x[name], y[name]) for name in x if name not in SCRATCH_FIELDS)


def _spares(game: Game) -> list[tuple[GameState, bool]]:
    return game._spares


@pytest.fixture
def uncompiled_copies(monkeypatch):
    """No compiled copy yet and no clone counted (as at a program's start); the compiled
    copies are put back after the test."""
    compiled = dict(clones.COPY_CALLS)
    clones.COPY_CALLS.clear()
    monkeypatch.setattr(clones, "_copies_before_compiling", [0])
    yield
    clones.COPY_CALLS.update(compiled)


@pytest.fixture(params=["numpy", "compiled"])
def copy_path(request, monkeypatch, uncompiled_copies):
    """Clones into spare states copy with numpy (a program's first `clones.COMPILE_AFTER`
    clones) or with the compiled copies (every clone after)."""
    monkeypatch.setattr(clones, "COMPILE_AFTER", 0 if request.param == "compiled" else 10**9)
    return request.param


def test_the_compiled_copies_take_over_after_compile_after_clones(monkeypatch, uncompiled_copies):
    game = played(Rules(players=2), 4, 10)
    _spares(game).clear()
    monkeypatch.setattr(clones, "COMPILE_AFTER", 3)
    for n in range(6):  # the first clone allocates; each later one reuses the last's
        clone = game.clone()
        assert _same_state(clone._st, copy_state(game._st))
        assert (False in clones.COPY_CALLS) == (n >= 4), n
        del clone


@pytest.mark.parametrize("rules", RULES, ids=["base", "expansions", "solo"])
def test_a_clone_reuses_a_dead_games_state_and_copies_it_exactly(rules, copy_path):
    late = played(rules, 1, 50)  # more tiles, followers and events than `early`
    early = played(rules, 2, 6)
    _spares(early).clear()
    spare = late.clone()
    spare_id = id(spare._st)
    del spare  # nothing else holds its state: given back
    assert [id(st) for st, _ in _spares(early)] == [spare_id]
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
    game = played(Rules(players=2), 4, 20)
    _spares(game).clear()
    clone = game.clone()
    board = clone._st.board  # a user (or an env) kept one of its arrays
    kept = board.copy()
    del clone
    assert _spares(game) == []
    other = played(Rules(players=2), 5, 30).clone()
    assert other._st.board is not board
    assert np.array_equal(board, kept)
    state = Game(Rules(players=2), seed=0)._st  # the vector envs keep states this way
    assert all(s is not state for s, _ in _spares(game))


ALL_RULES = [
    *RULES,
    Rules(players=2, hand_size=3),
    Rules(variant="solo", scoring_order="player"),
    Rules(players=4, expansions=["inns_cathedrals"]),
    Rules(players=2, expansions=["traders_builders"]),
]


@pytest.mark.parametrize(
    "rules", ALL_RULES, ids=["base", "expansions", "solo", "hand", "solo-order", "inns", "traders"]
)
def test_copy_game_leaves_nothing_of_the_spares_game(rules):
    """`copy_game` copies over the larger of the two games' extents (not every word): it
    relies on a played game leaving every array as allocated past its counts. At every
    turn of a whole game, a copy into the state of a longer and of a shorter game equals
    a fresh copy in every array but the scratch ones."""
    game, rng = Game(rules, seed=7), random.Random(7)
    longer = played(rules, 8, 200)._st  # a finished game: the largest extents
    while True:
        for spare_game in (longer, played(rules, 9, len(game.moves_played) // 2)._st):
            spare = copy_state(spare_game)
            copy_game(spare, game._st)
            assert _same_state(spare, copy_state(game._st))
        if game.done:
            break
        game.play(rng.choice(game.legal_moves()))


def _scribble_past_counts(st: GameState) -> None:
    """Write past a state's counts, as code driving it through the core may (a search's
    placements undone, an earlier game of a reused state)."""
    n = st.sc[C.SC_PLACED]
    st.ptype[n:] = 5
    st.fbits[n * st.cfg[C.CFG_NSEG] :] = 3
    st.events[st.sc[C.SC_NEVENTS] :] = 7
    st.discards[st.sc[C.SC_NDISC] :] = 2


def test_a_handed_out_state_is_copied_in_full_both_ways(copy_path):
    """A game whose `state` was read may hold anything past its counts: a clone into its
    state when it is given back, and a clone of the game itself, copy every word."""
    rules = Rules(players=2)
    early = played(rules, 2, 6)
    _spares(early).clear()
    late = played(rules, 1, 20).clone()  # (the game cloned, dropped: given back unmarked)
    _scribble_past_counts(late.state)
    del late  # given back, marked handed out
    assert [out for _, out in _spares(early)] == [False, True]
    clone = early.clone()
    assert _same_state(clone._st, copy_state(early._st))
    source = played(rules, 3, 10)
    _scribble_past_counts(source.state)
    _spares(source).clear()
    _spares(source).append((copy_state(played(rules, 4, 40)._st), False))
    clone = source.clone()
    assert _same_state(clone._st, copy_state(source._st))
    assert clone._handed_out  # it holds the same unknown extents


def test_only_reading_the_state_marks_a_game_handed_out():
    """`Game.play` of a move its legal-move cache does not hold (checked by the core
    through `moves.resolve`) leaves the game unmarked; reading `Game.state` marks it."""
    game = Game(Rules(players=2), seed=5)
    rng = random.Random(5)
    for _ in range(6):
        move = rng.choice(game.legal_moves())
        game.forget_legal_moves()  # the move goes through the core's check
        game.play(move)
    assert not game._handed_out and not game.clone()._handed_out
    game.state  # noqa: B018
    assert game._handed_out and game.clone()._handed_out
