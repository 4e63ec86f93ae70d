"""The RLlib example's old path: the code lives in the package `training.rllib` (envs,
RLModules, PPO config, command line; see its docstring), run as ``python -m
training.rllib`` or ``carcassonne train rllib``.

This module re-exports the package's public names, so imports from here,
``python -m training.rllib_example ...`` and checkpoints that recorded the classes as
``training.rllib_example.X`` keep working (the classes themselves are defined in
``training.rllib.*``, the path new checkpoints record).
"""

from __future__ import annotations

from carcassonne_env.encoding import empty_observation  # once imported from here
from training.rllib import *  # noqa: F403 - the package's public names
from training.rllib import __all__ as _package_names
from training.rllib import main

__all__ = [*_package_names, "empty_observation"]

if __name__ == "__main__":
    main()
