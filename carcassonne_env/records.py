"""Game records: the format's name and version, the limits and JSON Schema check every
reader applies, and the checks that a replay agrees with what a record says
(`Game.to_record` writes one, `Game.from_record` replays it; the format: docs/records.md);
and the records' optional per-move annotations block (docs/records.md, "Annotations":
what the acting agent thought about each move, `agents.annotations` writes them).
Annotations are informative: `Game.from_record` checks their shape (the record schema)
but never needs them; the HTML viewer shows them (`check_annotations`).

Records may come from strangers. A file over `MAX_RECORD_BYTES` is refused before it is
parsed (`carcassonne_env.cli.files.read_record`); a record nested deeper than `MAX_DEPTH`
levels or past one of the schema's bounds (numbers of tiles and moves, integers such as a
cell's coordinates, lengths of strings) is refused with one line naming the field, before
any of it reaches the engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game
    from .rules import Rules

RECORD_FORMAT = "carcassonne-env/record"
RECORD_VERSION = 1
ANNOTATIONS_VERSION = 1  # the annotations block's own version
MAX_RECORD_BYTES = 2**20  # a record file's size limit; a game's record is a few KB
MAX_DEPTH = 32  # levels of nesting; a record has 6, annotations included
_SHOWN = 60  # characters of an offending value quoted in an error message
_MESSAGE = 300  # characters of a schema error's message, at most


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """ValueError unless `value` (parsed JSON) nests lists and objects at most `limit`
    levels deep. Iterative, one visit per list or object: never a RecursionError, and a
    reference cycle counts as too deep."""
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(limit):
        inner: list[dict | list] = []
        for node in level:
            items = node.values() if isinstance(node, dict) else node
            inner.extend(v for v in items if isinstance(v, (dict, list)))
        if not inner:
            return
        level = inner
    raise ValueError(f"nested deeper than {limit} levels")


def check_seats(record: dict[str, Any], rules: Rules, width: int) -> None:
    """ValueError unless the record's scores, result and moves have the seats of its
    rules (`width` scores per row: the players, or the solo colours)."""
    seats = f"{width} solo colours" if rules.variant == "solo" else f"{rules.players} players"
    rows = [(f"scores after move {k}", row) for k, row in enumerate(record.get("scores", []))]
    if isinstance(record.get("result"), list):
        rows.append(("result", record["result"]))
    for where, row in rows:
        if len(row) != width:
            raise ValueError(
                f"the seat count disagrees: the record's rules have {seats} but "
                f"its {where} has {len(row)} scores {list(row)}"
            )
    for k, m in enumerate(record["moves"]):
        if m["player"] >= width:
            raise ValueError(
                f"the seat count disagrees: the record's rules have {seats} but "
                f"move {k} is played by seat {m['player']}"
            )


def check_outcome(record: dict[str, Any], game: Game) -> None:
    """ValueError unless the record's score rows, `result` and `end_reason` are those of
    the replayed `game` (keys the record leaves out are not checked)."""
    moves, last = len(record["moves"]), f"move {len(record['moves']) - 1}"
    recorded = record.get("scores")
    if recorded is not None and len(recorded) != moves:
        raise ValueError(
            f"the record has {moves} moves but scores after {len(recorded)} "
            f"moves: after {last} the replay scores are {game.scores}, the "
            f"record's last scores {list(recorded[-1]) if recorded else []}"
        )
    for key in ("result", "end_reason"):
        if key in record and record[key] != getattr(game, key):
            raise ValueError(
                f"after {last} (the last): replay {key} "
                f"{getattr(game, key)!r} differs from the record's "
                f"{record[key]!r}"
            )


def _max_items(validator: Any, limit: int, instance: Any, schema: Any) -> Iterator[Any]:
    import jsonschema

    if validator.is_type(instance, "array") and len(instance) > limit:
        yield jsonschema.ValidationError(f"{len(instance)} items, at most {limit}")


def _max_length(validator: Any, limit: int, instance: Any, schema: Any) -> Iterator[Any]:
    import jsonschema

    if validator.is_type(instance, "string") and len(instance) > limit:
        yield jsonschema.ValidationError(f"a string of {len(instance)} characters, at most {limit}")


def _is_integer(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """`node` (part of the record schema) with each ``{"$ref": "#/$defs/NAME"}`` replaced
    by that definition (merged with the keywords beside it): jsonschema then validates a
    large record in half the time. The schema's definitions do not refer to themselves."""
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    inlined = {k: _inline_refs(v, defs) for k, v in node.items() if k != "$ref"}
    if "$ref" in node:
        inlined = {**_inline_refs(defs[node["$ref"].removeprefix("#/$defs/")], defs), **inlined}
    return inlined


