"""The tile tables as one packed buffer (`core.packed`), built by `carcassonne_env.tiles`
from the shipped JSON: what the jitted core knows of each tile type (T types, S segment
slots per tile, rotation r: the data's orientation turned r quarter turns clockwise)."""

from __future__ import annotations

import numpy as np

from .packed import Packed, PackedArray

TABLES = Packed("TileTables", [
    ("edge_code", np.uint16, 2, False),  # [T, 4]: edge terrains per rotation, 2 bits per edge
    ("edge_seg", np.int8, 3, False),  # [T, 4, 4]: segment on each edge (city/road), else -1
    ("half_seg", np.int8, 3, False),  # [T, 4, 8]: field segment on each half-edge, else -1
    ("n_seg", np.int8, 1, False),  # [T]
    ("seg_kind", np.int8, 2, False),  # [T, S]: K_* or -1
    ("seg_pennants", np.int8, 2, False),  # [T, S]
    ("seg_open", np.int8, 2, False),  # [T, S]: tile edges a city/road touches (open ends)
    ("seg_edges", np.int8, 3, False),  # [T, 4, S]: bit mask of edges a city/road touches
    ("seg_halves", np.int16, 3, False),  # [T, 4, S]: bit mask of half-edges a field touches
    ("seg_adj", np.int32, 2, False),  # [T, S]: bit mask of city segments a field touches
    ("mon_seg", np.int8, 1, False),  # [T]: monastery segment or -1
    ("n_adj", np.int8, 1, False),  # [T]: field-city adjacencies on the tile
    ("seg_flag", np.int8, 2, False),  # [T, S]: FLAG_INN on an inn's road, FLAG_CATHEDRAL
    ("seg_good", np.int8, 2, False),  # [T, S]: trade good (index into GOODS) or -1
], module=__name__)
TileTables = TABLES.array_class


def pack_tables(arrays: dict[str, np.ndarray]) -> PackedArray:
    """The tables buffer holding `arrays` (one per field, any shapes)."""
    tb = TABLES.allocate({name: a.shape for name, a in arrays.items()})
    for name, a in arrays.items():
        getattr(tb, name)[...] = a
    return tb
