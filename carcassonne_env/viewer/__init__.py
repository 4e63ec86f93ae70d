"""See and play games in a browser.

- `view_data(record)` replays a game record and returns everything the replay page
  shows, turn by turn (board, followers, scores, supplies, deck by kind, scoring events,
  annotations); `write_html(record, path)` writes the self-contained page
  (`carcassonne view record.json -o game.html`).
- `tile_geometry(tileset)` exports the tile pictures and follower spots derived from the
  packaged tile JSON (`carcassonne_env.tiles` / `carcassonne_env.rendering`), the one source
  of the drawing used by the PNG renderer, the HTML viewer and the human-play page.
- `carcassonne_env.viewer.play` serves a game against bots to a person (`play --human`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
from collections import Counter
from functools import cache
from html import escape as html_escape
from importlib import resources
from pathlib import Path
from typing import Any

from PIL import Image

from ..atomic import write_text
from ..core.constants import KINDS
from ..game import Game, Move
from ..rendering.image import MEEPLE, MEEPLE_WIDTH
from ..rendering.palette import SEAT_COLOURS, SEAT_NAMES
from ..rendering.tile_pictures import segment_anchors, tile_raster
from ..tiles import TileSet, base_tileset

VIEW_VERSION = 1
_TILE_PX = 96  # pixels of the tile pictures embedded in the page


def hex_colour(rgb: tuple[int, int, int]) -> str:
    """An (r, g, b) colour of 0-255 components as CSS writes it: "#rrggbb"."""
    return "#" + "".join(f"{c:02x}" for c in rgb)


@cache
def _geometry_cached(ts: TileSet) -> dict[str, Any]:
    tiles = {}
    tb = ts.tables
    for t, name in enumerate(ts.names):
        buf = io.BytesIO()
        Image.fromarray(tile_raster(ts, t, 0, _TILE_PX)).save(buf, format="PNG", optimize=True)
        spots = []
        for r in range(4):
            anchors = segment_anchors(ts, t, r)
            spots.append(
                {
                    ts.slot_names[t][r][s]: [
                        round(ax, 3),
                        round(ay, 3),
                        KINDS[int(tb.seg_kind[t, s])],
                    ]
                    for s, (ax, ay) in anchors.items()
                }
            )
        tiles[name] = {
            "image": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode(),
            "spots": spots,  # per rotation: follower location -> [x, y, kind]
            "aliases": [dict(ts.slot_aliases[t][r]) for r in range(4)],
            "count": ts.counts[t],
        }
    return {
        "tiles": tiles,
        "start": ts.names[ts.start],
        "meeple": [[x * MEEPLE_WIDTH, y - 0.5] for x, y in MEEPLE],
    }


def tile_geometry(tileset: TileSet | None = None) -> dict[str, Any]:
    """The drawing data of every tile type, derived from the packaged tile JSON: its
    picture (a PNG data URI in the reference orientation, drawn by `render.tile_raster`),
    for each rotation the follower spots (location -> [x, y, kind], fractions of the tile
    size, board frame) and location aliases, and the meeple outline."""
    return _geometry_cached(tileset or base_tileset())


def _seat_labels(record: dict[str, Any], game: Game) -> list[str]:
    seats = game.rules.seats
    bots = record.get("bots")
    labels = []
    for p in range(seats):
        colour = SEAT_NAMES[p % len(SEAT_NAMES)]
        if game.rules.variant != "solo" and isinstance(bots, list) and p < len(bots):
            labels.append(f"{colour} ({bots[p]})")
        else:
            labels.append(colour)
    return labels


def _deck_left(game: Game, order: Counter) -> dict[str, int]:
    """Tiles not drawn yet, by kind: the record's tile order minus placed, discarded
    and held tiles."""
    used = Counter(p.tile for p in game.board.values())
    used[game.tileset.names[game.tileset.start]] -= 1
    used.update(game.discarded)
    st = game.state
    if game.rules.hand_size > 1:
        used.update(game.tileset.names[t] for t in st.hands.ravel().tolist() if t >= 0)
    elif game.current_tile is not None:
        used[game.current_tile] += 1
    left = order - used
    return {name: left[name] for name in sorted(left) if left[name] > 0}


def extra_turn(game: Game) -> bool:
    """True while the seat to move plays a builder's extra turn (Traders & Builders)."""
    return bool(game.state.extra) and not game.done


def _snapshot(game: Game, order: Counter) -> dict[str, Any]:
    out = {
        "scores": game.scores,
        "supply": game.followers_in_supply,
        "followers": [
            [x, y, p.follower[0], p.follower[1], p.figure]
            for (x, y), p in game.board.items()
            if p.follower is not None
        ],
        "next": None if game.done else {"seat": game.current_player, "hand": game.hand},
        "deck": _deck_left(game, order),
        "tiles_left": game.tiles_left,
    }
    if len(game.rules.figures) > 1:  # large follower, builder, pig: each seat's supply
        out["figures"] = game.figures_in_supply
    return out


def _events(game: Game, since: int) -> list[dict[str, Any]]:
    return [
        {
            "kind": e.kind,
            "tiles": [list(c) for c in e.tiles],
            "points": e.points,
            "scorers": list(e.scorers),
            "majority": list(e.majority),
            "final": e.final,
            "detail": e.detail,
        }
        for e in game.events[since:]
    ]


