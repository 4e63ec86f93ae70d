"""Moved to `carcassonne_env.bots.simple` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.simple import (  # noqa: F401
    GreedyAgent,
    RandomAgent,
)
