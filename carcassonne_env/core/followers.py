"""Where a figure may go on a tile about to be placed: follower slots, checked through the
neighbours' features before the tile is placed (the placing itself is `core.turn`)."""

import numpy as np

from . import config as C
from .board import n_segments, neighbour_segment, root_of
from .jit import hot, hot_inline


@hot
def _neighbour_roots(st, tb, t, r, bx, by, s, roots, n_roots):
    """Write the roots of the placed neighbours' features that segment s of tile t
    (rotation r, on empty cell (bx, by)) touches into roots[8 * s:] (count in
    n_roots[s]): across its edges for a road or city, its half-edges for a field."""
    n_roots[s] = 0
    kind = tb.seg_kind[t, s]
    if kind == C.K_MONASTERY:
        return
    if kind == C.K_FIELD:
        mask = np.int64(tb.seg_halves[t, r, s])
        table, n_bits = 1, 8
    else:
        mask = np.int64(tb.seg_edges[t, r, s])
        table, n_bits = 0, 4
    parent = st.parent
    for e in range(n_bits):
        if mask & (1 << e):
            g = neighbour_segment(st, tb, bx, by, e, table)
            if g >= 0:
                roots[8 * s + n_roots[s]] = root_of(parent, g)
                n_roots[s] += 1


@hot_inline
def occupied_segments(st, tb, t, r, bx, by, occ):
    """occ[s] = 1 if segment s of tile t (rotation r) put on empty cell (bx, by) would
    belong to a feature that holds a follower, else 0. Checked before placing, through
    the neighbours' features, including merges through the tile's other segments: two
    segments touching one neighbouring feature become one feature (e.g. both fields of a
    road tile meeting a monastery-road tile whose field wraps around its road end).
    Leaves each segment's neighbouring roots in st.work for `own_segments`."""
    n = tb.n_seg[t]
    work, fmeep = st.work, st.fmeep
    roots = work[C.W_NROOTS]  # roots[8 * s + k]: k-th neighbouring feature of segment s
    n_roots = work[C.W_NCOUNT]
    for s in range(n):
        occ[s] = 0
        _neighbour_roots(st, tb, t, r, bx, by, s, roots, n_roots)
        for k in range(n_roots[s]):
            for p in range(fmeep.shape[1]):
                if fmeep[roots[8 * s + k], p] > 0:
                    occ[s] = 1
    _spread(tb, t, n, roots, n_roots, occ)


@hot
def own_segments(st, tb, t, own, seat):
    """own[s] = 1 if segment s of tile t would belong to a feature holding a follower of
    `seat` (where a builder or pig may go). Reads the neighbouring roots that
    `occupied_segments` (or `own_segments_only`) left for the same placement; a
    separate pass so that games without builders and pigs never pay for it."""
    n = tb.n_seg[t]
    work, fmeep = st.work, st.fmeep
    roots, n_roots = work[C.W_NROOTS], work[C.W_NCOUNT]
    for s in range(n):
        own[s] = 0
        for k in range(n_roots[s]):
            if fmeep[roots[8 * s + k], seat] > 0:
                own[s] = 1
    _spread(tb, t, n, roots, n_roots, own)


@hot_inline
def own_segments_only(st, tb, t, r, bx, by, own, seat, edges, fields):
    """`own_segments` for a seat with only a builder and / or pig left, without the
    occupancy pass: only the kinds those figures can take are looked at (`edges`: roads
    and cities, for a builder; `fields`: fields, for a pig; own[s] = 0 for the others).
    About a third of a random expansion game's decisions are of this kind, and a field's
    eight half-edges are most of the lookups."""
    n = tb.n_seg[t]
    seg_kind, n_roots = tb.seg_kind, st.work[C.W_NCOUNT]
    for s in range(n):
        kind = seg_kind[t, s]
        n_roots[s] = 0
        wanted = fields if kind == C.K_FIELD else edges and kind != C.K_MONASTERY
        if wanted:
            _neighbour_roots(st, tb, t, r, bx, by, s, st.work[C.W_NROOTS], n_roots)
    own_segments(st, tb, t, own, seat)


