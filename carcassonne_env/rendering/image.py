"""The board as a picture: `render_rgb` (an RGB array of the board, its followers and a
score strip; the tiles' pictures come from `carcassonne_env.rendering.tile_pictures`),
`save_png`, `save_image` (the format from the suffix), `score_strip` (the strip alone).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..atomic import atomic_path
from ..core.constants import K_FIELD
from .palette import (
    BACKGROUND,
    HIGHLIGHT,
    HIGHLIGHT_EDGE,
    OPEN_CELL,
    SEAM,
    SEAT_COLOURS,
    SEAT_NAMES,
    SNOUT,
    STRIP,
    TEXT,
    TO_MOVE,
)
from .tile_pictures import segment_anchors, tile_raster

if TYPE_CHECKING:
    from ..game import Game

_FONT: Any = None


# --------------------------------------------------------------------------- followers
# A meeple in a unit box: x in [-0.5, 0.5] (then narrowed), y in [0, 1] (feet at 1); the
# replay page draws the same outline (`carcassonne_env.viewer.tile_geometry`).
MEEPLE = [
    (-0.12, 0.30),
    (-0.40, 0.36),
    (-0.50, 0.46),
    (-0.46, 0.54),
    (-0.24, 0.56),
    (-0.40, 0.96),
    (-0.36, 1.0),
    (-0.08, 1.0),
    (0.0, 0.82),
    (0.08, 1.0),
    (0.36, 1.0),
    (0.40, 0.96),
    (0.24, 0.56),
    (0.46, 0.54),
    (0.50, 0.46),
    (0.40, 0.36),
    (0.12, 0.30),
]
MEEPLE_WIDTH = 0.8  # width / height of a standing meeple


def _meeple_polygons(cx: float, cy: float, size: float, lying: bool):
    """Body polygon and head circle box of a meeple centred at (cx, cy), `size` tall
    (standing) or long (lying, head to the left)."""
    body = [(x * MEEPLE_WIDTH * size, (y - 0.5) * size) for x, y in MEEPLE]
    head_c, head_r = (0.0, (0.17 - 0.5) * size), 0.17 * size
    if lying:  # turned a quarter counter-clockwise: head west, feet east
        body = [(y, -x) for x, y in body]
        head_c = (head_c[1], -head_c[0])
    body = [(cx + x, cy + y) for x, y in body]
    hx, hy = cx + head_c[0], cy + head_c[1]
    return body, (hx - head_r, hy - head_r, hx + head_r, hy + head_r)


def _draw_meeple(
    draw: ImageDraw.ImageDraw,
    cx: float,
    cy: float,
    size: float,
    colour: tuple[int, int, int],
    lying: bool,
) -> None:
    body, head = _meeple_polygons(cx, cy, size, lying)
    edge = (235, 235, 235) if sum(colour) < 150 else (20, 20, 20)
    w = max(1, round(size / 14))
    # Outline first (a thick line round the body, a larger head), then the fill on top:
    # only the outside of the silhouette keeps the outline.
    draw.line(body + body[:1], fill=edge, width=2 * w + 1, joint="curve")
    x0, y0, x1, y1 = head
    draw.ellipse((x0 - w, y0 - w, x1 + w, y1 + w), fill=edge)
    draw.polygon(body, fill=colour)
    draw.ellipse(head, fill=colour)


def _draw_builder(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, colour: tuple[int, int, int]
) -> None:
    """Traders & Builders' builder: a slim pawn with a round head and a white hat band,
    `size` tall, centred at (cx, cy)."""
    edge = (235, 235, 235) if sum(colour) < 150 else (20, 20, 20)
    w = max(1, round(size / 14))
    half, top = 0.22 * size, cy - 0.5 * size
    body = [
        (cx - half, cy + 0.5 * size),
        (cx - 0.12 * size, top + 0.34 * size),
        (cx + 0.12 * size, top + 0.34 * size),
        (cx + half, cy + 0.5 * size),
    ]
    head = (cx - 0.16 * size, top, cx + 0.16 * size, top + 0.32 * size)
    draw.polygon(body, fill=colour, outline=edge, width=w)
    draw.ellipse(head, fill=colour, outline=edge, width=w)
    band = top + 0.1 * size
    draw.line(
        (cx - 0.17 * size, band, cx + 0.17 * size, band),
        fill=(250, 250, 250),
        width=max(1, round(size / 9)),
    )


def _draw_pig(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, colour: tuple[int, int, int]
) -> None:
    """Traders & Builders' pig: a round body in the seat's colour with a pink snout and
    ears, `size` long, centred at (cx, cy)."""
    edge = (20, 20, 20)
    w = max(1, round(size / 14))
    rx, ry = 0.5 * size, 0.33 * size
    for ex in (cx + 0.12 * size, cx + 0.3 * size):  # ears
        draw.polygon(
            [
                (ex - 0.08 * size, cy - 0.22 * size),
                (ex, cy - 0.45 * size),
                (ex + 0.08 * size, cy - 0.22 * size),
            ],
            fill=SNOUT,
            outline=edge,
        )
    draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=colour, outline=edge, width=w)
    sx = cx + 0.42 * size
    draw.ellipse(
        (sx - 0.13 * size, cy - 0.11 * size, sx + 0.13 * size, cy + 0.11 * size),
        fill=SNOUT,
        outline=edge,
        width=max(1, w // 2),
    )


# --------------------------------------------------------------------------- text
def _font() -> Any:
    global _FONT
    if _FONT is None:
        loader = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)
        _FONT = loader()
    return _FONT


def _text_width(text: str) -> int:
    font = _font()
    if hasattr(font, "getlength"):
        return int(np.ceil(font.getlength(text)))
    return font.getsize(text)[0]  # Pillow < 9.2


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        cand = f"{line} {word}" if line else word
        if line and _text_width(cand) > width:
            lines.append(line)
            line = word
        else:
            line = cand
    return [*lines, line]


def _status(game: Game) -> str:
    names = SEAT_NAMES
    if game.done:
        if game.rules.variant == "solo":
            return (
                f"game over (end {game.end_reason}): result {game.result} "
                f"(lowest colour); tiles left {game.tiles_left}"
            )
        scores = game.scores
        best = max(scores)
        winners = [names[p % len(names)] for p, s in enumerate(scores) if s == best]
        verdict = f"{winners[0]} wins" if len(winners) == 1 else "tie: " + ", ".join(winners)
        return f"game over ({game.end_reason}): {verdict} with {best}; tiles left {game.tiles_left}"
    return f"turn {game.turn}, tiles left {game.tiles_left}, tile to place: " + " ".join(game.hand)


def score_strip(game: Game, width: int) -> Image.Image:
    """The strip under the board picture, `width` pixels wide: one entry per seat (colour,
    score, followers in supply; the seat to move boxed), tiles left and the result when the
    game is over."""
    pad, line_h, icon = 6, 16, 12
    scores, supply = game.scores, game.figures_in_supply
    to_move = game.current_player
    entries = []
    for p, score in enumerate(scores):
        name = SEAT_NAMES[p % len(SEAT_NAMES)]
        marker = ">" if p == to_move else ""
        extra = "".join(f", {f} {n}" for f, n in supply[p].items() if f != "follower")
        text = f"{marker}{name} {score} pts ({supply[p]['follower']} left{extra})"
        entries.append((p, text, icon + 4 + _text_width(text) + 8))
    rows: list[list[tuple[int, str, int]]] = [[]]
    used = pad
    for entry in entries:
        if rows[-1] and used + entry[2] > width - pad:
            rows.append([])
            used = pad
        rows[-1].append(entry)
        used += entry[2] + 6
    status = _wrap(_status(game), width - 2 * pad)
    height = pad + line_h * (len(rows) + len(status)) + pad
    strip = Image.new("RGB", (width, height), STRIP)
    draw = ImageDraw.Draw(strip)
    draw.line((0, 0, width, 0), fill=OPEN_CELL, width=1)
    font = _font()
    y = pad
    for row in rows:
        x = pad
        for p, text, w in row:
            if p == to_move:
                draw.rectangle(
                    (x - 3, y - 2, x + w - 6, y + line_h - 3), fill=TO_MOVE, outline=TEXT
                )
            colour = SEAT_COLOURS[p % len(SEAT_COLOURS)]
            _draw_meeple(draw, x + icon / 2, y + line_h / 2 - 1, icon, colour, False)
            draw.text((x + icon + 4, y + 2), text, fill=TEXT, font=font)
            x += w + 6
        y += line_h
    for line in status:
        draw.text((pad, y + 2), line, fill=TEXT, font=font)
        y += line_h
    return strip


# --------------------------------------------------------------------------- public API
def render_rgb(
    game: Game, *, cell: int = 48, highlight_last: bool = True, show_scores: bool = True
) -> np.ndarray:
    """Picture of `game.board` as a uint8 (H, W, 3) array.

    The board is cropped to the placed tiles plus a margin of one cell (open cells next to
    the tiles are outlined); followers stand as meeples in their seat's colour (red, blue,
    green, yellow, black, pink; solo colours likewise), farmers lie down, a large follower
    (Inns & Cathedrals) is drawn 1.4 times as big, a builder as a slim pawn with a white
    hat band and a pig as a round body with a pink snout (Traders & Builders); inns,
    cathedrals and trade goods show on their tiles; the last placed
    tile gets a bright border (`highlight_last`). With `show_scores` a strip below the board
    lists each seat's score and followers in supply (the seat to move boxed), the tiles
    left, and the result once the game is over.

    Args:
        game: the game to draw (not changed).
        cell: pixels per tile side (>= 8).
        highlight_last: frame the most recently placed tile.
        show_scores: add the score strip.
    """
    if not isinstance(cell, (int, np.integer)) or isinstance(cell, bool) or cell < 8:
        raise ValueError(f"cell must be an integer >= 8 pixels, got {cell!r}")
    cell = int(cell)
    ts = game.tileset
    board = game.board
    xs = [x for x, _ in board]
    ys = [y for _, y in board]
    x0, y0 = min(xs) - 1, min(ys) - 1
    cols, rows = max(xs) - x0 + 2, max(ys) - y0 + 2
    canvas = np.empty((rows * cell, cols * cell, 3), np.uint8)
    canvas[:] = BACKGROUND
    placed = []
    for (x, y), p in board.items():
        t = ts.index(p.tile)
        px, py = (x - x0) * cell, (y - y0) * cell
        canvas[py : py + cell, px : px + cell] = tile_raster(ts, t, p.rotation, cell)
        placed.append((x, y, px, py, t, p))
    # A faint seam round every tile, so the tiles stay visible where fields meet.
    for x, y, px, py, _, _ in placed:
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            if dx == 1 or dy == 1:
                if (x + dx, y + dy) in board:
                    continue  # drawn by the neighbour
            if dy:
                row = py if dy < 0 else py + cell - 1
                seam = canvas[row, px : px + cell]
            else:
                col = px if dx < 0 else px + cell - 1
                seam = canvas[py : py + cell, col]
            seam[:] = (seam * SEAM).astype(np.uint8)
    image = Image.fromarray(canvas)
    draw = ImageDraw.Draw(image)
    # Open cells: empty cells next to a tile.
    open_cells = {
        (x + dx, y + dy) for x, y in board for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))
    } - board.keys()
    for x, y in sorted(open_cells):
        px, py = (x - x0) * cell, (y - y0) * cell
        draw.rectangle((px + 2, py + 2, px + cell - 3, py + cell - 3), outline=OPEN_CELL)
    if highlight_last and placed:
        _, _, px, py, _, _ = placed[-1]
        w = max(2, cell // 20)
        draw.rectangle((px - 1, py - 1, px + cell, py + cell), outline=HIGHLIGHT_EDGE)
        draw.rectangle((px, py, px + cell - 1, py + cell - 1), outline=HIGHLIGHT, width=w)
        draw.rectangle(
            (px + w, py + w, px + cell - 1 - w, py + cell - 1 - w), outline=HIGHLIGHT_EDGE
        )
    size = cell * 0.42
    for _, _, px, py, t, p in placed:
        if p.follower is None:
            continue
        seat, location = p.follower
        s = ts.slot_aliases[t][p.rotation][location]
        ax, ay = segment_anchors(ts, t, p.rotation)[s]
        farmer = int(ts.tables.seg_kind[t, s]) == K_FIELD
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        length = size * (0.9 if farmer else 1.0) * (1.4 if p.figure == "large" else 1.0)
        half_w = length * (0.5 if farmer else MEEPLE_WIDTH / 2) + 1
        half_h = length * (MEEPLE_WIDTH / 2 if farmer else 0.5) + 1
        cx = min(max(ax * cell, half_w), cell - half_w)  # keep it on its tile
        cy = min(max(ay * cell, half_h), cell - half_h)
        if p.figure == "builder":
            _draw_builder(draw, px + cx, py + cy, length * 1.15, colour)
        elif p.figure == "pig":
            _draw_pig(draw, px + cx, py + cy, length, colour)
        else:
            _draw_meeple(draw, px + cx, py + cy, length, colour, lying=farmer)
    if show_scores:
        strip = score_strip(game, image.width)
        full = Image.new("RGB", (image.width, image.height + strip.height), BACKGROUND)
        full.paste(image, (0, 0))
        full.paste(strip, (0, image.height))
        image = full
    return np.asarray(image)


def save_png(game: Game, path: str | os.PathLike[str], **kwargs: Any) -> None:
    """Write `render_rgb(game, **kwargs)` to `path` as a PNG, whole or not at all
    (`carcassonne_env.atomic`)."""
    with atomic_path(path) as tmp:
        Image.fromarray(render_rgb(game, **kwargs)).save(tmp, format="PNG")


# File suffix -> Pillow format of the images `save_image` writes.
IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP", ".bmp": "BMP"}


def image_format(path: str | os.PathLike[str]) -> str:
    """The Pillow format `path`'s suffix names (``"PNG"``, ``"JPEG"``, ...); ValueError
    for a suffix that names none (or one this Pillow cannot write)."""
    Image.init()
    suffix = Path(path).suffix.lower()
    fmt = IMAGE_FORMATS.get(suffix)
    if fmt is None or fmt not in Image.SAVE:
        known = ", ".join(k for k, v in IMAGE_FORMATS.items() if v in Image.SAVE)
        raise ValueError(f"cannot tell an image format from the suffix of {path} (known: {known})")
    return fmt


def save_image(game: Game, path: str | os.PathLike[str], **kwargs: Any) -> None:
    """Write `render_rgb(game, **kwargs)` to `path` in the format its suffix names
    (`image_format`: .png, .jpg/.jpeg, .webp, .bmp), whole or not at all
    (`carcassonne_env.atomic`)."""
    fmt = image_format(path)
    with atomic_path(path) as tmp:
        Image.fromarray(render_rgb(game, **kwargs)).save(tmp, format=fmt)


__all__ = [
    "IMAGE_FORMATS",
    "MEEPLE",
    "MEEPLE_WIDTH",
    "image_format",
    "render_rgb",
    "save_image",
    "save_png",
    "score_strip",
]
