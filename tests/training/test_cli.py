"""The trainers' shared command line (`training.cli.run_cli`) and run folders
(`training.run_folder`): `train search` and `train value` get the --out / --resume /
--overwrite checks of the PPO trainers, each refusal one line before any work; a run's
files are told from the others in its folder."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytest.importorskip("sb3_contrib")

from agents.sb3_policy import shipped_models  # noqa: E402
from carcassonne_env.cli import main  # noqa: E402
from carcassonne_env.cli.train import TRAIN_COMMANDS  # noqa: E402
from training import cards, search, train_multi, train_solo, value_fit  # noqa: E402
from training.cli import run_cli  # noqa: E402
from training.run_folder import Session, plan_run, remove_run_files  # noqa: E402
from training.train_solo import SoloSettings  # noqa: E402


def _error(capsys, argv: list[str]) -> str:
    """The one stderr line of a refused `carcassonne` command (exit status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


def _search_folder(out: Path, iteration: int = 3) -> None:
    """A search run's folder as its iteration `iteration` left it (settings, state)."""
    out.mkdir()
    settings = dataclasses.asdict(search.SearchSettings(iterations=5))
    (out / "config.json").write_text(json.dumps({"settings": settings}))
    (out / "state.json").write_text(
        json.dumps({"iteration": iteration, "generation": 1, "wall_s": 9.5})
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--resume", "--games", "3"],
            "a resumed run keeps its settings; only iterations may change, not games (128 -> 3)",
        ),
        (
            ["--resume", "--iterations", "2"],
            "{out} has 3 iterations done already; --iterations 2 "
            "is below that (give more to train on)",
        ),
        (
            ["--resume", "--overwrite"],
            "--resume continues the run in the folder and --overwrite "
            "replaces it: give one of them",
        ),
        (
            [],
            "{out} holds a run already (config.json, state.json); pass --resume to continue it, "
            "--overwrite to replace it, or choose another --out",
        ),
        (["--quick"], "unrecognized arguments: --quick"),
    ],
)
def test_train_search_refuses_in_one_line(tmp_path, capsys, argv, message):
    out = tmp_path / "loop"
    _search_folder(out)
    before = sorted(p.name for p in out.iterdir())
    err = _error(capsys, ["train", "search", "--out", str(out), *argv])
    prog = "carcassonne train search"
    assert err == f"{prog}: error: {message.format(out=out)} (see {prog} --help)\n"
    assert sorted(p.name for p in out.iterdir()) == before  # nothing written


def test_train_search_resume_needs_its_state(tmp_path, capsys):
    out = tmp_path / "loop"
    _search_folder(out)
    (out / "state.json").unlink()
    err = _error(capsys, ["train", "search", "--out", str(out), "--resume"])
    assert f"error: nothing to resume: no state.json in {out} (see" in err
    err = _error(capsys, ["train", "search", "--out", str(tmp_path), "--resume"])
    assert f"error: nothing to resume: no config.json in {tmp_path} (see" in err


def test_train_search_refuses_a_board_model_before_the_folder(tmp_path, capsys):
    out = tmp_path / "x"
    err = _error(capsys, ["train", "search", "--out", str(out), "--init", "ppo_duel_bc"])
    assert (
        "error: --init ppo_duel_bc: search-guided self-play trains a policy over "
        "candidate moves (a model trained with --policy candidates)" in err
    )
    assert not out.exists()


def test_train_value_refuses_in_one_line(tmp_path, capsys):
    out = tmp_path / "value"
    out.mkdir()
    (out / "config.json").write_text("{}")
    prog = "carcassonne train value"
    err = _error(capsys, ["train", "value", "--out", str(out)])
    assert err == (
        f"{prog}: error: {out} holds a run already (config.json); pass "
        f"--overwrite to replace it, or choose another --out (see {prog} --help)\n"
    )
    err = _error(capsys, ["train", "value", "--out", str(out), "--resume"])
    assert err == f"{prog}: error: unrecognized arguments: --resume (see {prog} --help)\n"


def test_search_overwrite_removes_only_the_runs_files(tmp_path):
    for name in (
        "config.json",
        "state.json",
        "curve.csv",
        "gen_0.zip",
        "model_iter_2.zip",
        "samples_2.npz",
        "optimizer.pt",
        "notes.txt",
        "other.zip",
    ):
        (tmp_path / name).write_text("x")
    remove_run_files(tmp_path, search.SEARCH_FILES)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "other.zip"]
    (tmp_path / "config.json").write_text("x")
    remove_run_files(tmp_path, value_fit.VALUE_FILES)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "other.zip"]


