"""Built-in bots. Every bot follows the `Agent` protocol: `act(game) -> Move`."""

from .base import Agent, make_agent, registry
from .simple import GreedyAgent, RandomAgent

__all__ = ["Agent", "GreedyAgent", "RandomAgent", "make_agent", "registry"]
