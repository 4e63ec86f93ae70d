"""`benchmarks/targets.py`: the internal speed targets, out of `carcassonne bench`'s
table (issue 78 item 4), compared with a run in the measure's own direction."""

from __future__ import annotations

from benchmarks.targets import TARGETS, main, target_table


def test_each_target_is_met_in_its_measures_direction():
    results = {
        "warm start s": 1.0,  # lower is better: met
        "API decisions/s": 13_840.9,  # higher is better: not met
        "Game.clone() us": 2.0,  # no target: left out
    }
    assert target_table(results).splitlines() == [
        "| measure | value | target | ratio | met |",
        "|---|---:|---:|---:|---|",
        "| warm start s | 1.00 | 3.0 | 0.33 | yes |",
        "| API decisions/s | 13,840.90 | 20,000 | 0.69 | no |",
    ]
    assert TARGETS["VsBots/solo ratio (random)"] == 0.45


def test_the_script_runs_the_bench_then_its_table(capsys):
    assert main(["--only", "api", "--api-games", "1", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("measure ") and "API decisions " in out
    assert out.endswith("|---|---:|---:|---:|---|\n" + out.splitlines()[-1] + "\n")
    assert out.splitlines()[-1].startswith("| API decisions/s | ")