def view_data(record: dict[str, Any]) -> dict[str, Any]:
    """Replay `record` (a game record, docs/records.md) and return the JSON-serialisable
    data of the replay page: rules, seats, tile geometry and one entry per turn. Raises
    ValueError (naming the problem) for a record the viewer cannot show."""
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object, got {type(record).__name__}")
    from ..records import check_annotations

    replay = Game.from_record(record)  # validates and checks the recorded scores
    annotations = check_annotations(record)
    rules, played = replay.rules, replay.moves_played
    game = Game(rules, tile_order=record["tile_order"])
    order: Counter[str] = Counter(record["tile_order"])
    start = next(iter(game.board.items()))
    turns = []
    for k, m in enumerate(record["moves"]):
        seat, hand, extra = game.current_player, game.hand, extra_turn(game)
        n_events = len(game.events)
        mv = played[k]
        game.play(
            Move(
                mv["x"],
                mv["y"],
                mv["rotation"],
                m.get("follower"),
                m.get("tile"),
                m.get("figure", "follower"),
            )
        )
        # The move as recorded, not the board after it: a follower that scores in the
        # same turn is back in its supply by then.
        turn = {
            "seat": seat,
            "hand": hand,
            "tile": mv["tile"],
            "x": mv["x"],
            "y": mv["y"],
            "rotation": mv["rotation"],
            "follower": mv["follower"],
            "events": _events(game, n_events),
            **_snapshot(game, order),
        }
        if "decision" in mv:  # a scoring choice (solo, scoring_order="player"): no tile
            turn["decision"] = mv["decision"]
        if "figure" in mv:  # a large follower, builder or pig (expansions)
            turn["figure"] = mv["figure"]
        if extra:  # a builder's extra turn
            turn["extra"] = True
        if annotations is not None and k < len(annotations) and annotations[k] is not None:
            turn["annotation"] = annotations[k]
        turns.append(turn)
    initial = Game(rules, tile_order=record["tile_order"])
    solo = rules.variant == "solo"
    return {
        "view_version": VIEW_VERSION,
        "rules": rules.to_dict(),
        "solo": solo,
        "seats": rules.seats,
        "seat_labels": _seat_labels(record, game),
        "seat_colours": [
            hex_colour(SEAT_COLOURS[p % len(SEAT_COLOURS)]) for p in range(rules.seats)
        ],
        "geometry": tile_geometry(game.tileset),
        "start": {
            "x": start[0][0],
            "y": start[0][1],
            "tile": start[1].tile,
            "rotation": start[1].rotation,
        },
        "initial": _snapshot(initial, order),
        "turns": turns,
        "result": game.result,
        "end_reason": game.end_reason,
        "annotated": annotations is not None,
        "seed": record.get("seed"),
    }


def _asset(name: str) -> str:
    return resources.files("carcassonne_env.viewer").joinpath(name).read_text("utf-8")


# The JSON embedded in a page: these characters as \u escapes (the same string to the
# script), so no string of the data can close the <script> element or open a comment.
_JSON_IN_HTML = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
_PLACEHOLDERS = re.compile(r"/\*BOARD_JS\*/|/\*STYLE\*/|/\*DATA\*/null|__TITLE__")
_SCRIPT_HASHES = "__SCRIPT_HASHES__"  # in a template's Content-Security-Policy, if any
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def _script_json(data: Any) -> str:
    """`data` as JSON text to embed in an inline script: `<`, `>` and `&` escaped."""
    return json.dumps(data, separators=(",", ":")).translate(_JSON_IN_HTML)


def _script_hashes(html: str) -> str:
    """The CSP sources that allow exactly the page's inline scripts (by SHA-256): any
    other script, inline event handlers included, does not run."""
    return " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
        for body in _INLINE_SCRIPT.findall(html)
    )


def page(template: str, data: dict[str, Any], title: str) -> str:
    """Fill an HTML template of this package with the shared board script and `data`
    (JSON that no string can break out of); `title` is text (escaped). A template whose
    Content-Security-Policy names __SCRIPT_HASHES__ gets the hashes of its inline scripts
    there."""
    text = _asset(template)
    parts = {
        "/*BOARD_JS*/": _asset("board.js"),
        "/*STYLE*/": _asset("style.css"),
        "/*DATA*/null": _script_json(data),
        "__TITLE__": html_escape(title),
    }
    # One pass: a value is never searched for placeholders (a title holding one stays text).
    html = _PLACEHOLDERS.sub(lambda m: parts[m.group(0)], text)
    if _SCRIPT_HASHES not in text:
        return html
    # The policy comes before the title and the scripts: its placeholder is the first.
    return html.replace(_SCRIPT_HASHES, _script_hashes(html), 1)


def view_html(record: dict[str, Any], title: str = "Carcassonne replay") -> str:
    """The self-contained replay page of `record` (HTML with inline script, style and
    pictures; opens from disk with no network). Every string of the record and `title`
    reaches the page as text, never as markup, and the page's Content-Security-Policy
    lets only its own scripts run and load nothing from the network."""
    return page("view.html", view_data(record), title)


def write_html(
    record: dict[str, Any], path: str | os.PathLike[str], title: str | None = None
) -> Path:
    """Write `view_html(record)` to `path` (whole or not at all: `atomic.write_text`);
    returns the path. The title defaults to one naming the file."""
    path = Path(path)
    html = view_html(record, title or f"Carcassonne replay: {path.stem}")
    write_text(path, html)
    return path


__all__ = ["page", "tile_geometry", "view_data", "view_html", "write_html"]
