"""The shipped tile data and the tables compiled from it."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env.core.constants import CITY, FIELD, ROAD
from carcassonne_env.tiles import base_tileset, load_json


def test_totals_match_the_data_schema():
    ts = base_tileset()
    data = load_json("base_tiles.json")
    totals = data["totals"]
    assert len(ts.names) == totals["tile_types"] == 24
    assert sum(ts.counts) == totals["tiles"] == 72
    assert ts.names[ts.start] == "D" and len(ts.full_deck()) == 71
    counts = np.array(ts.counts)
    tb = ts.tables
    terrain = [
        [(int(tb.edge_code[t, 0]) >> (2 * e)) & 3 for e in range(4)] for t in range(len(ts.names))
    ]
    for code, name in ((CITY, "city"), (ROAD, "road"), (FIELD, "field")):
        n = sum(c * row.count(code) for c, row in zip(counts, terrain, strict=True))
        assert n == totals["edge_terrain_counts"][name]
    assert int((counts * (tb.mon_seg >= 0)).sum()) == totals["monastery_tiles"]
    assert int((counts * tb.seg_pennants.sum(axis=1)).sum()) == totals["pennants"]


def test_rotation_moves_edges_clockwise():
    ts = base_tileset()
    tb = ts.tables
    for t in range(len(ts.names)):
        base = [(int(tb.edge_code[t, 0]) >> (2 * e)) & 3 for e in range(4)]
        for r in range(4):
            rotated = [(int(tb.edge_code[t, r]) >> (2 * e)) & 3 for e in range(4)]
            assert rotated == [base[(e - r) % 4] for e in range(4)]


def test_segments_cover_every_edge_and_half_edge_once():
    ts = base_tileset()
    tb = ts.tables
    for t in range(len(ts.names)):
        for r in range(4):
            code = int(tb.edge_code[t, r])
            for e in range(4):
                ter = (code >> (2 * e)) & 3
                assert (tb.edge_seg[t, r, e] >= 0) == (ter != FIELD)
                for h in (2 * e, 2 * e + 1):
                    assert (tb.half_seg[t, r, h] >= 0) == (ter != CITY)


def test_follower_names_and_symmetry():
    ts = base_tileset()
    L = ts.index("L")
    assert ts.slot_names[L][0] == (
        "city:N",
        "road:E",
        "road:S",
        "road:W",
        "field:E_n",
        "field:S_w",
        "field:E_s",
    )
    assert ts.slot_names[L][1][0] == "city:E"
    assert ts.slot_aliases[ts.index("N")][0]["city:W"] == 0
    assert list(ts.canonical_rotation[ts.index("U")]) == [0, 1, 0, 1]
    assert list(ts.canonical_rotation[ts.index("C")]) == [0, 0, 0, 0]
    assert list(ts.canonical_rotation[ts.index("V")]) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="unknown tile"):
        ts.index("Z")
