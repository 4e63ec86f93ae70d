"""The smallest PPO run the trainers take: the board-plane preset on 4 games, for tests of
run folders, checkpoints, resuming and model files (seconds, not minutes)."""

from __future__ import annotations

TINY = {
    "n_envs": 4,
    "n_steps": 32,
    "batch_size": 64,
    "n_epochs": 1,
    "channels": 8,
    "blocks": 1,
    "checkpoint_every": 128,
    "torch_threads": 1,
}
#: `TINY` as the options of `carcassonne train solo|multi`, with the board preset.
TINY_ARGS = ["--preset", "board", *(f"--{k.replace('_', '-')}={v}" for k, v in TINY.items())]
