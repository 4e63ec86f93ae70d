"""Learning curves of training runs as one PNG (needs matplotlib: the train or plot extra).

    carcassonne train plot runs/solo runs/duel -o curves.png --baselines runs/solo_bench

One panel per run, read from its curve.csv: the solo result (mean of the last 200
games) or the win rate against each kind of opponent, over timesteps (a `train search`
run: iterations) or with `--x wall` over wall-clock minutes, with the run's wall-clock
time. `--baselines DIR` draws the bots' solo-bench means (DIR/solo-*.json
written by `carcassonne solo-bench --json`) as dashed lines on solo panels.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_env.atomic import atomic_path
from carcassonne_env.checks import output_file
from carcassonne_env.cli_errors import command_parser, run_script

from .curves import read_rows
from .run_folder import CURVE_FILE


def read_curve(run_dir: Path) -> dict[str, list[float]]:
    """curve.csv of a run as columns of floats."""
    path = run_dir / CURVE_FILE
    if not path.exists():
        raise FileNotFoundError(f"no {CURVE_FILE} in {run_dir}")
    rows = read_rows(path)
    if not rows:
        raise ValueError(f"{path} has no rows yet")
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def solo_baselines(folder: Path) -> dict[str, float]:
    """Bot -> mean solo result of the solo-bench JSON files in `folder`."""
    from agents.solo_bench import SoloBenchResult

    results = (SoloBenchResult.from_json(p) for p in sorted(folder.glob("solo-*.json")))
    return {r.bot: r.summary()["mean"] for r in results}


X_AXES = ("timesteps", "wall")
# curve.csv columns that are not a win rate or a solo result
_NOT_PLOTTED = (
    "timesteps",
    "wall_s",
    "episodes",
    "iteration",
    "games",
    "samples",
    "policy_loss",
    "value_loss",
)


def _has_values(column: list[float]) -> bool:
    """Whether a curve.csv column holds a measured value (not NaN only)."""
    return any(not math.isnan(v) for v in column)


def plot_curves(
    run_dirs: list[Path],
    out: Path,
    titles: list[str] | None = None,
    baselines: dict[str, float] | None = None,
    x: str = "timesteps",
) -> None:
    """Write the learning curves of `run_dirs` side by side to `out` (PNG); `baselines`
    (bot -> solo result) become dashed lines on solo panels; `x`: "timesteps" or
    "wall" (wall-clock minutes)."""
    import matplotlib.pyplot as plt

    fig = draw_curves(run_dirs, titles, baselines, x)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out)
    plt.close(fig)


def save_figure(fig: Any, path: Path) -> None:
    """`fig.savefig` to `path` whole (`carcassonne_env.atomic`), in the format its suffix
    names (none: matplotlib's default)."""
    import matplotlib.pyplot as plt

    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100, format=path.suffix[1:] or plt.rcParams["savefig.format"])