def test_a_gated_ppo_run_is_a_run_and_overwrite_removes_its_generations(tmp_path):
    """`train multi --gate-every` writes generations.csv and generations/: a folder
    holding only them holds a run, and --overwrite removes them (a new run would
    otherwise continue the old run's generations)."""
    (tmp_path / "generations.csv").write_text("iteration\n0\n")
    with pytest.raises(FileExistsError, match=r"holds a run already \(generations\.csv\)"):
        plan_run(tmp_path, SoloSettings(), Session())
    (tmp_path / "generations").mkdir()
    (tmp_path / "generations" / "gen_0.zip").write_text("x")
    (tmp_path / "notes.txt").write_text("x")
    remove_run_files(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("what", sorted(set(TRAIN_COMMANDS) - {"rllib"}))  # (test_rllib)
def test_every_train_command_prints_its_help(what, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", what, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: carcassonne train {what} ")
    if what in ("solo", "multi", "bc", "search", "value"):  # the shared command line
        assert ("--preset" in text) == (what in ("solo", "multi", "bc"))
        timed = what in ("solo", "multi", "search")
        assert ("[--minutes M]" in text) == ("[--final-eval N]" in text) == timed
        assert ("--resume" in text) == (what != "value")
        assert "--overwrite" in text and "--no-progress" in text
        assert "default: quick" not in text and "--quick" not in text


class _Parsed(Exception):
    """Raised in place of parsing: the parser is built."""


def _parser_of(what: str, monkeypatch) -> argparse.ArgumentParser:
    """The parser `carcassonne train WHAT` builds (caught as it starts parsing)."""
    built = []

    def catch(self, *_args, **_kwargs):
        built.append(self)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", catch)
    name, _, function = TRAIN_COMMANDS[what].partition(":")
    module = pytest.importorskip(name) if what == "rllib" else importlib.import_module(name)
    with pytest.raises(_Parsed):
        getattr(module, function or "main")([])
    return built[0]


@pytest.mark.parametrize("what", sorted(TRAIN_COMMANDS))
def test_every_option_of_every_train_command_says_what_it_does_and_its_default(what, monkeypatch):
    """Each option's --help line has a description; one that takes a value and is not
    required names its default (a flag's is off). internals: argparse's, not the
    package's (the parser's `_actions`, its formatter's `_expand_help`: each option's
    help as --help prints it)."""
    parser = _parser_of(what, monkeypatch)
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        names = "/".join(action.option_strings) or action.dest
        text = formatter._expand_help(action) if action.help else ""
        assert text.strip(), f"carcassonne train {what} {names}: no description"
        if action.option_strings and action.nargs != 0 and not action.required:
            assert "default" in text, f"carcassonne train {what} {names}: no default: {text}"


def test_train_plot_imports_no_torch():
    """`train plot` needs matplotlib only (the plot extra): its module reads the curves
    without the trainers' torch and Stable-Baselines3."""
    code = (
        "import sys, training.plots; "
        "print([m for m in ('torch', 'stable_baselines3') if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


TRAINERS = {
    "multi": (train_multi, train_multi.MultiSettings),
    "solo": (train_solo, train_solo.SoloSettings),
}


def _settings_of(what: str, argv: list[str]) -> object:
    """The settings `carcassonne train WHAT argv` would train with (nothing checked on
    disk, nothing trained)."""
    module, settings_cls = TRAINERS[what]
    built = []
    run_cli(
        "test",
        "",
        settings_cls,
        module.PRESETS,
        lambda s, out, **_: built.append(s),
        argv,
        plan=lambda *_args, **_kwargs: None,
        target="total_timesteps",
        plot=False,
    )
    return built[0]


@pytest.mark.parametrize("name", shipped_models())
def test_a_shipped_cards_commands_train_what_they_trained_when_it_was_made(name, tmp_path):
    """The cards were written when `board` was the trainers' default preset: every
    `train multi` / `train solo` command of a card builds the settings it built then (a
    card that leans on a value the default preset changes names --preset board)."""
    for command in cards.card_commands(cards.read_card(name), tmp_path):
        if command[1] not in TRAINERS or "--resume" in command:
            continue
        argv = command[2:]
        then = argv if "--preset" in argv else ["--preset", "board", *argv]
        assert _settings_of(command[1], argv) == _settings_of(command[1], then), command


def test_every_trainer_takes_the_session_keywords():
    """`Session` is every trainer's keywords, whole: `options()` gives them back, and the
    trainers without --minutes refuse a budget, a refit a resume, each before any work."""
    from training import imitation
    from training.callbacks import TimeBudget

    session = Session(resume=True, progress=False, changes={"seed": 1}, budget=TimeBudget(1))
    assert Session(**session.options()) == session
    assert set(session.options()) == {f.name for f in dataclasses.fields(Session)}
    with pytest.raises(ValueError, match="behaviour cloning takes no wall-clock budget"):
        imitation.train(imitation.ImitationSettings(), ROOT / "no-such-run", budget=TimeBudget(1))
    with pytest.raises(ValueError, match="a refit does not resume"):
        value_fit.run(value_fit.ValueSettings(), ROOT / "no-such-run", resume=True)
