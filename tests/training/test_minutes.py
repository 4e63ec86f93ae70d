"""A wall-clock budget (`--minutes M`): a run trains until its time is up, then leaves its
model, its curve and an evaluation, ending within 60 s of the budget; `--resume --minutes`
adds time; with a step target too, whichever comes first ends it. The default recipe is
the candidate-move one (`carcassonne train multi --out DIR` with no other option)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from carcassonne_env.cli import main  # noqa: E402
from training import train_multi, train_solo  # noqa: E402
from training.curves import read_rows  # noqa: E402
from training.evaluate import final_seconds  # noqa: E402
from training.run_folder import saved_timesteps  # noqa: E402

# the candidate pass's kernels compile on one worker (tests/conftest.py)
pytestmark = [pytest.mark.xdist_group("candidates"), pytest.mark.usefixtures("one_torch_thread")]

# The default recipe on a tiny scale: 4 games, 16-step rollouts, one small update each.
TINY = [
    "--n-envs",
    "4",
    "--n-steps",
    "16",
    "--batch-size",
    "32",
    "--n-epochs",
    "1",
    "--hidden",
    "8",
    "--no-progress",
]
SLACK_S = 60  # a --minutes run ends within this of its budget


def _timed(argv: list[str]) -> float:
    """Run `carcassonne argv` (exit status 0); returns its wall-clock seconds."""
    start = time.monotonic()
    assert main(argv) == 0
    return time.monotonic() - start


def _evaluation(out: Path) -> dict:
    return json.loads((out / "evaluation.json").read_text())


@pytest.mark.parametrize("what", ["multi", "solo"])
def test_minutes_ends_on_time_with_a_model_a_curve_and_an_evaluation(what, tmp_path, capsys):
    """A budget of 9 s: training takes all of it but what the end needs (final_seconds),
    then model.zip, curve.png and evaluation.json / .md; 30 s would mean it overran.
    (The test takes its budget: about 10 s.)"""
    out, minutes = tmp_path / what, 0.15
    seconds = _timed(
        ["train", what, "--out", str(out), "--minutes", str(minutes), "--final-eval", "2", *TINY]
    )
    assert minutes * 60 - final_seconds(2) <= seconds <= minutes * 60 + SLACK_S
    timesteps = saved_timesteps(out / "model.zip")
    assert timesteps and timesteps % 4 == 0
    assert json.loads((out / "config.json").read_text())["settings"]["total_timesteps"] == 0
    rows = read_rows(out / "curve.csv")
    assert rows and int(rows[-1]["timesteps"]) <= timesteps
    assert (out / "curve.png").stat().st_size > 0
    report = _evaluation(out)
    assert report["model"] == "model.zip" and report["timesteps"] == timesteps
    if what == "multi":
        assert (report["opponent"], report["games"], report["seed"]) == ("heuristic", 2, 1)
        assert report["wins"] + report["draws"] + report["losses"] == 2
        assert 0 <= report["win_lo"] <= report["win_rate"] <= report["win_hi"] <= 1
    else:
        assert (report["deals"], report["first_deal"]) == (2, 0)
        assert report["evaluated_on"] == "deals 0-1"
    assert (out / "evaluation.md").read_text().startswith(f"# {what}: model.zip (")
    printed = capsys.readouterr().out
    assert f"evaluation of model.zip ({timesteps} timesteps): " in printed
    assert f"of {minutes:g} minutes" in printed

    # --resume --minutes: more time, more steps, the curve carried on
    seconds = _timed(
        [
            "train",
            what,
            "--out",
            str(out),
            "--resume",
            "--minutes",
            "0.1",
            "--final-eval",
            "0",
            "--no-progress",
        ]
    )
    assert 6 - final_seconds(0) <= seconds <= 6 + SLACK_S
    assert saved_timesteps(out / "model.zip") > timesteps
    more = read_rows(out / "curve.csv")
    assert len(more) > len(rows) and float(more[-1]["wall_s"]) > float(rows[-1]["wall_s"])
    assert _evaluation(out)["timesteps"] == timesteps  # --final-eval 0: the old one stays


def test_the_step_target_or_the_budget_whichever_comes_first(tmp_path, capsys):
    out = tmp_path / "run"
    seconds = _timed(
        [
            "train",
            "solo",
            "--out",
            str(out),
            "--minutes",
            "5",
            "--total-timesteps",
            "64",
            "--final-eval",
            "0",
            *TINY,
        ]
    )
    assert seconds < 60 and saved_timesteps(out / "model.zip") == 64
    assert json.loads((out / "config.json").read_text())["settings"]["total_timesteps"] == 64
    assert not (out / "evaluation.json").exists()
    assert "ended after" in capsys.readouterr().out


def _error(capsys, argv: list[str]) -> str:
    """The one stderr line of a refused `carcassonne` command (exit status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--minutes", "0"], "--minutes must be a number > 0, got 0"),
        (["--minutes", "nan"], "--minutes must be a number > 0, got nan"),
        (
            ["--final-eval", "3"],
            "--final-eval must be an even integer >= 0 (both seatings of each deck), got 3",
        ),
        (
            ["--total-timesteps", "0"],
            "the run has no --total-timesteps target (0: a --minutes "
            "run's); give --minutes M or --total-timesteps N",
        ),
        (
            ["--resume", "--preset", "board"],
            "--preset picks the recipe of a new run; a resumed run keeps its stored settings",
        ),
        (
            ["--preset", "board", "--hidden", "8"],
            "--hidden sets the candidates policy; this run "
            "uses --policy board (add --policy candidates to use it)",
        ),
    ],
)
def test_budget_and_preset_mistakes_are_refused_before_any_work(tmp_path, capsys, argv, message):
    out = tmp_path / "run"
    err = _error(capsys, ["train", "multi", "--out", str(out), *argv])
    prog = "carcassonne train multi"
    assert err == f"{prog}: error: {message} (see {prog} --help)\n"
    assert not out.exists()


def test_a_run_without_a_step_target_resumes_only_with_minutes(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    settings = {**train_solo.PRESETS["candidates"], "total_timesteps": 0}
    (out / "config.json").write_text(json.dumps({"settings": settings}))
    err = _error(capsys, ["train", "solo", "--out", str(out), "--resume"])
    assert (
        "error: the run has no --total-timesteps target (0: a --minutes run's); give "
        "--minutes M or --total-timesteps N" in err
    )
    with pytest.raises(ValueError, match="no --total-timesteps target"):
        train_solo.train(train_solo.SoloSettings(total_timesteps=0), tmp_path / "new")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("module, what", [(train_multi, "multi"), (train_solo, "solo")])
def test_no_option_runs_the_default_recipe(module, what, tmp_path, monkeypatch):
    """`carcassonne train multi --out DIR`: the first preset, the RL-only recipe over
    candidate moves with the projected reward; `--preset board` the board planes."""
    runs = []
    monkeypatch.setattr(module, "train", lambda settings, out, **how: runs.append(settings))
    for argv in ([], ["--preset", "board"]):
        assert main(["train", what, "--out", str(tmp_path / "x"), *argv]) == 0
    default, board = runs
    assert list(module.PRESETS)[0] == "candidates"
    assert default == type(default)(**module.PRESETS["candidates"])
    assert (default.policy, default.obs_features, default.reward) == (
        "candidates",
        "aggregate",
        "projected",
    )
    assert board == type(board)(**module.PRESETS["board"]) and board.policy == "board"
    assert getattr(default, "move_prior", 0) == 0  # RL only: no heuristic input
