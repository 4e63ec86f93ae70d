"""`make_bot("module:function")`: a user's own bot, from an installed module or a file
of the current folder, and the one-line errors of a spec that does not name one."""

from __future__ import annotations

import sys
import uuid

import pytest

from carcassonne_env import Game, make_bot
from tests.support import user_bots

BOT_FILE = """
import random


class Mine:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, game):
        return self.rng.choice(game.legal_moves())


def make(seed=None):
    return Mine(seed)


def no_seed():
    return Mine(0)


def not_a_bot(seed=None):
    return 42
"""


@pytest.fixture
def bot_file(tmp_path, monkeypatch):
    """The name of a fresh module file holding `BOT_FILE`, in the current folder (which
    is not on sys.path); sys.path and sys.modules are restored afterwards."""
    name = f"mybot_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(BOT_FILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield name
    sys.modules.pop(name, None)


def test_a_function_of_a_file_in_the_current_folder(bot_file):
    bot = make_bot(f"{bot_file}:make", seed=5)
    assert bot.name == f"{bot_file}:make"
    game = Game(seed=0)
    again = make_bot(f"{bot_file}:make", seed=5)
    assert bot.act(game) == again.act(game) in game.legal_moves()  # seeded by make_bot


def test_a_function_of_an_installed_module():
    bot = make_bot(f"{user_bots.__name__}:make_random_mover", seed=1)
    assert isinstance(bot, user_bots.RandomMover)
    assert bot.name == f"{user_bots.__name__}:make_random_mover"


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("nothing", "bot '{m}:nothing': module '{m}' has no function 'nothing'"),
        ("no_seed", "bot '{m}:no_seed': no_seed must take the seed, as in def no_seed(seed=None)"),
        (
            "not_a_bot",
            "bot '{m}:not_a_bot': not_a_bot(seed=...) returned 'int', not a bot (an object "
            "with act(game) -> Move)",
        ),
    ],
)
def test_a_function_that_is_no_bot(bot_file, function, message):
    with pytest.raises(ValueError) as err:
        make_bot(f"{bot_file}:{function}")
    assert str(err.value) == message.format(m=bot_file)


def test_a_module_found_nowhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as err:
        make_bot("no_such_bot_module:make")
    assert str(err.value).startswith("unknown bot 'no_such_bot_module'; available: greedy, ")
    assert str(err.value).endswith(
        "; nor is 'no_such_bot_module' a module (installed, or a file "
        "no_such_bot_module.py of the current folder) for a bot spec module:function"
    )


def test_a_module_that_imports_something_missing(tmp_path, monkeypatch):
    """The module's own missing import is reported as it is (the command line's one
    line for an ImportError), not as an unknown bot."""
    name = f"needs_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("import not_installed_anywhere\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(ModuleNotFoundError, match="not_installed_anywhere"):
        make_bot(f"{name}:make")


def test_options_are_not_a_function_spec():
    """``name:key=value`` stays a bot name with options."""
    with pytest.raises(ValueError, match=r"^unknown bot 'alphago'; available: [a-z0-9, -]+$"):
        make_bot("alphago:depth=3")
