"""Moved to `carcassonne_env.bots.jitted_bots` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.jitted_bots import (  # noqa: F401
    GREEDY,
    HEURISTIC,
    KINDS,
    LEARNER,
    MT_WORDS,
    POLICY,
    RANDOM,
    choose,
    mt_below,
    mt_next,
    mt_seed,
    play_bot,
)
