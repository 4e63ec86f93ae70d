"""Time to strength: how strong the default recipes of `carcassonne train multi` and
`carcassonne train solo` get from random weights against wall-clock minutes, measured on
decks and deals no training or tuning uses.

    python benchmarks/time_to_strength.py --minutes 15                 # about 35 minutes
    python benchmarks/time_to_strength.py --minutes 60 --every 5
    python benchmarks/time_to_strength.py --minutes 1 --every 0.5 --out runs/tts \\
        --csv runs/tts.csv --figure runs/tts.png                     # a smoke run

Each task trains as ``carcassonne train TASK --out DIR --minutes M`` does: the default
preset, the same budget counted from before the envs are built (compiling included),
stopping early enough for that command's own evaluation (`training.evaluate.final_seconds`;
the evaluation itself is left out here). Every `--every` minutes of that clock the model
is saved as OUT/TASK/minutes/minute_<m>.zip (saves.json: the clock and timesteps of each);
the run's model.zip is minute M. After
training, so that evaluating takes nothing from it, every saved model plays: 2 players,
`--games` games against the heuristic (arena seed `--seed`: games / 2 decks, both
seatings); solo, deals `--seed` to `--seed` + `--games` - 1, beside the heuristic's own
result on them (the solo panel's reference line). Training and tuning never use arena
seed 2026 or those deals (the trainers' games come from the envs' own seeds).

Writes `--csv` (a row per evaluation: task, model, minute, wall-clock seconds and
timesteps at the save, the figure and its 95% interval) and `--figure` (win rate and solo
result against wall-clock minutes). Run it on an otherwise idle machine: the minutes are
wall-clock minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from carcassonne_env.atomic import write_json
from carcassonne_env.model_file import save_model
from training import train_multi, train_solo
from training.callbacks import TimeBudget
from training.curves import write_rows
from training.evaluate import FINAL_GAMES, final_seconds, strength
from training.plots import save_figure
from training.run_folder import FINAL_MODEL, saved_timesteps

TASKS = {"multi": train_multi, "solo": train_solo}
RESULTS, FIGURES = Path("results/training"), Path("docs/images")  # where the outputs go
COLUMNS = ["task", "model", "minute", "elapsed_s", "timesteps", "evaluated_on", "value", "lo", "hi"]


SAVES = "saves.json"  # in OUT/TASK/minutes: {file: {"minute", "elapsed_s", "timesteps"}}


class EveryMinutes(BaseCallback):
    """Saves the model as folder/minute_<m>.zip, noting each in `saves`, for each multiple
    m of `every` minutes: at the first step after m minutes less the `budget`'s reserve on
    its clock, so that minute m's model has trained as long as `--minutes m` would have."""

    def __init__(self, budget: TimeBudget, every: float, folder: Path) -> None:
        super().__init__()
        self.budget, self.every, self.folder = budget, every, folder
        self.mark = every
        self.saves: dict[str, dict[str, float]] = {}

    def _on_step(self) -> bool:
        if self.budget.elapsed() >= self.mark * 60 - self.budget.reserve_s:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = f"minute_{self.mark:g}.zip"
            save_model(self.model, self.folder / name)
            self.saves[name] = {
                "minute": self.mark,
                "elapsed_s": round(self.budget.elapsed(), 1),
                "timesteps": self.num_timesteps,
            }
            while self.mark * 60 - self.budget.reserve_s <= self.budget.elapsed():
                self.mark += self.every
        return True


def train_task(task: str, out: Path, minutes: float, every: float, progress: bool) -> None:
    """Train `task`'s default recipe into `out` (replacing a run there) for `minutes` as
    `--minutes` does, with a model saved every `every` minutes (`EveryMinutes`); the
    run's model.zip is the last, at `minutes`."""
    module = TASKS[task]
    default = next(iter(module.PRESETS))
    settings_cls = train_multi.MultiSettings if task == "multi" else train_solo.SoloSettings
    settings = settings_cls(**{**module.PRESETS[default], "total_timesteps": 0})
    budget = TimeBudget(minutes, final_seconds(FINAL_GAMES))
    saver = EveryMinutes(budget, every, out / "minutes")
    module.train(settings, out, progress=progress, overwrite=True, budget=budget, callbacks=[saver])
    final = {
        "minute": minutes,
        "elapsed_s": round(budget.elapsed(), 1),
        "timesteps": saved_timesteps(out / FINAL_MODEL) or 0,
    }
    saves = {
        f"../{FINAL_MODEL}": final,
        **{k: v for k, v in saver.saves.items() if v["minute"] < minutes},
    }
    (out / "minutes").mkdir(exist_ok=True)
    write_json(out / "minutes" / SAVES, saves, indent=2)


