"""How often do legal moves fall outside the observation window? Plays random games
(uniform legal moves, the jitted playout policy) and, at every decision, checks for each
window size whether some legal move lies outside the window recentred as the encoder
does it. Prints a markdown table (the figure in docs/observations.md).

    python benchmarks/window_overflow.py --games 10000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from tqdm import tqdm

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.core.planes import window_origin
from carcassonne_env.core.playout import random_move, shuffle
from carcassonne_env.core.state import max_legal_rows
from carcassonne_env.core.turn import legal_moves, reset

SIZES = np.array([12, 16, 20, 24, 28, 32], np.int64)


@njit
def _games(st, tb, full_deck, n_games, rng, rows, sizes, bad_states, bad_games, extent):
    n = full_deck.shape[0]
    o = st.ptype.shape[0]
    states = 0
    for _ in range(n_games):
        st.deck[:n] = full_deck
        shuffle(st.deck, n, rng)
        reset(st, tb, n)
        hit = np.zeros(sizes.shape[0], np.bool_)
        while not st.sc[C.SC_DONE]:
            k = legal_moves(st, tb, rows)
            for s in range(sizes.shape[0]):
                B = sizes[s]
                x0, y0 = window_origin(st, B)
                for j in range(k):
                    col, row = rows[j, 1] + o - x0, rows[j, 2] + o - y0
                    if not (0 <= col < B and 0 <= row < B):
                        bad_states[s] += 1
                        hit[s] = True
                        break
            states += 1
            random_move(st, tb, rng)
        w = max(st.sc[C.SC_XMAX] - st.sc[C.SC_XMIN], st.sc[C.SC_YMAX] - st.sc[C.SC_YMIN]) + 1
        extent[w] += 1
        for s in range(sizes.shape[0]):
            bad_games[s] += hit[s]
    return states


def measure(rules: Rules, label: str, games: int, seed: int, chunk: int = 250):
    game = Game(rules, seed=0)
    st, ts = game._st, game._ts
    full = np.array(ts.full_deck(), np.int8)
    rng = np.array([seed], np.uint64)
    rows = np.empty((max_legal_rows(st), 5), np.int64)
    bad_states = np.zeros(len(SIZES), np.int64)
    bad_games = np.zeros(len(SIZES), np.int64)
    extent = np.zeros(st.board.shape[0], np.int64)
    states = 0
    with tqdm(total=games, desc=label, unit="game") as bar:
        for start in range(0, games, chunk):
            n = min(chunk, games - start)
            states += _games(
                st, ts.tables, full, n, rng, rows, SIZES, bad_states, bad_games, extent
            )
            bar.update(n)
    return states, bad_states, bad_games, extent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("| rules | board_size | games with an overflow | decisions with an overflow |")
    print("|---|---|---|---|")
    for label, rules in (("2 players", Rules(players=2)), ("solo", Rules(variant="solo"))):
        t = time.perf_counter()
        states, bad_states, bad_games, extent = measure(rules, label, args.games, args.seed)
        for B, bs, bg in zip(SIZES, bad_states, bad_games, strict=True):
            print(
                f"| {label} | {B} | {bg} / {args.games} ({100 * bg / args.games:.2f}%) | "
                f"{bs} / {states} ({100 * bs / states:.4f}%) |"
            )
        widest = int(np.flatnonzero(extent).max())
        print(
            f"<!-- {label}: widest final bounding box {widest} cells; "
            f"{time.perf_counter() - t:.1f} s -->"
        )


if __name__ == "__main__":
    main()
