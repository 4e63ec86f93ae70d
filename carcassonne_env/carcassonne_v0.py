"""PettingZoo entry point, named like PettingZoo's own envs::

from carcassonne_env import carcassonne_v0
env = carcassonne_v0.env(players=3, render_mode="ansi")
"""

from .envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