def evaluate_task(
    task: str, out: Path, games: int, seed: int, workers: int
) -> list[dict[str, Any]]:
    """The CSV rows of `task`'s saved models, in minute order (and, solo, the
    heuristic's reference on the same deals)."""
    saves = json.loads((out / "minutes" / SAVES).read_text())
    rows = []
    for name, save in sorted(saves.items(), key=lambda item: item[1]["minute"]):
        figures, _ = strength(
            (out / "minutes" / name).resolve(), games, seed=seed, first_deal=seed, workers=workers
        )
        rows.append(
            _row(task, "model", save["minute"], save["elapsed_s"], save["timesteps"], figures)
        )
    if task == "solo":
        from agents.solo_bench import run_solo_bench

        summary = run_solo_bench(
            "heuristic", deals=games, first_deal=seed, seed=seed, workers=workers, progress=False
        ).summary()
        rows.append(
            _row(
                task,
                "heuristic",
                math.nan,
                math.nan,
                0,
                {
                    "deals": summary["deals"],
                    "first_deal": seed,
                    "mean": summary["mean"],
                    "ci95": summary["ci95"],
                },
            )
        )
    return rows


def _row(
    task: str,
    model: str,
    minute: float,
    elapsed: float,
    timesteps: int | None,
    figures: dict[str, Any],
) -> dict[str, Any]:
    """A CSV row from `training.evaluate.strength`'s figures."""
    if "deals" in figures:
        first, n = figures["first_deal"], figures["deals"]
        low, high = figures["ci95"] or (math.nan, math.nan)
        what, value = f"solo deals {first}-{first + n - 1}", figures["mean"]
    else:
        what = f"heuristic, {figures['games']} games, arena seed {figures['seed']}"
        value, low, high = figures["win_rate"], figures["win_lo"], figures["win_hi"]
    return {
        "task": task,
        "model": model,
        "minute": minute,
        "elapsed_s": round(elapsed, 1),
        "timesteps": timesteps,
        "evaluated_on": what,
        "value": round(value, 4),
        "lo": round(low, 4),
        "hi": round(high, 4),
    }


def draw(rows: list[dict[str, Any]], path: Path) -> None:
    """The figure: per task, the models' figures with their intervals against minutes
    (2 players: win rate against the heuristic; solo: mean result, the heuristic's
    dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = list(dict.fromkeys(r["task"] for r in rows))
    fig, axes = plt.subplots(1, len(tasks), figsize=(6 * len(tasks), 4), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        models = [r for r in rows if r["task"] == task and r["model"] == "model"]
        xs = [float(r["minute"]) for r in models]
        ys = [float(r["value"]) for r in models]
        err = [
            [y - float(r["lo"]) for y, r in zip(ys, models, strict=True)],
            [float(r["hi"]) - y for y, r in zip(ys, models, strict=True)],
        ]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=f"train {task}, default recipe")
        for ref in (r for r in rows if r["task"] == task and r["model"] == "heuristic"):
            ax.axhline(
                float(ref["value"]),
                ls="--",
                color="grey",
                label=f"heuristic {float(ref['value']):.2f}",
            )
        if task == "multi":
            ax.axhline(0.5, color="grey", lw=0.8)
            ax.set_ylim(0, 1)
        ax.set_xlim(0, max(xs, default=1) * 1.05)
        ax.set_xlabel("wall clock since the command started (minutes)")
        ax.set_ylabel(
            "win rate against the heuristic" if task == "multi" else "solo result (lowest colour)"
        )
        ax.set_title(models[0]["evaluated_on"] if models else task, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--minutes", type=float, default=15.0, help="each task's budget (default: %(default)s)"
    )
    parser.add_argument(
        "--every",
        type=float,
        default=2.5,
        help="minutes between saved models (default: %(default)s)",
    )
    parser.add_argument(
        "--tasks", default="multi,solo", help="comma-separated: multi, solo (default: %(default)s)"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=200,
        help="games (solo: deals) per evaluation (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=2026,
        help="the arena seed of the games and the first solo deal (default: %(default)s)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="evaluation processes (default: %(default)s)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("runs/time_to_strength"),
        help="folder of the runs, one per task (default: %(default)s)",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        default=RESULTS / "time_to_strength.csv",
        help="the table written (default: %(default)s)",
    )
    parser.add_argument(
        "--figure",
        type=Path,
        default=FIGURES / "time_to_strength.png",
        help="the figure written (default: %(default)s)",
    )
    parser.add_argument(
        "--no-train", action="store_true", help="evaluate the models already saved in --out"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = sorted(set(tasks) - set(TASKS))
    if unknown or not tasks:
        parser.error(f"--tasks: one or more of {', '.join(TASKS)}, got {args.tasks!r}")
    if not (args.minutes > 0 and 0 < args.every <= args.minutes) or args.games % 2:
        parser.error("--minutes and --every must be > 0 with --every <= --minutes, --games even")
    if not args.no_train:
        for task in tasks:
            print(f"training {task} for {args.minutes:g} minutes", flush=True)
            train_task(task, args.out / task, args.minutes, args.every, not args.no_progress)
    rows = []
    for task in tasks:
        print(f"evaluating {task}'s models", flush=True)
        rows += evaluate_task(task, args.out / task, args.games, args.seed, args.workers)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    write_rows(args.csv, COLUMNS, rows)
    draw(rows, args.figure)
    for row in rows:
        print(", ".join(f"{k} {row[k]}" for k in COLUMNS))
    print(f"wrote {args.csv} and {args.figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
