"""The old path of the records' annotations block: `check_annotations`,
`annotations_block` and `ANNOTATIONS_VERSION` live in `carcassonne_env.records` with the
rest of the record format. Importing this module warns (DeprecationWarning)."""

from __future__ import annotations

import warnings

from .records import ANNOTATIONS_VERSION, annotations_block, check_annotations

warnings.warn("carcassonne_env.annotations is deprecated: import check_annotations and "
              "annotations_block from carcassonne_env.records", DeprecationWarning,
              stacklevel=2)

__all__ = ["ANNOTATIONS_VERSION", "annotations_block", "check_annotations"]
