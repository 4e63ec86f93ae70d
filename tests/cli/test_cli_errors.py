"""User mistakes on the command line: one line `carcassonne: error: ...`, exit status 2, no
traceback (unless --debug); arguments checked and output folders made before the work."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from carcassonne_env import Game
from carcassonne_env.cli import main
from tests.support.paths import ROOT
from tests.support.terminal import ctrl_c_as_in_a_terminal, interrupt_on_call

HAS_SB3 = importlib.util.find_spec("sb3_contrib") is not None
HAS_MPL = importlib.util.find_spec("matplotlib") is not None
# argparse's own errors name the sub-command (`carcassonne play: error:`), as do the
# training scripts; errors found while running the command are `carcassonne: error:`.
ERROR_LINE = re.compile(r"^carcassonne( [\w-]+)*: error: .+$")


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """main(argv) as the console script runs it: exit status, stdout, stderr."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """A valid record, a file that is not JSON, a corrupt model, a plain file to use as a
    folder, an empty folder and a folder named like an image."""
    d = tmp_path_factory.mktemp("cli")
    game = Game(seed=1)
    for _ in range(5):
        game.play(game.legal_moves()[0])
    (d / "game.json").write_text(json.dumps(game.to_record()))
    (d / "broken.json").write_text("{not json")
    (d / "bad.zip").write_text("not a model")
    (d / "plain").write_text("a file")
    (d / "empty").mkdir()
    (d / "folder.png").mkdir()
    (d / "bin.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    names = ("game.json", "broken.json", "bad.zip", "plain", "empty", "folder.png", "bin.json")
    return {k.partition(".")[0]: str(d / k) for k in names}  # keys: game, broken, bad, ...


CASES = [
    # play
    (["play", "--bots", "alphago,random"], "unknown bot 'alphago'"),
    (["play", "--bots", "random:depth=3,random"], "bad options for bot 'random'"),
    (["play", "--seed", "-5"], "argument --seed: must be >= 0, got -5"),
    (["play", "--seed", "x"], "argument --seed: expected an integer, got 'x'"),
    (["play", "--players", "9"], "players must be"),
    (
        ["play", "--players", "3", "--bots", "random,greedy"],
        "--bots needs 3 specs (one per seat; or one for every seat), got 2: random,greedy",
    ),
    (["play", "--solo", "--players", "2"], "--players 2 contradicts --solo"),
    (["play", "--solo-colours", "4"], "--solo-colours needs --solo"),
    (
        ["play", "--solo", "--bots", "random,greedy"],
        "--solo is played by one bot (all colours), got 2 specs: random,greedy",
    ),
    (["play", "--record", "{plain}/game.json"], "plain"),
    # issue 28: options that would be ignored are refused
    (["play", "--seat", "1"], "--seat needs --human"),
    (["play", "--expansion-mode", "tiles_only"], "--expansion-mode tiles_only needs --expansions"),
    (
        ["play", "--expansions", ""],
        "--expansions '' names no expansion (known: inns_cathedrals, traders_builders)",
    ),
    (["arena", "--expansions", " , "], "--expansions ' , ' names no expansion"),
    (["solo-bench", "--expansion-mode", "full"], "--expansion-mode full needs --expansions"),
    (
        ["solo-bench", "--hist", "{empty}/h.txt"],
        "cannot tell a histogram format from the suffix of",
    ),
    # bench
    (["bench", "--games", "-1"], "argument --games: must be >= 1, got -1"),
    (["bench", "--repeats", "0"], "argument --repeats: must be >= 1, got 0"),
    # render
    (["render", "{empty}/missing.json"], "No such file or directory"),
    (["render", "{broken}"], "broken.json: not JSON"),
    (["render", "{bin}"], "bin.json: not JSON: not a UTF-8 text file"),
    (
        ["render", "{game}", "--moves", "999"],
        "--moves 999 is past the end of {game}: the game has 5 moves",
    ),
    (["solo-analyze", "{bin}"], "bin.json: not JSON: not a UTF-8 text file"),
    (
        ["render", "{game}", "-o", "{empty}/board.xyz"],
        "cannot tell an image format from the suffix of",
    ),
    (["render", "{game}", "--cell", "4"], "argument --cell: must be >= 8, got 4"),
    (["render", "{game}", "-o", "{folder}"], "is a folder; give a file name"),
    # solo-bench
    (["solo-bench", "--bot", "nosuch"], "unknown bot 'nosuch'"),
    (["solo-bench", "--bot", ","], "--bot needs at least one bot spec"),
    (["solo-bench", "--deals", "0"], "argument --deals: must be >= 1, got 0"),
    (["solo-bench", "--workers", "0"], "argument --workers: must be >= 1, got 0"),
    (["solo-bench", "--deals", "2", "--json", "{plain}/x.json"], "plain"),
    # solo-compare
    (
        ["solo-compare", "{game}", "--against", "{game}"],
        "game.json: not a solo benchmark result (carcassonne-env/solo-bench)",
    ),
    (
        ["solo-compare", "{broken}", "--against", "{game}"],
        "broken.json: not a solo benchmark result (not JSON)",
    ),
    (["solo-compare", "{empty}/missing.json", "--against", "{game}"], "No such file or directory"),
    (["solo-compare", "{game}"], "the following arguments are required: --against"),
    # arena
    (["arena", "--bots", "random,nosuch"], "unknown bot 'nosuch'"),
    (["arena", "--games", "3"], "multiple of players=2"),
    (["arena", "--solo"], "unrecognized arguments: --solo"),
    (["arena", "--out", "{plain}/results"], "plain"),
    # train
    (["train", "nosuch"], "argument what: invalid choice: 'nosuch'"),
    (["train", "plot", "{empty}"], "no curve.csv in"),
]
# The shipped models an unknown model's error names, in order (then puct_duel).
SHIPPED = (
    "ppo_3p_rl, ppo_4p_rl, ppo_duel, ppo_duel_bc, ppo_duel_exp_rl, ppo_duel_rl, "
    "ppo_duel_rl_280k, ppo_duel_rl_3m, ppo_duel_rl_640k, ppo_solo, ppo_solo_rl, ppo_solo_rl_3m, "
    "ppo_solo_rl_small"
)
SB3_CASES = [
    (
        ["play", "--bots", "sb3:model=missing.zip,random"],
        "no model file at missing.zip and no shipped model of that name; shipped models: "
        + SHIPPED,
    ),
    (
        ["train", "evaluate", "ppo_trio"],
        "shipped models: " + SHIPPED,
    ),
    (["train", "evaluate", "{bad}"], "bad.zip is not a saved model (not a zip file)"),
    (["train", "export", "{bad}", "-o", "{empty}/x.zip"], "is not a saved model"),
    (
        ["train", "solo", "--out", "{empty}/run", "--no-such-option"],
        "unrecognized arguments: --no-such-option",
    ),
    (["train", "multi", "--total-timesteps", "many"], "argument --total-timesteps"),
    # a model of other rules: refused before the progress bar (one line on stderr)
    (["solo-bench", "--bot", "sb3:model=ppo_duel", "--deals", "1"], "rules differ"),
]


@pytest.mark.parametrize(
    "argv, message",
    CASES + (SB3_CASES if HAS_SB3 else []),
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_user_mistake_is_one_error_line_and_status_2(argv, message, files, capsys):
    argv = [a.format(**files) for a in argv]
    code, out, err = run_cli(argv, capsys)
    assert code == 2
    assert "Traceback" not in err
    last = err.rstrip("\n").splitlines()[-1]
    assert ERROR_LINE.match(last), err
    assert message.format(**files) in last
    assert err.count("\n") == 1 and "usage:" not in err  # one line, argparse's too
    assert out == ""  # refused before any work
    assert not any(Path(files["empty"]).iterdir())  # and nothing left behind


def test_debug_shows_the_traceback(files):
    argv = [sys.executable, "-m", "carcassonne_env.cli", "render", files["broken"]]
    plain = subprocess.run(argv, capture_output=True, text=True)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    assert plain.stderr.startswith("carcassonne: error: ")
    for debug in (argv[:3] + ["--debug"] + argv[3:], argv + ["--debug"]):
        run = subprocess.run(debug, capture_output=True, text=True)
        assert run.returncode == 1 and "Traceback" in run.stderr
        assert "ValueError" in run.stderr


def test_arena_help_does_not_offer_the_solo_variant(capsys):
    code, out, _ = run_cli(["arena", "--help"], capsys)
    assert code == 0 and "--players" in out
    assert "--solo" not in out and "--solo-colours" not in out


def test_game_names_a_bad_seed():
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer, got -1"):
        Game(seed=-1)
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer, got '3'"):
        Game(seed="3")
    assert (
        Game(seed=np.int64(3)).to_record()["tile_order"] == Game(seed=3).to_record()["tile_order"]
    )


def test_run_benchmarks_checks_its_counts_first():
    from carcassonne_env.speed import run_benchmarks

    with pytest.raises(ValueError, match="games must be a positive integer, got -1"):
        run_benchmarks(games=-1)  # before the cold-start measurement, which takes ~25 s


# --- output files: checked before the work; no folder made, no file replaced unasked ------


def test_play_record_and_render_write_into_existing_folders_only(files, tmp_path, capsys):
    record = tmp_path / "a" / "game.json"
    code, _, err = run_cli(["play", "--seed", "2", "--record", str(record)], capsys)
    assert (code, err) == (
        2,
        f"carcassonne: error: {record}: {record.parent} does not exist (create the folder first)\n",
    )
    assert not record.parent.exists()
    record.parent.mkdir()
    assert run_cli(["play", "--seed", "2", "--record", str(record)], capsys)[0] == 0
    assert Game.from_record(json.loads(record.read_text())).done
    for name, magic in (
        ("board.png", b"\x89PNG"),
        ("board.jpg", b"\xff\xd8\xff"),
        ("board.JPEG", b"\xff\xd8\xff"),
        ("board.bmp", b"BM"),
    ):
        image = tmp_path / name
        code, out, _ = run_cli(["render", str(record), "-o", str(image), "--cell", "8"], capsys)
        assert code == 0 and f"written to {image}" in out
        assert image.read_bytes().startswith(magic)
    code, _, err = run_cli(["render", str(record), "-o", str(tmp_path / "c" / "b.png")], capsys)
    assert code == 2 and "does not exist (create the folder first)" in err
    assert not (tmp_path / "c").exists()


def test_solo_bench_outputs_go_into_existing_folders(tmp_path, capsys):
    out = tmp_path / "out"
    argv = [
        "solo-bench",
        "--bot",
        "random",
        "--deals",
        "2",
        "--no-progress",
        "--json",
        str(out / "r.json"),
        "--csv",
        str(out / "r.csv"),
    ]
    if HAS_MPL:
        argv += ["--hist", str(out / "r.png")]
    code, stdout, err = run_cli(argv, capsys)
    assert (code, stdout) == (2, "") and f"{out} does not exist" in err
    assert not out.exists()
    out.mkdir()
    code, stdout, _ = run_cli(argv, capsys)
    assert code == 0 and "| random |" in stdout
    assert json.loads((out / "r.json").read_text())["bot"] == "random"
    assert len((out / "r.csv").read_text().splitlines()) == 3  # header + 2 deals
    if HAS_MPL:
        assert (out / "r.png").read_bytes().startswith(b"\x89PNG")


def test_arena_makes_its_folders_inside_existing_ones_only(tmp_path, capsys):
    out, records = tmp_path / "out", tmp_path / "records"
    argv = ["arena", "--bots", "random,greedy", "--games", "2", "--no-progress"]
    code, _, err = run_cli([*argv, "--out", str(tmp_path / "x" / "out")], capsys)
    assert code == 2 and f"{tmp_path / 'x'} does not exist (create the folder first)" in err
    code, _, _ = run_cli([*argv, "--out", str(out), "--records", str(records)], capsys)
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "games.csv",
        "leaderboard.csv",
        "leaderboard.md",
        "summary.json",
    ]
    assert len(list(records.glob("*.json"))) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "records"]


def test_output_file_refuses_a_folder_a_missing_folder_and_an_existing_file(tmp_path):
    from carcassonne_env.checks import output_file

    with pytest.raises(ValueError, match="/p/q does not exist"):
        output_file(tmp_path / "p" / "q" / "f.txt")
    (tmp_path / "p").mkdir()
    with pytest.raises(ValueError, match="is a folder"):
        output_file(tmp_path / "p")
    output_file(tmp_path / "p" / "f.txt")  # a new file in an existing folder
    (tmp_path / "p" / "f.txt").write_text("x")
    with pytest.raises(ValueError, match="f.txt exists; pass --overwrite to replace it"):
        output_file(tmp_path / "p" / "f.txt")
    output_file(tmp_path / "p" / "f.txt", overwrite=True)
    with pytest.raises(ValueError, match=r"f.txt is not a folder \(create the folder first\)"):
        output_file(tmp_path / "p" / "f.txt" / "g.txt")
    output_file(None)
    assert sorted(Path(tmp_path).rglob("*")) == [tmp_path / "p", tmp_path / "p" / "f.txt"]


# --- issue 28: one-line argparse errors, Ctrl-C keeps the work -------------------------


@pytest.mark.parametrize(
    "argv, line",
    [
        (
            ["play", "--seed", "x"],
            "carcassonne play: error: argument --seed: expected an "
            "integer, got 'x' (see carcassonne play --help)",
        ),
        (
            [],
            "carcassonne: error: the following arguments are required: command (see "
            "carcassonne --help)",
        ),
        (
            ["arena", "--solo"],
            "carcassonne arena: error: unrecognized arguments: --solo (see carcassonne "
            "arena --help)",
        ),
    ],
)
def test_argparse_errors_are_one_line_pointing_to_help(argv, line, capsys):
    code, out, err = run_cli(argv, capsys)
    assert (code, out, err) == (2, "", line + "\n")


def test_play_without_bots_seats_one_default_bot_per_player(capsys):
    code, out, _ = run_cli(["play", "--players", "3", "--seed", "1"], capsys)
    assert code == 0 and "seat 2 (random)" in out and "seat 1 (greedy)" in out


def test_a_bad_bot_option_lists_that_bots_options():
    from carcassonne_env import make_bot

    with pytest.raises(
        ValueError, match="unknown option 'iterashuns'; mcts takes iterations, c, trees"
    ):
        make_bot("mcts:iterashuns=5")


def test_the_missing_extra_hint_works_from_a_checkout():
    from carcassonne_env.checks import install_hint

    assert install_hint("train") == f'pip install -e "{ROOT}[train]"'


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["train", "evaluate", "ppo_solo", "--opponents", "greedy", "--deals", "2"],
            "--opponents is for a multi-player model; ppo_solo is a solo model (it takes --deals)",
        ),
        (
            ["train", "evaluate", "ppo_duel", "--deals", "5", "--games", "2"],
            "--deals is for a solo model; ppo_duel is a 2-player model (it takes --opponents, "
            "--games)",
        ),
        (
            ["train", "solo", "--out", "x", "--preset", "board", "--candidate-moves", "64"],
            "--candidate-moves sets the candidates policy; this run uses --policy board (add "
            "--policy candidates to use it)",
        ),
        (
            ["train", "solo", "--out", "x", "--policy", "candidates", "--channels", "8"],
            "--channels sets the board policy; this run uses --policy candidates",
        ),
    ],
)
def test_training_options_the_run_would_ignore_are_refused(argv, message, capsys):
    pytest.importorskip("sb3_contrib")
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and message in err and err.count("\n") == 1


def test_training_script_errors_are_one_line_too(capsys):
    pytest.importorskip("sb3_contrib")
    code, _, err = run_cli(["train", "solo", "--out", "x", "--nope"], capsys)
    assert (code, err) == (
        2,
        "carcassonne train solo: error: unrecognized arguments: --nope "
        "(see carcassonne train solo --help)\n",
    )
    with pytest.raises(SystemExit):
        main(["train", "rllib", "--help"])
    assert capsys.readouterr().out.startswith("usage: carcassonne train rllib ")


def test_render_draws_the_first_moves_of_a_finished_game(tmp_path, capsys):
    record = tmp_path / "game.json"
    assert run_cli(["play", "--seed", "2", "--record", str(record)], capsys)[0] == 0
    code, out, _ = run_cli(
        ["render", str(record), "--moves", "3", "-o", str(tmp_path / "b.png"), "--cell", "8"],
        capsys,
    )
    assert code == 0 and out == f"board after 3 moves written to {tmp_path / 'b.png'}\n"


def test_ctrl_c_in_the_arena_reports_and_saves_the_games_played(tmp_path, capsys, monkeypatch):
    import agents.arena

    interrupt_on_call(monkeypatch, agents.arena, "_play_game", 4)  # in the 2nd batch
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        ["arena", "--bots", "random,greedy", "--games", "4", "--no-progress", "--out", str(out)],
        capsys,
    )
    assert code == 130
    assert err.splitlines()[-1] == (
        f"carcassonne: interrupted: 2 of 4 games played; their "
        f"results are above and in {out}; add --resume to play "
        "the rest"
    )
    assert "Interrupted: partial results of the 2 games played" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["complete"], summary["games_played"]) == (False, 2)
    assert [s["games"] for s in summary["leaderboard"]] == [2, 2]
    assert len((out / "games.csv").read_text().splitlines()) == 3
    assert (out / "leaderboard.md").read_text() == stdout


def test_ctrl_c_in_the_arena_before_any_game_is_one_line(capsys, monkeypatch):
    import agents.arena

    interrupt_on_call(monkeypatch, agents.arena, "_play_game", 1)
    code, out, err = run_cli(["arena", "--games", "2", "--no-progress"], capsys)
    assert (code, out, err) == (130, "", "carcassonne: interrupted: 0 of 2 games played\n")


def test_ctrl_c_in_solo_bench_reports_and_saves_the_deals_played(tmp_path, capsys, monkeypatch):
    import agents.solo_bench

    interrupt_on_call(monkeypatch, agents.solo_bench, "play_deal", 3)
    json_out = tmp_path / "r.json"
    code, stdout, err = run_cli(
        ["solo-bench", "--bot", "random", "--deals", "4", "--no-progress", "--json", str(json_out)],
        capsys,
    )
    assert code == 130
    assert err.splitlines()[-1] == (
        "carcassonne: interrupted: random: 2 of 4 deals played; "
        "the results of the deals played are above and in the "
        "files written; add --resume to play the rest"
    )
    assert "| random |" in stdout
    data = json.loads(json_out.read_text())
    assert data["summary"]["deals"] == 2 and [r["deal_seed"] for r in data["rows"]] == [0, 1]


def test_ctrl_c_in_solo_solve_keeps_the_best_line(tmp_path, capsys, monkeypatch):
    import agents.solo_solve
    from carcassonne_env.cli_errors import Interrupted

    interrupt_on_call(monkeypatch, agents.solo_solve, "_pass", 2)  # after the first pass
    with pytest.raises(Interrupted) as stop:
        agents.solo_solve.solve_deal(3, seconds=600, top_ks=(1, 2))
    best = stop.value.partial
    assert [p["top_k"] for p in best.passes] == [1] and stop.value.kept == "after 1 pass(es)"

    def solve_deal(*args, **kwargs):
        raise stop.value

    monkeypatch.setattr(agents.solo_solve, "solve_deal", solve_deal)
    out = tmp_path / "line.json"
    code, stdout, err = run_cli(["solo-solve", "--deal", "3", "-o", str(out)], capsys)
    assert code == 130
    assert err.splitlines()[-1] == (
        f"carcassonne: interrupted: after 1 pass(es); the best line found so far is in {out}"
    )
    game = Game.from_record(json.loads(out.read_text()))
    assert game.done and game.result == best.result
    assert f"best line found {best.result}" in stdout


def test_ctrl_c_in_other_commands_is_one_line(capsys, monkeypatch):
    import carcassonne_env.speed

    def interrupted(**_):
        raise KeyboardInterrupt

    monkeypatch.setattr(carcassonne_env.speed, "run_benchmarks", interrupted)
    code, out, err = run_cli(["bench", "--no-cold"], capsys)
    assert (code, out, err) == (130, "", "carcassonne: interrupted: stopped by Ctrl-C\n")


def test_a_real_ctrl_c_stops_arena_workers_without_tracebacks(tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it: the workers
    ignore it, the parent stops them and reports the games played."""
    import os
    import signal
    import time

    out, records = tmp_path / "out", tmp_path / "records"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "carcassonne_env.cli",
            "arena",
            "--bots",
            "random,greedy",
            "--games",
            "20000",
            "--workers",
            "2",
            "--no-progress",
            "--out",
            str(out),
            "--records",
            str(records),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )
    try:
        deadline = time.monotonic() + 300
        # Two records: the parent writes a game's record, then counts it, so the second
        # record means the first game is counted (one record alone may be caught
        # between its write and its count, and then 0 games are reported).
        while not (records.is_dir() and len(list(records.glob("*.json"))) >= 2):
            assert run.poll() is None and time.monotonic() < deadline
            time.sleep(0.5)
        os.killpg(run.pid, signal.SIGINT)
        stdout, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    played = len(list(records.glob("*.json")))
    assert stderr.splitlines()[-1].startswith("carcassonne: interrupted: ")
    assert " of 20000 games played; their results are above and in " in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and 0 < summary["games_played"] <= played
    assert "Interrupted: partial results" in stdout


