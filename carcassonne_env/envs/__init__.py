"""The environments, every one importable from here (``from carcassonne_env.envs import
SoloEnv``), each module imported on first use:

- `SoloEnv` (``Carcassonne/Solo-v0``) and `SoloVectorEnv` (batched): the solo variant
  (`envs.solo`);
- `VsBotsEnv` (``Carcassonne/VsBots-v0``) and `VsBotsVectorEnv` (batched, its bots
  jitted), with `sb3_policy` to play a Stable-Baselines3 model as an opponent
  (`envs.vs_bots`);
- `raw_env` and `parallel_env`: the PettingZoo AEC and parallel envs (`envs.aec`; the
  wrapped one is `carcassonne_env.carcassonne_v0.env()`);
- `SB3VecEnv`: a vector env as a Stable-Baselines3 `VecEnv` (`envs.sb3`, the train extra);
- `make_env_for_model`, `model_env_options`, `model_rules`: the env a trained model
  expects (`envs.for_model`).

All are thin adapters over `Game` through `carcassonne_env.encoding`; the shared parts
are `envs.single_base`, `envs.driver` (single envs), `envs.vector_base` and
`envs.vector_kernels` (vector envs)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Each public name and the module (in this package) that defines it.
_EXPORTS = {
    "SoloEnv": "solo",
    "SoloVectorEnv": "solo",
    "VsBotsEnv": "vs_bots",
    "VsBotsVectorEnv": "vs_bots",
    "sb3_policy": "vs_bots",
    "raw_env": "aec",
    "parallel_env": "aec",
    "SB3VecEnv": "sb3",
    "make_env_for_model": "for_model",
    "model_env_options": "for_model",
    "model_rules": "for_model",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:  # imported on first use: `import carcassonne_env` stays light
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
