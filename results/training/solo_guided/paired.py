"""Paired comparison of two solo-bench JSON files over the same deals: each bot's mean with
its 95% t interval, ms/move, and the per-deal difference B - A with its 95% t interval,
better/equal/worse counts and a Wilcoxon signed-rank p.

    python paired.py A.json B.json
"""

import json
import sys

import numpy as np
from scipy import stats


def load(path: str) -> tuple[dict, dict]:
    with open(path) as f:
        data = json.load(f)
    return data, {r["deal_seed"]: r for r in data["rows"]}


def interval(x: np.ndarray) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    n = len(x)
    mean = x.mean()
    half = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half


def main(path_a: str, path_b: str) -> None:
    a, rows_a = load(path_a)
    b, rows_b = load(path_b)
    deals = sorted(set(rows_a) & set(rows_b))
    assert len(deals) == len(rows_a) == len(rows_b), "not the same deals"
    xa = np.array([rows_a[s]["result"] for s in deals])
    xb = np.array([rows_b[s]["result"] for s in deals])
    for data, x in ((a, xa), (b, xb)):
        s = data["summary"]
        m, lo, hi = interval(x)
        print(f"{data['bot']}: mean {m:.2f} [{lo:.2f}, {hi:.2f}] (solo-bench: {s['mean']:.2f}"
              f" ± {(s['ci95'][1] - s['ci95'][0]) / 2:.2f}), "
              f"{1000 * s['seconds_per_move']:.1f} ms/move, "
              f"{s['mean_moves']:.1f} moves/game, n={len(x)}")
    diff = xb - xa
    m, lo, hi = interval(diff)
    counts = f"{np.sum(diff > 0)}/{np.sum(diff == 0)}/{np.sum(diff < 0)}"
    test = stats.wilcoxon(diff) if np.any(diff) else None
    print(f"paired difference ({b['bot']}) - ({a['bot']}): {m:+.2f} [{lo:+.2f}, {hi:+.2f}] "
          f"over {len(deals)} deals; better/equal/worse {counts}"
          + (f"; Wilcoxon p = {test.pvalue:.3f}" if test else ""))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
