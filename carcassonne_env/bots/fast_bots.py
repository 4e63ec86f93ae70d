"""The old path of `JittedBot` and `bot_spec`, which live in
`carcassonne_env.bots.jitted_bots` beside the jitted bots they drive. Importing this
module warns (DeprecationWarning); import from `carcassonne_env.bots.jitted_bots`."""

from __future__ import annotations

import warnings

from .jitted_bots import JittedBot, bot_spec

warnings.warn("carcassonne_env.bots.fast_bots is deprecated: import JittedBot and bot_spec "
              "from carcassonne_env.bots.jitted_bots", DeprecationWarning, stacklevel=2)

__all__ = ["JittedBot", "bot_spec"]
