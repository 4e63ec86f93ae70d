"""The picture of each tile, drawn from the tile data, and where followers stand on it.

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

Each (tile, rotation, cell size) raster is drawn once, supersampled, and cached
(`tile_raster`), so drawing a whole board is a few array copies plus the followers and the
score strip (`carcassonne_env.rendering.image`). `segment_anchors` gives the follower spots.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from ..core.constants import FLAG_CATHEDRAL, FLAG_INN, GOODS, K_CITY, K_FIELD, K_ROAD
from ..tiles import TileSet
from .palette import (
    CATHEDRAL,
    CHURCH,
    CHURCH_EDGE,
    CITY,
    EMBLEM_EDGE,
    FIELD,
    GOODS_COLOURS,
    INN_LAKE,
    JUNCTION,
    PENNANT,
    PENNANT_EDGE,
    ROAD,
    ROAD_EDGE,
    ROOF,
    WALL,
)

_VEC = ((0, -1), (1, 0), (0, 1), (-1, 0))  # unit vectors of edges N, E, S, W (y grows south)
_ANCHOR_RES = 64  # resolution of the masks that place followers


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
        self.wedge = _draw_mask(
            n, lambda d: d.polygon([(-1, -1), (n, -1), ((n - 1) / 2, (n - 1) / 2)], fill=255)
        )
        self.cap = self._lens(0.27)  # a city on one edge
        self.cut = self._lens(0.30)  # field left between two opposite city edges
        # Road from the N edge midpoint to just past the centre (symmetric about x = c).
        self.stub = _draw_mask(n, lambda d: d.rectangle((c - a, 0, c + a - 1, c + a - 1), fill=255))

        # Road bending round the N-E corner: a quarter ring through both edge midpoints.
        def ring(d: ImageDraw.ImageDraw) -> None:
            cx, cy = n - 0.5, -0.5
            d.ellipse((cx - c - a, cy - c - a, cx + c + a, cy + c + a), fill=255)
            d.ellipse((cx - c + a, cy - c + a, cx + c - a, cy + c - a), fill=0)

        self.bend = _draw_mask(n, ring)
        b = max(2, round(n * 0.1))
        self.junction = _draw_mask(
            n, lambda d: d.rectangle((c - b, c - b, c + b - 1, c + b - 1), fill=255)
        )
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
        return _draw_mask(
            n, lambda dr: dr.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=255)
        )


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
        at_centre = city_any[c - 1 : c + 1, c - 1 : c + 1].any()  # the 4 central pixels
        self.junction = dead_ends >= 3 or (dead_ends >= 1 and self.monastery < 0 and not at_centre)
        # Emblems are drawn upright in the tile's own frame, then turned with the tile.
        self.church = self._church(r) if self.monastery >= 0 else None
        self.pennants: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # (fill, outline)
        for s in self.cities:
            if tb.seg_pennants[t, s] > 0:
                own = sorted((e - r) % 4 for e in _edges(tb.seg_edges[t, r, s]))
                self.pennants[s] = self._shield(own, r)
        # Inns & Cathedrals: a pond beside each road with an inn, a cross in a city with
        # a cathedral (drawn in every mode: they are printed on the tiles).
        self.inns = [self._pond(self.seg[s]) for s in self.roads if tb.seg_flag[t, s] & FLAG_INN]
        self.cathedrals = [
            self._cross(self.seg[s]) for s in self.cities if tb.seg_flag[t, s] & FLAG_CATHEDRAL
        ]
        # Traders & Builders: the trade good's symbol in its city.
        self.goods = [
            (GOODS[tb.seg_good[t, s]], self._good(self.seg[s], GOODS[tb.seg_good[t, s]]))
            for s in self.cities
            if tb.seg_good[t, s] >= 0
        ]

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
                d.polygon(
                    [(cx, cy - a * 1.1), (cx + a, cy + a * 0.8), (cx - a, cy + a * 0.8)], fill=255
                )
            else:
                d.rectangle((cx - 0.85 * a, cy - 0.85 * a, cx + 0.85 * a, cy + 0.85 * a), fill=255)

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
        fill = _draw_mask(
            n, lambda d: d.ellipse((cx - r, cy - 0.75 * r, cx + r, cy + 0.75 * r), fill=255)
        )
        return fill, _dilate(fill, max(1, round(n * 0.012))) & ~fill

    def _cross(self, city: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(fill, outline) of the cathedral's cross at the middle of `city`."""
        n = self.n
        ys, xs = np.nonzero(city)
        cy, cx = float(ys.mean()), float(xs.mean())
        a, b = 0.16 * n, 0.045 * n

        def cross(d: ImageDraw.ImageDraw) -> None:
            d.rectangle((cx - b, cy - a, cx + b, cy + a), fill=255)
            d.rectangle(
                (cx - 0.7 * a, cy - 0.45 * a - b, cx + 0.7 * a, cy - 0.45 * a + b), fill=255
            )

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
            d.line(
                (c - 0.03 * n, apex - 0.06 * n, c + 0.03 * n, apex - 0.06 * n), fill=255, width=line
            )

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


__all__ = ["segment_anchors", "tile_raster"]
