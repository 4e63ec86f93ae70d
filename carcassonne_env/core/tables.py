"""The tile tables as one packed buffer (`core.packed`), built by `carcassonne_env.tiles`
from the shipped JSON: what the jitted core knows of each tile type (T types, S segment
slots per tile, rotation r: the data's orientation turned r quarter turns clockwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .packed import Packed, PackedArray

TABLES = Packed(
    "TileTables",
    [
        # name, dtype, shape (T tile types, S segment slots), scratch
        ("edge_code", np.uint16, ("T", 4), False),  # edge terrains per rotation, 2 bits per edge
        ("edge_seg", np.int8, ("T", 4, 4), False),  # segment on each edge (city/road), else -1
        ("half_seg", np.int8, ("T", 4, 8), False),  # field segment on each half-edge, else -1
        ("n_seg", np.int8, ("T",), False),
        ("seg_kind", np.int8, ("T", "S"), False),  # K_* or -1
        ("seg_pennants", np.int8, ("T", "S"), False),
        ("seg_open", np.int8, ("T", "S"), False),  # tile edges a city/road touches (open ends)
        ("seg_edges", np.int8, ("T", 4, "S"), False),  # bit mask of edges a city/road touches
        ("seg_halves", np.int16, ("T", 4, "S"), False),  # bit mask of half-edges a field touches
        ("seg_adj", np.int32, ("T", "S"), False),  # bit mask of city segments a field touches
        ("mon_seg", np.int8, ("T",), False),  # monastery segment or -1
        ("n_adj", np.int8, ("T",), False),  # field-city adjacencies on the tile
        ("seg_flag", np.int8, ("T", "S"), False),  # FLAG_INN on an inn's road, FLAG_CATHEDRAL
        ("seg_good", np.int8, ("T", "S"), False),  # trade good (index into GOODS) or -1
    ],
    module=__name__,
)
if TYPE_CHECKING:  # a class made at import is no type to a checker: its base is
    TileTables = PackedArray
else:
    TileTables = TABLES.array_class


def pack_tables(arrays: dict[str, np.ndarray]) -> PackedArray:
    """The tables buffer holding `arrays` (one per field, of the layout's shapes)."""
    return TABLES.pack(arrays)
