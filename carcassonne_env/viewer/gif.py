"""A game record as an animated GIF (`carcassonne gif record.json -o game.gif`): one frame
per turn drawn by the PNG renderer (`carcassonne_env.rendering.image`), on a fixed frame (the final
board's extent) so the board does not jump."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from PIL import Image

from ..atomic import atomic_path
from ..game import Game, Move
from ..rendering.image import render_rgb, score_strip
from ..rendering.palette import BACKGROUND


def gif_frames(
    record: dict[str, Any], cell: int = 32, moves: int | None = None
) -> list[Image.Image]:
    """The frames (RGB images, all one size): the start tile, then the board after each
    move (the first `moves` only, if given), with the score strip below."""
    final = Game.from_record(record)  # validates; ValueError naming the problem
    if not final.board:
        raise ValueError("the record has no board to draw")
    game = Game(final.rules, tile_order=record["tile_order"])
    played = final.moves_played[:moves] if moves is not None else final.moves_played
    coords = [(0, 0)] + [(m["x"], m["y"]) for m in played]
    x0, y0 = min(x for x, _ in coords) - 1, min(y for _, y in coords) - 1
    width = (max(x for x, _ in coords) + 2 - x0) * cell
    height = (max(y for _, y in coords) + 2 - y0) * cell
    boards, strips = [], []
    for k in range(len(played) + 1):
        if k:
            m = played[k - 1]
            game.play(
                Move(
                    m["x"],
                    m["y"],
                    m["rotation"],
                    m["follower"],
                    m["tile"],
                    m.get("figure", "follower"),
                )
            )
        image = Image.fromarray(render_rgb(game, cell=cell, show_scores=False))
        bx = min(x for x, _ in game.board) - 1
        by = min(y for _, y in game.board) - 1
        canvas = Image.new("RGB", (width, height), BACKGROUND)
        canvas.paste(image, ((bx - x0) * cell, (by - y0) * cell))
        boards.append(canvas)
        strips.append(score_strip(game, width))
    strip_h = max(s.height for s in strips)
    frames = []
    for board, strip in zip(boards, strips, strict=True):
        frame = Image.new("RGB", (width, height + strip_h), tuple(np.array(BACKGROUND)))
        frame.paste(board, (0, 0))
        frame.paste(strip, (0, height))
        frames.append(frame)
    return frames


def save_gif(
    record: dict[str, Any],
    path: str | os.PathLike[str],
    cell: int = 32,
    fps: float = 4.0,
    hold: float = 3.0,
    moves: int | None = None,
) -> int:
    """Write the animation of `record` to `path` (GIF, looping; whole or not at all:
    `atomic.atomic_path`); `fps` frames (turns) per second, the last frame held `hold`
    seconds. Returns the number of frames."""
    if not isinstance(cell, int) or isinstance(cell, bool) or cell < 8:
        raise ValueError(f"cell must be an integer >= 8 pixels, got {cell!r}")
    if not fps > 0:
        raise ValueError(f"fps must be > 0, got {fps!r}")
    if not hold >= 0:
        raise ValueError(f"hold must be >= 0 seconds, got {hold!r}")
    frames = gif_frames(record, cell, moves)
    step = max(20, round(1000 / fps))
    durations = [step] * (len(frames) - 1) + [max(step, round(1000 * hold))]
    with atomic_path(path) as tmp:
        frames[0].save(
            tmp,
            format="GIF",
            save_all=True,
            append_images=frames[1:],
            duration=durations,
            loop=0,
            optimize=True,
        )
    return len(frames)


__all__ = ["gif_frames", "save_gif"]
