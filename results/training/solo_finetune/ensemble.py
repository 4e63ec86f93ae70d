"""Ensembles of solo candidate models (log-probabilities summed over the members, the
best legal move played) on deals F .. F+N-1, for the screens of README.md.

    python results/training/solo_finetune/ensemble.py OUT.json F N MODEL.zip MODEL.zip ...

OUT.json holds one row per deal (`deal_seed`, `result`), as solo-bench's rows.
"""

import json
import sys
import time

import numpy as np

from agents.sb3_policy import SB3Agent
from carcassonne_env import Game, Rules


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max()
    return x - m - np.log(np.exp(x - m).sum())


def pick(members: list[SB3Agent], obs: dict, mask: np.ndarray) -> int:
    """The legal action with the highest summed log-probability over the members."""
    total = np.zeros(mask.shape[0])
    for agent in members:
        total += log_softmax(agent.legal_logits(obs, mask))
    return int(np.argmax(total))


def main(out: str, first: int, n: int, paths: list[str]) -> None:
    members = [SB3Agent(p) for p in paths]  # same observation space: one encoding
    lead = members[0]
    rows = []
    started = time.time()
    for deal in range(first, first + n):
        game = Game(Rules(variant="solo"), seed=deal)
        enc = lead.encoder_for(game)
        while not game.done:
            obs = lead.observe(game)
            game.play(enc.action_to_move(game, pick(members, obs, obs["action_mask"])))
        rows.append({"deal_seed": deal, "result": int(game.result)})
    res = np.array([r["result"] for r in rows])
    half = 1.96 * res.std(ddof=1) / np.sqrt(len(res))
    print(f"{out}: mean {res.mean():.2f} ± {half:.2f} ({time.time() - started:.0f} s)")
    with open(out, "w") as f:
        json.dump({"bot": "ensemble:" + ",".join(paths), "rows": rows}, f)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
