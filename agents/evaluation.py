"""Moved to `carcassonne_env.bots.evaluation` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.evaluation import (  # noqa: F401
    W_CELL,
    W_FARM,
    W_FIT,
    W_FOLLOWER,
    W_HORIZON,
    W_SOLO_EMPTY,
    W_SOLO_FOLLOWER,
    W_SOLO_SUM,
    evaluate_moves,
    objective,
    position_values,
    unseen_tiles,
)
