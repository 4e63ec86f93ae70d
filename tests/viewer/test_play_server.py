"""The play server (`carcassonne play --human`) answers its own page only: the session's
token, its own Host and Origin, JSON moves of bounded size and range; a threaded server
that an idle connection does not block and a failure does not stop; SIGTERM saves the
record as Ctrl-C does; the default record is never written over."""

from __future__ import annotations

import base64
import hashlib
import http.client
import io
import json
import re
import signal
import socket
import sys
import threading
import time
import urllib.request

import pytest

from carcassonne_env import Game, Rules, make_bot
from carcassonne_env.cli import main
from carcassonne_env.viewer.play import HumanSession, make_server
from tests.support.play_sessions import first_legal, serve_human_game


@pytest.fixture
def served(tmp_path):
    """A server of a new game against greedy (the person, seat 0, to move), running."""
    session = HumanSession(
        Rules(), [make_bot("greedy", seed=0)], seed=8, record=tmp_path / "r.json"
    )
    server = make_server(session)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield server
    server.shutdown()
    server.server_close()


def ask(
    server,
    method: str,
    path: str,
    body: object = None,
    headers: dict[str, str] | None = None,
    token: bool = True,
) -> tuple[int, dict, dict]:
    """(status, headers, JSON body) of one request; by default with the session's token
    and, with a body, as application/json (`headers` override or add)."""
    sent = {"X-Carcassonne-Token": server.token} if token else {}
    if body is not None:
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    try:
        connection.request(method, path, None if body is None else json.dumps(body), sent)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        connection.close()


def raw(server, head: str, timeout: float = 5) -> tuple[int, bytes]:
    """(status, body) of a request written by hand: `head`, the request line and headers
    (no body is sent)."""
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=timeout) as s:
        s.sendall(head.encode() + b"\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def legal_move(session: HumanSession) -> dict:
    x, y, r, f, _ = first_legal(session)
    return {"x": x, "y": y, "rotation": r, "follower": f}


def test_the_page_and_the_api_need_the_token(served):
    session, port = served.session, served.server_address[1]
    assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/\?token=[\w-]{{32}}", served.url)
    status, _, data = ask(served, "GET", "/", token=False)
    assert status == 403 and "token is missing or wrong" in data["error"]
    assert ask(served, "GET", "/?token=nope", token=False)[0] == 403
    with urllib.request.urlopen(served.url) as page:
        html = page.read().decode()
    assert f'"token":"{served.token}"' in html
    for headers in ({}, {"X-Carcassonne-Token": "nope"}):
        assert ask(served, "GET", "/state", headers=headers, token=False)[0] == 403
        status, _, data = ask(served, "POST", "/move", legal_move(session), headers, token=False)
        assert status == 403 and "token" in data["error"]
    assert session.game.turn == 0  # nothing played
    status, _, data = ask(served, "GET", "/state")
    assert status == 200 and data["turn"] == 0 and data["human_to_move"]
    status, _, data = ask(served, "POST", "/move", legal_move(session))
    assert status == 200 and data["state"]["turn"] == 2 and session.game.turn == 2


def test_a_foreign_host_or_origin_is_refused(served):
    """DNS rebinding (another name for 127.0.0.1) and other sites' pages are refused,
    token or not; the server's own names and origins are answered."""
    session, port = served.session, served.server_address[1]
    move = legal_move(session)
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}"):
        status, _, data = ask(served, "GET", "/state", headers={"Host": host})
        assert status == 421 and data == {"error": f"this server answers as 127.0.0.1:{port} only"}
        assert ask(served, "POST", "/move", move, {"Host": host})[0] == 421
        assert (
            ask(
                served,
                "GET",
                served.url[len(f"http://127.0.0.1:{port}") :],
                headers={"Host": host},
                token=False,
            )[0]
            == 421
        )
    for origin in (
        "http://evil.example",
        "null",
        f"http://evil.example:{port}",
        f"https://127.0.0.1:{port}",
        f"http://127.0.0.1:{port + 1}",
    ):
        status, _, data = ask(served, "POST", "/move", move, {"Origin": origin})
        assert status == 403 and data == {"error": "requests from other sites' pages are refused"}
    assert session.game.turn == 0
    assert ask(served, "GET", "/state", headers={"Host": f"LOCALHOST:{port}"})[0] == 200
    status, _, data = ask(
        served,
        "POST",
        "/move",
        move,
        {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
    )
    assert status == 200 and session.game.turn == 2


def test_a_move_must_be_sent_as_json(served):
    """A cross-site form or a `text/plain` fetch (no preflight) cannot send a move."""
    session = served.session
    for kind in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/jsonx",
    ):
        status, _, data = ask(served, "POST", "/move", legal_move(session), {"Content-Type": kind})
        assert status == 415 and data["error"] == (
            f"a move is sent as application/json, not {kind!r}"
        )
    assert session.game.turn == 0
    status, _, _ = ask(
        served,
        "POST",
        "/move",
        legal_move(session),
        {"Content-Type": "application/json; charset=utf-8"},
    )
    assert status == 200 and session.game.turn == 2


