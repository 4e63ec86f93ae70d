"""A person plays against bots: in the browser (`carcassonne play --human`, a local server
on 127.0.0.1 built on the standard library's http.server) or in the terminal (`--tui`).

The server owns the `Game`; the page only proposes moves. `HumanSession` is the game
logic (legal placements for the page, the human's move checked by the rules, the bots'
replies, the record), `serve` the HTTP front (`PlayServer`: it answers its own page
only, which holds the session's token), `play_tui` the terminal one.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from ..atomic import write_text
from ..checks import is_int
from ..cli_errors import Interrupted
from ..game import Game, IllegalMoveError, Move
from ..rendering.palette import SEAT_COLOURS, SEAT_NAMES
from ..rendering.text import FIGURE_WORDS
from ..rules import Rules
from . import extra_turn, hex_colour, page, tile_geometry

HUMAN = "human"
BOT_DELAY = 0.8  # seconds between two bot replies in the terminal: the page's default


class HumanSession:
    """One game between a person (at `human_seat`; in solo every colour) and bots.

    Args:
        rules: the rules (solo: the person plays all colours, no bots).
        bots: one agent per other seat, in seat order (empty in solo).
        human_seat: the person's seat.
        seed: the deck's seed.
        record: where the record is written when the game ends (or the session stops).
        names: the bots' specs, for the record and the page.
    """

    def __init__(
        self,
        rules: Rules,
        bots: Sequence[Any],
        human_seat: int = 0,
        seed: int | None = None,
        record: str | os.PathLike[str] | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        self.rules = rules
        self.solo = rules.variant == "solo"
        if self.solo:
            if bots:
                raise ValueError("bots: the solo variant has no opponents")
            human_seat = 0
        elif len(bots) != rules.seats - 1:
            raise ValueError(
                f"bots: {rules.seats} seats need {rules.seats - 1} bots, got {len(bots)}"
            )
        if not 0 <= human_seat < rules.seats:
            raise ValueError(f"human_seat must be in [0, {rules.seats}), got {human_seat}")
        self.human_seat = human_seat
        self.game = Game(rules, seed=seed)
        self.record_path = Path(record) if record is not None else None
        self.seats: list[Any] = list(bots)
        names = list(names) if names is not None else [getattr(b, "name", "bot") for b in bots]
        if not self.solo:
            self.seats.insert(human_seat, None)
            names.insert(human_seat, HUMAN)
        self.names = names if not self.solo else [HUMAN]
        self.bot_moves: list[dict[str, Any]] = []  # the bots' moves since the human's last
        self.saved = False
        # held while the game is read or played: the server answers on several threads
        self.lock = threading.RLock()
        self._play_bots()

    # ---------------------------------------------------------------- game flow
    def human_to_move(self) -> bool:
        """Whether the human's seat is to move (or to choose) now."""
        return not self.game.done and (self.solo or self.game.current_player == self.human_seat)

    def _play_bots(self) -> None:
        game = self.game
        while (seat := game.current_player) is not None and not self.human_to_move():
            extra = extra_turn(game)
            move = self.seats[seat].act(game)
            tile = move.tile or game.current_tile
            game.play(move)
            # with the board after it, for the page to show the replies one by one
            self.bot_moves.append(
                {
                    "seat": seat,
                    "name": self.names[seat],
                    "tile": tile,
                    "x": move.x,
                    "y": move.y,
                    "rotation": move.rotation,
                    "follower": move.follower,
                    "figure": move.figure,
                    "extra": extra,
                    **self._board(),
                }
            )
        if game.done:
            self.save()

    def move(
        self,
        x: Any,
        y: Any,
        rotation: Any,
        follower: Any = None,
        tile: Any = None,
        figure: Any = "follower",
    ) -> None:
        """Play the person's move, then the bots' until the person is to move again.
        Raises IllegalMoveError (state unchanged) for a move the rules refuse."""
        with self.lock:
            if not self.human_to_move():
                raise IllegalMoveError(
                    "the game is over" if self.game.done else "it is not your turn"
                )
            self.game.play(Move(x, y, rotation, follower, tile, figure))
            self.bot_moves = []
            self._play_bots()

    def quit(self) -> str:
        """Stop playing: save the record; returns the line that says where it went."""
        with self.lock:
            path = self.save()
            moves = len(self.game.to_record()["moves"])  # scoring choices included
        if path is None:
            return f"stopped after {moves} moves; no record kept"
        return f"record of {moves} moves written to {path}"

    def record(self) -> dict[str, Any]:
        """The game so far as a record (`Game.to_record`)."""
        rec = self.game.to_record()
        if not self.solo:
            rec["bots"] = list(self.names)
        return rec

    def save(self) -> Path | None:
        """Write the record (if a path was given), whole or not at all
        (`carcassonne_env.atomic`); returns the path."""
        if self.record_path is None:
            return None
        with self.lock:
            self.record_path.parent.mkdir(parents=True, exist_ok=True)
            write_text(self.record_path, json.dumps(self.record()))
            self.saved = True
        return self.record_path

    # ---------------------------------------------------------------- the page's view
    def legal(self) -> dict[str, Any]:
        """Legal tile placements of the person, grouped: tile -> "x,y" -> rotation ->
        followers (null = none); an ordinary follower's spots only (see `legal_figures`).
        Empty at a scoring decision (see `choices`)."""
        return self._legal()[0]

    def legal_figures(self) -> dict[str, Any]:
        """The other figures' spots (large follower, builder, pig; `Rules.figures`):
        tile -> "x,y" -> rotation -> figure -> locations; {} without expansion figures."""
        return self._legal()[1]

    def _legal(self) -> tuple[dict[str, Any], dict[str, Any]]:
        plain: dict[str, Any] = {}
        figures: dict[str, Any] = {}
        if not self.human_to_move() or self.game.decision != "place":
            return plain, figures
        for m in self.game.legal_moves():
            tile = m.tile if m.tile is not None else self.game.hand[0]  # (hand_size 1)
            cell, rot = f"{m.x},{m.y}", str(m.rotation)
            if m.figure == "follower":
                plain.setdefault(tile, {}).setdefault(cell, {}).setdefault(rot, []).append(
                    m.follower
                )
            else:
                figures.setdefault(tile, {}).setdefault(cell, {}).setdefault(rot, {}).setdefault(
                    m.figure, []
                ).append(m.follower)
        return plain, figures

    def choices(self) -> list[dict[str, Any]]:
        """At a scoring decision (solo, ``scoring_order="player"``): the options, each
        the move that takes it (x, y, rotation, follower) with what it scores: `kind`,
        `tiles`, `points` (the feature's value, or 2 for an end-bonus follower) for each
        colour of `majority`, and `gains`, what each colour really gets if this option is
        taken now (per colour; 0 for the majority too when none of its colours is lowest
        now, docs/rules.md 6.3); [] otherwise."""
        if not self.human_to_move():
            return []
        return [
            {
                "x": c.move.x,
                "y": c.move.y,
                "rotation": c.move.rotation,
                "follower": c.move.follower,
                "kind": c.kind,
                "tiles": [list(t) for t in c.tiles],
                "points": c.points,
                "majority": list(c.majority),
                "gains": self._gains(c.move),
            }
            for c in self.game.scoring_choices()
        ]

    def _gains(self, move: Move) -> list[int]:
        """What each colour gets from the scoring choice `move` now: the choice played
        on a copy of the game, read off the scoring event it logs (the rules decide,
        nothing is recomputed here)."""
        game = self.game
        first = len(game.events)
        trial = game.clone()
        trial.play(move)
        event = trial.events[first]  # the chosen one: what follows scores after it
        gains = [0] * self.rules.seats
        for p in event.scorers:
            gains[p] = event.points
        return gains

    def lowest(self) -> list[int]:
        """Solo: the colours tied for the lowest score (those whose features and end
        bonus score now); [] in other games."""
        if not self.solo:
            return []
        scores = self.game.scores
        return [p for p, v in enumerate(scores) if v == min(scores)]

    def phase(self) -> str:
        """What the game is at: "play" (tiles are placed), "end bonus" (solo, the game has
        ended and the person orders the followers' end bonus) or "over"."""
        game = self.game
        if game.done:
            return "over"
        return "end bonus" if game.decision == "score_follower" else "play"

    def _board(self) -> dict[str, Any]:
        game = self.game
        board = game.board
        out = {
            "tiles": [[x, y, p.tile, p.rotation] for (x, y), p in board.items()],
            "followers": [
                [x, y, p.follower[0], p.follower[1], p.figure]
                for (x, y), p in board.items()
                if p.follower is not None
            ],
            "scores": game.scores,
            "supply": game.followers_in_supply,
        }
        if len(self.rules.figures) > 1:  # large follower, builder, pig
            out["figures"] = game.figures_in_supply
        return out

    def state(self) -> dict[str, Any]:
        """What the play page shows now, as JSON-ready data."""
        game = self.game
        legal, figures = self._legal()
        return {
            "turn": game.turn,
            **self._board(),
            "to_move": game.current_player,
            "hand": game.hand,
            "human_to_move": self.human_to_move(),
            "decision": game.decision,
            "extra_turn": extra_turn(game),
            "legal": legal,
            "legal_figures": figures,
            "choices": self.choices(),
            "lowest": self.lowest(),
            "phase": self.phase(),
            "bot_moves": self.bot_moves,
            "done": game.done,
            "result": game.result,
            "end_reason": game.end_reason,
            "tiles_left": game.tiles_left,
            "record": str(self.record_path) if self.saved and self.record_path else None,
        }

    def page_data(self) -> dict[str, Any]:
        """The data the play page starts from (tile drawings, seats, the first state)."""
        seats = self.rules.seats
        return {
            "solo": self.solo,
            "seats": seats,
            "human_seat": self.human_seat,
            "seat_labels": [
                f"{SEAT_NAMES[p % 6]} ({self.names[p] if not self.solo else 'you'})"
                for p in range(seats)
            ]
            if not self.solo
            else [SEAT_NAMES[p % 6] for p in range(seats)],
            "seat_colours": [hex_colour(SEAT_COLOURS[p % len(SEAT_COLOURS)]) for p in range(seats)],
            "geometry": tile_geometry(self.game.tileset),
            "figure_kinds": list(self.rules.figures),
        }


