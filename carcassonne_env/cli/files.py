"""The files the `carcassonne` commands read and write: output paths made ready before the
work starts, game records read with errors that name the file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def output_file(path: str | Path | None) -> None:
    """Make an output file writable before the work starts: create its missing parent
    folders; refuse a path that is a folder."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)


def read_record(path: str) -> dict:
    """A game record from a JSON file; ValueError naming the file if it is not one."""
    with open(path, encoding="utf-8") as f:
        try:
            record = json.load(f)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not JSON: {err}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not JSON: not a UTF-8 text file") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a game record (expected a JSON object)")
    return record


def write_json(path: str | Path, data: object) -> None:
    """Write `data` as indented JSON (UTF-8) to `path`."""
    Path(path).write_text(json.dumps(data, indent=1), encoding="utf-8")


@contextmanager
def record_errors(path: str, what: str,
                  also: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Report a record the block cannot use as a user's mistake: the ValueError,
    KeyError, TypeError (or an exception of `also`) raised inside becomes ValueError
    ``PATH: WHAT: DETAIL``."""
    try:
        yield
    except (ValueError, KeyError, TypeError, *also) as err:
        detail = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise ValueError(f"{path}: {what}: {detail}") from None
