"""Property tests (hypothesis) over random seeds, rule options and move sequences."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from carcassonne_env import Game, IllegalMoveError, Move, Rules

rules_strategy = st.one_of(
    st.builds(
        Rules,
        players=st.integers(1, 6),
        followers=st.integers(0, 8),
        small_city=st.booleans(),
        farm_scoring=st.sampled_from(["field", "city"]),
        farm_city_points=st.sampled_from([3, 4]),
        hand_size=st.sampled_from([1, 3]),
    ),
    st.builds(
        Rules,
        variant=st.just("solo"),
        solo_colours=st.sampled_from([3, 4]),
        followers=st.integers(1, 6),
    ),
)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _play(game: Game, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        if game.done:
            return
        game.play(rng.choice(game.legal_moves()))


@SETTINGS
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), choice=st.integers(0, 2**16))
def test_invariants_along_a_random_game(rules, seed, choice):
    game = Game(rules, seed=seed)
    rng = random.Random(choice)
    total = rules.followers * rules.seats
    prev = game.scores
    while not game.done:
        moves = game.legal_moves()
        assert moves, "a resting state always has a legal move"
        game.play(rng.choice(moves))
        assert all(a >= b for a, b in zip(game.scores, prev, strict=True))
        prev = game.scores
        if not game.done:
            on_board = sum(1 for p in game.board.values() if p.follower)
            assert sum(game.followers_in_supply) + on_board == total
    assert game.current_player is None and game.current_tile is None
    assert game.result is not None


@SETTINGS
@given(rules=rules_strategy, seed=st.integers(0, 10_000), k=st.integers(0, 40))
def test_clone_is_independent_and_records_replay(rules, seed, k):
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    _play(game, rng, k)
    clone = game.clone()
    before = game.to_record()
    _play(clone, rng, 5)
    assert game.to_record() == before
    record = json.loads(json.dumps(clone.to_record()))
    replay = Game.from_record(record)
    assert replay.scores == clone.scores and replay.board == clone.board
    assert replay.legal_moves() == clone.legal_moves()


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(0, 30), data=st.data())
def test_any_alias_of_a_follower_location_plays_the_same(seed, k, data):
    game = Game(Rules(players=3), seed=seed)
    _play(game, random.Random(seed), k)
    with_follower = [m for m in game.legal_moves() if m.follower]
    assume(with_follower)
    move = data.draw(st.sampled_from(with_follower))
    ts = game.tileset
    t = ts.index(game.current_tile)
    slot = ts.slot_aliases[t][move.rotation][move.follower]
    aliases = [a for a, s in ts.slot_aliases[t][move.rotation].items() if s == slot]
    alias = data.draw(st.sampled_from(aliases))
    a, b = game.clone(), game.clone()
    a.play(move)
    b.play(move._replace(follower=alias))
    assert a.board == b.board and a.scores == b.scores


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(players=0),
        dict(players=7),
        dict(players=2.5),
        dict(followers=-1),
        dict(farm_scoring="meadow"),
        dict(hand_size=2),
        dict(variant="coop"),
        dict(variant="solo", players=2),
        dict(variant="solo", solo_colours=5),
        dict(variant="solo", hand_size=3),
        dict(small_city="yes"),
        dict(players=True),
    ],
)
def test_bad_rule_options_raise(kwargs):
    with pytest.raises(ValueError):
        Rules(**kwargs)


def test_rules_defaults_and_round_trip():
    assert Rules().players == 2 and Rules().followers == 7
    solo = Rules(variant="solo")
    assert solo.players == 1 and solo.followers == 4 and solo.seats == 3
    assert Rules.from_dict(solo.to_dict()) == solo
    with pytest.raises(ValueError, match="unknown"):
        Rules.from_dict({"players": 2, "river": True})


def test_bad_game_arguments():
    with pytest.raises(ValueError, match="unknown tile"):
        Game(tile_order="UVZ")
    with pytest.raises(ValueError, match="either"):
        Game(seed=1, tile_order="UV")
    with pytest.raises(TypeError):
        Game({"players": 2})


def test_bad_move_input_gives_clear_errors():
    game = Game(Rules(players=2), tile_order="UV")
    for move, message in [
        (Move(1, 0, 5), "rotation"),
        (Move(1, 0, 0, "castle"), "no follower location"),
        (Move("1", 0, 0), "integer"),
        (Move(0, 0, 0), "already holds a tile"),
        (Move(2, 2, 0), "shares no edge"),
        (Move(1, 0, 0, tile="V"), "the tile to place is U"),
        (Move(10**6, 0, 0), "beyond the reach"),
    ]:
        with pytest.raises(IllegalMoveError, match=message):
            game.play(move)
    assert isinstance(IllegalMoveError("x"), ValueError)
    assert game.turn == 0 and game.current_tile == "U"


@pytest.mark.parametrize(
    "rules", [Rules(players=2), Rules(players=3, hand_size=3), Rules(variant="solo")], ids=str
)
def test_random_playouts_continue_the_game_without_changing_it(rules):
    game = Game(rules, seed=4)
    _play(game, random.Random(0), 12)
    before = game.to_record()
    scores = game.random_playouts(200, seed=1)
    assert scores.shape == (200, rules.seats)
    assert (scores >= np.array(game.scores)).all()
    assert game.to_record() == before
    assert (game.random_playouts(50, seed=9) == game.random_playouts(50, seed=9)).all()
    fixed = game.random_playouts(50, seed=9, reshuffle=False)
    assert (fixed == game.random_playouts(50, seed=9, reshuffle=False)).all()
    # Different hidden orders give different outcomes across 200 playouts.
    assert len({tuple(row) for row in scores}) > 1
    with pytest.raises(ValueError):
        game.random_playouts(-1)


@pytest.mark.parametrize("rules", [Rules(players=2), Rules(variant="solo")], ids=str)
def test_reshuffle_permutes_only_undrawn_tiles(rules):
    from carcassonne_env.core import constants as C
    from carcassonne_env.core.playout import shuffle_undrawn
    from carcassonne_env.core.state import copy_state

    game = Game(rules, seed=2)
    _play(game, random.Random(1), 10)
    st = copy_state(game.state)
    shuffle_undrawn(st, np.array([5], np.uint64))
    old, new = game.state.deck, st.deck
    if rules.variant == "solo":
        colours = rules.seats
        drawn = [k for k in range(len(old)) if k // colours < st.spos[k % colours]]
    else:
        drawn = list(range(st.sc[C.SC_DECK_POS]))
    undrawn = [k for k in range(len(old)) if k not in drawn]
    assert (old[drawn] == new[drawn]).all()
    assert sorted(old[undrawn]) == sorted(new[undrawn])
    assert (old[undrawn] != new[undrawn]).any()


def test_overlong_tile_order_is_refused():
    with pytest.raises(ValueError, match="at most"):
        Game(tile_order="U" * 5000)
