"""Generations gated by head-to-head matches: what `carcassonne train search` and
`carcassonne train multi --gate-every N` share, and the second's loop.

`train multi --gate-every N` turns PPO self-play into a loop of generations. Generation 0
is the run's starting network (random, or `--init`). Every N timesteps the learner, the
candidate, plays `gate_games` games against the newest generation, both with their raw
policy (one forward pass per move), both seatings of each deck, on decks no evaluation
uses. A win rate (draws half) >= `gate_threshold` sends it to a confirmation on other decks
(the gate's own figure is biased upwards: of many tries, the lucky one passes); a win rate
>= `confirm_threshold` there makes it generation g + 1. Only generations join the league
of self-play opponents (in place of the periodic snapshots), and each new one plays the
panel (`panel_games` games against each bot of `panel`, the same decks for every
generation). A rejected candidate goes on learning; the next gate comes N timesteps
later.

The run folder gains generations/gen_<g>.zip (each generation as accepted) and
generations.csv, a row per gate (row 0: generation 0's panel): `timesteps`, `wall_s` (the
run's wall clock, resumed runs counting on), `generation` (the newest after the gate),
`accepted`, the gate's and the confirmation's win rates with their Wilson 95% intervals
(against the previous generation), each panel bot's for a new generation, and the
seconds the gate and the panel took; generations.png draws it against wall-clock hours.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from carcassonne_env.model_file import save_model

from .curves import append_row, read_rows, write_rows
from .evaluate import gate, play_off
from .plots import plot_loop
from .run_folder import GENERATIONS_FILE
from .settings import require, setting

GATE_SEED = 500_000  # + the gate's number: the gate's decks (no evaluation uses them)
CONFIRM_SEED = 600_000  # + the gate's number: the confirmation's decks
PANEL_SEED = 1  # the panel's decks: the same for every generation
_NAN = float("nan")


@dataclasses.dataclass
class GateSettings:
    """The gate, the confirmation and the panel of a loop of generations."""

    gate_games: int = setting(
        200,
        "games of the candidate against the best (or newest) "
        "generation per gate, both seatings; 0: every candidate passes",
    )
    gate_threshold: float = setting(
        0.55, "the gate's win rate (draws half) that sends a candidate to the confirmation"
    )
    confirm_threshold: float = setting(
        0.55,
        "the confirmation's win rate, on other decks, "
        "that makes the candidate a generation (0: the gate "
        "alone decides)",
    )
    panel_games: int = setting(
        100, "games of every new generation against each panel bot (0: no panel)"
    )
    panel: str = setting("greedy,heuristic,mcts", "the panel's bots, comma-separated arena specs")

    def check_gate(self) -> None:
        """ValueError naming the first gate setting out of its range."""
        for name in ("gate_games", "panel_games"):
            require(
                self,
                name,
                int,
                lambda v: v >= 0 and v % 2 == 0,
                "an even integer >= 0 (both seatings)",
            )
        for name in ("gate_threshold", "confirm_threshold"):
            require(self, name, float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require(
            self,
            "panel",
            str,
            lambda v: bool(self.panel_bots()) or self.panel_games == 0,
            "comma-separated bot specs",
        )

    def panel_bots(self) -> list[str]:
        """The bots of `panel` (comma-separated) as a list."""
        return [b.strip() for b in self.panel.split(",") if b.strip()]


def interval_columns(name: str) -> tuple[str, str, str]:
    """The curve's three columns of a win rate and its interval: `name`_win, _lo, _hi."""
    return (f"{name}_win", f"{name}_lo", f"{name}_hi")


def interval_cells(name: str, figures: Sequence[float]) -> dict[str, float]:
    """`figures` (a win rate, its low and high) as the cells of `interval_columns(name)`."""
    return {col: round(v, 4) for col, v in zip(interval_columns(name), figures, strict=True)}


def panel_columns(settings: GateSettings) -> list[str]:
    """The curve's columns for the panel: win rate, low, high per bot."""
    return [
        f"{col}{b.split(':')[0]}"
        for b in settings.panel_bots()
        for col in ("win_vs_", "lo_vs_", "hi_vs_")
    ]


def panel_cells(settings: GateSettings, path: Path | None) -> list[float]:
    """The panel's cells for the generation saved at `path` (NaN: no panel)."""
    bots = settings.panel_bots()
    if path is None or not settings.panel_games:
        return [_NAN] * 3 * len(bots)
    wins = play_off(path, bots, settings.panel_games, PANEL_SEED)
    return [round(x, 4) for b in bots for x in wins[b]]


def gate_and_confirm(
    candidate: Path, best: Path, settings: GateSettings, number: int
) -> tuple[bool, tuple[float, ...], tuple[float, ...]]:
    """Gate `number` of `candidate` against `best`, then, if it passed, the confirmation:
    (accepted, the gate's (win rate, low, high), the confirmation's (NaN if not played)).
    With `gate_games` 0 every candidate is accepted."""
    if not settings.gate_games:
        return True, (_NAN,) * 3, (_NAN,) * 3
    win = gate(candidate, best, settings.gate_games, GATE_SEED + number)
    if win[0] < settings.gate_threshold:
        return False, win, (_NAN,) * 3
    confirm = gate(candidate, best, settings.gate_games, CONFIRM_SEED + number)
    return confirm[0] >= settings.confirm_threshold, win, confirm


