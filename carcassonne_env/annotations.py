"""Per-move annotations of game records: what the acting agent thought (placeholder,
filled in by the annotate step)."""

from __future__ import annotations

from typing import Any

ANNOTATIONS_VERSION = 1


def check_annotations(record: dict[str, Any]) -> list[dict[str, Any] | None] | None:
    """The per-move annotations of `record` (None when it has none)."""
    ann = record.get("annotations")
    if ann is None:
        return None
    return ann.get("moves")
