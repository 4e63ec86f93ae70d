"""The environments: PettingZoo AEC (`carcassonne_env.carcassonne_v0`), Gymnasium
single-agent envs (`Carcassonne/Solo-v0`, `Carcassonne/VsBots-v0`) and the batched vector
env. All are thin adapters over `Game` through `carcassonne_env.encoding`.
`make_env_for_model` builds the env a trained model expects."""

from .for_model import make_env_for_model, model_env_options, model_rules

__all__ = ["make_env_for_model", "model_env_options", "model_rules"]
