"""Paired comparison of solo bots on the benchmark deals, with a time limit.

Plays deals first_deal, first_deal+1, ... (the solo benchmark's deals: `Game(rules,
seed=deal)`, bot seeded `deal_bot_seed(seed, deal)`, agents/solo_bench.py) with every bot
in turn, one deal at a time, until `--deals` deals are done or `--minutes` have passed,
writing the rows to a JSON file after every deal; then prints each bot's mean with a 95%
CI and the paired difference (first bot minus each other bot) with a 95% CI.

    python -m benchmarks.solo_search_paired --bots solo-search,heuristic --deals 1000 \\
        --out runs/paired-solo-search.json

The full evaluation of docs/solo_results.md is this command with --deals 1000 (about 8
hours at 0.6 s per move on one core); runs stopped by --minutes say how many deals
they hold.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from agents.catalog import warm_up
from agents.solo_bench import play_deal
from agents.stats import mean_interval
from carcassonne_env import Rules
from carcassonne_env.bots.factory import split_specs


def summarise(rows: dict[str, list[dict]]) -> str:
    """Mean (95% CI) per bot and the paired difference of the first bot to the others."""
    bots = list(rows)
    n = min(len(v) for v in rows.values())
    lines = [f"deals: {n}"]
    res = {b: np.array([r["result"] for r in rows[b][:n]], float) for b in bots}
    for b in bots:
        lo, hi = mean_interval(res[b]) or (float("nan"), float("nan"))
        moves = sum(r["moves"] for r in rows[b][:n])
        spm = sum(r["act_seconds"] for r in rows[b][:n]) / max(1, moves)
        ends = sum(r["end_reason"] == "A" for r in rows[b][:n]) / max(n, 1)
        lines.append(
            f"{b}: mean {res[b].mean():.2f} [{lo:.2f}, {hi:.2f}]  "
            f"end A {ends:.0%}  {spm:.3f} s/move"
        )
    for b in bots[1:]:
        d = res[bots[0]] - res[b]
        lo, hi = mean_interval(d) or (float("nan"), float("nan"))
        lines.append(f"{bots[0]} - {b}: {d.mean():+.2f} [{lo:+.2f}, {hi:+.2f}] (paired by deal)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default="solo-search,heuristic")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this (0: never)")
    ap.add_argument("--out", default="runs/solo_lab/paired.json")
    args = ap.parse_args(argv)
    rules = Rules(variant="solo")
    bots = split_specs(args.bots)
    for b in bots:
        warm_up(b, rules)
    rows: dict[str, list[dict]] = {b: [] for b in bots}
    start = time.time()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for deal in range(args.first_deal, args.first_deal + args.deals):
        if args.minutes and time.time() - start > 60 * args.minutes:
            break
        for b in bots:
            r = play_deal(b, rules, args.seed, deal)
            rows[b].append({**r.__dict__, "scores": list(r.scores)})
        out.write_text(
            json.dumps(
                {
                    "bots": bots,
                    "seed": args.seed,
                    "first_deal": args.first_deal,
                    "rows": rows,
                    "wall_seconds": time.time() - start,
                },
                indent=1,
            )
        )
    print(summarise(rows), flush=True)


if __name__ == "__main__":
    main()
