"""Board pictures drawn from the tile data.

Nothing here knows what a tile looks like: the picture of every tile type and rotation is
derived from the compiled tables (`TileSet.tables`), so a new tile set draws itself.

- A city on one edge is a lens along that edge; a city on several edges fills the tile
  except the field corners cut off at its other edges (a wedge where the opposite edge is
  city, a shallow lens where it is not), and gets a dark wall on its inner boundary.
- A road is a stub from its edge midpoint to the centre; a road on two opposite edges runs
  straight through, on two adjacent edges it bends round their corner. A small square marks
  a junction where roads end (three or more, or a dead end with nothing at the centre).
- A monastery is a church at the centre, a pennant a purple shield (a colour no seat plays)
  inside its city; both turn with the tile like the printed pictures.
- Everything else is field.

Each (tile, rotation, cell size) raster is drawn once, supersampled, and cached, so drawing a
whole board is a few array copies plus the followers and the score strip.

Public: `render_rgb` (the board as an RGB array), `save_png`, `save_image` (format from
the suffix), `show` (a reused, non-blocking
window for a "human" render mode); `tile_raster` and `segment_anchors` expose the per-tile
pictures and follower spots.
"""

from __future__ import annotations

import os
import sys
import warnings
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .core.config import FLAG_CATHEDRAL, FLAG_INN, GOODS, K_CITY, K_FIELD, K_ROAD
from .tiles import TileSet, base_tileset

if TYPE_CHECKING:
    from .game import Game

SEAT_COLOURS = (
    (220, 38, 38),  # red
    (37, 99, 235),  # blue
    (22, 163, 74),  # green
    (250, 204, 21),  # yellow
    (28, 28, 28),  # black
    (236, 72, 153),  # pink
)
SEAT_NAMES = ("red", "blue", "green", "yellow", "black", "pink")

FIELD = (122, 172, 74)
CITY = (214, 168, 104)
WALL = (112, 70, 38)
ROAD = (246, 240, 222)
ROAD_EDGE = (118, 106, 84)
JUNCTION = (104, 76, 56)
PENNANT = (126, 34, 206)  # purple: no seat plays it (blue would pass for a follower)
PENNANT_EDGE = (245, 245, 245)
INN_LAKE = (56, 152, 208)  # the inn's pond beside its road (Inns & Cathedrals)
CATHEDRAL = (92, 92, 104)  # the cathedral's cross in its city
EMBLEM_EDGE = (250, 250, 250)
# Traders & Builders trade goods: wine a disc, grain a triangle, cloth a square.
GOODS_COLOURS = {"wine": (150, 30, 80), "grain": (236, 190, 40), "cloth": (60, 110, 200)}
SNOUT = (250, 180, 190)  # the pig's snout and ears
CHURCH = (242, 232, 206)
ROOF = (178, 58, 46)
CHURCH_EDGE = (70, 50, 40)
BACKGROUND = (236, 230, 214)
OPEN_CELL = (212, 203, 180)
HIGHLIGHT = (0, 229, 255)
HIGHLIGHT_EDGE = (20, 20, 20)
STRIP = (250, 248, 242)
TEXT = (30, 30, 30)
TO_MOVE = (255, 236, 150)
SEAM = 0.86  # darkening of the tile borders

_VEC = ((0, -1), (1, 0), (0, 1), (-1, 0))  # unit vectors of edges N, E, S, W (y grows south)
_ANCHOR_RES = 64  # resolution of the masks that place followers
_FONT: Any = None


# --------------------------------------------------------------------------- geometry
def _rot(mask: np.ndarray, k: int) -> np.ndarray:
    """`mask` (rows = y, columns = x) turned k quarter turns clockwise."""
    return np.rot90(mask, -k)


def _draw_mask(n: int, paint) -> np.ndarray:
    """A boolean n x n mask painted by `paint(draw)` with ImageDraw (fill 255)."""
    img = Image.new("L", (n, n), 0)
    paint(ImageDraw.Draw(img))
    return np.asarray(img) > 127


