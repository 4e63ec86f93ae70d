"""Human play (`carcassonne play --human`): the session logic, the HTTP server, the
terminal fallback and the command line. Browser tests: tests/viewer/test_play_browser.py."""

from __future__ import annotations

import io
import json
import signal
import socket
import sys
import threading
import urllib.error
import urllib.request

import pytest

from carcassonne_env import Game, IllegalMoveError, Rules, make_bot
from carcassonne_env.cli import main
from carcassonne_env.viewer.play import HumanSession, make_server, play_tui
from tests.support.play_sessions import (
    a_choice_scores_nothing,
    at_end_bonus,
    builder_first,
    first_legal,
    serve_human_game,
    solo_until,
    to_first_choice,
)
from tests.support.terminal import ctrl_c_as_in_a_terminal


def test_session_plays_bots_and_refuses_illegal(tmp_path):
    path = tmp_path / "h.json"
    session = HumanSession(
        Rules(players=3),
        [make_bot("heuristic", seed=1), make_bot("random", seed=2)],
        human_seat=1,
        seed=4,
        record=path,
        names=["heuristic", "random"],
    )
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
    hands = HumanSession(Rules(hand_size=3), [make_bot("greedy", seed=0)], seed=3)
    x, y, r, f, tile = first_legal(hands)
    assert tile in hands.game.hand
    hands.move(x, y, r, f, tile)
    assert hands.game.turn == 2
    with pytest.raises(ValueError, match="bots"):
        HumanSession(Rules(), [], seed=1)