@pytest.mark.parametrize("command", ["play", "arena", "solo-bench"])
def test_help_words_are_current(command, capsys):
    """Issue 28 §7: no stale restrictions in the help."""
    code, out, _ = run_cli([command, "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0 and "for now" not in text
    assert "Traders & Builders: trade goods, the builder, the pig" in text
    if command == "solo-bench":
        assert "solo-search, sb3:model=ppo_solo" in text


def test_scripts_end_a_ctrl_c_in_one_line(capsys):
    """`python -m training.<script>` ends a Ctrl-C (or SIGTERM) as `carcassonne` does:
    the kept work in one line, exit status 130, no traceback."""
    from carcassonne_env.cli_errors import Interrupted, run_script

    def kept():
        raise Interrupted("300 timesteps saved to runs/x/checkpoints/model_300_steps.zip")

    def bare():
        raise KeyboardInterrupt

    assert run_script(kept) == 130
    assert capsys.readouterr().err == (
        "carcassonne: interrupted: 300 timesteps saved to runs/x/checkpoints/model_300_steps.zip\n"
    )
    assert run_script(bare) == 130
    assert capsys.readouterr().err == "carcassonne: interrupted: stopped by Ctrl-C\n"
    assert run_script(lambda: 0) == 0
    training = ROOT / "training"
    scripts = [
        p
        for p in training.glob("*.py")  # (the RLlib example: ray stops itself)
        if "__main__" in p.read_text()
    ]
    assert len(scripts) >= 8
    for script in scripts:
        assert "raise SystemExit(run_script(main))" in script.read_text(), script
