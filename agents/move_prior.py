"""Moved to `carcassonne_env.bots.move_prior` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.move_prior import (  # noqa: F401
    PRIOR_FLOOR,
    PRIOR_KEY,
    MovePriorObservation,
    game_prior,
    prior_from_probs,
    prior_space,
)