def test_http_server(tmp_path):
    session = HumanSession(
        Rules(), [make_bot("greedy", seed=0)], seed=8, record=tmp_path / "r.json"
    )
    server = make_server(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    token = {"X-Carcassonne-Token": server.token}
    try:
        assert server.url == f"{url}/?token={server.token}"
        html = urllib.request.urlopen(server.url).read().decode()
        assert html.startswith("<!DOCTYPE html>") and "/*DATA*/" not in html
        state = json.loads(
            urllib.request.urlopen(urllib.request.Request(url + "/state", headers=token)).read()
        )
        assert state["human_to_move"] and state["legal"]

        def post(body):
            req = urllib.request.Request(
                url + "/move",
                data=json.dumps(body).encode(),
                method="POST",
                headers={**token, "Content-Type": "application/json"},
            )
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
    session = HumanSession(
        Rules(), [make_bot("random", seed=0)], seed=2, record=tmp_path / "t.json"
    )
    x, y, r, f, _ = first_legal(session)
    lines = iter(["9 9 0", "hello", "list", f"{x} {y} {r} {f or '-'}", "quit"])
    out: list[str] = []
    play_tui(session, read=lambda _: next(lines), say=out.append, delay=0)
    text = "\n".join(out)
    assert "refused: cell (9, 9) shares no edge" in text
    assert "refused: type: x y rotation" in text
    assert session.game.turn == 2
    assert json.loads((tmp_path / "t.json").read_text())["moves"][0]["x"] == x
    assert out[-1] == f"record of 2 moves written to {tmp_path / 't.json'}"


def reply_line(k: int, n: int, seat: int, name: str, entry: dict, scores: list) -> str:
    """What the terminal says for reply k of n: the record's move `entry`."""
    colour = ("red", "blue", "green")[seat]
    where = f", follower on {entry['follower']}" if entry["follower"] else ""
    return (
        f"reply {k} of {n}: {colour} ({name}) placed {entry['tile']} at "
        f"({entry['x']}, {entry['y']}) rotation {entry['rotation']}{where}; "
        f"scores {scores}"
    )


def test_tui_shows_bot_replies_one_by_one():
    """Issue 28: the bots' replies between two of the person's turns come one line each
    (whose move, what it placed, the scores after it), each followed by the pause, and
    only then the board and the person's prompt; delay 0 never pauses."""

    def play(delay: float) -> tuple[list, HumanSession]:
        session = HumanSession(
            Rules(players=3),
            [make_bot("greedy", seed=1), make_bot("random", seed=2)],
            human_seat=1,
            seed=4,
            names=["greedy", "random"],
        )
        x, y, r, f, _ = first_legal(session)
        lines = iter([f"{x} {y} {r} {f or '-'}", "quit"])
        out: list = []
        play_tui(
            session,
            read=lambda _: next(lines),
            say=out.append,
            delay=delay,
            sleep=lambda s: out.append(("pause", s)),
        )
        return out, session

    out, session = play(0.25)
    moves, scores = session.record()["moves"], session.game.to_record()["scores"]
    assert [m["player"] for m in moves] == [0, 1, 2, 0]
    boards = [k for k, line in enumerate(out) if line == str(session.game)]
    assert out[0] == reply_line(1, 1, 0, "greedy", moves[0], scores[0])
    assert out[1] == ("pause", 0.25)
    assert "turn 1, seat 1 to place" in out[2]  # the board after the bot's reply
    assert out[3].startswith("your turn (blue, seat 1): scores ")
    assert out[4:9] == [
        reply_line(1, 2, 2, "random", moves[2], scores[2]),
        ("pause", 0.25),
        reply_line(2, 2, 0, "greedy", moves[3], scores[3]),
        ("pause", 0.25),
        str(session.game),
    ]
    assert boards == [8] and out[9].startswith("your turn (blue, seat 1)")
    assert out[10] == "stopped after 4 moves; no record kept"
    instant, _ = play(0)
    assert instant == [line for line in out if not isinstance(line, tuple)]


def test_tui_ctrl_c_keeps_the_record(tmp_path, monkeypatch, capsys):
    """Ctrl-C in the terminal game (at the prompt or during the replies' pauses) writes
    the record of the moves so far and ends in one line that says where."""
    from carcassonne_env.cli_errors import Interrupted

    path = tmp_path / "c.json"
    session = HumanSession(Rules(), [make_bot("random", seed=0)], seed=2, record=path)
    x, y, r, f, _ = first_legal(session)
    lines = iter([f"{x} {y} {r} {f or '-'}"])

    def stop(_: float) -> None:
        raise KeyboardInterrupt

    with pytest.raises(Interrupted) as info:
        play_tui(session, read=lambda _: next(lines), say=lambda _: None, sleep=stop)
    assert info.value.kept == f"record of 2 moves written to {path}"
    assert len(json.loads(path.read_text())["moves"]) == 2

    class CtrlC(io.StringIO):
        def readline(self, *args: object) -> str:
            raise KeyboardInterrupt

    record = tmp_path / "cli.json"
    monkeypatch.setattr(sys, "stdin", CtrlC())
    assert (
        main(
            [
                "play",
                "--human",
                "--tui",
                "--seat",
                "1",
                "--against",
                "random",
                "--bot-delay",
                "0",
                "--seed",
                "3",
                "--record",
                str(record),
            ]
        )
        == 130
    )
    out, err = capsys.readouterr()
    first = json.loads(record.read_text())["moves"]
    assert len(first) == 1 and out.startswith("reply 1 of 1: red (random) placed ")
    assert err == f"carcassonne: interrupted: record of 1 moves written to {record}\n"


def test_cli_bot_delay_errors(capsys):
    for argv, words in (
        (["play", "--bot-delay", "1"], "--bot-delay needs --human"),
        (["play", "--human", "--bot-delay", "1"], "--bot-delay needs --tui"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("carcassonne: error:") and words in err, (argv, err)
    for bad, words in (
        ("-1", "must be >= 0 seconds, got -1"),
        ("nan", "got nan"),
        ("soon", "expected seconds, got 'soon'"),
    ):
        with pytest.raises(SystemExit):
            main(["play", "--human", "--tui", "--bot-delay", bad])
        err = capsys.readouterr().err
        assert "--bot-delay" in err and words in err, err


def test_cli_human_errors(capsys):
    for argv, words in (
        (["play", "--human", "--bots", "random"], "--against"),
        (["play", "--human", "--players", "3", "--against", "a,b,c"], "needs 2 bot specs"),
        (["play", "--human", "--solo", "--against", "random"], "solo"),
        (["play", "--tui"], "needs --human"),
        (["play", "--human", "--against", "nope"], "unknown bot"),
        (["play", "--human", "--seat", "2"], "--seat"),
        (["play", "--human", "--scoring-order", "player"], "solo-variant option"),
        (["play", "--solo", "--scoring-order", "player"], "--scoring-order needs --human --solo"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("carcassonne: error:") and words in err, (argv, err)


def test_cli_server_stops_cleanly_on_ctrl_c(tmp_path):
    """`carcassonne play --human --no-browser`: serves on 127.0.0.1, Ctrl-C (SIGINT) ends it
    with status 0 and the record of the moves so far."""
    record = tmp_path / "h.json"
    proc, url, token = serve_human_game(record, preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        request = urllib.request.Request(url + "/state", headers={"X-Carcassonne-Token": token})
        state = json.loads(urllib.request.urlopen(request, timeout=60).read())
        assert state["human_to_move"] and state["turn"] == 0
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err
    assert json.loads(record.read_text())["moves"] == []


def test_against_a_trained_policy():
    pytest.importorskip("sb3_contrib")
    session = HumanSession(
        Rules(),
        [make_bot("sb3:model=ppo_duel", seed=0)],
        seed=5,
        human_seat=1,
        names=["sb3:model=ppo_duel"],
    )
    assert session.game.turn == 1 and session.bot_moves[0]["name"] == "sb3:model=ppo_duel"
    session.move(*first_legal(session))
    assert session.game.turn == 3 and session.human_to_move()


def offered(session: HumanSession) -> set[tuple]:
    """The moves `legal` and `legal_figures` offer: (tile, "x,y", "r", follower, figure)."""
    out = {
        (t, c, r, f, "follower")
        for t, cells in session.legal().items()
        for c, rots in cells.items()
        for r, fs in rots.items()
        for f in fs
    }
    return out | {
        (t, c, r, f, figure)
        for t, cells in session.legal_figures().items()
        for c, rots in cells.items()
        for r, figs in rots.items()
        for figure, fs in figs.items()
        for f in fs
    }


def test_every_figure_and_the_builders_extra_turn():
    """Traders & Builders and Inns & Cathedrals: the large follower, builder and pig are
    offered (`legal_figures`), their supply is in the state, and the builder's extra
    turn is flagged; the bots' replies carry the board after each one."""
    rules = Rules(expansions=("traders_builders", "inns_cathedrals"))
    session = HumanSession(rules, [make_bot("random", seed=0)], seed=0)
    assert session.state()["figures"] == [{"follower": 7, "large": 1, "builder": 1, "pig": 1}] * 2
    figures, extra_seen = set(), False
    while not session.game.done and not extra_seen:
        tile = session.game.current_tile
        assert offered(session) == {
            (tile, f"{m.x},{m.y}", str(m.rotation), m.follower, m.figure)
            for m in session.game.legal_moves()
        }
        figures |= {figure for *_, figure in offered(session)}
        before, move = session.game.turn, builder_first(session)
        session.move(*move)
        state = session.state()
        assert session.record()["moves"][before].get("figure", "follower") == move.figure
        extra_seen = state["extra_turn"]
        # an extra turn: the person moves again at once, no bot reply in between
        assert (session.game.turn == before + 1) == extra_seen
        if not extra_seen:  # the bot's reply, with its own extra turn when it earns one
            assert [m["seat"] for m in state["bot_moves"]] in ([1], [1, 1])
            assert [m["extra"] for m in state["bot_moves"]] in ([False], [False, True])
    assert extra_seen and state["human_to_move"] and state["bot_moves"] == []
    assert figures == {"follower", "large", "builder", "pig"}
    session.move(*builder_first(session))
    last = session.state()["bot_moves"][-1]
    assert last["tiles"] == session.state()["tiles"]
    assert last["scores"] == session.game.scores and "figures" in last
    assert "figures" not in HumanSession(Rules(), [make_bot("random", seed=0)], seed=1).state()


def rule_gains(game: Game, choice: dict) -> list[int]:
    """What the solo rules give each colour for a choice now (docs/rules.md 6.3): its points
    to every majority colour if one of them is lowest, else nothing."""
    scores = game.scores
    lowest = {p for p, v in enumerate(scores) if v == min(scores)}
    points = choice["points"] if lowest & set(choice["majority"]) else 0
    return [points if p in choice["majority"] else 0 for p in range(len(scores))]


def test_solo_scoring_choices():
    session = HumanSession(Rules(variant="solo", scoring_order="player"), [], seed=1)
    to_first_choice(session)
    game = session.game
    state = session.state()
    assert state["decision"] == game.decision != "place"
    assert state["legal"] == {} and state["hand"] == []
    assert state["choices"] == [
        {
            "x": c.move.x,
            "y": c.move.y,
            "rotation": c.move.rotation,
            "follower": c.move.follower,
            "kind": c.kind,
            "tiles": [list(t) for t in c.tiles],
            "points": c.points,
            "majority": list(c.majority),
            "gains": rule_gains(game, {"points": c.points, "majority": c.majority}),
        }
        for c in game.scoring_choices()
    ]
    assert state["phase"] == ("end bonus" if game.decision == "score_follower" else "play")
    assert state["lowest"] == [p for p, v in enumerate(game.scores) if v == min(game.scores)]
    pick = state["choices"][1]
    moves = len(game.to_record()["moves"])
    session.move(pick["x"], pick["y"], pick["rotation"], pick["follower"])
    assert len(game.to_record()["moves"]) == moves + 1
    assert game.to_record()["moves"][-1] == {
        "player": 0,
        "tile": game.board[(pick["x"], pick["y"])].tile,
        "x": pick["x"],
        "y": pick["y"],
        "rotation": pick["rotation"],
        "follower": pick["follower"],
        "decision": state["decision"],
    }


def test_choice_gains_are_what_the_colours_really_score():
    """A feature whose majority colour is not lowest is worth points but scores 0: the
    choices say so (`gains`), and playing it scores exactly that."""
    session = solo_until(a_choice_scores_nothing)
    game = session.game
    state = session.state()
    lowest = state["lowest"]
    assert lowest == [p for p, v in enumerate(game.scores) if v == min(game.scores)]
    for c in state["choices"]:
        assert c["gains"] == rule_gains(game, c)
    zero = next(c for c in state["choices"] if c["points"] and not any(c["gains"]))
    assert not set(zero["majority"]) & set(lowest)
    before, first = list(game.scores), len(game.events)
    session.move(zero["x"], zero["y"], zero["rotation"], zero["follower"])
    event = game.events[first]
    assert event.kind == zero["kind"] and event.points == 0 and event.scorers == ()
    assert event.majority == tuple(zero["majority"])
    assert game.scores != before or len(game.events) > first + 1  # the other scored after


def test_end_bonus_phase_and_gains():
    """Solo end bonus (the game has ended; the person orders the followers): the state
    says the phase; only a lowest colour's follower gains its 2 points."""
    session = solo_until(at_end_bonus)
    game = session.game
    state = session.state()
    assert state["phase"] == "end bonus" and state["end_reason"] in ("A", "B")
    assert state["decision"] == "score_follower" and not state["done"]
    for c in state["choices"]:
        assert c["kind"] == "follower" and c["points"] == 2
        assert c["gains"] == rule_gains(game, c)
    assert any(any(c["gains"]) for c in state["choices"])
    out: list[str] = []
    lines = iter(["quit"])
    play_tui(session, read=lambda _: next(lines), say=out.append, delay=0)
    text = "\n".join(out)
    assert "the game has ended, this is the end bonus" in text
    assert f"lowest: colour {', '.join(map(str, state['lowest']))}" in text
    while not game.done:
        c = session.choices()[0]
        session.move(c["x"], c["y"], c["rotation"], c["follower"])
    assert session.state()["phase"] == "over" and session.state()["choices"] == []


def test_tui_says_a_choice_scores_nothing():
    session = solo_until(a_choice_scores_nothing)
    zero = next(c for c in session.choices() if c["points"] and not any(c["gains"]))
    out: list[str] = []
    lines = iter(["quit"])
    play_tui(session, read=lambda _: next(lines), say=out.append, delay=0)
    colour = zero["majority"][0]
    assert any(
        f"0 to colour {colour} (worth {zero['points']}, but no colour of it is lowest)" in line
        for line in out
    )


def test_tui_figures_extra_turn_and_choices(tmp_path):
    rules = Rules(expansions=("traders_builders",))
    session = HumanSession(rules, [make_bot("random", seed=0)], seed=2, record=tmp_path / "tb.json")
    typed: list[str] = []

    def read(_: str) -> str:
        if session.state()["extra_turn"]:
            return "quit"
        m = builder_first(session)
        typed.append(
            f"{m.x} {m.y} {m.rotation} {m.follower or '-'}"
            + (f" {m.figure}" if m.figure != "follower" else "")
        )
        return typed[-1]

    out: list[str] = []
    play_tui(session, read=read, say=out.append, delay=0)
    assert any(t.endswith(" builder") for t in typed)
    assert [m.get("figure") for m in session.record()["moves"] if m["player"] == 0].count(
        "builder"
    ) == 1
    assert any("followers in supply [" in line and "builder [0, 1]" in line for line in out)
    assert "your builder's extra turn" in out[-2]
    assert out[-1] == f"record of {session.game.turn} moves written to {tmp_path / 'tb.json'}"
    # a bot's move names its figure; a scoring choice is typed as its number
    solo = HumanSession(Rules(variant="solo", scoring_order="player"), [], seed=1)
    to_first_choice(solo)
    choices = solo.choices()
    lines = iter(["0", "list", "2", "quit"])
    out = []
    play_tui(solo, read=lambda _: next(lines), say=out.append, delay=0)
    text = "\n".join(out)
    assert "which scores next?" in text and text.count("\n  2: ") >= 2  # list repeats
    assert "refused: type the number of a choice, 1-" in text
    assert solo.game.to_record()["moves"][-1]["follower"] == choices[1]["follower"]
    assert out[-1] == f"stopped after {len(solo.record()['moves'])} moves; no record kept"


def test_bot_move_words():
    from carcassonne_env.viewer.play import move_words

    move = {
        "seat": 1,
        "name": "heuristic",
        "tile": "TA",
        "x": 2,
        "y": -1,
        "rotation": 3,
        "follower": "road:N",
        "figure": "builder",
        "extra": True,
    }
    assert move_words(move) == (
        "blue (heuristic) placed TA at (2, -1) rotation 3, builder on road:N (builder's extra turn)"
    )


def test_port_out_of_range_or_in_use(capsys):
    """`play --human --port 99999` and a port in use: one line each, before any bot
    plays (no OverflowError traceback)."""
    with pytest.raises(ValueError, match="0-65535"):
        make_server(HumanSession(Rules(), [make_bot("random", seed=0)], seed=1), 99999)
    assert main(["play", "--human", "--port", "99999", "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "carcassonne: error: port must be an integer in 0-65535 (0: a free one), got 99999\n"
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["play", "--human", "--port", str(port), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"carcassonne: error: port {port} on 127.0.0.1 is in use; choose another "
        "with --port, or leave it out for a free one\n"
    )


def test_cli_tui_solo_scoring_order_player(tmp_path, monkeypatch, capsys):
    """`play --human --solo --scoring-order player --tui`: `quit` says where the record
    went, and the record keeps the option."""
    record = tmp_path / "solo.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert (
        main(
            [
                "play",
                "--human",
                "--solo",
                "--scoring-order",
                "player",
                "--tui",
                "--record",
                str(record),
                "--seed",
                "4",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.rstrip().endswith(f"record of 0 moves written to {record}")
    assert json.loads(record.read_text())["rules"]["scoring_order"] == "player"
