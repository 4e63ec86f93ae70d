"""``python -m training.rllib ...``: the RLlib example's command line
(`training.rllib.example.main`).

Nothing is defined here: the classes RLlib pickles (envs, RLModules, the callback) live
in ``training.rllib.*`` and are recorded by that path, which checkpoints and remote
workers import, never as ``__main__.X``.
"""

from training.rllib.example import main

if __name__ == "__main__":
    main()
