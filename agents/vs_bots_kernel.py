"""Moved to `carcassonne_env.bots.vs_bots_kernel` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.vs_bots_kernel import (  # noqa: F401
    RESUME,
    REWARD_MARGIN,
    REWARD_MODES,
    REWARD_SCORE,
    REWARD_WIN,
    START,
    STEP,
    observe_batch,
    run_batch,
    teacher_batch,
)