# -------------------------------------------------------------------- HTTP front
TOKEN_HEADER = "X-Carcassonne-Token"
BODY_LIMIT = 64 * 1024  # bytes of a POST body: a move is a few dozen
IDLE_TIMEOUT = 10.0  # seconds a connection may stay silent before it is closed
MAX_COORD = 10_000  # |x|, |y| of a move: far beyond any board, within the core's integers
MOVE_FIELDS = ("x", "y", "rotation", "follower", "tile", "figure")
ServerT = TypeVar("ServerT", bound=HTTPServer)
PAGE_PATHS = ("/", "/index.html")
# What the browser may do with an API answer: nothing but read it from the page.
API_POLICY = "default-src 'none'; frame-ancestors 'none'"


class _Refused(Exception):
    """A request the server answers with `status` and the JSON error `message`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _short(value: Any) -> str:
    """`value` as an error message quotes it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + "..."


def move_of(body: Any) -> Move:
    """The move a ``POST /move`` body proposes: a JSON object of `MOVE_FIELDS` (x, y,
    rotation required); ValueError for anything else, and for x, y outside
    [-MAX_COORD, MAX_COORD] or a rotation outside 0-3, before the game sees it (the
    rules judge the rest)."""
    if not isinstance(body, dict):
        raise ValueError("a move is a JSON object")
    unknown = sorted(set(body) - set(MOVE_FIELDS))
    if unknown:
        raise ValueError(f"unknown move field {unknown[0]!r} (fields: {', '.join(MOVE_FIELDS)})")
    for name, lo, hi in (
        ("x", -MAX_COORD, MAX_COORD),
        ("y", -MAX_COORD, MAX_COORD),
        ("rotation", 0, 3),
    ):
        value = body.get(name)
        if not (is_int(value) and lo <= value <= hi):
            raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {_short(value)}")
    return Move(
        body["x"],
        body["y"],
        body["rotation"],
        body.get("follower"),
        body.get("tile"),
        body.get("figure", "follower"),
    )