def _dilate(mask: np.ndarray, k: int) -> np.ndarray:
    """Grow `mask` k pixels (alternating cross / square steps: rotation-symmetric)."""
    for i in range(k):
        p = np.pad(mask, 1, constant_values=False)
        grown = p[1:-1, 1:-1] | p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]
        if i % 2:
            grown |= p[:-2, :-2] | p[:-2, 2:] | p[2:, :-2] | p[2:, 2:]
        mask = grown
    return mask


def _erode(mask: np.ndarray, k: int, outside: bool) -> np.ndarray:
    """Shrink `mask` k pixels; `outside` is what lies beyond the tile border."""
    for i in range(k):
        p = np.pad(mask, 1, constant_values=outside)
        kept = p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
        if i % 2:
            kept &= p[:-2, :-2] & p[:-2, 2:] & p[2:, :-2] & p[2:, 2:]
        mask = kept
    return mask


class _Pieces:
    """Canonical masks for an n-pixel tile, drawn for edge N (or the N-E corner); the piece
    for edge e is the N piece turned e quarter turns clockwise."""

    def __init__(self, n: int) -> None:
        self.n = n
        c = n // 2
        self.road_half = max(1, round(n * 0.065))
        a = self.road_half
        self.full = np.ones((n, n), bool)
        # Triangle between edge N and the centre.
        self.wedge = _draw_mask(n, lambda d: d.polygon(
            [(-1, -1), (n, -1), ((n - 1) / 2, (n - 1) / 2)], fill=255))
        self.cap = self._lens(0.27)  # a city on one edge
        self.cut = self._lens(0.30)  # field left between two opposite city edges
        # Road from the N edge midpoint to just past the centre (symmetric about x = c).
        self.stub = _draw_mask(n, lambda d: d.rectangle((c - a, 0, c + a - 1, c + a - 1),
                                                        fill=255))
        # Road bending round the N-E corner: a quarter ring through both edge midpoints.
        def ring(d: ImageDraw.ImageDraw) -> None:
            cx, cy = n - 0.5, -0.5
            d.ellipse((cx - c - a, cy - c - a, cx + c + a, cy + c + a), fill=255)
            d.ellipse((cx - c + a, cy - c + a, cx + c - a, cy + c - a), fill=0)
        self.bend = _draw_mask(n, ring)
        b = max(2, round(n * 0.1))
        self.junction = _draw_mask(n, lambda d: d.rectangle((c - b, c - b, c + b - 1, c + b - 1),
                                                            fill=255))
        # Border pixels of the half-edges N_w and N_e (follower placement only).
        self.half = (np.zeros((n, n), bool), np.zeros((n, n), bool))
        self.half[0][0, :c] = True
        self.half[1][0, c:] = True

    def _lens(self, depth: float) -> np.ndarray:
        """Region between edge N and a circular arc through its corners, `depth` * n deep."""
        n = self.n
        h, d = n / 2, depth * n
        radius = (h * h + d * d) / (2 * d)
        cx, cy = (n - 1) / 2, -0.5 + d - radius
        return _draw_mask(n, lambda dr: dr.ellipse(
            (cx - radius, cy - radius, cx + radius, cy + radius), fill=255))


@lru_cache(maxsize=16)
def _pieces(n: int) -> _Pieces:
    return _Pieces(n)


def _edges(mask: int) -> list[int]:
    return [e for e in range(4) if int(mask) >> e & 1]


