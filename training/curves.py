"""The runs' CSV files (curve.csv, generations.csv): a header, then a row per rollout,
iteration or gate. Every write replaces the file whole (`carcassonne_env.atomic`), so a
killed run never leaves a torn row."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from carcassonne_env.atomic import atomic_open, write_bytes


def read_rows(path: Path) -> list[dict[str, str]]:
    """A curve (CSV) as rows."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, columns: list[str], rows: Iterable[dict[str, Any]] = ()) -> None:
    """A curve at `path`, replaced whole: the header `columns`, then `rows` in that order
    (NaN: not given)."""
    with atomic_open(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerows([[r.get(c, float("nan")) for c in columns] for r in rows])


def append_row(path: Path, columns: list[str], row: dict[str, Any]) -> None:
    """`row` added to the curve at `path` in the order of `columns` (NaN: not given). The
    file is rewritten whole, so a row is never torn."""
    line = io.StringIO()
    csv.writer(line).writerow([row.get(c, float("nan")) for c in columns])
    write_bytes(path, path.read_bytes() + line.getvalue().encode("utf-8"))


def continue_curve(path: Path, header: list[str], timesteps: int) -> tuple[int, float]:
    """Start a curve.csv at `path` with `header`, or keep its whole rows up to
    `timesteps` (rows written after a resumed model's checkpoint were undone). Returns
    (episodes, wall seconds) of the last kept row, zeros if none."""
    rows = read_rows(path) if path.exists() else []
    rows = [
        r
        for r in rows
        if None not in r.values() and r["timesteps"].isdigit() and int(r["timesteps"]) <= timesteps
    ]
    write_rows(path, header, rows)
    if not rows:
        return 0, 0.0
    return int(rows[-1]["episodes"]), float(rows[-1]["wall_s"])
