"""The published solo results (docs/solo_results.md) from result files.

    python -m benchmarks.solo_results_table runs/solo_results \\
        --png docs/images/solo_results.png > results/solo/tables.md

Reads, in the folder, `BOT_cC_fF.json` (`carcassonne solo-bench --json`, C colours, F
followers per colour) and `clairvoyant-*.json` (`benchmarks/solo_clairvoyant.py`, 3
colours, 4 followers) and prints markdown: one table per setting (mean with 95% CI,
p10 / p50 / p90, end A / end B, mean tiles placed, milliseconds per move), the paired
differences to the heuristic on the deals both played, and the clairvoyant line beside
the best fair bot. `--png` draws the score distributions of every bot at 3 colours and 4
followers in one picture. `--summary` prints only the README's solo table: every bot at 3
colours and 4 followers by mean, then the clairvoyant line.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

from agents.stats import mean_interval

_NAME = re.compile(r"(?P<bot>.+)_c(?P<colours>\d)_f(?P<followers>\d)\.json$")
CLAIRVOYANT = "clairvoyant line"


def _ci(values) -> str:
    x = np.asarray(values, float)
    iv = mean_interval(list(x))
    return f"{x.mean():.2f} [{iv[0]:.2f}, {iv[1]:.2f}]" if iv else f"{x.mean():.2f}"


def load(folder: Path) -> tuple[dict, dict]:
    """({(colours, followers): {bot: rows}}, {deal: clairvoyant row}); a row holds the
    deal, result, end_reason, moves (tiles placed) and seconds per move where known."""
    runs: dict[tuple[int, int], dict[str, list[dict]]] = {}
    for f in sorted(folder.glob("*_c*_f*.json")):
        m = _NAME.match(f.name)
        if not m:
            continue
        d = json.loads(f.read_text())
        rows = [
            {
                "deal": r["deal_seed"],
                "result": r["result"],
                "end_reason": r["end_reason"],
                "moves": r["moves"],
                "act_seconds": r["act_seconds"],
            }
            for r in d["rows"]
        ]
        key = (int(m["colours"]), int(m["followers"]))
        runs.setdefault(key, {})[d["bot"].replace("sb3:model=", "")] = rows
    clair = {}
    for f in sorted(folder.glob("clairvoyant-*.json")):
        for r in json.loads(f.read_text())["rows"]:
            clair[r["deal"]] = {
                "deal": r["deal"],
                "result": r["result"],
                "end_reason": r.get("end_reason"),
                "moves": r.get("moves"),
            }
    return runs, clair


def _row(bot: str, rows: list[dict]) -> str:
    x = np.array([r["result"] for r in rows], float)
    p10, p50, p90 = np.percentile(x, [10, 50, 90])
    ends = [r["end_reason"] for r in rows]
    known = [e for e in ends if e]
    a = f"{ends.count('A') / len(known):.1%} / {ends.count('B') / len(known):.1%}" if known else "-"
    moves = [r["moves"] for r in rows if r.get("moves") is not None]
    tiles = f"{np.mean(moves):.1f}" if moves else "-"
    spm = _ms_per_move(rows)
    first, last = rows[0]["deal"], rows[-1]["deal"]
    return (
        f"| `{bot}` | {len(rows)} ({first}-{last}) | {_ci(x)} | {p10:.0f} / {p50:.0f} / "
        f"{p90:.0f} | {a} | {tiles} | {spm} |"
    )


ORDER = ("random", "greedy", "heuristic", "mcts", "ppo_solo")


def _sorted_bots(bots) -> list[str]:
    return sorted(bots, key=lambda b: (ORDER.index(b) if b in ORDER else len(ORDER), b))


def tables(runs: dict, clair: dict) -> str:
    out = []
    for c, f in sorted(runs, key=lambda k: (k != (3, 4), k)):
        bots = runs[(c, f)]
        lines = [
            f"### {c} colours, {f} followers per colour",
            "",
            "| bot | deals | mean [95% CI] | p10 / p50 / p90 | end A / end B | "
            "tiles placed | ms/move |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for b in _sorted_bots(bots):
            lines.append(_row(b, bots[b]))
        if (c, f) == (3, 4) and clair:
            lines.append(_row(CLAIRVOYANT, [clair[k] for k in sorted(clair)]))
        heur = {r["deal"]: r["result"] for r in bots.get("heuristic", [])}
        diffs = []
        for b in _sorted_bots(bots):
            if b == "heuristic" or not heur:
                continue
            mine = {r["deal"]: r["result"] for r in bots[b]}
            deals = sorted(set(mine) & set(heur))
            if len(deals) > 1:
                d = [mine[k] - heur[k] for k in deals]
                diffs.append(f"`{b}` - heuristic on {len(deals)} deals: {_ci(d)}")
        if diffs:
            lines += ["", "Paired by deal: " + "; ".join(diffs) + "."]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def _ms_per_move(rows: list[dict]) -> str:
    moves = [r["moves"] for r in rows if r.get("moves") is not None]
    secs = [r.get("act_seconds") for r in rows]
    return f"{1000 * sum(secs) / sum(moves):.1f}" if moves and None not in secs else "-"


def summary(runs: dict, clair: dict) -> str:
    """The README's solo table: every bot at 3 colours and 4 followers, by mean result
    (the best fair bot in bold), then the clairvoyant line."""
    from agents.sb3_policy import shipped_models

    bots = runs.get((3, 4), {})
    means = {b: float(np.mean([r["result"] for r in rows])) for b, rows in bots.items()}
    models = set(shipped_models())
    lines = [
        "| bot | deals | mean [95% CI] | median | end A / end B | ms/move |",
        "|---|---:|---:|---:|---:|---:|",
    ]

    def row(label: str, rows: list[dict], bold: bool) -> str:
        x = [r["result"] for r in rows]
        ends = [r["end_reason"] for r in rows if r.get("end_reason")]
        end = (
            f"{ends.count('A') / len(ends):.1%} / {ends.count('B') / len(ends):.1%}"
            if ends
            else "-"
        )
        mean = _ci(x).replace(" [", "** [", 1) if bold else _ci(x)
        return (
            f"| {label} | {len(rows)} | {'**' if bold else ''}{mean} | "
            f"{np.median(x):.0f} | {end} | {_ms_per_move(rows)} |"
        )

    for b in sorted(bots, key=means.get):
        label = f"`sb3:model={b}`" if b in models else f"`{b}`"
        lines.append(row(label, bots[b], b == max(means, key=means.get)))
    if clair:
        lines.append(
            row(
                "clairvoyant line (`solo-solve`, stacks known)",
                [clair[k] for k in sorted(clair)],
                False,
            )
        )
    return "\n".join(lines)


def curve_table(folder: Path, runs: dict) -> str:
    """solo-search at each time budget (the main run and `curve/*.json`, 3 colours, 4
    followers) against the heuristic on the same deals."""
    base = runs.get((3, 4), {})
    heur = {r["deal"]: r["result"] for r in base.get("heuristic", [])}
    found = {b: rows for b, rows in base.items() if b.startswith("solo-search")}
    for f in sorted(folder.glob("*.json")):
        d = json.loads(f.read_text())
        found[d["bot"]] = [
            {
                "deal": r["deal_seed"],
                "result": r["result"],
                "end_reason": r["end_reason"],
                "moves": r["moves"],
                "act_seconds": r["act_seconds"],
            }
            for r in d["rows"]
        ]
    if not found or not heur:
        return ""
    lines = [
        "| search bot | deals | mean [95% CI] | minus heuristic, paired [95% CI] | "
        "end A | ms/move |",
        "|---|---:|---:|---:|---:|---:|",
    ]

    def budget(bot: str) -> float:
        m = re.search(r"seconds=([0-9.]+)", bot)
        return float(m[1]) if m else float("inf")

    for b in sorted(found, key=budget):
        rows = found[b]
        d = [r["result"] - heur[r["deal"]] for r in rows if r["deal"] in heur]
        ends = np.mean([r["end_reason"] == "A" for r in rows])
        ms = 1000 * sum(r["act_seconds"] for r in rows) / sum(r["moves"] for r in rows)
        lines.append(
            f"| `{b}` | {len(rows)} ({rows[0]['deal']}-{rows[-1]['deal']}) | "
            f"{_ci([r['result'] for r in rows])} | {_ci(d)} | {ends:.0%} | "
            f"{ms:.0f} |"
        )
    return "\n".join(lines)


def clairvoyant_gap(runs: dict, clair: dict) -> str:
    """The gap line - fair bot per deal for every bot at 3 colours, 4 followers."""
    if not clair:
        return ""
    lines = [
        "| fair bot | deals in common | mean gap to the clairvoyant line [95% CI] | "
        "p10 / p50 / p90 of the gap | deals where the bot did better |",
        "|---|---:|---:|---:|---:|",
    ]
    for b, rows in ((b, runs[(3, 4)][b]) for b in _sorted_bots(runs.get((3, 4), {}))):
        mine = {r["deal"]: r["result"] for r in rows}
        deals = sorted(set(mine) & set(clair))
        if len(deals) < 2:
            continue
        gap = np.array([clair[k]["result"] - mine[k] for k in deals], float)
        p10, p50, p90 = np.percentile(gap, [10, 50, 90])
        lines.append(
            f"| `{b}` | {len(deals)} | {_ci(gap)} | {p10:.0f} / {p50:.0f} / "
            f"{p90:.0f} | {int((gap < 0).sum())} |"
        )
    return "\n".join(lines)


def overlay_png(runs: dict, clair: dict, path: Path) -> None:
    """Histograms (left) and cumulative shares (right) of the result of every bot at 3
    colours and 4 followers, and of the clairvoyant line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = {b: [r["result"] for r in rows] for b, rows in runs.get((3, 4), {}).items()}
    series = {b: series[b] for b in _sorted_bots(series)}
    if clair:
        series[CLAIRVOYANT] = [r["result"] for r in clair.values()]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5))
    top = max(max(v) for v in series.values())
    bins = np.arange(0, top + 3, 2)
    tab20 = plt.get_cmap("tab20").colors
    colours = tab20[::2] + tab20[1::2]  # 20 distinct colours, the darker ten first
    for i, (b, v) in enumerate(series.items()):
        colour = "black" if b == CLAIRVOYANT else colours[i % len(colours)]
        label = f"{b} (mean {np.mean(v):.1f}, {len(v)} deals)"
        ax.hist(
            v, bins=bins, histtype="step", density=True, linewidth=1.6, label=label, color=colour
        )
        x = np.sort(v)
        bx.step(x, np.arange(1, len(x) + 1) / len(x), where="post", linewidth=1.6, color=colour)
    ax.set_xlabel("result (lowest colour's final score)")
    ax.set_ylabel("share of deals per point")
    ax.legend(fontsize=8)
    bx.set_xlabel("result (lowest colour's final score)")
    bx.set_ylabel("share of deals with at most this result")
    bx.grid(alpha=0.3)
    fig.suptitle("Solo variant, 3 colours, 4 followers: deals 0-999 (fewer where noted)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, nargs="?", default=Path("runs/solo_results"))
    ap.add_argument("--png", type=Path, help="write the overlaid distributions here")
    ap.add_argument(
        "--summary",
        action="store_true",
        help="print only the README's table (3 colours, 4 followers)",
    )
    args = ap.parse_args(argv)
    runs, clair = load(args.folder)
    if args.summary:
        print(summary(runs, clair))
        return
    print(tables(runs, clair))
    curve = curve_table(args.folder / "curve", runs)
    if curve:
        print()
        print(curve)
    gap = clairvoyant_gap(runs, clair)
    if gap:
        print()
        print(gap)
    if args.png:
        overlay_png(runs, clair, args.png)


if __name__ == "__main__":
    main()
