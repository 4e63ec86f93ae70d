"""PPO baselines (training scripts, features extractor, shipped models) live here; they
arrive with the training issue. The environments they train on build on `carcassonne_env`."""
