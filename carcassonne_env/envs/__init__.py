"""The environments: PettingZoo AEC (`carcassonne_env.carcassonne_v0`), Gymnasium
single-agent envs (`Carcassonne/Solo-v0`, `Carcassonne/VsBots-v0`) and the batched vector
env. All are thin adapters over `Game` through `carcassonne_env.encoding`."""