def recorded_wall(out: Path) -> float:
    """The wall time of the last row of the loop's generations.csv in `out` (0 without
    one): a resumed loop's clock counts on from it, since its last gate and panel ran
    after curve.csv's last row (`EpisodeCurve`'s `wall_floor`)."""
    path = out / GENERATIONS_FILE
    return float(read_rows(path)[-1]["wall_s"]) if path.is_file() else 0.0


def drop_unrecorded(out: Path) -> None:
    """Before a loop in `out` resumes: a run stopped between accepting a generation and
    writing its row (during the panel) left that generation's file and pool weights;
    they go (generations.csv decides)."""
    path = out / GENERATIONS_FILE
    if not path.is_file():
        return
    last = read_rows(path)[-1]
    for gen in (out / "generations").glob("gen_*.zip"):
        if int(gen.stem.split("_")[1]) > int(last["generation"]):
            gen.unlink()
    for weights in (out / "pool").glob("snapshot_*.pt"):
        if int(weights.stem.split("_")[1]) > int(last["timesteps"]):
            weights.unlink()


class GenerationCallback(BaseCallback):
    """`train multi --gate-every`: every `every` timesteps (at a rollout's end) the
    learner is gated against the newest generation; an accepted one joins the league
    (`join(policy, timesteps)`) and plays the panel. Generation 0 is the learner when a
    new run starts (the caller puts it in the league before the first game).
    `clock()` is the run's wall clock in seconds."""

    def __init__(
        self,
        settings: GateSettings,
        every: int,
        out: Path,
        join: Callable[[Any, int], None],
        clock: Callable[[], float],
    ) -> None:
        super().__init__()
        self.settings, self.every, self.out, self.join, self.clock = (
            settings,
            every,
            out,
            join,
            clock,
        )
        self.folder = out / "generations"
        self.columns = [
            "iteration",
            "timesteps",
            "wall_s",
            "generation",
            "accepted",
            *interval_columns("gate"),
            *interval_columns("confirm"),
            *panel_columns(settings),
            "gate_s",
            "panel_s",
        ]
        self.gates = self.generation = self.last = 0

    def _on_training_start(self) -> None:
        path = self.out / GENERATIONS_FILE
        if path.is_file():  # a resumed run: its generations stay
            last = read_rows(path)[-1]
            self.gates, self.last = int(last["iteration"]), int(last["timesteps"])
            self.generation = int(last["generation"])
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        save_model(self.model, self.folder / "gen_0.zip")
        write_rows(path, self.columns)
        t0 = time.perf_counter()
        cells = panel_cells(self.settings, self.folder / "gen_0.zip")
        self._row(
            {
                "accepted": 1,
                **dict(zip(panel_columns(self.settings), cells, strict=True)),
                "panel_s": round(time.perf_counter() - t0, 1),
            }
        )
        self.last = self.num_timesteps

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if self.num_timesteps - self.last < self.every:
            return
        self.last = self.num_timesteps
        self.gates += 1
        candidate = self.folder / f"candidate_{self.num_timesteps}.zip"
        save_model(self.model, candidate)
        t0 = time.perf_counter()
        accepted, win, confirm = gate_and_confirm(
            candidate, self.folder / f"gen_{self.generation}.zip", self.settings, self.gates
        )
        t1 = time.perf_counter()
        win, confirm = (tuple(round(x, 4) for x in w) for w in (win, confirm))
        path = None
        if accepted:
            self.generation += 1
            path = self.folder / f"gen_{self.generation}.zip"
            os.replace(candidate, path)
            self.join(self.model.policy, self.num_timesteps)
        else:
            candidate.unlink()
        cells = panel_cells(self.settings, path)  # (NaN without a new generation)
        self._row(
            {
                "accepted": int(accepted),
                **interval_cells("gate", win),
                **interval_cells("confirm", confirm),
                **dict(zip(panel_columns(self.settings), cells, strict=True)),
                "gate_s": round(t1 - t0, 1),
                "panel_s": round(time.perf_counter() - t1, 1),
            }
        )
        verdict = f"generation {self.generation}" if accepted else "rejected"
        panel = ", ".join(
            f"vs {b} {cells[3 * j]:.2f}"
            for j, b in enumerate(self.settings.panel_bots())
            if not math.isnan(cells[3 * j])
        )
        print(
            f"\ngate {self.gates} at {self.num_timesteps} timesteps: {win[0]:.3f} "
            f"[{win[1]:.3f}, {win[2]:.3f}], confirmation {confirm[0]:.3f}: {verdict}"
            f"{', ' + panel if panel else ''}",
            flush=True,
        )

    def _row(self, cells: dict[str, Any]) -> None:
        row = {
            "iteration": self.gates,
            "timesteps": self.num_timesteps,
            "wall_s": round(self.clock(), 1),
            "generation": self.generation,
            **cells,
        }
        append_row(self.out / GENERATIONS_FILE, self.columns, row)
        plot_loop(self.out, GENERATIONS_FILE, "generations.png", unit="gates")