@cache
def _record_validator() -> Any:
    import jsonschema  # imported on first use: most programs never read a record

    schema = json.loads(
        resources.files("carcassonne_env").joinpath("data/record.schema.json").read_text("utf-8")
    )
    schema = _inline_refs({k: v for k, v in schema.items() if k != "$defs"}, schema["$defs"])
    base = jsonschema.Draft202012Validator
    # Limits name the size, not the whole value; an integer is a JSON integer (1.0 is not).
    strict = jsonschema.validators.extend(
        base,
        {"maxItems": _max_items, "maxLength": _max_length},
        type_checker=base.TYPE_CHECKER.redefine("integer", _is_integer),
    )
    return strict(schema)


# Keywords whose error stops the validation: the rest of a record over a limit (a million
# moves) is not worth validating.
_LIMITS = frozenset({"maxItems", "maxLength", "minimum", "maximum"})


def _schema_errors(record: dict[str, Any]) -> list[Any]:
    """The record's schema errors, up to the first broken limit (the schema lists limits
    before item checks, so an oversized array is found before its items are read)."""
    errors = []
    for error in _record_validator().iter_errors(record):
        errors.append(error)
        if error.validator in _LIMITS:
            break
    return errors


def _clipped(message: str, instance: Any) -> str:
    """`message` with the offending value's text cut to a few dozen characters (and the
    whole cut to a line): a hostile value never floods the one-line error."""
    if len(message) <= _SHOWN:  # (then it quotes no long value: no repr to make)
        return message
    text = repr(instance)
    if len(text) > _SHOWN:
        message = message.replace(text, text[: _SHOWN - 3] + "...")
    return message if len(message) <= _MESSAGE else message[: _MESSAGE - 3] + "..."


def check_record(record: Any) -> None:
    """Raise ValueError unless `record` follows the record schema
    (`data/record.schema.json`, nested at most `MAX_DEPTH` levels) and has no more moves
    than its tiles allow, naming the first offending field: ``moves[3].y`` (move 3),
    ``rules``, ``tile_order[5]``..."""
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object (dict), got {type(record).__name__}")
    import jsonschema

    too_deep = f"malformed record: nested deeper than {MAX_DEPTH} levels"
    try:  # first: a record far over a limit is refused before its depth is walked
        error = jsonschema.exceptions.best_match(_schema_errors(record))
    except RecursionError:  # quoting or comparing a deeply nested value
        raise ValueError(too_deep) from None
    if error is None:
        try:
            check_depth(record)  # the keys the schema leaves free
        except ValueError:
            raise ValueError(too_deep) from None
        _check_move_count(record)
        return
    path = list(error.absolute_path)
    message = _clipped(error.message, error.instance)
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        path.append(missing[0])
        message = "missing"
    elif error.validator == "const" and path in (["format"], ["version"]):
        message = (
            f"not a {RECORD_FORMAT} record"
            if path == ["format"]
            else f"unsupported record version {record.get('version')!r} (this release "
            f"reads version {RECORD_VERSION})"
        )
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    if len(path) > 1 and path[0] == "moves":
        where += f" (move {path[1]})"
    raise ValueError(f"malformed record at {where}: {message}")


def _check_move_count(record: dict[str, Any]) -> None:
    """ValueError if the record has more moves than its tiles allow: one per tile, and
    with the player's scoring order (solo) one scoring choice per follower placed."""
    tiles, moves = len(record["tile_order"]), len(record["moves"])
    choices = record["rules"].get("scoring_order") == "player"
    allowed = 2 * tiles if choices else tiles
    if moves > allowed:
        per = " and a scoring choice per follower placed" if choices else ""
        raise ValueError(
            f"malformed record at moves: {moves} moves, at most {allowed} "
            f"(one per tile of its tile_order{per})"
        )


# ------------------------------------------------------------------ annotations


def check_annotations(record: dict[str, Any]) -> list[dict[str, Any] | None] | None:
    """The per-move annotations of `record` (None when it has none). ValueError for an
    annotations version this release does not read or a list whose length is not the
    number of moves."""
    ann = record.get("annotations")
    if ann is None:
        return None
    if not isinstance(ann, dict):
        raise ValueError(
            f"malformed record at annotations: expected an object, got {type(ann).__name__}"
        )
    version = ann.get("version")
    if version != ANNOTATIONS_VERSION:
        raise ValueError(
            f"unsupported annotations version {version!r} (this release reads "
            f"version {ANNOTATIONS_VERSION}); drop the 'annotations' key to "
            "replay the game alone"
        )
    moves = ann.get("moves")
    n = len(record.get("moves", []))
    if not isinstance(moves, list) or len(moves) != n:
        got = len(moves) if isinstance(moves, list) else type(moves).__name__
        raise ValueError(
            f"malformed record at annotations.moves: one entry (or null) per "
            f"move expected, {n} moves, got {got}"
        )
    return moves


def annotations_block(moves: list[dict[str, Any] | None]) -> dict[str, Any]:
    """The record's ``annotations`` value for per-move annotations `moves`."""
    return {"version": ANNOTATIONS_VERSION, "moves": list(moves)}
