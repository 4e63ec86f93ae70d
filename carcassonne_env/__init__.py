"""carcassonne-env: an exact, fast Carcassonne rules engine for reinforcement learning.

>>> from carcassonne_env import Game, Rules
>>> game = Game(Rules(players=2), seed=7)
>>> game.play(game.legal_moves()[0])
"""

from .game import Game, IllegalMoveError, Move, PlacedTile, ScoringEvent
from .rules import Rules

__all__ = ["Game", "IllegalMoveError", "Move", "PlacedTile", "Rules", "ScoringEvent"]
__version__ = "0.1.0"
