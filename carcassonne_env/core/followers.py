"""Where a figure may go on a tile about to be placed: follower slots, checked through the
neighbours' features before the tile is placed (the placing itself is `core.turn`)."""

import numpy as np

from ..compiler.jit import hot, hot_inline
from . import constants as C
from .board import NEIGHBOUR_DX, NEIGHBOUR_DY, OPPOSITE_HALF, n_segments, root_of


@hot_inline
def _neighbour_roots(st, tb, t, r, bx, by, edges, fields):
    """For each segment s of tile t (rotation r) about to go on empty cell (bx, by): the
    roots of the placed neighbours' features it touches, across its edges for a road or
    city (if `edges`), its half-edges for a field (if `fields`), into
    work[W_NROOTS][8 * s:], their count in work[W_NCOUNT][s] (0 for the kinds left
    out and monasteries)."""
    work = st.work
    roots, n_roots, nb = work[C.W_NROOTS], work[C.W_NCOUNT], work[C.W_NEIGH]
    board, parent, ptype, prot = st.board, st.parent, st.ptype, st.prot
    S = n_segments(st)
    for d in range(4):  # the placements across the cell's edges, once for all segments
        j = board[by + NEIGHBOUR_DY[d], bx + NEIGHBOUR_DX[d]]
        nb[d] = j if j >= 0 else -1
    for s in range(tb.n_seg[t]):
        n_roots[s] = 0
        kind = tb.seg_kind[t, s]
        if kind == C.K_FIELD and fields:
            mask = np.int64(tb.seg_halves[t, r, s])
            last = -1
            for h in range(8):
                j = nb[h >> 1]
                if mask & (1 << h) and j >= 0:
                    g = j * S + tb.half_seg[ptype[j], prot[j], OPPOSITE_HALF[h]]
                    if g != last:  # (an edge's two halves mostly meet one field)
                        roots[8 * s + n_roots[s]] = root_of(parent, g)
                        n_roots[s] += 1
                        last = g
        elif (kind == C.K_ROAD or kind == C.K_CITY) and edges:
            mask = np.int64(tb.seg_edges[t, r, s])
            for d in range(4):
                j = nb[d]
                if mask & (1 << d) and j >= 0:
                    g = j * S + tb.edge_seg[ptype[j], prot[j], (d + 2) % 4]
                    roots[8 * s + n_roots[s]] = root_of(parent, g)
                    n_roots[s] += 1


@hot_inline
def _holders(st, tb, t, occ, own, seat, occupancy, owned):
    """From the roots `_neighbour_roots` listed: occ[s] = 1 (if `occupancy`) when segment
    s of tile t would belong to a feature holding a follower, own[s] = 1 (if `owned`)
    when one of `seat`'s, each spread through the tile (`_spread`): two segments
    touching one neighbouring feature become one feature (e.g. both fields of a road
    tile meeting a monastery-road tile whose field wraps around its road end)."""
    n = tb.n_seg[t]
    work, fmeep = st.work, st.fmeep
    roots, n_roots = work[C.W_NROOTS], work[C.W_NCOUNT]
    for s in range(n):
        occ[s] = 0
        own[s] = 0
        for k in range(n_roots[s]):
            root = roots[8 * s + k]
            if fmeep[root, seat] > 0:
                own[s] = 1
            if occupancy:
                for p in range(fmeep.shape[1]):
                    if fmeep[root, p] > 0:
                        occ[s] = 1
    if occupancy:
        _spread(tb, t, n, roots, n_roots, occ)
    if owned:
        _spread(tb, t, n, roots, n_roots, own)


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
    solo = st.solo != 0
    seat = st.seat
    has_supply = st.supply[seat] > 0
    xsupply = st.xsupply  # large follower, builder, pig: never in solo
    extras = xsupply[seat, 0] + xsupply[seat, 1] + xsupply[seat, 2]
    n = 0
    if not solo:
        out[0] = C.NO_FOLLOWER
        n = 1
        if not has_supply and extras == 0:
            return n, False
    occ, own = st.work[C.W_OCC], st.work[C.W_OWN]
    # Only a builder and / or a pig left (about half of a random expansion game's
    # decisions): the seat's own features, no occupancy, only the kinds they can take.
    only_own = not solo and not has_supply and xsupply[seat, 0] == 0
    builder, pig = xsupply[seat, 1] > 0, xsupply[seat, 2] > 0
    edges = builder if only_own else True
    # (no farmers in the solo variant, and a field's 8 half-edges cost the most)
    fields = pig if only_own else not solo
    _neighbour_roots(st, tb, t, r, bx, by, edges, fields)
    _holders(st, tb, t, occ, own, seat, not only_own, builder or pig)
    return _write_slots(st, tb, t, seat, solo, has_supply, occ, own, out, n)


@hot
def _write_slots(st, tb, t, seat, solo, has_supply, occ, own, out, n):
    """Append to out[n:] the slots allowed on tile t given occ[s] / own[s] (segment s's
    feature holds a follower / one of `seat`'s): followers first, then large
    followers, builders and pigs, each in segment order. Returns (count, blocked) as
    `follower_options` does."""
    seg_kind, xsupply = tb.seg_kind, st.xsupply
    for s in range(tb.n_seg[t]):
        if solo and seg_kind[t, s] == C.K_FIELD:
            continue  # no farmers in the solo variant
        if not occ[s] and (solo or has_supply):
            out[n] = s
            n += 1
    if solo:
        if n == 0 or not has_supply:
            out[0] = C.NO_FOLLOWER
            return 1, n > 0
        return n, False
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
    return n, False


@hot
def options_after_put(st, tb, t, i, out):
    """`follower_options` for tile t once `core.turn.put_tile` has put it down as
    placement i: the same slots in the same order and the same `blocked`, read from the
    merged features' roots rather than through the neighbours (cheaper: random
    playouts put the tile down first). Returns (count, blocked)."""
    solo = st.solo != 0
    seat = st.seat
    has_supply = st.supply[seat] > 0
    xsupply = st.xsupply
    n = 0
    if not solo:
        out[0] = C.NO_FOLLOWER
        n = 1
        if not has_supply and xsupply[seat, 0] + xsupply[seat, 1] + xsupply[seat, 2] == 0:
            return n, False
    occ, own = st.work[C.W_OCC], st.work[C.W_OWN]
    parent, fmeep = st.parent, st.fmeep
    base = i * n_segments(st)
    for s in range(tb.n_seg[t]):
        root = root_of(parent, base + s)
        occ[s] = 0
        for p in range(fmeep.shape[1]):
            if fmeep[root, p] > 0:
                occ[s] = 1
        own[s] = 1 if fmeep[root, seat] > 0 else 0
    return _write_slots(st, tb, t, seat, solo, has_supply, occ, own, out, n)
