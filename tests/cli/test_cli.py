"""The `carcassonne` command line."""

from __future__ import annotations

import json
import subprocess
import sys

from carcassonne_env import Game
from carcassonne_env.cli import main


def test_play_prints_board_and_scores(capsys, tmp_path):
    record = tmp_path / "game.json"
    assert main(["play", "--seed", "3", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "seat 0 (random):" in out and "seat 1 (greedy):" in out
    assert "game over (tiles)" in out
    game = Game.from_record(json.loads(record.read_text()))
    assert game.done and f"seat 1 (greedy): {game.scores[1]}" in out


def test_play_is_reproducible(capsys):
    main(["play", "--seed", "5", "--players", "3", "--bots", "greedy"])
    first = capsys.readouterr().out
    main(["play", "--seed", "5", "--players", "3", "--bots", "greedy"])
    assert capsys.readouterr().out == first


def test_play_solo_and_options(capsys):
    assert main(["play", "--solo", "--bots", "greedy", "--seed", "1"]) == 0
    assert "solo result (lowest colour)" in capsys.readouterr().out
    assert main(["play", "--hand-size", "3", "--farm-scoring", "city", "--small-city"]) == 0


def test_bad_options_give_an_error_not_a_trace(capsys):
    assert main(["play", "--players", "9"]) == 2
    assert "players must be" in capsys.readouterr().err
    assert main(["play", "--bots", "random,random,random"]) == 2
    assert capsys.readouterr().err == (
        "carcassonne: error: --bots needs 2 specs (one per seat; "
        "or one for every seat), got 3: random,random,random\n"
    )
    assert main(["play", "--bots", "alphago,random"]) == 2
    assert "unknown bot 'alphago'" in capsys.readouterr().err


def test_console_script_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "carcassonne_env.cli", "play", "--seed", "1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "scores" in out
