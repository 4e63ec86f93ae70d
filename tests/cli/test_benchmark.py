"""`carcassonne benchmark BOT --out DIR`: the summary files, the refusals before any
game (a summary already there, a bad spec) and Ctrl-C, with a bot of a test file
benchmarked on a tiny budget."""

from __future__ import annotations

import json

import pytest

import agents.benchmark as benchmark
from carcassonne_env.cli import main
from tests.support import user_bots as bots

TINY = ["--decks", "1", "--deals", "2", "--mcts-iterations", "4", "--no-progress"]


@pytest.fixture(autouse=True)
def shipped(monkeypatch):
    """The learned references of the models shipped when these tests were written."""
    monkeypatch.setattr(benchmark, "shipped_models", lambda: list(bots.SHIPPED))


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_run_prints_the_table_and_writes_the_summary(tmp_path, capsys):
    out = tmp_path / "mine"
    spec = f"{bots.__name__}:make_random_mover"
    assert main(["benchmark", spec, "--out", str(out), "--seed", "3", *TINY]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"Benchmark of {spec}: custom budget (1 decks per lineup")
    assert sorted(p.name for p in out.iterdir()) == ["summary.json", "summary.md"]
    summary = json.loads((out / "summary.json").read_text())
    assert [t["table"] for t in summary["tables"]] == ["2p", "3p", "4p", "2p-expansions", "solo"]
    assert (summary["complete"], summary["seed"], summary["budget"]) == (True, 3, "custom")
    assert (out / "summary.md").read_text().startswith(printed.out)
    assert printed.err.strip().endswith(f"wrote summary.json and summary.md to {out}")


def test_an_existing_summary_is_refused_without_overwrite(tmp_path, capsys, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("nothing is played")

    monkeypatch.setattr(benchmark, "run_benchmark", never)
    for name in ("summary.json", "summary.md"):
        out = tmp_path / name.replace(".", "_")
        out.mkdir()
        (out / name).write_text("kept")
        assert main(["benchmark", "greedy", "--out", str(out), "--quick"]) == 2
        assert _one_line(capsys.readouterr().err) == (
            f"carcassonne: error: {out} holds a benchmark summary already ({name}); "
            "pass --overwrite to replace it, or give another --out"
        )
        assert (out / name).read_text() == "kept"
    monkeypatch.undo()
    monkeypatch.setattr(benchmark, "shipped_models", lambda: list(bots.SHIPPED))
    spec = f"{bots.__name__}:make_two_players_only"  # one table: quick to replace
    assert main(["benchmark", spec, "--out", str(out), "--overwrite", *TINY]) == 0
    assert json.loads((out / "summary.json").read_text())["bot"] == spec


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("alphago", "unknown bot 'alphago'; available: "),
        ("mcts:iterations=0", "iterations must be"),
        ("no_such_module_here:make", "nor is 'no_such_module_here' a module"),
        (f"{bots.__name__}:nothing", f"bot '{bots.__name__}:nothing': module "),
        (f"{bots.__name__}:make_refuser", "cannot play any benchmark table"),
    ],
)
def test_a_bad_bot_is_one_line_and_writes_nothing(bot, message, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["benchmark", bot, "--out", str(out), *TINY]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("carcassonne: error: ") and message in line
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["benchmark", "greedy"], "the following arguments are required: --out"),
        (["benchmark", "greedy", "--out", "o", "--decks", "0"], "--decks: must be >= 1"),
    ],
)
def test_bad_options_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in _one_line(capsys.readouterr().err)


def test_an_out_folder_in_no_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "nowhere" / "out"
    assert main(["benchmark", "greedy", "--out", str(out), *TINY]) == 2
    assert _one_line(capsys.readouterr().err) == (
        f"carcassonne: error: {out}: {out.parent} does not exist (create the folder first)"
    )


def test_ctrl_c_keeps_the_tables_played(tmp_path, capsys):
    """Stopped in the first game of the second table: the first is kept, whole."""
    bots.stop_at(players=3, move=2)  # (after its warm-up move)
    out = tmp_path / "stopped"
    spec = f"{bots.__name__}:make_stopped"
    assert main(["benchmark", spec, "--out", str(out), *TINY]) == 130
    printed = capsys.readouterr()
    assert printed.err.strip().splitlines()[-1] == (
        f"carcassonne: interrupted: {spec}: 1 of 5 tables played; their results are above "
        f"and in {out}"
    )
    assert "Interrupted" in printed.out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    assert [(t["table"], t["complete"]) for t in summary["tables"]] == [("2p", True)]
