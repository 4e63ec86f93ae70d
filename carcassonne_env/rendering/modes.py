"""The envs' render modes: "ansi" (the text board), "rgb_array" (the board picture),
"human" (that picture in a window, `show`, where a display exists; headless it warns once
and goes on). Pillow is imported only when a picture is drawn."""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..game import Game

RENDER_MODES = ("ansi", "rgb_array", "human")


def render_game(game: Game, mode: str) -> str | np.ndarray | None:
    """`game` as the envs' `render()` gives it: text for "ansi", an RGB array for "rgb_array",
    shown in a window for "human" (None)."""
    if mode == "ansi":
        return str(game)
    from .image import render_rgb  # Pillow is imported only when drawing

    image = render_rgb(game)
    if mode == "rgb_array":
        return image
    show(image)
    return None


_window: dict[str, Any] = {}  # the one window: {"root": Tk, "label": Label}
_warned = False
_no_window = False  # set when a window could not be opened at all


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def _has_display() -> bool:
    if sys.platform == "darwin" or sys.platform.startswith("win"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def show(image: np.ndarray) -> bool:
    """Show `image` (uint8 H x W x 3) in a window, for a "human" render mode.

    One tkinter window is reused (updated in place) across calls and never blocks; a
    closed window is opened again by the next call. Returns True when shown; without a
    display (or tkinter) it warns once and returns False, never raising."""
    global _no_window
    if _no_window or not _has_display():
        _warn_once(
            "carcassonne_env.rendering.modes.show: no display (DISPLAY / "
            "WAYLAND_DISPLAY unset); not showing the board"
        )
        return False
    try:
        import tkinter

        from PIL import Image, ImageTk
    except ImportError as err:
        _warn_once(f"carcassonne_env.rendering.modes.show: tkinter is not available ({err})")
        return False
    for _ in range(2):  # a second try if the user closed the window
        if "root" not in _window:
            try:
                root = tkinter.Tk()
            except Exception as err:  # no X server, no Tk ...
                _no_window = True
                _warn_once(f"carcassonne_env.rendering.modes.show: cannot open a window ({err})")
                return False
            root.title("Carcassonne")
            label = tkinter.Label(root)
            label.pack()
            _window.update(root=root, label=label)
        try:
            root, label = _window["root"], _window["label"]
            photo = ImageTk.PhotoImage(Image.fromarray(np.asarray(image, np.uint8)), master=root)
            label.configure(image=photo)
            label.image = photo  # keep a reference, or tkinter drops the picture
            root.update()
            return True
        except Exception:  # the window was closed (TclError): open a new one
            _window.clear()
    return False


__all__ = ["RENDER_MODES", "render_game", "show"]
