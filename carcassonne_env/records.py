"""Game records: the format's name and version, the JSON Schema check and the checks that
a replay agrees with what a record says (`Game.to_record` writes one, `Game.from_record`
replays it; the format: docs/records.md); and the records' optional per-move annotations
block (docs/records.md, "Annotations": what the acting agent thought about each move,
`agents.annotations` writes them). Annotations are informative: `Game.from_record`
checks their shape (the record schema) but never needs them; the HTML viewer shows them
(`check_annotations`)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game
    from .rules import Rules

RECORD_FORMAT = "carcassonne-env/record"
RECORD_VERSION = 1
ANNOTATIONS_VERSION = 1  # the annotations block's own version


def check_seats(record: dict[str, Any], rules: Rules, width: int) -> None:
    """ValueError unless the record's scores, result and moves have the seats of its
    rules (`width` scores per row: the players, or the solo colours)."""
    seats = f"{width} solo colours" if rules.variant == "solo" else f"{rules.players} players"
    rows = [(f"scores after move {k}", row) for k, row in enumerate(record.get("scores", []))]
    if isinstance(record.get("result"), list):
        rows.append(("result", record["result"]))
    for where, row in rows:
        if len(row) != width:
            raise ValueError(f"the seat count disagrees: the record's rules have {seats} but "
                             f"its {where} has {len(row)} scores {list(row)}")
    for k, m in enumerate(record["moves"]):
        if m["player"] >= width:
            raise ValueError(f"the seat count disagrees: the record's rules have {seats} but "
                             f"move {k} is played by seat {m['player']}")


def check_outcome(record: dict[str, Any], game: Game) -> None:
    """ValueError unless the record's score rows, `result` and `end_reason` are those of
    the replayed `game` (keys the record leaves out are not checked)."""
    moves, last = len(record["moves"]), f"move {len(record['moves']) - 1}"
    recorded = record.get("scores")
    if recorded is not None and len(recorded) != moves:
        raise ValueError(f"the record has {moves} moves but scores after {len(recorded)} "
                         f"moves: after {last} the replay scores are {game.scores}, the "
                         f"record's last scores {list(recorded[-1]) if recorded else []}")
    for key in ("result", "end_reason"):
        if key in record and record[key] != getattr(game, key):
            raise ValueError(f"after {last} (the last): replay {key} "
                             f"{getattr(game, key)!r} differs from the record's "
                             f"{record[key]!r}")


@cache
def _record_validator() -> Any:
    import jsonschema  # imported on first use: most programs never read a record

    schema = json.loads(resources.files("carcassonne_env").joinpath(
        "data/record.schema.json").read_text("utf-8"))
    return jsonschema.Draft202012Validator(schema)


def check_record(record: Any) -> None:
    """Raise ValueError unless `record` follows the record schema
    (`data/record.schema.json`), naming the first offending field: ``moves[3].y``
    (move 3), ``rules``, ``tile_order[5]``..."""
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object (dict), got {type(record).__name__}")
    import jsonschema

    error = jsonschema.exceptions.best_match(_record_validator().iter_errors(record))
    if error is None:
        return
    path = list(error.absolute_path)
    message = error.message
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        path.append(missing[0])
        message = "missing"
    elif error.validator == "const" and path in (["format"], ["version"]):
        message = (f"not a {RECORD_FORMAT} record" if path == ["format"] else
                   f"unsupported record version {record.get('version')!r} (this release "
                   f"reads version {RECORD_VERSION})")
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    if len(path) > 1 and path[0] == "moves":
        where += f" (move {path[1]})"
    raise ValueError(f"malformed record at {where}: {message}")


# ------------------------------------------------------------------ annotations


def check_annotations(record: dict[str, Any]) -> list[dict[str, Any] | None] | None:
    """The per-move annotations of `record` (None when it has none). ValueError for an
    annotations version this release does not read or a list whose length is not the
    number of moves."""
    ann = record.get("annotations")
    if ann is None:
        return None
    if not isinstance(ann, dict):
        raise ValueError(f"malformed record at annotations: expected an object, got "
                         f"{type(ann).__name__}")
    version = ann.get("version")
    if version != ANNOTATIONS_VERSION:
        raise ValueError(f"unsupported annotations version {version!r} (this release reads "
                         f"version {ANNOTATIONS_VERSION}); drop the 'annotations' key to "
                         "replay the game alone")
    moves = ann.get("moves")
    n = len(record.get("moves", []))
    if not isinstance(moves, list) or len(moves) != n:
        got = len(moves) if isinstance(moves, list) else type(moves).__name__
        raise ValueError(f"malformed record at annotations.moves: one entry (or null) per "
                         f"move expected, {n} moves, got {got}")
    return moves


def annotations_block(moves: list[dict[str, Any] | None]) -> dict[str, Any]:
    """The record's ``annotations`` value for per-move annotations `moves`."""
    return {"version": ANNOTATIONS_VERSION, "moves": list(moves)}
