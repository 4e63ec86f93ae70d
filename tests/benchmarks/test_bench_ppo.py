"""`benchmarks/bench_ppo.py`: a recipe timed and tabled (one rollout of the default
learner on solo games, twice: about 3 s)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("sb3_contrib")

from benchmarks.bench_ppo import main  # noqa: E402

pytestmark = [pytest.mark.xdist_group("candidates"), pytest.mark.usefixtures("one_torch_thread")]


def test_a_recipe_is_timed_and_tabled(capsys):
    assert main(["--recipes", "solo", "--steps", "256", "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    assert f"{os.cpu_count()} cores" in out.splitlines()[0]  # the host
    row = out.splitlines()[-1].split(" | ")
    assert row[0] == "| solo"
    assert row[1] == (
        "ThreadedMaskablePPO, 128 games x 16 steps, batch 512, 2 epochs, 2 thread(s), packed rows"
    )
    assert float(row[2].replace(",", "")) > 0 and row[3] == "1.00x"
    assert len(row[4].split(", ")) == 2  # a rate per repeat


def test_an_unknown_recipe_is_refused_naming_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--recipes", "default,fast"])
    assert exit_.value.code == 2
    assert (
        "unknown recipes ['fast']; known: 6db3797-recipe, default, solo" in capsys.readouterr().err
    )
