"""Human play (`carcassonne play --human`): the session logic, the HTTP server, the
terminal fallback and the command line. Browser tests: tests/test_play_browser.py."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agents import make_agent
from carcassonne_env import Game, IllegalMoveError, Rules
from carcassonne_env.cli import main
from carcassonne_env.viewer.play import HumanSession, make_server, play_tui


def first_legal(session: HumanSession) -> tuple:
    legal = session.legal()
    tile = next(iter(legal))
    cell = next(iter(legal[tile]))
    rot = next(iter(legal[tile][cell]))
    x, y = map(int, cell.split(","))
    follower = legal[tile][cell][rot][-1]
    return x, y, int(rot), follower, tile if session.rules.hand_size > 1 else None


def test_session_plays_bots_and_refuses_illegal(tmp_path):
    path = tmp_path / "h.json"
    session = HumanSession(Rules(players=3), [make_agent("heuristic", seed=1),
                                              make_agent("random", seed=2)],
                           human_seat=1, seed=4, record=path, names=["heuristic", "random"])
    assert session.human_to_move() and session.game.turn == 1  # seat 0 (a bot) played
    assert [m["seat"] for m in session.bot_moves] == [0]
    with pytest.raises(IllegalMoveError, match="shares no edge"):
        session.move(9, 9, 0)
    with pytest.raises(IllegalMoveError, match="x must be an integer"):
        session.move("a", 0, 0)
    assert session.game.turn == 1
    while not session.game.done:
        session.move(*first_legal(session))
    record = json.loads(path.read_text())
    assert record["bots"] == ["heuristic", "human", "random"]
    assert Game.from_record(record).scores == session.game.scores
    with pytest.raises(IllegalMoveError, match="over"):
        session.move(0, 1, 0)


def test_solo_and_strategic_hands():
    session = HumanSession(Rules(variant="solo"), [], seed=3)
    for _ in range(5):
        session.move(*first_legal(session))
    assert session.game.turn == 5 and session.state()["human_to_move"]
    hands = HumanSession(Rules(hand_size=3), [make_agent("greedy", seed=0)], seed=3)
    x, y, r, f, tile = first_legal(hands)
    assert tile in hands.game.hand
    hands.move(x, y, r, f, tile)
    assert hands.game.turn == 2
    with pytest.raises(ValueError, match="bots"):
        HumanSession(Rules(), [], seed=1)


def test_http_server(tmp_path):
    session = HumanSession(Rules(), [make_agent("greedy", seed=0)], seed=8,
                           record=tmp_path / "r.json")
    server = make_server(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        html = urllib.request.urlopen(url + "/").read().decode()
        assert html.startswith("<!DOCTYPE html>") and "/*DATA*/" not in html
        state = json.loads(urllib.request.urlopen(url + "/state").read())
        assert state["human_to_move"] and state["legal"]

        def post(body):
            req = urllib.request.Request(url + "/move", data=json.dumps(body).encode(),
                                         method="POST")
            try:
                with urllib.request.urlopen(req) as resp:
                    return resp.status, json.loads(resp.read())
            except urllib.error.HTTPError as err:
                return err.code, json.loads(err.read())

        status, data = post({"x": 0, "y": 0, "rotation": 0})
        assert status == 400 and "already holds a tile" in data["error"]
        status, data = post([1, 2])
        assert status == 400 and "JSON object" in data["error"]
        x, y, r, f, _ = first_legal(session)
        status, data = post({"x": x, "y": y, "rotation": r, "follower": f})
        assert status == 200 and data["state"]["turn"] == 2
        assert len(data["state"]["bot_moves"]) == 1
    finally:
        server.shutdown()
        server.server_close()


def test_tui_scripted(tmp_path):
    session = HumanSession(Rules(), [make_agent("random", seed=0)], seed=2,
                           record=tmp_path / "t.json")
    x, y, r, f, _ = first_legal(session)
    lines = iter(["9 9 0", "hello", "list", f"{x} {y} {r} {f or '-'}", "quit"])
    out: list[str] = []
    play_tui(session, read=lambda _: next(lines), say=out.append)
    text = "\n".join(out)
    assert "refused: cell (9, 9) shares no edge" in text
    assert "refused: type: x y rotation" in text
    assert session.game.turn == 2
    assert json.loads((tmp_path / "t.json").read_text())["moves"][0]["x"] == x


def test_cli_human_errors(capsys):
    for argv, words in ((["play", "--human", "--bots", "random"], "--against"),
                        (["play", "--human", "--players", "3", "--against", "a,b,c"],
                         "needs 2 bot specs"),
                        (["play", "--human", "--solo", "--against", "random"], "solo"),
                        (["play", "--tui"], "needs --human"),
                        (["play", "--human", "--against", "nope"], "unknown bot"),
                        (["play", "--human", "--seat", "2"], "--seat")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("carcassonne: error:") and words in err, (argv, err)


def test_cli_server_stops_cleanly_on_ctrl_c(tmp_path):
    """`carcassonne play --human --no-browser`: serves on 127.0.0.1, Ctrl-C (SIGINT) ends it
    with status 0 and the record of the moves so far."""
    record = tmp_path / "h.json"
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "carcassonne_env.cli", "play", "--human", "--against",
         "greedy", "--no-browser", "--record", str(record), "--seed", "3"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, CARCASSONNE_NO_COMPILE_NOTICE="1"))
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        state = json.loads(urllib.request.urlopen(url + "state", timeout=60).read())
        assert state["human_to_move"] and state["turn"] == 0
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err
    assert json.loads(record.read_text())["moves"] == []


def test_against_a_trained_policy():
    pytest.importorskip("sb3_contrib")
    session = HumanSession(Rules(), [make_agent("sb3:model=ppo_duel", seed=0)], seed=5,
                           human_seat=1, names=["sb3:model=ppo_duel"])
    assert session.game.turn == 1 and session.bot_moves[0]["name"] == "sb3:model=ppo_duel"
    session.move(*first_legal(session))
    assert session.game.turn == 3 and session.human_to_move()
