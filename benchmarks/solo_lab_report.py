"""Markdown tables of docs/solo_results.md from the lab's result files.

    python -m benchmarks.solo_lab_report runs/solo_lab

Reads paired-*.json (benchmarks/solo_search_paired.py) and clairvoyant.json
(benchmarks/solo_clairvoyant.py) in the folder and prints: each paired run (deals, means
with 95% CIs, paired difference, end A rate, seconds per move), and the clairvoyant line
beside the fair bots on the deals both hold (per deal, and the mean gap).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from agents.stats import mean_interval


def _ci(values) -> str:
    iv = mean_interval(list(values))
    m = float(np.mean(values))
    return f"{m:.2f} [{iv[0]:.2f}, {iv[1]:.2f}]" if iv else f"{m:.2f}"


def paired_table(files: list[Path]) -> str:
    lines = [
        "| search bot | deals | search mean [95% CI] | heuristic mean | paired "
        "difference [95% CI] | search end A | search s/move |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for f in files:
        d = json.loads(f.read_text())
        a, b = d["bots"][0], d["bots"][1]
        n = min(len(d["rows"][a]), len(d["rows"][b]))
        ra = np.array([r["result"] for r in d["rows"][a][:n]], float)
        rb = np.array([r["result"] for r in d["rows"][b][:n]], float)
        ends = np.mean([r["end_reason"] == "A" for r in d["rows"][a][:n]])
        spm = sum(r["act_seconds"] for r in d["rows"][a][:n]) / sum(
            r["moves"] for r in d["rows"][a][:n]
        )
        first = d["first_deal"]
        lines.append(
            f"| `{a}` | {n} ({first}-{first + n - 1}) | {_ci(ra)} | {_ci(rb)} | "
            f"{_ci(ra - rb)} | {ends:.0%} | {spm:.2f} |"
        )
    return "\n".join(lines)


def clairvoyant_table(clair: Path, paired: Path) -> str:
    c = {r["deal"]: r for r in json.loads(clair.read_text())["rows"]}
    d = json.loads(paired.read_text())
    a, b = d["bots"][0], d["bots"][1]
    fair = {r["deal_seed"]: r["result"] for r in d["rows"][a]}
    heur = {r["deal_seed"]: r["result"] for r in d["rows"][b]}
    deals = sorted(set(c) & set(fair))
    lines = [
        "| deal | heuristic | solo-search | clairvoyant line | gap (line - search) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for k in deals:
        lines.append(
            f"| {k} | {heur[k]} | {fair[k]} | {c[k]['result']} | {c[k]['result'] - fair[k]:+d} |"
        )
    gap = np.array([c[k]["result"] - fair[k] for k in deals], float)
    all_c = np.array([r["result"] for r in c.values()], float)
    all_h = np.array([r["heuristic_rollout"] for r in c.values()], float)
    out = "\n".join(lines)
    if len(deals) > 1:
        out += (
            f"\n\nMean gap clairvoyant line - solo-search on these {len(deals)} deals: "
            f"{_ci(gap)}; min {gap.min():+.0f}, median {np.median(gap):+.0f}, "
            f"max {gap.max():+.0f}."
        )
    out += (
        f"\nAll {len(all_c)} solved deals: clairvoyant line {_ci(all_c)}, the "
        f"heuristic's own line with the same knowledge {_ci(all_h)}."
    )
    return out


def gap_lines(clair: Path, files: list[Path]) -> str:
    """Mean gap (clairvoyant line - search bot, and - heuristic) per paired run."""
    c = {r["deal"]: r["result"] for r in json.loads(clair.read_text())["rows"]}
    lines = [
        "| fair bot | deals in common | mean gap to the clairvoyant line [95% CI] | "
        "p10 / p50 / p90 of the gap |",
        "|---|---:|---:|---:|",
    ]
    seen = set()
    for f in files:
        d = json.loads(f.read_text())
        for bot in d["bots"]:
            rows = {r["deal_seed"]: r["result"] for r in d["rows"][bot]}
            deals = sorted(set(rows) & set(c))
            if (bot, tuple(deals)) in seen or len(deals) < 2:
                continue
            seen.add((bot, tuple(deals)))
            gap = np.array([c[k] - rows[k] for k in deals], float)
            p10, p50, p90 = np.percentile(gap, [10, 50, 90])
            lines.append(
                f"| `{bot}` | {len(deals)} | {_ci(gap)} | {p10:.0f} / {p50:.0f} / {p90:.0f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    folder = Path((argv or sys.argv[1:] or ["runs/solo_lab"])[0])
    files = sorted(folder.glob("paired-*.json"))
    print(paired_table(files))
    clair = folder / "clairvoyant.json"
    main_run = folder / "paired-solo-search.json"
    if clair.exists() and main_run.exists():
        print()
        print(clairvoyant_table(clair, main_run))
        print()
        print(gap_lines(clair, files))


if __name__ == "__main__":
    main()