class _Layout:
    """Masks of one tile type in one rotation (board frame), derived from the tables."""

    def __init__(self, ts: TileSet, t: int, r: int, n: int) -> None:
        tb = ts.tables
        P = _pieces(n)
        self.n = n
        self.kinds = [int(tb.seg_kind[t, s]) for s in range(int(tb.n_seg[t]))]
        self.seg: dict[int, np.ndarray] = {}
        self.cities: list[int] = []
        self.roads: list[int] = []
        self.fields: list[int] = []
        dead_ends = 0
        for s, kind in enumerate(self.kinds):
            edges = _edges(tb.seg_edges[t, r, s])
            if kind == K_CITY:
                if len(edges) == 1:
                    m = _rot(P.cap, edges[0])
                else:
                    m = P.full.copy()
                    for e in range(4):
                        if e not in edges:
                            cut = P.wedge if (e + 2) % 4 in edges else P.cut
                            m &= ~_rot(cut, e)
                self.cities.append(s)
            elif kind == K_ROAD:
                if len(edges) == 2 and (edges[1] - edges[0]) % 2 == 1:
                    corner = edges[0] if (edges[0] + 1) % 4 == edges[1] else edges[1]
                    m = _rot(P.bend, corner)
                else:
                    m = np.zeros((n, n), bool)
                    for e in edges:
                        m |= _rot(P.stub, e)
                    dead_ends += len(edges) == 1
                self.roads.append(s)
            elif kind == K_FIELD:
                self.fields.append(s)
                continue
            else:
                continue
            self.seg[s] = m
        self.monastery = int(tb.mon_seg[t])
        city_any = np.zeros((n, n), bool)
        for s in self.cities:
            city_any |= self.seg[s]
        c = n // 2
        at_centre = city_any[c - 1:c + 1, c - 1:c + 1].any()  # the 4 central pixels
        self.junction = dead_ends >= 3 or (
            dead_ends >= 1 and self.monastery < 0 and not at_centre)
        # Emblems are drawn upright in the tile's own frame, then turned with the tile.
        self.church = self._church(r) if self.monastery >= 0 else None
        self.pennants: dict[int, np.ndarray] = {}
        for s in self.cities:
            if tb.seg_pennants[t, s] > 0:
                own = sorted((e - r) % 4 for e in _edges(tb.seg_edges[t, r, s]))
                self.pennants[s] = self._shield(own, r)
        # Inns & Cathedrals: a pond beside each road with an inn, a cross in a city with
        # a cathedral (drawn in every mode: they are printed on the tiles).
        self.inns = [self._pond(self.seg[s]) for s in self.roads
                     if tb.seg_flag[t, s] & FLAG_INN]
        self.cathedrals = [self._cross(self.seg[s]) for s in self.cities
                           if tb.seg_flag[t, s] & FLAG_CATHEDRAL]
        # Traders & Builders: the trade good's symbol in its city.
        self.goods = [(GOODS[tb.seg_good[t, s]], self._good(self.seg[s], GOODS[
            tb.seg_good[t, s]])) for s in self.cities if tb.seg_good[t, s] >= 0]

    def _good(self, city: np.ndarray, good: str) -> tuple[np.ndarray, np.ndarray]:
        """(fill, outline) of a trade good's symbol at the middle of `city`: wine a disc,
        grain a triangle, cloth a square."""
        n = self.n
        ys, xs = np.nonzero(city)
        fx, fy = _deepest(city, (float(xs.mean()), float(ys.mean())))
        cx, cy = fx * n, fy * n
        a = 0.1 * n

        def shape(d: ImageDraw.ImageDraw) -> None:
            if good == "wine":
                d.ellipse((cx - a, cy - a, cx + a, cy + a), fill=255)
            elif good == "grain":
                d.polygon([(cx, cy - a * 1.1), (cx + a, cy + a * 0.8), (cx - a, cy + a * 0.8)],
                          fill=255)
            else:
                d.rectangle((cx - 0.85 * a, cy - 0.85 * a, cx + 0.85 * a, cy + 0.85 * a),
                            fill=255)

        fill = _draw_mask(n, shape)
        return fill, _dilate(fill, max(1, round(n * 0.015))) & ~fill

    def _pond(self, road: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(fill, outline) of a small pond in the field right beside `road`, as near the
        road's middle as the field allows."""
        n = self.n
        r = 0.11 * n
        taken = road.copy()
        for s in self.cities:
            taken |= self.seg[s]
        ys, xs = np.nonzero(road)
        my, mx = ys.mean(), xs.mean()
        free = ~_dilate(taken, round(0.02 * n)) & _dilate(road, round(0.04 * n + 2 * r))
        fy, fx = np.nonzero(_erode(free, round(r), outside=False))
        if len(fy) == 0:
            fy, fx = np.nonzero(free)
        k = int(np.argmin((fy - my) ** 2 + (fx - mx) ** 2))
        cy, cx = float(fy[k]), float(fx[k])
        fill = _draw_mask(n, lambda d: d.ellipse((cx - r, cy - 0.75 * r, cx + r, cy + 0.75 * r),
                                                 fill=255))
        return fill, _dilate(fill, max(1, round(n * 0.012))) & ~fill

    def _cross(self, city: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(fill, outline) of the cathedral's cross at the middle of `city`."""
        n = self.n
        ys, xs = np.nonzero(city)
        cy, cx = float(ys.mean()), float(xs.mean())
        a, b = 0.16 * n, 0.045 * n

        def cross(d: ImageDraw.ImageDraw) -> None:
            d.rectangle((cx - b, cy - a, cx + b, cy + a), fill=255)
            d.rectangle((cx - 0.7 * a, cy - 0.45 * a - b, cx + 0.7 * a, cy - 0.45 * a + b),
                        fill=255)

        fill = _draw_mask(n, cross)
        return fill, _dilate(fill, max(1, round(n * 0.015))) & ~fill

    def _church(self, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(walls, roof, outline) of a small church at the centre, turned r times."""
        n = self.n
        c = (n - 1) / 2
        w, h = 0.17 * n, 0.13 * n
        top, bottom = c - 0.02 * n, c + 0.2 * n
        apex = c - 0.24 * n
        body = [(c - w, top), (c + w, top), (c + w, bottom), (c - w, bottom)]
        roof = [(c - w - 0.04 * n, top + 0.01 * n), (c, apex), (c + w + 0.04 * n, top + 0.01 * n)]
        door = (c - 0.04 * n, bottom - h * 0.75, c + 0.04 * n, bottom)
        line = max(1, round(n * 0.015))

        def outline(d: ImageDraw.ImageDraw) -> None:
            d.line(body + body[:1], fill=255, width=2 * line)
            d.line(roof + roof[:1], fill=255, width=2 * line, joint="curve")
            d.rectangle(door, fill=255)
            d.line((c, apex - 0.09 * n, c, apex), fill=255, width=line)  # cross on top
            d.line((c - 0.03 * n, apex - 0.06 * n, c + 0.03 * n, apex - 0.06 * n), fill=255,
                   width=line)

        walls = _draw_mask(n, lambda d: d.polygon(body, fill=255))
        tiles = _draw_mask(n, lambda d: d.polygon(roof, fill=255))
        edge = _draw_mask(n, outline)
        return _rot(walls, r), _rot(tiles, r), _rot(edge, r)

    def _shield(self, own_edges: list[int], r: int) -> tuple[np.ndarray, np.ndarray]:
        """(fill, outline) of a pennant shield in a city on `own_edges` (tile frame)."""
        n = self.n
        vx = sum(_VEC[e][0] for e in own_edges)
        vy = sum(_VEC[e][1] for e in own_edges)
        if vx == 0 and vy == 0:  # symmetric city: towards its first edge
            vx, vy = _VEC[own_edges[0]]
        vx, vy = max(-1, min(1, vx)), max(-1, min(1, vy))
        k = 0.30 if vx and vy else 0.25
        cx, cy = (n - 1) / 2 + k * n * vx, (n - 1) / 2 + k * n * vy
        w, h = 0.085 * n, 0.1 * n
        pts = [(cx - w, cy - h), (cx + w, cy - h), (cx + w, cy + 0.1 * h)]
        for i in range(1, 8):  # rounded point at the bottom
            a = np.pi / 2 * i / 8
            pts.append((cx + w * np.cos(a), cy + 0.1 * h + 0.9 * h * np.sin(a) ** 0.8))
        pts += [(cx - x + cx, y) for x, y in reversed(pts[2:])]
        pts = [(float(x), float(y)) for x, y in pts]
        pad = max(1, round(n * 0.012))
        fill = _draw_mask(n, lambda d: d.polygon(pts, fill=255))
        edge = _dilate(fill, pad) & ~fill
        return _rot(fill, r), _rot(edge, r)

    def obstacles(self) -> np.ndarray:
        """Pixels that are not field."""
        m = np.zeros((self.n, self.n), bool)
        for s in self.cities + self.roads:
            m |= self.seg[s]
        if self.church is not None:
            m |= self.church[0] | self.church[1]
        if self.junction:
            m |= _pieces(self.n).junction
        return m


def _tileset(game: Game) -> TileSet:
    return getattr(game, "_ts", None) or base_tileset()


_KEEP: dict[int, TileSet] = {}  # tile sets seen, so their id() stays unique while cached


@lru_cache(maxsize=4096)
def _raster_cached(ts_id: int, t: int, r: int, cell: int) -> np.ndarray:
    ts = _KEEP[ts_id]
    f = 4 if cell <= 64 else 2 if cell <= 160 else 1
    n = cell * f
    lay = _Layout(ts, t, r, n)
    P = _pieces(n)
    img = np.empty((n, n, 3), np.uint8)
    img[:] = FIELD
    road_any = np.zeros((n, n), bool)
    for s in lay.roads:
        road_any |= lay.seg[s]
    if road_any.any():
        img[_dilate(road_any, max(1, n // 96))] = ROAD_EDGE
        img[road_any] = ROAD
    if lay.junction:
        img[_dilate(P.junction, max(1, n // 96))] = ROAD_EDGE
        img[P.junction] = JUNCTION
    wall = max(1, round(n * 0.035))
    for s in lay.cities:
        m = lay.seg[s]
        img[m] = CITY
        # Wall: the city's boundary inside the tile (the tile border joins the next tile).
        img[m & ~_erode(m, wall, outside=True)] = WALL
    for fill, edge in lay.pennants.values():
        img[edge] = PENNANT_EDGE
        img[fill] = PENNANT
    for fill, edge in lay.inns:
        img[edge] = EMBLEM_EDGE
        img[fill] = INN_LAKE
    for fill, edge in lay.cathedrals:
        img[edge] = EMBLEM_EDGE
        img[fill] = CATHEDRAL
    for good, (fill, edge) in lay.goods:
        img[edge] = EMBLEM_EDGE
        img[fill] = GOODS_COLOURS[good]
    if lay.church is not None:
        walls, roof, edge = lay.church
        img[walls] = CHURCH
        img[roof] = ROOF
        img[edge] = CHURCH_EDGE
    if f > 1:  # box filter down to the cell size: anti-aliased, still rotation-exact
        acc = img.reshape(cell, f, cell, f, 3).astype(np.uint32).sum(axis=(1, 3))
        img = ((acc + f * f // 2) // (f * f)).astype(np.uint8)
    img.setflags(write=False)
    return img


def tile_raster(ts: TileSet, t: int, rotation: int, cell: int = 48) -> np.ndarray:
    """The (cell, cell, 3) uint8 picture of tile type index `t` turned `rotation` quarter
    turns clockwise (cached; read-only)."""
    if not isinstance(cell, (int, np.integer)) or cell < 8:
        raise ValueError(f"cell must be an integer >= 8 pixels, got {cell!r}")
    _KEEP.setdefault(id(ts), ts)
    return _raster_cached(id(ts), int(t), int(rotation) % 4, int(cell))


def _deepest(region: np.ndarray, prefer: tuple[float, float]) -> tuple[float, float]:
    """The pixel of `region` farthest from its boundary (the tile border counts), ties broken
    towards `prefer`; as fractions of the tile size."""
    n = region.shape[0]
    depth = np.zeros(region.shape, np.int32)
    m = region
    while m.any():
        depth += m
        m = _erode(m, 1, outside=False)
    if not depth.any():
        return prefer[0] / n, prefer[1] / n
    ys, xs = np.mgrid[0:n, 0:n]
    score = depth * 4.0 * n * n - ((xs - prefer[0]) ** 2 + (ys - prefer[1]) ** 2)
    score[~region] = -np.inf
    y, x = np.unravel_index(int(np.argmax(score)), score.shape)
    return (x + 0.5) / n, (y + 0.5) / n


@lru_cache(maxsize=1024)
def _anchors_cached(ts_id: int, t: int, r: int) -> dict[int, tuple[float, float]]:
    ts = _KEEP[ts_id]
    tb = ts.tables
    n = _ANCHOR_RES
    lay = _Layout(ts, t, r, n)
    P = _pieces(n)
    out: dict[int, tuple[float, float]] = {}
    emblems = np.zeros((n, n), bool)
    for fill, _ in lay.pennants.values():
        emblems |= _dilate(fill, 2)
    for s in lay.cities + lay.roads:
        region = lay.seg[s] & ~emblems
        ys, xs = np.nonzero(region if region.any() else lay.seg[s])
        out[s] = _deepest(region, (xs.mean(), ys.mean()))
    if lay.monastery >= 0:
        out[lay.monastery] = (0.5, 0.5)
    free = ~_dilate(lay.obstacles(), 2)
    claimed = np.zeros((n, n), bool)
    inner = []
    for s in lay.fields:
        seeds = np.zeros((n, n), bool)
        for h in range(8):
            if tb.seg_halves[t, r, s] >> h & 1:
                seeds |= _rot(P.half[h % 2], h // 2)
        region = _dilate(seeds, 3) & free
        if not region.any():
            inner.append(s)
            continue
        while True:  # flood fill through the free pixels
            grown = _dilate(region, 1) & free
            if (grown == region).all():
                break
            region = grown
        claimed |= region
        ys, xs = np.nonzero(region)
        out[s] = _deepest(region, (xs.mean(), ys.mean()))
    for s in inner:  # a field touching no edge: what nobody else claimed
        region = free & ~claimed
        out[s] = _deepest(region, (n / 2, n / 2)) if region.any() else (0.5, 0.5)
    return out


def segment_anchors(ts: TileSet, t: int, rotation: int) -> dict[int, tuple[float, float]]:
    """Where a follower stands on each segment of tile `t` turned `rotation`: segment index
    -> (x, y) as fractions of the tile size (board frame)."""
    _KEEP.setdefault(id(ts), ts)
    return _anchors_cached(id(ts), int(t), int(rotation) % 4)


# --------------------------------------------------------------------------- followers
# A meeple in a unit box: x in [-0.5, 0.5] (then narrowed), y in [0, 1] (feet at 1).
_MEEPLE = [(-0.12, 0.30), (-0.40, 0.36), (-0.50, 0.46), (-0.46, 0.54), (-0.24, 0.56),
           (-0.40, 0.96), (-0.36, 1.0), (-0.08, 1.0), (0.0, 0.82), (0.08, 1.0), (0.36, 1.0),
           (0.40, 0.96), (0.24, 0.56), (0.46, 0.54), (0.50, 0.46), (0.40, 0.36), (0.12, 0.30)]
_MEEPLE_WIDTH = 0.8  # width / height of a standing meeple


def _meeple_polygons(cx: float, cy: float, size: float, lying: bool):
    """Body polygon and head circle box of a meeple centred at (cx, cy), `size` tall
    (standing) or long (lying, head to the left)."""
    body = [(x * _MEEPLE_WIDTH * size, (y - 0.5) * size) for x, y in _MEEPLE]
    head_c, head_r = (0.0, (0.17 - 0.5) * size), 0.17 * size
    if lying:  # turned a quarter counter-clockwise: head west, feet east
        body = [(y, -x) for x, y in body]
        head_c = (head_c[1], -head_c[0])
    body = [(cx + x, cy + y) for x, y in body]
    hx, hy = cx + head_c[0], cy + head_c[1]
    return body, (hx - head_r, hy - head_r, hx + head_r, hy + head_r)


def _draw_meeple(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float,
                 colour: tuple[int, int, int], lying: bool) -> None:
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


def _draw_builder(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float,
                  colour: tuple[int, int, int]) -> None:
    """Traders & Builders' builder: a slim pawn with a round head and a white hat band,
    `size` tall, centred at (cx, cy)."""
    edge = (235, 235, 235) if sum(colour) < 150 else (20, 20, 20)
    w = max(1, round(size / 14))
    half, top = 0.22 * size, cy - 0.5 * size
    body = [(cx - half, cy + 0.5 * size), (cx - 0.12 * size, top + 0.34 * size),
            (cx + 0.12 * size, top + 0.34 * size), (cx + half, cy + 0.5 * size)]
    head = (cx - 0.16 * size, top, cx + 0.16 * size, top + 0.32 * size)
    draw.polygon(body, fill=colour, outline=edge, width=w)
    draw.ellipse(head, fill=colour, outline=edge, width=w)
    band = top + 0.1 * size
    draw.line((cx - 0.17 * size, band, cx + 0.17 * size, band), fill=(250, 250, 250),
              width=max(1, round(size / 9)))


def _draw_pig(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float,
              colour: tuple[int, int, int]) -> None:
    """Traders & Builders' pig: a round body in the seat's colour with a pink snout and
    ears, `size` long, centred at (cx, cy)."""
    edge = (20, 20, 20)
    w = max(1, round(size / 14))
    rx, ry = 0.5 * size, 0.33 * size
    for ex in (cx + 0.12 * size, cx + 0.3 * size):  # ears
        draw.polygon([(ex - 0.08 * size, cy - 0.22 * size), (ex, cy - 0.45 * size),
                      (ex + 0.08 * size, cy - 0.22 * size)], fill=SNOUT, outline=edge)
    draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=colour, outline=edge, width=w)
    sx = cx + 0.42 * size
    draw.ellipse((sx - 0.13 * size, cy - 0.11 * size, sx + 0.13 * size, cy + 0.11 * size),
                 fill=SNOUT, outline=edge, width=max(1, w // 2))


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
            return (f"game over (end {game.end_reason}): result {game.result} "
                    f"(lowest colour); tiles left {game.tiles_left}")
        scores = game.scores
        best = max(scores)
        winners = [names[p % len(names)] for p, s in enumerate(scores) if s == best]
        verdict = f"{winners[0]} wins" if len(winners) == 1 else "tie: " + ", ".join(winners)
        return (f"game over ({game.end_reason}): {verdict} with {best}; "
                f"tiles left {game.tiles_left}")
    return (f"turn {game.turn}, tiles left {game.tiles_left}, tile to place: "
            + " ".join(game.hand))


def _score_strip(game: Game, width: int) -> Image.Image:
    """One entry per seat (colour, score, followers in supply; the seat to move boxed),
    tiles left and the result when the game is over."""
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
                draw.rectangle((x - 3, y - 2, x + w - 6, y + line_h - 3), fill=TO_MOVE,
                               outline=TEXT)
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
def render_rgb(game: Game, *, cell: int = 48, highlight_last: bool = True,
               show_scores: bool = True) -> np.ndarray:
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
    ts = _tileset(game)
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
        canvas[py:py + cell, px:px + cell] = tile_raster(ts, t, p.rotation, cell)
        placed.append((x, y, px, py, t, p))
    # A faint seam round every tile, so the tiles stay visible where fields meet.
    for x, y, px, py, _, _ in placed:
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            if dx == 1 or dy == 1:
                if (x + dx, y + dy) in board:
                    continue  # drawn by the neighbour
            if dy:
                row = py if dy < 0 else py + cell - 1
                seam = canvas[row, px:px + cell]
            else:
                col = px if dx < 0 else px + cell - 1
                seam = canvas[py:py + cell, col]
            seam[:] = (seam * SEAM).astype(np.uint8)
    image = Image.fromarray(canvas)
    draw = ImageDraw.Draw(image)
    # Open cells: empty cells next to a tile.
    open_cells = {(x + dx, y + dy) for x, y in board
                  for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))} - board.keys()
    for x, y in sorted(open_cells):
        px, py = (x - x0) * cell, (y - y0) * cell
        draw.rectangle((px + 2, py + 2, px + cell - 3, py + cell - 3), outline=OPEN_CELL)
    if highlight_last and placed:
        _, _, px, py, _, _ = placed[-1]
        w = max(2, cell // 20)
        draw.rectangle((px - 1, py - 1, px + cell, py + cell), outline=HIGHLIGHT_EDGE)
        draw.rectangle((px, py, px + cell - 1, py + cell - 1), outline=HIGHLIGHT, width=w)
        draw.rectangle((px + w, py + w, px + cell - 1 - w, py + cell - 1 - w),
                       outline=HIGHLIGHT_EDGE)
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
        half_w = length * (0.5 if farmer else _MEEPLE_WIDTH / 2) + 1
        half_h = length * (_MEEPLE_WIDTH / 2 if farmer else 0.5) + 1
        cx = min(max(ax * cell, half_w), cell - half_w)  # keep it on its tile
        cy = min(max(ay * cell, half_h), cell - half_h)
        if p.figure == "builder":
            _draw_builder(draw, px + cx, py + cy, length * 1.15, colour)
        elif p.figure == "pig":
            _draw_pig(draw, px + cx, py + cy, length, colour)
        else:
            _draw_meeple(draw, px + cx, py + cy, length, colour, lying=farmer)
    if show_scores:
        strip = _score_strip(game, image.width)
        full = Image.new("RGB", (image.width, image.height + strip.height), BACKGROUND)
        full.paste(image, (0, 0))
        full.paste(strip, (0, image.height))
        image = full
    return np.asarray(image)


def save_png(game: Game, path: str | os.PathLike[str], **kwargs: Any) -> None:
    """Write `render_rgb(game, **kwargs)` to `path` as a PNG."""
    Image.fromarray(render_rgb(game, **kwargs)).save(Path(path), format="PNG")


# File suffix -> Pillow format of the images `save_image` writes.
IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP",
                 ".bmp": "BMP"}


def image_format(path: str | os.PathLike[str]) -> str:
    """The Pillow format `path`'s suffix names (``"PNG"``, ``"JPEG"``, ...); ValueError
    for a suffix that names none (or one this Pillow cannot write)."""
    Image.init()
    suffix = Path(path).suffix.lower()
    fmt = IMAGE_FORMATS.get(suffix)
    if fmt is None or fmt not in Image.SAVE:
        known = ", ".join(k for k, v in IMAGE_FORMATS.items() if v in Image.SAVE)
        raise ValueError(f"cannot tell an image format from the suffix of {path} "
                         f"(known: {known})")
    return fmt


def save_image(game: Game, path: str | os.PathLike[str], **kwargs: Any) -> None:
    """Write `render_rgb(game, **kwargs)` to `path` in the format its suffix names
    (`image_format`: .png, .jpg/.jpeg, .webp, .bmp)."""
    fmt = image_format(path)
    Image.fromarray(render_rgb(game, **kwargs)).save(Path(path), format=fmt)


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
        _warn_once("carcassonne_env.render.show: no display (DISPLAY / WAYLAND_DISPLAY "
                   "unset); not showing the board")
        return False
    try:
        import tkinter

        from PIL import ImageTk
    except ImportError as err:
        _warn_once(f"carcassonne_env.render.show: tkinter is not available ({err})")
        return False
    for _ in range(2):  # a second try if the user closed the window
        if "root" not in _window:
            try:
                root = tkinter.Tk()
            except Exception as err:  # no X server, no Tk ...
                _no_window = True
                _warn_once(f"carcassonne_env.render.show: cannot open a window ({err})")
                return False
            root.title("Carcassonne")
            label = tkinter.Label(root)
            label.pack()
            _window.update(root=root, label=label)
        try:
            root, label = _window["root"], _window["label"]
            photo = ImageTk.PhotoImage(Image.fromarray(np.asarray(image, np.uint8)),
                                       master=root)
            label.configure(image=photo)
            label.image = photo  # keep a reference, or tkinter drops the picture
            root.update()
            return True
        except Exception:  # the window was closed (TclError): open a new one
            _window.clear()
    return False


__all__ = ["IMAGE_FORMATS", "SEAT_COLOURS", "SEAT_NAMES", "image_format", "render_rgb",
           "save_image", "save_png", "segment_anchors", "show",
           "tile_raster"]
