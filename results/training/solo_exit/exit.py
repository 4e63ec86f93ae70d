"""Solo expert iteration, one step: `puct:simulations=256` over `ppo_solo_rl` plays solo
deals and its root visit shares become the network's policy targets (RL only: the search
uses the network alone), with `training.search`'s self-play game and fit.

    python exit.py gen FIRST COUNT OUT_PREFIX   # deals FIRST.., OUT_PREFIX_<games>.npz per 25
    TEMP=0.1 python exit.py fit ppo_solo_rl OUT.zip SAMPLES.npz...

fit's settings come from the environment: TEMP (target temperature, 1), EPOCHS (2),
LR (1e-4), VCOEF (value loss weight, 0.5).
"""

import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from agents.puct import PUCTAgent
from agents.sb3_policy import load_model
from carcassonne_env import Rules
from training.search import (
    Sample,
    SearchSettings,
    load_samples,
    pack,
    save_samples,
    self_play_game,
    sharpen,
    train_on,
    union,
)

EXPLORE_MOVES = 4  # the first moves sampled in proportion to the visits
VALUE_SCALE = 10.0  # points per value unit (the training's reward_scale 0.1)


def gen(first: int, count: int, prefix: str) -> None:
    agent = PUCTAgent(model="ppo_solo_rl", simulations=256, seed=first)
    rng = np.random.default_rng(first)
    buf: list[Sample] = []
    results, t0 = [], time.time()
    for i, seed in enumerate(range(first, first + count)):
        samples, scores = self_play_game(agent, Rules(variant="solo"), seed, EXPLORE_MOVES,
                                         rng)
        buf += samples
        results.append(min(scores))
        if (i + 1) % 25 == 0:
            save_samples(Path(f"{prefix}_{i + 1}.npz"), pack(buf, VALUE_SCALE))
            buf = []
            print(f"{i + 1} games, mean {np.mean(results):.2f}, {time.time() - t0:.0f} s",
                  flush=True)


def fit(model_name: str, out: str, paths: list[str]) -> None:
    model = load_model(model_name)
    data = union([load_samples(Path(p)) for p in paths])
    data["target"] = sharpen(data["target"], float(os.environ.get("TEMP", 1)))
    settings = SearchSettings(epochs=int(os.environ.get("EPOCHS", 2)), batch_size=256,
                              value_coef=float(os.environ.get("VCOEF", 0.5)))
    optimizer = torch.optim.Adam(model.policy.parameters(),
                                 lr=float(os.environ.get("LR", 1e-4)))
    losses = train_on(model, data, settings, np.random.default_rng(0), optimizer)
    print("samples", len(data["value"]), "policy / value loss", losses)
    model.save(out)


if __name__ == "__main__":
    torch.set_num_threads(1)
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        fit(sys.argv[2], sys.argv[3], sys.argv[4:])
