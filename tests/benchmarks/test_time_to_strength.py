"""`benchmarks/time_to_strength.py`: the default solo recipe trained on a tiny budget, a
model saved by wall-clock minute, each evaluated after the training on the held-out deals
beside the heuristic: the CSV and the figure. (About 15 s: one rollout of the default
recipe and a few deals.)"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from benchmarks.time_to_strength import COLUMNS, main  # noqa: E402
from training.curves import read_rows  # noqa: E402

pytestmark = [pytest.mark.xdist_group("candidates"), pytest.mark.usefixtures("one_torch_thread")]


def test_models_saved_by_minute_are_evaluated_after_training(tmp_path, capsys):
    out, table, figure = tmp_path / "runs", tmp_path / "tts.csv", tmp_path / "tts.png"
    assert (
        main(
            [
                "--tasks",
                "solo",
                "--minutes",
                "0.2",
                "--every",
                "0.05",
                "--games",
                "2",
                "--workers",
                "1",
                "--out",
                str(out),
                "--csv",
                str(table),
                "--figure",
                str(figure),
                "--no-progress",
            ]
        )
        == 0
    )
    saves = json.loads((out / "solo" / "minutes" / "saves.json").read_text())
    assert saves["../model.zip"]["minute"] == 0.2
    rows = read_rows(table)
    assert list(rows[0]) == COLUMNS
    models = [r for r in rows if r["model"] == "model"]
    minutes = [float(r["minute"]) for r in models]
    assert minutes == sorted(minutes) and minutes[-1] == 0.2 and len(models) == len(saves)
    assert {r["evaluated_on"] for r in rows} == {"solo deals 2026-2027"}
    assert [r["model"] for r in rows][-1] == "heuristic"
    for r in models:
        assert float(r["lo"]) <= float(r["value"]) <= float(r["hi"])
        assert int(r["timesteps"]) > 0 and float(r["elapsed_s"]) > 0
    assert figure.stat().st_size > 0
    assert capsys.readouterr().out.endswith(f"wrote {table} and {figure}\n")