@pytest.mark.parametrize(
    "length, status, words",
    [
        ("65537", 413, "a move is at most 65536 bytes, got '65537'"),
        ("99999999999", 413, "a move is at most 65536 bytes"),
        ("-1", 400, "Content-Length must be a number of bytes, got '-1'"),
        ("1e11", 400, "Content-Length must be a number of bytes, got '1e11'"),
        ("1_0", 400, "Content-Length must be a number of bytes, got '1_0'"),
        (None, 411, "one Content-Length header needed"),
    ],
)
def test_a_body_too_long_or_of_no_length_is_refused_unread(served, length, status, words):
    """The length is judged before the body is read: the answer comes at once, though
    no body is sent."""
    head = (
        f"POST /move HTTP/1.1\r\nHost: 127.0.0.1:{served.server_address[1]}\r\n"
        f"X-Carcassonne-Token: {served.token}\r\nContent-Type: application/json\r\n"
        + (f"Content-Length: {length}\r\n" if length is not None else "")
    )
    start = time.monotonic()
    got, body = raw(served, head, timeout=3)
    assert time.monotonic() - start < 2
    assert got == status and words in json.loads(body)["error"]
    assert served.session.game.turn == 0


def test_an_idle_connection_blocks_no_one(served):
    """A connection that sends half a request and waits: others are answered meanwhile,
    and the server closes it after `idle_timeout` seconds."""
    served.idle_timeout = 1.5
    port = served.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=5) as idle:
        idle.sendall(b"GET /state HTTP/1.1\r\n")
        start = time.monotonic()
        time.sleep(0.1)  # the server's thread is now waiting on it
        status, _, data = ask(served, "GET", "/state")
        assert status == 200 and data["turn"] == 0
        assert time.monotonic() - start < 1.0  # not after the idle one's timeout
        assert idle.recv(1024) == b""  # closed by the server (within the 5 s of recv)
        assert 1.4 < time.monotonic() - start < 4


@pytest.mark.parametrize(
    "field, value, error",
    [
        (
            "x",
            10**30,
            "x must be an integer in [-10000, 10000], got 1000000000000000000000000000000",
        ),
        (
            "x",
            10**4000,
            "x must be an integer in [-10000, 10000], got 100000000000000000000000000000...",
        ),
        ("y", -(10**19), "y must be an integer in [-10000, 10000], got -10000000000000000000"),
        ("rotation", 2**63, "rotation must be an integer in [0, 3], got 9223372036854775808"),
        ("rotation", 4, "rotation must be an integer in [0, 3], got 4"),
        ("x", 1.5, "x must be an integer in [-10000, 10000], got 1.5"),
        ("x", True, "x must be an integer in [-10000, 10000], got True"),
        ("y", None, "y must be an integer in [-10000, 10000], got None"),
        (
            "colour",
            "red",
            "unknown move field 'colour' (fields: x, y, rotation, follower, tile, figure)",
        ),
    ],
)
def test_a_number_out_of_range_is_refused_before_the_game(served, field, value, error):
    session = served.session
    move = {**legal_move(session), field: value}
    status, _, data = ask(served, "POST", "/move", move)
    assert status == 400 and data["error"] == error
    assert data["state"]["turn"] == 0 == session.game.turn
    status, _, data = ask(served, "POST", "/move", legal_move(session))  # still up
    assert status == 200 and session.game.turn == 2


def test_a_body_that_is_no_move_is_a_400(served):
    for body, words in (
        (b"[1, 2]", "a move is a JSON object"),
        (b"{", "the move is not JSON: "),
        (b"x" * 10, "the move is not JSON: "),
        (b"\xff\xfe{", "the move is not JSON: "),
        (b"[" * 60000, "the move is not JSON: nested too deeply"),
        (b'{"x": 1e400, "y": 0, "rotation": 0}', "got inf"),
    ):
        connection = http.client.HTTPConnection("127.0.0.1", served.server_address[1], timeout=10)
        connection.request(
            "POST",
            "/move",
            body,
            {"X-Carcassonne-Token": served.token, "Content-Type": "application/json"},
        )
        response = connection.getresponse()
        data = json.loads(response.read())
        connection.close()
        assert response.status == 400 and words in data["error"], (body[:20], data)
    assert served.session.game.turn == 0


def test_a_failure_inside_a_handler_is_a_json_500_and_the_server_goes_on(served, monkeypatch):
    lines: list[str] = []
    served.say_error = lines.append
    session = served.session
    real_state = session.state
    calls = []

    def broken() -> dict:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        return real_state()

    monkeypatch.setattr(session, "state", broken)
    status, headers, data = ask(served, "GET", "/state")
    assert status == 500 and headers["Content-Type"] == "application/json"
    assert data == {"error": "internal error: RuntimeError: boom"}
    assert lines == ["play server: GET /state: RuntimeError: boom"]
    status, _, data = ask(served, "GET", "/state")
    assert status == 200 and data["turn"] == 0
    monkeypatch.setattr(session, "move", lambda *move: 1 / 0)
    status, _, data = ask(served, "POST", "/move", legal_move(session))
    assert status == 500 and data["error"] == "internal error: ZeroDivisionError: division by zero"
    assert lines[1] == "play server: POST /move: ZeroDivisionError: division by zero"
    assert session.lock.acquire(timeout=1)  # the lock was given back
    session.lock.release()
    assert ask(served, "GET", "/state")[0] == 200


