"""Tile data: the shipped JSON tables compiled once into numpy lookup tables.

This is the only place that reads tile knowledge. Everything else (placement checks,
feature tracking, follower names, rendering) derives from the `TileTables` built here.

Segments of a tile are numbered in data order: cities, roads, fields, then the monastery.
Rotation r turns the reference orientation r quarter turns clockwise: the segment that
touches edge e in the data touches edge (e + r) % 4, half-edge h becomes (h + 2r) % 8.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from .core.constants import (
    EDGES,
    FLAG_CATHEDRAL,
    FLAG_INN,
    GOODS,
    HALF_EDGES,
    K_CITY,
    K_FIELD,
    K_MONASTERY,
    K_ROAD,
    TERRAINS,
)
from .core.tables import TileTables, pack_tables


@dataclass(frozen=True, eq=False)  # compared and hashed by identity (holds arrays)
class TileSet:
    """A set of tile types with their compiled tables and naming helpers."""

    names: tuple[str, ...]  # tile type names (letters for the base game)
    counts: tuple[int, ...]  # copies in the full game, start tile included
    start: int  # index of the start tile type
    max_segments: int
    tables: TileTables  # the jitted core's tables (core.tables)
    slot_names: tuple  # [t][r][s] -> canonical follower location
    slot_aliases: tuple  # [t][r] -> {location alias: segment}
    canonical_rotation: np.ndarray  # int8[T, 4]: smallest rotation giving the same tile

    def index(self, name: str) -> int:
        """Tile type index of `name`; raises ValueError for an unknown name."""
        try:
            return self.names.index(name)
        except ValueError:
            hint = ""
            if any(name.startswith(p) and len(name) == 2 for _, p in EXPANSION_TILES.values()):
                hint = " (expansion tiles need Rules(expansions=[...]))"
            sep = "" if all(len(n) == 1 for n in self.names) else " "
            raise ValueError(
                f"unknown tile {name!r}{hint}; known tiles: {sep.join(self.names)}"
            ) from None

    def full_deck(self) -> list[int]:
        """Every tile of the game except the start tile, in type order."""
        deck = []
        for t, n in enumerate(self.counts):
            deck += [t] * (n - (t == self.start))
        return deck


def _rot_edge(e: int, r: int) -> int:
    return (e + r) % 4


def _rot_half(h: int, r: int) -> int:
    return (h + 2 * r) % 8


def _segments(tile: dict) -> list[tuple[int, dict]]:
    segs = [(K_CITY, c) for c in tile["cities"]]
    segs += [(K_ROAD, rd) for rd in tile["roads"]]
    segs += [(K_FIELD, f) for f in tile["fields"]]
    if tile.get("monastery"):
        segs.append((K_MONASTERY, {}))
    return segs


def _compile(tiles: list[dict]) -> tuple[TileTables, tuple, tuple, np.ndarray, int]:
    T = len(tiles)
    S = max(len(_segments(t)) for t in tiles)
    edge_code = np.zeros((T, 4), np.uint16)
    edge_seg = np.full((T, 4, 4), -1, np.int8)
    half_seg = np.full((T, 4, 8), -1, np.int8)
    n_seg = np.zeros(T, np.int8)
    seg_kind = np.full((T, S), -1, np.int8)
    seg_pennants = np.zeros((T, S), np.int8)
    seg_open = np.zeros((T, S), np.int8)
    seg_edges = np.zeros((T, 4, S), np.int8)
    seg_halves = np.zeros((T, 4, S), np.int16)
    seg_adj = np.zeros((T, S), np.int32)
    mon_seg = np.full(T, -1, np.int8)
    n_adj = np.zeros(T, np.int8)
    seg_flag = np.zeros((T, S), np.int8)
    seg_good = np.full((T, S), -1, np.int8)
    slot_names, slot_aliases = [], []
    canonical = np.zeros((T, 4), np.int8)

    for t, tile in enumerate(tiles):
        segs = _segments(tile)
        n_seg[t] = len(segs)
        ids = {seg.get("id"): s for s, (_, seg) in enumerate(segs)}
        terrain = [TERRAINS.index(tile["edges"][e]) for e in EDGES]
        for s, (kind, seg) in enumerate(segs):
            seg_kind[t, s] = kind
            if kind in (K_CITY, K_ROAD):
                edges = [EDGES.index(e) for e in seg["edges"]]
                for e in edges:
                    want = K_CITY if kind == K_CITY else K_ROAD
                    if terrain[e] != want:
                        raise ValueError(f"tile {tile['letter']}: segment on edge {e} mismatch")
                seg_open[t, s] = len(edges)
                seg_pennants[t, s] = seg.get("pennants", 0)
                seg_flag[t, s] = FLAG_INN * bool(seg.get("inn")) | FLAG_CATHEDRAL * bool(
                    seg.get("cathedral")
                )
                if seg.get("trade_good"):
                    seg_good[t, s] = GOODS.index(seg["trade_good"])
            elif kind == K_FIELD:
                for c in seg.get("adjacent_cities", []):
                    seg_adj[t, s] |= 1 << ids[c]
                    n_adj[t] += 1
            else:
                mon_seg[t] = s
        inner = [s for s, (k, seg) in enumerate(segs) if k == K_FIELD and not seg["half_edges"]]
        if len(inner) > 1:
            raise ValueError(f"tile {tile['letter']}: more than one inner field is not supported")

        names_r, aliases_r, layouts = [], [], []
        for r in range(4):
            code = 0
            for e in range(4):
                code |= terrain[e] << (2 * _rot_edge(e, r))
            edge_code[t, r] = code
            names, aliases, layout = [], {}, []
            for s, (kind, seg) in enumerate(segs):
                if kind in (K_CITY, K_ROAD):
                    edges = sorted(_rot_edge(EDGES.index(e), r) for e in seg["edges"])
                    for e in edges:
                        edge_seg[t, r, e] = s
                        seg_edges[t, r, s] |= 1 << e
                    prefix = "city" if kind == K_CITY else "road"
                    locs = [f"{prefix}:{EDGES[e]}" for e in edges]
                elif kind == K_FIELD:
                    halves = sorted(_rot_half(HALF_EDGES.index(h), r) for h in seg["half_edges"])
                    for h in halves:
                        half_seg[t, r, h] = s
                        seg_halves[t, r, s] |= 1 << h
                    locs = [f"field:{HALF_EDGES[h]}" for h in halves] or ["field:inner"]
                else:
                    locs = ["monastery"]
                names.append(locs[0])
                layout.append((kind, tuple(locs), int(seg_pennants[t, s])))
                for loc in locs:
                    aliases[loc] = s
            layouts.append(frozenset(layout))
            names_r.append(tuple(names))
            aliases_r.append(aliases)
        slot_names.append(tuple(names_r))
        slot_aliases.append(tuple(aliases_r))
        # Rotations that give an identical tile image (same edges, same segment layout).
        for r in range(4):
            canonical[t, r] = next(q for q in range(4) if layouts[q] == layouts[r])

    tables = pack_tables(
        {
            "edge_code": edge_code,
            "edge_seg": edge_seg,
            "half_seg": half_seg,
            "n_seg": n_seg,
            "seg_kind": seg_kind,
            "seg_pennants": seg_pennants,
            "seg_open": seg_open,
            "seg_edges": seg_edges,
            "seg_halves": seg_halves,
            "seg_adj": seg_adj,
            "mon_seg": mon_seg,
            "n_adj": n_adj,
            "seg_flag": seg_flag,
            "seg_good": seg_good,
        }
    )
    return tables, tuple(slot_names), tuple(slot_aliases), canonical, S


def load_json(filename: str = "base_tiles.json") -> dict:
    """The raw tile table shipped in the package (`carcassonne_env/data/`)."""
    text = resources.files("carcassonne_env").joinpath(f"data/{filename}").read_text("utf-8")
    return json.loads(text)


# The expansions' tile tables and the prefix of their tile ids (docs/rules.md 7.2): I&C
# tile "A" is "EA" (Antimonit's EA..EQ), T&B tile "A" is "TA".
EXPANSION_TILES = {
    "inns_cathedrals": ("i_and_c_tiles.json", "E"),
    "traders_builders": ("t_and_b_tiles.json", "T"),
}


@cache
def base_tileset() -> TileSet:
    """The 72-tile base game (24 types A-X; start tile D)."""
    return tileset_for(())


@cache
def tileset_for(expansions: tuple[str, ...] = ()) -> TileSet:
    """The tiles of the base game plus those of `expansions` (names of
    `EXPANSION_TILES`, in that order): base letters A-X, then each expansion's tiles
    under its prefix (``"EA"``... for Inns & Cathedrals, ``"TA"``... for Traders &
    Builders). Start tile D."""
    tiles = list(load_json("base_tiles.json")["tiles"])
    names = [t["letter"] for t in tiles]
    for name in expansions:
        filename, prefix = EXPANSION_TILES[name]
        extra = load_json(filename)["tiles"]
        tiles += extra
        names += [prefix + t["letter"] for t in extra]
    tables, slot_names, slot_aliases, canonical, S = _compile(tiles)
    return TileSet(
        names=tuple(names),
        counts=tuple(t["count"] for t in tiles),
        start=names.index("D"),
        max_segments=S,
        tables=tables,
        slot_names=slot_names,
        slot_aliases=slot_aliases,
        canonical_rotation=canonical,
    )


def shuffled_deck(ts: TileSet, seed: int | None) -> np.ndarray:
    """The draw order of a seeded game: every tile but the start tile, shuffled with
    numpy's PCG64 seeded by `seed`."""
    return np.random.default_rng(seed).permutation(_full_deck(ts))


@cache
def _full_deck(ts: TileSet) -> np.ndarray:
    deck = np.array(ts.full_deck(), np.int8)
    deck.flags.writeable = False
    return deck
