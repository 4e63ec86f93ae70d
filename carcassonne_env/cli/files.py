"""The files the `carcassonne` commands read and write: game records read with errors that
name the file (output paths are checked before the work starts: `checks.output_file`,
`checks.output_folder`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import atomic


def read_record(path: str) -> dict:
    """A game record from a JSON file; ValueError naming the file if it is not one: over
    `MAX_RECORD_BYTES` (refused before it is parsed), not UTF-8 JSON, nested too deep for
    the parser, an integer of more than `_MAX_DIGITS` digits, NaN or an infinite number,
    or not an object. The record's schema is checked where it is replayed
    (`Game.from_record`)."""
    from ..records import MAX_DEPTH, MAX_RECORD_BYTES

    with open(path, "rb") as f:
        data = f.read(MAX_RECORD_BYTES + 1)  # a pipe or device has no size to ask first
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(
            f"{path}: not a game record: larger than {MAX_RECORD_BYTES:,} "
            f"bytes ({MAX_RECORD_BYTES // 2**20} MiB, the limit for a record)"
        )
    try:
        record = json.loads(
            data.decode("utf-8"),
            parse_int=_json_int,
            parse_float=_json_float,
            parse_constant=_json_constant,
        )
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not JSON: {err}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not JSON: not a UTF-8 text file") from None
    except RecursionError:
        raise ValueError(
            f"{path}: not a game record: nested deeper than {MAX_DEPTH} levels"
        ) from None
    except ValueError as err:  # from the number parsers below
        raise ValueError(f"{path}: not a game record: {err}") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a game record (expected a JSON object)")
    return record


# Digits of a JSON integer, at most: far above any record's (a 64-bit seed has 20), far
# below Python's own limit (4300), whose error speaks of sys.set_int_max_str_digits.
_MAX_DIGITS = 100


def _json_int(text: str) -> int:
    """A JSON integer, refused past `_MAX_DIGITS` digits before Python converts it."""
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits, at most {_MAX_DIGITS}")
    return int(text)


def _json_float(text: str) -> float:
    """A JSON number with a fraction or exponent; a finite one (1e999 is refused)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _json_constant(name: str) -> float:
    """Python's json reads NaN and Infinity, which JSON does not have: refused."""
    raise ValueError(f"{name} is not a JSON number")


def write_json(path: str | Path, data: object) -> None:
    """Write `data` as indented JSON (UTF-8) to `path`, whole or not at all
    (`carcassonne_env.atomic`)."""
    atomic.write_json(path, data, indent=1)


@contextmanager
def record_errors(path: str, what: str, also: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Report a record the block cannot use as a user's mistake: the ValueError,
    KeyError, TypeError (or an exception of `also`) raised inside becomes ValueError
    ``PATH: WHAT: DETAIL``."""
    caught: tuple[type[Exception], ...] = (ValueError, KeyError, TypeError, *also)
    try:
        yield
    except caught as err:
        detail = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise ValueError(f"{path}: {what}: {detail}") from None