def _page_policy(html: str) -> str:
    """The page's Content-Security-Policy header: the policy of its <meta> tag (its own
    scripts only, by hash: `page`), and what only a header can say: no framing."""
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    assert meta is not None, "the page states its policy in a <meta> tag"
    return meta.group(1) + "; frame-ancestors 'none'"


class PlayServer(ThreadingHTTPServer):
    """The play page's server on 127.0.0.1: one thread per connection (daemon threads; a
    silent connection is closed after `idle_timeout` seconds), answering only its own
    page: a request must name the server in its ``Host`` (127.0.0.1:PORT or
    localhost:PORT), carry no foreign ``Origin``, and carry the session's `token` (the
    page's address has it, ``?token=...``; the page sends it in the
    ``X-Carcassonne-Token`` header of every API request). Moves are ``POST /move`` with a
    JSON body of at most `BODY_LIMIT` bytes."""

    daemon_threads = True
    idle_timeout = IDLE_TIMEOUT

    def __init__(
        self,
        address: tuple[str, int],
        session: HumanSession,
        say_error: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.token = secrets.token_urlsafe(24)
        self.say_error = say_error or _say_error
        html = page("play.html", {**session.page_data(), "token": self.token}, "Carcassonne: play")
        self.html = html.encode()
        self.page_policy = _page_policy(html)
        super().__init__(address, _Handler)  # listens from here on
        port = self.server_address[1]
        self.hosts = (f"127.0.0.1:{port}", f"localhost:{port}")
        self.origins = tuple(f"http://{host}" for host in self.hosts)

    @property
    def url(self) -> str:
        """The page's address, with the session's token: what the person opens."""
        return f"http://127.0.0.1:{self.server_address[1]}/?token={self.token}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line on stderr for a failure outside the handler's answer (no traceback);
        nothing for a client that went away."""
        err = sys.exc_info()[1]
        if isinstance(err, ConnectionError):
            return
        self.say_error(
            f"play server: connection {client_address[0]}:{client_address[1]}: "
            f"{type(err).__name__}: {err}"
        )


def _say_error(text: str) -> None:
    print(" ".join(text.split()), file=sys.stderr, flush=True)


class _Handler(BaseHTTPRequestHandler):
    """One request: checked (host, origin, token, body), then answered; a 4xx for a
    request refused, a JSON 500 for a failure, never a dropped connection."""

    server: PlayServer

    # The socket's timeout, read by StreamRequestHandler.setup (an attribute there)
    @property
    def timeout(self) -> float:  # type: ignore[override]
        return self.server.idle_timeout

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._answer(self._get)

    def do_POST(self) -> None:  # noqa: N802
        self._answer(self._post)

    def _answer(self, route: Callable[[], tuple[int, Any]]) -> None:
        """Answer with what `route` returns, (status, JSON data or the page's bytes)."""
        try:
            self._check_sender()
            status, data = route()
            if isinstance(data, bytes):
                self._send(status, data, "text/html; charset=utf-8", self.server.page_policy)
                return
            body = json.dumps(data).encode()
        except _Refused as err:
            status, body = err.status, json.dumps({"error": str(err)}).encode()
        except Exception as err:  # a bug: said in one line, the server goes on
            self.server.say_error(
                f"play server: {self.command} {self._path()}: {type(err).__name__}: {err}"
            )
            status, body = (
                500,
                json.dumps({"error": f"internal error: {type(err).__name__}: {err}"}).encode(),
            )
        self._send(status, body, "application/json", API_POLICY)

    def _send(self, status: int, body: bytes, kind: str, policy: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", policy)
            self.send_header("X-Frame-Options", "DENY")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client left: nobody to answer
            self.close_connection = True

    def _path(self) -> str:
        return urlsplit(self.path).path

    def _check_sender(self) -> None:
        """Refuse a request not addressed to this server by name (DNS rebinding: 421) or
        sent by another site's page (403)."""
        host = (self.headers.get("Host") or "").lower()
        if host not in self.server.hosts:
            raise _Refused(421, f"this server answers as {self.server.hosts[0]} only")
        origin = self.headers.get("Origin")
        if origin is not None and origin.lower() not in self.server.origins:
            raise _Refused(403, "requests from other sites' pages are refused")

    def _check_token(self, token: str | None) -> None:
        if token is None or not secrets.compare_digest(token.encode(), self.server.token.encode()):
            raise _Refused(
                403,
                "this game's token is missing or wrong: open the address "
                "`carcassonne play --human` printed",
            )

    def _get(self) -> tuple[int, Any]:
        parts = urlsplit(self.path)
        if parts.path in PAGE_PATHS:
            self._check_token(parse_qs(parts.query).get("token", [None])[0])
            return 200, self.server.html
        if parts.path == "/favicon.ico":
            return 204, b""
        if parts.path == "/state":
            self._check_token(self.headers.get(TOKEN_HEADER))
            with self.server.session.lock:
                return 200, self.server.session.state()
        raise _Refused(404, f"no page {_short(parts.path)}")

    def _post(self) -> tuple[int, Any]:
        if self._path() != "/move":
            raise _Refused(404, f"no action {_short(self._path())}")
        self._check_token(self.headers.get(TOKEN_HEADER))
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise _Refused(415, f"a move is sent as application/json, not {_short(kind)}")
        body = self._read_body()
        session = self.server.session
        with session.lock:  # the move and the state it leads to, as one
            try:
                session.move(*move_of(body))
            except ValueError as err:  # IllegalMoveError is one
                return 400, {"error": str(err), "state": session.state()}
            return 200, {"ok": True, "state": session.state()}

    def _read_body(self) -> Any:
        """The body as JSON, read only when its length is declared and within the limit."""
        if self.headers.get("Transfer-Encoding"):
            raise _Refused(411, "send the move with a Content-Length, not chunked")
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) != 1:
            raise _Refused(411 if not lengths else 400, "one Content-Length header needed")
        text = lengths[0].strip()
        if not (text.isascii() and text.isdigit()):
            raise _Refused(400, f"Content-Length must be a number of bytes, got {_short(text)}")
        if int(text) > BODY_LIMIT:
            raise _Refused(413, f"a move is at most {BODY_LIMIT} bytes, got {_short(text)}")
        try:
            return json.loads(self.rfile.read(int(text)))
        except TimeoutError:
            raise _Refused(408, "the move's body did not arrive") from None
        except RecursionError:
            raise _Refused(400, "the move is not JSON: nested too deeply") from None
        except ValueError as err:  # json's errors and bad UTF-8
            raise _Refused(400, f"the move is not JSON: {_short(str(err))}") from None


def _bind(port: Any, open_server: Callable[[tuple[str, int]], ServerT]) -> ServerT:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer in 0-65535 (0: a free one), got {port!r}")
    try:
        return open_server(("127.0.0.1", port))
    except OSError as err:
        if err.errno != errno.EADDRINUSE:
            raise
        raise OSError(
            f"port {port} on 127.0.0.1 is in use; choose another with --port, "
            "or leave it out for a free one"
        ) from None


def check_port(port: int) -> None:
    """Raise (one line) now, before the bots play, if the server could not listen on
    `port`: ValueError out of 0-65535, OSError when it is in use."""
    _bind(port, lambda address: HTTPServer(address, BaseHTTPRequestHandler)).server_close()


def make_server(session: HumanSession, port: int = 0) -> PlayServer:
    """A `PlayServer` on 127.0.0.1:`port` (0: a free port) serving `session`'s page
    (``/?token=...``), its state (``GET /state``) and the person's moves
    (``POST /move``); its `url` is the page's address. ValueError for a port outside
    0-65535, OSError for one in use."""
    return _bind(port, lambda address: PlayServer(address, session))


def _say(text: str) -> None:
    print(text, flush=True)


def serve(
    session: HumanSession,
    port: int = 0,
    open_browser: bool = True,
    say: Callable[[str], None] = _say,
) -> None:
    """Serve `session` until Ctrl-C or SIGTERM (under
    `carcassonne_env.cli_errors.sigterm_as_interrupt`, a KeyboardInterrupt as well), then
    save the record of an unfinished game too (after a move being played, if any)."""
    server = make_server(session, port)
    try:
        say(f"playing at {server.url} (Ctrl-C stops)")
        if open_browser:
            webbrowser.open(server.url)
        server.serve_forever()
    except KeyboardInterrupt as err:
        say("stopped by SIGTERM" if err.args == ("SIGTERM",) else "stopped")
    finally:
        server.server_close()
        with session.lock:  # a move the bots are still answering ends first
            if not session.saved:
                if session.record_path is not None:
                    say(session.quit())
            elif session.record_path is not None:
                say(f"record written to {session.record_path}")


# -------------------------------------------------------------------- terminal front
def move_words(m: dict[str, Any]) -> str:
    """A bot's move as the terminal and the page say it."""
    figure = FIGURE_WORDS[m.get("figure") or "follower"]
    return (
        f"{SEAT_NAMES[m['seat'] % 6]} ({m['name']}) placed {m['tile']} at "
        f"({m['x']}, {m['y']}) rotation {m['rotation']}"
        + (f", {figure} on {m['follower']}" if m["follower"] else "")
        + (" (builder's extra turn)" if m.get("extra") else "")
    )


def _choice_words(k: int, c: dict[str, Any]) -> str:
    """A scoring choice as the terminal says it: what each majority colour really gets
    now (`HumanSession.choices`' gains: 0 unless one of them is lowest)."""
    what = "the end bonus of the follower" if c["kind"] == "follower" else f"the {c['kind']}"
    gets = ", ".join(f"{c['gains'][p]} to colour {p}" for p in c["majority"])
    zero = (
        f" (worth {c['points']}, but no colour of it is lowest)"
        if c["points"] and not any(c["gains"][p] for p in c["majority"])
        else ""
    )
    return f"  {k}: {what} at ({c['x']}, {c['y']}) {c['follower']}: {gets}{zero}"


def _parse_move(session: HumanSession, text: str) -> Move:
    """``x y rotation [follower|-] [figure] [tile]`` or, at a scoring decision, the
    number of a choice."""
    parts = text.split()
    choices = session.choices()
    if choices:
        if len(parts) != 1 or not parts[0].isdigit() or not 1 <= int(parts[0]) <= len(choices):
            raise IllegalMoveError(f"type the number of a choice, 1-{len(choices)}")
        c = choices[int(parts[0]) - 1]
        return Move(c["x"], c["y"], c["rotation"], c["follower"])
    if len(parts) < 3:
        raise IllegalMoveError("type: x y rotation [follower|-] [figure] [tile]")
    x, y, r = (int(v) for v in parts[:3])
    follower = parts[3] if len(parts) > 3 and parts[3] != "-" else None
    figure, tile = "follower", None
    for word in parts[4:]:
        if word in session.rules.figures:
            figure = word
        elif tile is None:
            tile = word
        else:
            raise IllegalMoveError(
                f"{word!r} is neither a figure ({', '.join(session.rules.figures)}) nor the tile"
            )
    return Move(x, y, r, follower, tile, figure)


def show_replies(
    session: HumanSession,
    say: Callable[[str], None] = print,
    delay: float = BOT_DELAY,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Say the bots' replies since the person's last move one by one, each on its own
    line (whose move, what it placed, the scores after it), `delay` seconds apart
    (0: at once), as the page shows them; then forget them."""
    moves, session.bot_moves = session.bot_moves, []
    for k, m in enumerate(moves, 1):
        say(f"reply {k} of {len(moves)}: {move_words(m)}; scores {m['scores']}")
        if delay > 0:
            sleep(delay)


def play_tui(
    session: HumanSession,
    read: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    delay: float = BOT_DELAY,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Play `session` in the terminal: the bots' replies one by one, `delay` seconds
    apart (`show_replies`; 0: at once), then the board as text (with every seat's figures
    in supply); moves typed as ``x y rotation [follower|-] [figure] [tile]`` (figure:
    ``large``, ``builder`` or ``pig`` with the expansions), a scoring choice by its
    number; ``list`` shows the legal moves, ``quit`` stops and says where the record went.
    Ctrl-C stops too: the record of the moves so far is written and
    `carcassonne_env.cli_errors.Interrupted` raised, whose `kept` says where."""
    if not 0 <= delay < float("inf"):
        raise ValueError(f"delay must be a number of seconds >= 0, got {delay}")
    try:
        _play_tui(session, read, say, delay, sleep)
    except KeyboardInterrupt:
        raise Interrupted(session.quit()) from None


def _play_tui(
    session: HumanSession,
    read: Callable[[str], str],
    say: Callable[[str], None],
    delay: float,
    sleep: Callable[[float], None],
) -> None:
    game = session.game
    while (seat := game.current_player) is not None:  # None once the game is over
        show_replies(session, say, delay, sleep)
        say(str(game))
        choices = session.choices()
        if choices:
            lowest = ", ".join(map(str, session.lowest()))
            say(
                f"your scoring choice ({game.decision}): which scores next? scores "
                f"{game.scores}, lowest: colour {lowest}"
                + (
                    "; the game has ended, this is the end bonus"
                    if session.phase() == "end bonus"
                    else ""
                )
            )
            for k, c in enumerate(choices, 1):
                say(_choice_words(k, c))
        else:
            say(
                f"your turn ({SEAT_NAMES[seat % 6]}, seat {seat}): scores {game.scores}; "
                f"your tile: {' '.join(game.hand)}"
                + ("; your builder's extra turn" if extra_turn(game) else "")
            )
        while True:
            try:
                text = read("move> ").strip()
            except EOFError:
                text = "quit"
            if text == "quit":
                say(session.quit())
                return
            if text == "list" and choices:
                for k, c in enumerate(choices, 1):
                    say(_choice_words(k, c))
                continue
            if text == "list":
                for m in game.legal_moves():
                    say(
                        f"  {m.x} {m.y} {m.rotation} {m.follower or '-'}"
                        + (f" {m.figure}" if m.figure != "follower" else "")
                        + (f" {m.tile}" if m.tile else "")
                    )
                continue
            try:
                move = _parse_move(session, text)
                session.move(*move)
                break
            except ValueError as err:  # IllegalMoveError is one
                say(f"refused: {err}")
    show_replies(session, say, delay, sleep)
    say(str(game))
    say(f"game over: result {game.result}")
    if session.record_path is not None:
        session.save()
        say(f"record written to {session.record_path}")


__all__ = [
    "BOT_DELAY",
    "HumanSession",
    "PlayServer",
    "check_port",
    "make_server",
    "move_of",
    "play_tui",
    "serve",
    "show_replies",
]
