"""The old path of the text board: `render_board`, `move_text`, `tile_glyph`, `LEGEND` and
`FIGURE_WORDS` live in `carcassonne_env.rendering.text`; import them from there."""

from __future__ import annotations

from .rendering.text import FIGURE_WORDS, LEGEND, move_text, render_board, tile_glyph

__all__ = ["FIGURE_WORDS", "LEGEND", "move_text", "render_board", "tile_glyph"]
