"""Solo self-play with `puct:simulations=256` over `ppo_solo_rl` (the network alone: its
priors and value head), saving each searched decision's visit shares as a policy target
(`training.search.self_play_game`). Deal seeds FIRST, FIRST+1, ... (none of the
evaluation or screening ranges 0-2199); a chunk file per GAMES games, so a stop loses at
most one chunk. Usage:

    python self_play.py OUT_DIR FIRST GAMES_PER_CHUNK CHUNKS
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from agents import make_agent
from carcassonne_env import Rules
from training.search import pack, save_samples, self_play_game


def main(out: Path, first: int, per_chunk: int, chunks: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    agent = make_agent("puct:model=ppo_solo_rl:simulations=256", seed=first)
    rules = Rules(variant="solo")
    rng = np.random.default_rng(first)
    for c in range(chunks):
        path = out / f"chunk_{first + c * per_chunk}.npz"
        if path.exists():
            continue
        t0, samples, results = time.perf_counter(), [], []
        for g in range(per_chunk):
            s, scores = self_play_game(agent, rules, first + c * per_chunk + g, 0, rng)
            samples += s
            results.append(min(scores))
        save_samples(path, pack(samples, 10.0))
        print(f"{path.name}: {len(samples)} samples, mean result {np.mean(results):.2f}, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
