"""The old path of the text board: `render_board`, `move_text`, `tile_glyph`, `LEGEND` and
`FIGURE_WORDS` live in `carcassonne_env.rendering.text`; import them from there.
Importing this module warns (DeprecationWarning)."""

from __future__ import annotations

import warnings

from .rendering.text import FIGURE_WORDS, LEGEND, move_text, render_board, tile_glyph

warnings.warn("carcassonne_env.text is deprecated: import render_board... from "
              "carcassonne_env.rendering.text", DeprecationWarning, stacklevel=2)

__all__ = ["FIGURE_WORDS", "LEGEND", "move_text", "render_board", "tile_glyph"]
