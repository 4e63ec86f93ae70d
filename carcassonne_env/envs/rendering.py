"""Render modes shared by the envs: "ansi" (text board), "rgb_array" (image), "human"
(the image in a window when a display exists; headless it warns once and goes on)."""

from __future__ import annotations

import numpy as np

from ..game import Game

RENDER_MODES = ("ansi", "rgb_array", "human")


def render_game(game: Game, mode: str) -> str | np.ndarray | None:
    """`game` as the envs' `render()` gives it: text for "ansi", an RGB array for "rgb_array",
    printed for "human"."""
    if mode == "ansi":
        return str(game)
    from ..render import render_rgb, show  # Pillow is imported only when drawing

    image = render_rgb(game)
    if mode == "rgb_array":
        return image
    show(image)
    return None
