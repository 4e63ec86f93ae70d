"""carcassonne-env: an exact, fast Carcassonne rules engine for reinforcement learning.

>>> from carcassonne_env import Game, Rules, make_bot
>>> game = Game(Rules(players=2), seed=7)
>>> game.play(game.legal_moves()[0])
>>> game.play(make_bot("heuristic", seed=0).act(game))  # any bot by spec

Importing the package registers the environments: Gymnasium ``Carcassonne/Solo-v0`` and
``Carcassonne/VsBots-v0``, PettingZoo ``Carcassonne/Carcassonne-v0`` (also importable as
``carcassonne_env.carcassonne_v0``).
"""

from .game import Game, IllegalMoveError, Move, PlacedTile, ScoringChoice, ScoringEvent
from .registration import register_envs
from .rules import Rules

__all__ = [
    "Game",
    "IllegalMoveError",
    "Move",
    "PlacedTile",
    "Rules",
    "ScoringChoice",
    "ScoringEvent",
    "make_bot",
]

register_envs()


def __getattr__(name: str):
    if name == "make_bot":  # on first use: building a game needs no bot
        from .bots.factory import make_bot

        return make_bot
    if name == "__version__":  # the one version, pyproject.toml's (read on first use)
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("carcassonne-env")
        except PackageNotFoundError:  # a source tree that is not installed
            return "0+unknown"
    raise AttributeError(f"module 'carcassonne_env' has no attribute {name!r}")