def draw_curves(
    run_dirs: list[Path],
    titles: list[str] | None = None,
    baselines: dict[str, float] | None = None,
    x: str = "timesteps",
) -> Any:
    """The figure `plot_curves` writes (a matplotlib Figure; close it when done)."""
    if x not in X_AXES:
        raise ValueError(f"x must be one of {', '.join(X_AXES)}, got {x!r}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import EngFormatter

    fig, axes = plt.subplots(1, len(run_dirs), figsize=(6 * len(run_dirs), 4), squeeze=False)
    for k, (ax, run) in enumerate(zip(axes[0], run_dirs, strict=True)):
        curve = read_curve(run)
        unit = "timesteps" if "timesteps" in curve else "iteration"  # a train search run
        steps = curve[unit]
        xs = [w / 60 for w in curve["wall_s"]] if x == "wall" else steps
        # (a column without a value, e.g. a win rate no evaluation measured, gets no line
        # and no legend entry)
        metrics = [m for m in curve if m not in _NOT_PLOTTED and _has_values(curve[m])]
        if unit == "iteration":  # a `train search` run: its win rates only
            metrics = [m for m in metrics if m.startswith("win_vs_") or m == "gate_win"]
        solo = "result" in metrics
        if solo:  # the solo result only (a BC run's teacher agreement is on another scale)
            metrics = ["result"]
        # A curve of one row (a short run) is a point: give it a marker so it shows.
        marker = "o" if len(steps) == 1 else None
        for m in metrics:
            ax.plot(xs, curve[m], marker=marker, label=m.replace("_", " "))
        ax.set_xlabel(
            "wall clock (minutes)"
            if x == "wall"
            else "timesteps (decisions)"
            if unit == "timesteps"
            else "iteration"
        )
        ax.set_ylabel("solo result (lowest colour)" if solo else "win rate")
        wall = curve["wall_s"][-1]
        wall_text = f"{wall:.0f} s" if wall < 60 else f"{wall / 60:.0f} min"
        ax.set_title(
            f"{titles[k] if titles else run.name}\n{steps[-1]:,.0f} "
            f"{'steps' if unit == 'timesteps' else 'iterations'}, "
            f"{wall_text} wall clock",
            fontsize=10,
        )
        ax.grid(alpha=0.3)
        if solo:
            for bot, mean in (baselines or {}).items():
                ax.axhline(mean, ls="--", lw=1, color="grey")
                ax.annotate(
                    f"{bot} {mean:.1f}", (xs[0], mean), fontsize=8, color="grey", va="bottom"
                )
        else:
            ax.set_ylim(0, 1)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(loc="best", fontsize=8)
        # From 0 so a short run is not zoomed into a few steps; 500, 1k, 1.5k, ... 1M.
        ax.set_xlim(0, max(max(xs), 1e-3) * 1.05)
        if x == "timesteps":
            ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    fig.tight_layout()
    return fig


def plot_loop(
    out: Path, curve: str = CURVE_FILE, image: str = "curve.png", unit: str = "iterations"
) -> Path | None:
    """`image` in `out` from the loop's `curve` there (a `train search` run's curve.csv,
    a `train multi --gate-every` run's generations.csv): the gate's win rate per
    iteration or gate (accepted ones filled), the confirmation matches and each
    generation's panel win rates, with their 95% intervals, against wall-clock hours;
    None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_rows(out / curve)
    hours = np.array([float(r["wall_s"]) / 3600 for r in rows])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    gated = [i for i, r in enumerate(rows) if not math.isnan(float(r["gate_win"]))]
    if gated:
        win = np.array([float(rows[i]["gate_win"]) for i in gated])
        err = np.array(
            [
                [win[j] - float(rows[i]["gate_lo"]), float(rows[i]["gate_hi"]) - win[j]]
                for j, i in enumerate(gated)
            ]
        ).T
        ax.errorbar(hours[gated], win, yerr=err, fmt="none", ecolor="grey", alpha=0.4)
        acc = np.array([rows[i]["accepted"] == "1" for i in gated])
        if acc.any():  # (no legend entry for a series without points)
            ax.plot(hours[gated][acc], win[acc], "ko", label="gate: accepted")
        if not acc.all():
            ax.plot(
                hours[gated][~acc], win[~acc], "o", mfc="none", mec="grey", label="gate: rejected"
            )
    confirmed = [
        i for i, r in enumerate(rows) if not math.isnan(float(r.get("confirm_win") or "nan"))
    ]
    if confirmed:  # the unbiased second match of a candidate through the gate
        ax.plot(
            hours[confirmed],
            [float(rows[i]["confirm_win"]) for i in confirmed],
            "D",
            color="tab:blue",
            mec="black",
            ms=7,
            zorder=5,
            label="confirmation",
        )
    gens = [i for i, r in enumerate(rows) if r["accepted"] == "1"]
    for name in [c[len("win_vs_") :] for c in rows[0] if c.startswith("win_vs_")]:
        pts = [i for i in gens if not math.isnan(float(rows[i][f"win_vs_{name}"]))]
        if not pts:
            continue
        y = np.array([float(rows[i][f"win_vs_{name}"]) for i in pts])
        lo = np.array([float(rows[i][f"lo_vs_{name}"]) for i in pts])
        hi = np.array([float(rows[i][f"hi_vs_{name}"]) for i in pts])
        ax.errorbar(hours[pts], y, yerr=[y - lo, hi - y], marker="s", capsize=3, label=f"vs {name}")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_ylim(0, 1)
    ax.set_xlim(0, max(hours.max(), 1e-3) * 1.05)
    ax.set_xlabel("wall clock (hours)")
    ax.set_ylabel("raw policy's win rate")
    last = rows[-1]
    ax.set_title(
        f"{out.name}: {last['iteration']} {unit}, generation "
        f"{last['generation']}, {float(last['wall_s']) / 3600:.2f} h",
        fontsize=10,
    )
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    save_figure(fig, out / image)
    plt.close(fig)
    return out / image


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    parser = command_parser("carcassonne train plot", __doc__)
    parser.add_argument("runs", nargs="+", type=Path, help="run folders")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("training_curves.png"),
        help="the PNG to write (default: %(default)s)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.add_argument(
        "--titles", help="comma-separated panel titles (default: the run folders' names)"
    )
    parser.add_argument(
        "--baselines",
        type=Path,
        metavar="DIR",
        help="folder of solo-bench JSON files (solo-<bot>.json) to draw (default: none)",
    )
    parser.add_argument(
        "--x",
        choices=X_AXES,
        default="timesteps",
        help="the x axis: timesteps (default) or wall-clock minutes",
    )
    args = parser.parse_args(argv)
    try:  # before any work: no folder created, no file replaced unasked
        output_file(args.output, args.overwrite)
    except ValueError as err:
        parser.error(str(err))
    titles = args.titles.split(",") if args.titles else None
    if titles and len(titles) != len(args.runs):
        parser.error("give one title per run")
    try:
        baselines = solo_baselines(args.baselines) if args.baselines else None
        plot_curves(args.runs, args.output, titles, baselines, args.x)
    except (OSError, ValueError) as err:
        print(f"carcassonne train plot: error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
