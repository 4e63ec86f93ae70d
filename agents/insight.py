"""The old path of `explain`, `annotate` and `Coach`, which live in `agents.annotations`
(what an agent thought about its moves, for annotated records). Importing this module
warns (DeprecationWarning)."""

from __future__ import annotations

import warnings

from .annotations import Coach, annotate, explain

warnings.warn("agents.insight is deprecated: import explain, annotate and Coach from "
              "agents.annotations", DeprecationWarning, stacklevel=2)

__all__ = ["Coach", "annotate", "explain"]
