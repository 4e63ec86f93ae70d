"""Rough edges a newcomer met (issue 78 item 5), each run as the issue wrote it: errors
name the sub-command's help, --out/-o never create folders or replace files unasked,
long single games and analyses show progress."""

from __future__ import annotations

import json

import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.cli import main
from carcassonne_env.cli import play as play_command


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """main(argv) as the console script runs it: exit status, stdout, stderr."""
    try:
        code = main(argv)
    except SystemExit as exit_info:
        code = exit_info.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["play", "--rule", "x"], "carcassonne play"),
        (["arena", "--bots", "random,random", "--nope"], "carcassonne arena"),
        (["view", "g.json", "--zzz"], "carcassonne view"),
        (["solo-bench", "--bot", "random", "--quick"], "carcassonne solo-bench"),
        (["train", "export", "m.zip", "-o", "x.zip", "--nope"], "carcassonne train export"),
    ],
)
def test_an_unknown_option_points_to_the_sub_commands_help(argv, prog, capsys):
    code, out, err = run_cli(argv, capsys)
    unknown = " ".join(argv[-2:] if argv[0] == "play" else argv[-1:])
    line = f"{prog}: error: unrecognized arguments: {unknown} (see {prog} --help)\n"
    assert (code, out, err) == (2, "", line)


def test_the_command_list_keeps_the_top_level_help(capsys):
    code, _, err = run_cli(["--zzz"], capsys)
    assert code == 2 and err.endswith("(see carcassonne --help)\n")


@pytest.fixture
def record(tmp_path) -> str:
    path = tmp_path / "g.json"
    path.write_text(json.dumps(Game(Rules(players=2), seed=0).to_record()))
    return str(path)


@pytest.mark.parametrize(
    ("command", "name"), [("view", "x.html"), ("gif", "x.gif"), ("render", "x.png")]
)
def test_an_output_in_a_missing_folder_is_refused_and_nothing_made(
    command, name, record, tmp_path, capsys
):
    out = tmp_path / "nonexistent" / "dir" / name
    code, stdout, err = run_cli([command, record, "-o", str(out)], capsys)
    assert (code, stdout) == (2, "")
    assert err == (
        f"carcassonne: error: {out}: {out.parent} does not exist (create the folder first)\n"
    )
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["view", "{record}", "-o", "{out}"], "-o"),
        (["gif", "{record}", "-o", "{out}"], "-o"),
        (["render", "{record}", "-o", "{out}"], "-o"),
        (["play", "--bots", "random,random", "--record", "{out}"], "--record"),
        (["solo-solve", "--deal", "0", "--seconds", "0", "-o", "{out}"], "-o"),
        (
            ["solo-bench", "--bot", "random", "--deals", "1", "--no-progress", "--csv", "{out}"],
            "--csv",
        ),
    ],
)
def test_an_existing_output_is_replaced_only_with_overwrite(argv, option, record, tmp_path, capsys):
    suffix = {"gif": ".gif", "render": ".png", "view": ".html"}.get(argv[0], ".json")
    out = tmp_path / f"old{suffix}"
    out.write_bytes(b"kept")
    argv = [a.format(record=record, out=out) for a in argv]
    code, stdout, err = run_cli(argv, capsys)
    assert (code, stdout) == (2, "")
    assert err == (
        f"carcassonne: error: {out} exists; pass --overwrite to replace it, or give another name\n"
    )
    assert out.read_bytes() == b"kept"
    code, _, _ = run_cli([*argv, "--overwrite"], capsys)
    assert code == 0 and out.read_bytes() != b"kept"


@pytest.mark.parametrize("command", ["export", "plot"])
def test_the_training_outputs_create_and_replace_nothing_unasked(command, tmp_path, capsys):
    """`train export -o` and `train plot -o`: a missing folder or an existing file is one
    line before any work; --overwrite replaces the file."""
    pytest.importorskip("sb3_contrib")
    what = ["ppo_solo"] if command == "export" else [str(tmp_path / "run")]
    if command == "plot":
        (tmp_path / "run").mkdir()
        (tmp_path / "run" / "curve.csv").write_text("timesteps,wall_s,episodes,result\n1,1,1,2\n")
    prog = f"carcassonne train {command}"
    suffix = ".zip" if command == "export" else ".png"
    missing = tmp_path / "no" / f"x{suffix}"
    code, out, err = run_cli(["train", command, *what, "-o", str(missing)], capsys)
    assert (code, out) == (2, "") and not missing.parent.exists()
    assert err == (
        f"{prog}: error: {missing}: {missing.parent} does not exist (create the folder first) "
        f"(see {prog} --help)\n"
    )
    there = tmp_path / f"there{suffix}"
    there.write_bytes(b"kept")
    code, out, err = run_cli(["train", command, *what, "-o", str(there)], capsys)
    assert (code, out) == (2, "") and there.read_bytes() == b"kept"
    assert f"{there} exists; pass --overwrite to replace it" in err
    assert run_cli(["train", command, *what, "-o", str(there), "--overwrite"], capsys)[0] == 0
    assert there.read_bytes() != b"kept"


def test_arena_out_on_an_existing_file_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.json").write_text("{}")
    argv = ["arena", "--bots", "random,greedy", "--games", "2", "--no-progress"]
    code, stdout, err = run_cli([*argv, "--out", "g.json"], capsys)
    assert (code, stdout) == (2, "")
    assert err == "carcassonne: error: --out g.json is a file; --out names a folder\n"
    code, _, err = run_cli([*argv, "--records", "g.json"], capsys)
    assert err == "carcassonne: error: --records g.json is a file; --records names a folder\n"
    assert (tmp_path / "g.json").read_text() == "{}"


def test_a_long_bots_game_shows_progress_on_stderr(monkeypatch, capsys):
    monkeypatch.setattr(play_command, "PROGRESS_DELAY_S", 0)  # (a real game's: after 1 s)
    code, out, err = run_cli(["play", "--bots", "random,random", "--seed", "0"], capsys)
    assert code == 0 and "seat 1 (random):" in out and "play:" not in out
    assert "play: " in err and "move" in err
    code, out, err = run_cli(["play", "--bots", "random,random", "--no-progress"], capsys)
    assert (code, err) == (0, "")


def test_solo_analyze_shows_progress_unless_told(monkeypatch, tmp_path, capsys):
    import agents.solo_analyze

    shown = []
    real = agents.solo_analyze.tqdm
    monkeypatch.setattr(
        agents.solo_analyze,
        "tqdm",
        lambda moves, **options: shown.append(not options["disable"]) or real(moves, **options),
    )
    game = Game(Rules(variant="solo"), seed=0)
    for _ in range(3):
        game.play(game.legal_moves()[0])
    path = tmp_path / "solo.json"
    path.write_text(json.dumps(game.to_record()))
    argv = ["solo-analyze", str(path), "--bot", "solo-search:samples=1:top_k=2:depth=0:halving=0"]
    assert run_cli(argv, capsys)[0] == 0
    assert run_cli([*argv, "--no-progress"], capsys)[0] == 0
    assert shown == [True, False]