def test_answers_forbid_frames_sniffing_and_caching(served):
    with urllib.request.urlopen(served.url) as page:
        headers, html = page.headers, page.read().decode()
    policy = headers["Content-Security-Policy"]
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.DOTALL)
    assert len(scripts) == 2  # the board's script, the page's
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in scripts
    ]
    own = (
        f"default-src 'none'; script-src {' '.join(hashes)}; style-src 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
    )
    assert policy == own + "; frame-ancestors 'none'"  # framing: a header's word only
    assert f'<meta http-equiv="Content-Security-Policy" content="{own}">' in html
    _, api, _ = ask(served, "GET", "/state")
    _, refused, _ = ask(served, "GET", "/state", token=False)
    for h in (headers, api, refused):
        assert h["X-Frame-Options"] == "DENY"
        assert h["X-Content-Type-Options"] == "nosniff"
        assert h["Cache-Control"] == "no-store"
        assert h["Referrer-Policy"] == "no-referrer"
    assert api["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"


def test_moves_sent_at_once_are_played_one_at_a_time(served):
    """Eight copies of the person's move sent together: one is played (and the bot's
    reply), the others are refused by the rules on the board it left."""
    session = served.session
    move = legal_move(session)
    answers: list[int] = []
    threads = [
        threading.Thread(target=lambda: answers.append(ask(served, "POST", "/move", move)[0]))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(answers) == [200] + [400] * 7
    assert session.game.turn == 2 and len(session.record()["moves"]) == 2


def test_sigterm_stops_the_server_and_saves_the_record(tmp_path):
    """`kill` (SIGTERM) of `carcassonne play --human --no-browser`: as Ctrl-C, the record
    of the moves so far is written, status 0, no traceback."""
    record = tmp_path / "h.json"
    proc, url, token = serve_human_game(record)
    try:
        headers = {"X-Carcassonne-Token": token, "Content-Type": "application/json"}
        state = json.loads(
            urllib.request.urlopen(
                urllib.request.Request(url + "/state", headers=headers), timeout=60
            ).read()
        )
        tile = next(iter(state["legal"]))
        cell = next(iter(state["legal"][tile]))
        rotation = next(iter(state["legal"][tile][cell]))
        x, y = map(int, cell.split(","))
        move = {"x": x, "y": y, "rotation": int(rotation), "follower": None}
        urllib.request.urlopen(
            urllib.request.Request(
                url + "/move", json.dumps(move).encode(), headers, method="POST"
            ),
            timeout=60,
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert out.splitlines() == [
        "stopped by SIGTERM",  # after the address line read above
        f"record of 2 moves written to {record}",
    ]
    saved = json.loads(record.read_text())
    assert [(m["x"], m["y"], m["rotation"]) for m in saved["moves"]][0] == (x, y, int(rotation))
    assert len(Game.from_record(saved).moves_played) == 2


def test_the_default_record_is_never_written_over(tmp_path, monkeypatch, capsys):
    """Without --record the game goes to human_game.json, or, when that file exists, to
    the first free human_game-N.json, and the command says so; --record FILE that exists
    is refused in one line before the game, and written as asked with --overwrite."""
    monkeypatch.chdir(tmp_path)
    argv = ["play", "--human", "--tui", "--against", "random", "--seed", "3"]

    def play(*more: str) -> str:
        monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
        assert main(argv + list(more)) == 0
        return capsys.readouterr().out

    out = play()
    assert "exists" not in out and out.rstrip().endswith(
        "record of 0 moves written to human_game.json"
    )
    first = (tmp_path / "human_game.json").read_text()
    (tmp_path / "human_game-2.json").write_text("mine")
    for number in (3, 4):
        out = play()
        assert out.splitlines()[0] == (
            f"human_game.json exists (kept): this game's record goes to human_game-{number}.json"
        )
        assert out.rstrip().endswith(f"record of 0 moves written to human_game-{number}.json")
        assert json.loads((tmp_path / f"human_game-{number}.json").read_text())["moves"] == []
    assert (tmp_path / "human_game.json").read_text() == first
    assert (tmp_path / "human_game-2.json").read_text() == "mine"
    assert main([*argv, "--record", "human_game-2.json"]) == 2  # named, and there
    assert "human_game-2.json exists; pass --overwrite to replace it" in capsys.readouterr().err
    assert (tmp_path / "human_game-2.json").read_text() == "mine"
    out = play("--record", "human_game-2.json", "--overwrite")  # written as asked
    assert "exists" not in out
    assert json.loads((tmp_path / "human_game-2.json").read_text())["moves"] == []
