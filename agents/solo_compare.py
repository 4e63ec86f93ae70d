"""Paired comparison of two solo bots from saved `solo-bench` runs (``carcassonne
solo-compare``).

A search bot's solo result can vary more with the bot's own seed than with the deal
(results/training/solo_guided.md), so one run of each bot over a few hundred deals gives
a paired interval too wide for differences of a few points. Several runs of each bot on the
same deals (``solo-bench --seed 1``, ``--seed 2``, ...) narrow it: each deal's result is
the mean of its runs, and the difference of the two bots' deal means is averaged over
the deals (normal-approximation 95% interval, as `solo-bench`'s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from .solo_bench import SoloBenchResult
from .stats import mean_interval


@dataclass(frozen=True)
class Side:
    """One bot's runs: its spec, the bot seeds of its runs, the mean over the deals of
    each deal's mean result with its 95% interval, and its seconds per move."""

    bot: str
    seeds: tuple[int, ...]
    mean: float
    ci95: tuple[float, float] | None
    seconds_per_move: float


@dataclass(frozen=True)
class SoloComparison:
    """`compare_runs`' result: both sides, the deals compared, and the paired difference
    other - base (per deal, of the deal means) with its 95% interval and the deals where
    the other bot did better, the same, worse."""

    base: Side
    other: Side
    deals: int
    difference: float
    ci95: tuple[float, float] | None
    better: int
    equal: int
    worse: int

    def to_markdown(self) -> str:
        """A two-row table and the paired difference in one line."""
        lines = [
            "| bot | runs (bot seeds) | mean of deal means [95% CI] | ms/move |",
            "|---|---|---:|---:|",
        ]
        for side in (self.base, self.other):
            seeds = ", ".join(str(s) for s in side.seeds)
            lines.append(
                f"| {side.bot} | {len(side.seeds)} ({seeds}) | {side.mean:.2f} "
                f"{_interval(side.ci95)} | {1000 * side.seconds_per_move:.1f} |"
            )
        lines.append("")
        lines.append(
            f"paired difference ({self.other.bot}) - ({self.base.bot}) over "
            f"{self.deals} deals: {self.difference:+.2f} "
            f"{_interval(self.ci95, signed=True)}; better / equal / worse on "
            f"{self.better} / {self.equal} / {self.worse} deals"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-serialisable."""
        return asdict(self)


def _interval(ci: tuple[float, float] | None, signed: bool = False) -> str:
    if ci is None:
        return "[-]"
    f = "+.2f" if signed else ".2f"
    return f"[{ci[0]:{f}}, {ci[1]:{f}}]"


def _side(runs: Sequence[SoloBenchResult], name: str) -> dict[int, tuple[str, list[int]]]:
    """Check one side's runs (one bot, distinct seeds, the same deals); returns
    {deal seed: (tile order, results of the runs)}."""
    if not runs:
        raise ValueError(f"{name}: no solo-bench result given")
    bots = sorted({r.bot for r in runs})
    if len(bots) > 1:
        raise ValueError(
            f"{name}: the runs are of different bots ({', '.join(bots)}); "
            "give one bot's runs per side"
        )
    seeds = [r.seed for r in runs]
    if len(set(seeds)) < len(seeds):
        raise ValueError(
            f"{name}: two runs with the same bot seed ({seeds}): run "
            "solo-bench with a different --seed for each run"
        )
    deals: dict[int, tuple[str, list[int]]] = {}
    first = {row.deal_seed for row in runs[0].rows}
    for run in runs:
        if {row.deal_seed for row in run.rows} != first:
            raise ValueError(f"{name}: the runs are not of the same deals")
        for row in run.rows:
            deals.setdefault(row.deal_seed, (row.tiles, []))[1].append(row.result)
    return deals


def compare_runs(
    base: Sequence[SoloBenchResult], other: Sequence[SoloBenchResult]
) -> SoloComparison:
    """The paired comparison of `other` against `base` (each one bot's `solo-bench`
    runs on the same deals and rules, each run with its own bot seed; module
    docstring). Raises ValueError for runs that do not fit together."""
    if len({r.rules for r in (*base, *other)}) > 1:
        raise ValueError("the runs were played under different rules")
    a, b = _side(base, "base"), _side(other, "other")
    if set(a) != set(b):
        raise ValueError(
            "the two sides played different deals (solo-bench's --deals and "
            "--first-deal must be the same)"
        )
    if any(a[d][0] != b[d][0] for d in a):
        raise ValueError("the two sides' deals have different tile orders")
    order = sorted(a)
    mean_a = np.array([np.mean(a[d][1]) for d in order])
    mean_b = np.array([np.mean(b[d][1]) for d in order])
    diff = mean_b - mean_a

    def side(runs: Sequence[SoloBenchResult], means: np.ndarray) -> Side:
        moves = sum(r.moves for run in runs for r in run.rows)
        seconds = sum(r.act_seconds for run in runs for r in run.rows)
        return Side(
            bot=runs[0].bot,
            seeds=tuple(r.seed for r in runs),
            mean=float(means.mean()),
            ci95=mean_interval(means.tolist()),
            seconds_per_move=seconds / max(moves, 1),
        )

    return SoloComparison(
        base=side(base, mean_a),
        other=side(other, mean_b),
        deals=len(order),
        difference=float(diff.mean()),
        ci95=mean_interval(diff.tolist()),
        better=int((diff > 0).sum()),
        equal=int((diff == 0).sum()),
        worse=int((diff < 0).sum()),
    )
