"""Clairvoyant lines (agents/solo_solve.py) for a range of solo deals, one JSON row each.

    python -m benchmarks.solo_clairvoyant --deals 200 --seconds 60 \\
        --out runs/solo_lab/clairvoyant.json

Each row: deal, the best line's result, the heuristic rollout's result with the same
knowledge, the passes and the seconds. Rows are written after every deal; --minutes
stops early (the file says how many deals it holds). Not proofs of optimality.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from agents.solo_solve import solve_deal


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this (0: never)")
    ap.add_argument("--out", default="runs/solo_lab/clairvoyant.json")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    start = time.time()
    for deal in range(args.first_deal, args.first_deal + args.deals):
        if args.minutes and time.time() - start > 60 * args.minutes:
            break
        rows.append(solve_deal(deal, seconds=args.seconds).to_dict())
        out.write_text(json.dumps({"seconds": args.seconds, "rows": rows}, indent=1))
        print(deal, rows[-1]["result"], rows[-1]["heuristic_rollout"], flush=True)


if __name__ == "__main__":
    main()
