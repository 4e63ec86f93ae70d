"""docs/api.md's claims about the exceptions the API raises, each run (issue 78 item 5:
"docs match the exceptions raised")."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env import Game, IllegalMoveError, Move, Rules
from tests.support.paths import ROOT

API_DOC = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, np.float64(2.0)])
def test_a_negative_or_non_integer_seed_raises_value_error_naming_seed(seed):
    assert "a negative or non-integer seed" in API_DOC and "raises ValueError naming `seed`" in (
        API_DOC
    )
    with pytest.raises(ValueError, match="^seed must be None or a non-negative integer, got "):
        Game(seed=seed)


def test_bad_rules_values_raise_value_error_naming_the_option():
    assert "Bad values raise `ValueError`." in API_DOC
    with pytest.raises(ValueError, match=r"^players must be an integer in \[1, 6\], got 9$"):
        Rules(players=9)
    with pytest.raises(ValueError, match="^farm_scoring must be one of"):
        Rules(farm_scoring="fields")


def test_wrong_kinds_of_object_raise_type_error():
    assert 'An argument of the wrong kind of object (`Game(rules="x")`' in API_DOC
    with pytest.raises(TypeError, match="^rules must be a Rules instance, got str$"):
        Game(rules="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^a move is a Move"):
        Game(seed=0).play("x")  # type: ignore[arg-type]


@pytest.mark.parametrize("move", [Move(0.0, -1, 2), Move(True, 0, 0), Move(50, 50, 0)])
def test_an_illegal_move_raises_illegal_move_error_and_leaves_the_state(move):
    """`play` and `row_of` raise `IllegalMoveError` (a `ValueError`), the game untouched."""
    assert "Raises `IllegalMoveError` (a `ValueError`)" in API_DOC
    assert "`Move(0.0, -1, 2)` and `Move(True, 0, 0)` are refused" in API_DOC
    game = Game(seed=0)
    before = game.to_record()
    with pytest.raises(IllegalMoveError):
        game.play(move)
    with pytest.raises(IllegalMoveError):
        game.row_of(move)
    assert issubclass(IllegalMoveError, ValueError)
    assert game.to_record() == before


def test_too_many_playouts_and_a_malformed_record_raise_value_error():
    assert "n is at most 10,000,000" in API_DOC
    assert "malformed\n  record raises `ValueError`" in API_DOC
    with pytest.raises(ValueError, match="^n must be at most 10,000,000"):
        Game(seed=0).random_playouts(10_000_001)
    with pytest.raises(ValueError, match="^malformed record at version: missing$"):
        Game.from_record({"format": "carcassonne-env/record"})