@hot
def _spread(tb, t, n, roots, n_roots, mark):
    """A segment sharing a neighbouring feature with a marked one of the same kind is
    marked too (they become one feature when the tile is placed)."""
    n_marked = 0
    for s in range(n):
        n_marked += mark[s]
    changed = 0 < n_marked < n
    seg_kind = tb.seg_kind
    while changed:
        changed = False
        for a in range(n):
            for b in range(n):
                if mark[a] or not mark[b] or seg_kind[t, a] != seg_kind[t, b]:
                    continue
                for i in range(n_roots[a]):
                    for j in range(n_roots[b]):
                        if roots[8 * a + i] == roots[8 * b + j]:
                            mark[a] = 1
                            changed = True


@hot
def follower_options(st, tb, t, r, bx, by, out):
    """Write the follower slots allowed after placing t/r at (bx, by) into `out`
    (NO_FOLLOWER = none; figure f on segment s is slot f * S + s, config.FIG_*: a
    follower or large follower on a free feature, a builder on a road or city, a pig on
    a field, holding the seat's own follower). Returns (count, blocked): `blocked` marks
    a solo turn where a follower is compulsory but the supply is empty (the move then
    ends the game, end A)."""
    solo = st.cfg[C.CFG_SOLO] != 0
    seat = st.sc[C.SC_SEAT]
    has_supply = st.supply[seat] > 0
    xsupply = st.xsupply  # large follower, builder, pig: never in solo
    extras = xsupply[seat, 0] + xsupply[seat, 1] + xsupply[seat, 2]
    n = 0
    if not solo:
        out[0] = C.NO_FOLLOWER
        n = 1
        if not has_supply and extras == 0:
            return n, False
    seg_kind = tb.seg_kind
    occ, own = st.work[C.W_OCC], st.work[C.W_OWN]
    if not solo and not has_supply and xsupply[seat, 0] == 0:
        # only a builder and / or a pig left: the seat's own features, no occupancy
        builder, pig = xsupply[seat, 1] > 0, xsupply[seat, 2] > 0
        own_segments_only(st, tb, t, r, bx, by, own, seat, builder, pig)
        S = n_segments(st)
        for fig in range(C.FIG_BUILDER, C.FIG_PIG + 1):  # the order of the loop below
            for s in range(tb.n_seg[t]):
                if own[s] and (seg_kind[t, s] == C.K_FIELD) == (fig == C.FIG_PIG):
                    out[n] = fig * S + s
                    n += 1
        return n, False
    occupied_segments(st, tb, t, r, bx, by, occ)
    for s in range(tb.n_seg[t]):
        if solo and seg_kind[t, s] == C.K_FIELD:
            continue  # no farmers in the solo variant
        if not occ[s] and (solo or has_supply):
            out[n] = s
            n += 1
    if not solo and extras > 0:
        if xsupply[seat, 1] + xsupply[seat, 2] > 0:  # builders and pigs: Traders & Builders
            own_segments(st, tb, t, own, seat)
        S = n_segments(st)
        for fig in range(1, 4):
            if xsupply[seat, fig - 1] == 0:
                continue
            for s in range(tb.n_seg[t]):
                kind = seg_kind[t, s]
                if fig == C.FIG_LARGE:
                    ok = not occ[s]
                elif fig == C.FIG_BUILDER:
                    ok = own[s] and (kind == C.K_ROAD or kind == C.K_CITY)
                else:
                    ok = own[s] and kind == C.K_FIELD
                if ok:
                    out[n] = fig * S + s
                    n += 1
    if solo and (n == 0 or not has_supply):
        blocked = n > 0
        out[0] = C.NO_FOLLOWER
        return 1, blocked
    return n, False
