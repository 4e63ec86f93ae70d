"""Moved to `carcassonne_env.bots.fast_bots` (the environments need it, and `carcassonne_env`
imports nothing from `agents`); this path keeps working."""

from carcassonne_env.bots.fast_bots import (  # noqa: F401
    JittedBot,
    bot_spec,
)
