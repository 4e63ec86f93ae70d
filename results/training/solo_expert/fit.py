"""Fit `ppo_solo_rl`'s policy to the visit shares of the self-play chunks (cross-entropy,
`training.search.train_on`, the value head left out: value_coef 0), saving the network
after each pass. Usage:

    python fit.py SAMPLES_DIR OUT_DIR [EPOCHS] [LEARNING_RATE] [BATCH] [TEMPERATURE]

TEMPERATURE below 1 sharpens the visit shares towards the most visited move
(`training.search.sharpen`).
"""
from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import torch

from agents.sb3_policy import load_model
from training.search import load_samples, sharpen, train_on, union


def main(samples: Path, out: Path, epochs: int = 3, lr: float = 1e-4, batch: int = 256,
         temperature: float = 1.0) -> None:
    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    data = union([load_samples(p) for p in sorted(samples.glob("chunk_*.npz"))])
    data["target"] = sharpen(data["target"], temperature)
    print(f"{len(data['value'])} samples", flush=True)
    model = load_model("ppo_solo_rl", cached=False)
    optimizer = torch.optim.Adam(model.policy.parameters(), lr=lr)
    settings = types.SimpleNamespace(epochs=1, batch_size=batch, value_coef=0.0)
    rng = np.random.default_rng(0)
    for e in range(1, epochs + 1):
        loss, _ = train_on(model, data, settings, rng, optimizer)
        model.save(out / f"epoch_{e}.zip")
        print(f"epoch {e}: policy loss {loss:.4f}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), *[t(a) for t, a in zip(
        (int, float, int, float), sys.argv[3:], strict=False)])
