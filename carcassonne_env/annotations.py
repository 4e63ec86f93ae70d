"""Per-move annotations of game records (format: docs/records.md, "Annotations"): what the
acting agent thought about each move. They are informative: `Game.from_record` checks
their shape (the record schema) but never needs them; the HTML viewer shows them."""

from __future__ import annotations

from typing import Any

ANNOTATIONS_VERSION = 1


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


__all__ = ["ANNOTATIONS_VERSION", "annotations_block", "check_annotations"]
