"""Moved to `carcassonne_env.bots.heuristic` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.heuristic import (  # noqa: F401
    DEFAULT_WEIGHTS,
    HeuristicAgent,
    weight_vector,
)
