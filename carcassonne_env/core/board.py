"""Tile placement: frontier of open cells, edge checks, and incremental feature merging.

Every open cell (empty, next to a tile) sits in the frontier list with its packed
constraint `mask << 8 | terrain`, two bits per edge, so testing a (cell, rotation) is one
xor-and against the tile's packed edges, reading the list front to back. The board holds
a placement index (>= 0), EMPTY, or the open cell's frontier slot k as -2 - k.

Placing a tile merges its segments with the neighbours' features in a union-find whose
roots carry the aggregates (tiles, pennants, open ends, followers, inn / cathedral
flags, trade goods, builders, pigs); a road or city is complete exactly when its count
of open ends reaches zero.
"""

import numpy as np

from ..compiler.jit import hot, hot_entry, hot_inline
from . import constants as C

# Cell offsets of the neighbour across each edge (config.DX / DY as arrays: jitted code
# indexes them with a run-time edge).
NEIGHBOUR_DX = np.array(C.DX, np.int64)
NEIGHBOUR_DY = np.array(C.DY, np.int64)
OPPOSITE_HALF = np.array(C.OPPOSITE_HALF, np.int64)
EMPTY = -1  # board value of a cell that is neither placed nor open

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@hot
def popcount64(x):
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@hot
def find(parent, g):
    """Root of segment g, halving the path on the way (mutates `parent`, same partition)."""
    while parent[g] != g:
        parent[g] = parent[parent[g]]
        g = parent[g]
    return g


@hot
def root_of(parent, g):
    """Root of segment g without touching the array (for read-only queries)."""
    while parent[g] != g:
        g = parent[g]
    return g


@hot_inline
def union(st, a, b, count_tiles):
    """Merge the features of segments a and b; returns the root. Aggregates are summed,
    tile sets united so a tile holding two pieces of one feature counts once."""
    parent = st.parent
    ra = find(parent, a)
    rb = find(parent, b)
    if ra == rb:
        return ra
    if rb < ra:  # keep the older root: new segments hang under existing features
        ra, rb = rb, ra
    parent[rb] = ra
    st.fpenn[ra] += st.fpenn[rb]
    st.fopen[ra] += st.fopen[rb]
    if st.expansions:  # their aggregates stay zero without them
        st.fflag[ra] |= st.fflag[rb]
        st.fbuild[ra] |= st.fbuild[rb]
        st.fpig[ra] |= st.fpig[rb]
        for k in range(C.N_GOODS):
            st.fgoods[ra, k] += st.fgoods[rb, k]
    fmeep = st.fmeep
    for p in range(fmeep.shape[1]):
        fmeep[ra, p] += fmeep[rb, p]
    if count_tiles:
        fbits = st.fbits
        n = 0
        for w in range(fbits.shape[1]):
            fbits[ra, w] |= fbits[rb, w]
            n += popcount64(fbits[ra, w])
        st.fntiles[ra] = n
    return ra


# Note for the whole core: read `st.<array>` into a local before any loop. Each attribute
# access reads the state's header (and, in reference-counted code, costs an atomic pair).


@hot_entry
def n_segments(st):
    """Segment slots per placement (S); stored, as a division here would sit in hot loops."""
    return st.nseg


@hot
def origin(st):
    """Board index of coordinate 0."""
    return st.ptype.shape[0]


@hot
def fits(edge_code, t, r, con):
    """Does tile t in rotation r satisfy the packed edge constraint `con`?"""
    return ((np.int64(edge_code[t, r]) ^ (con & 0xFF)) & (con >> 8)) == 0


@hot
def four_rotations(tb, t):
    """Tile t's packed edges in rotations 0-3 as bytes 0-3 of one integer (`fit_bits`)."""
    e = tb.edge_code
    return (
        np.int64(e[t, 0])
        | np.int64(e[t, 1]) << 8
        | np.int64(e[t, 2]) << 16
        | np.int64(e[t, 3]) << 24
    )


@hot
def fit_bits(four, con):
    """`fits` for the four rotations at once: bit 8r + 7 is set iff rotation r (byte r
    of `four_rotations`) meets the packed constraint `con`. A byte-wise zero test with
    no branch: which rotations fit is unpredictable, and a branch per rotation
    mispredicts."""
    y = (four ^ ((con & 0xFF) * 0x01010101)) & ((con >> 8) * 0x01010101)
    return ~(((y & 0x7F7F7F7F) + 0x7F7F7F7F) | y | 0x7F7F7F7F) & 0x80808080


@hot
def n_fits(bits):
    """Number of rotations set in `fit_bits`' result (its four bits summed in the top
    byte by one multiply)."""
    return (((bits >> 7) * 0x01010101) >> 24) & 0xFF


@hot
def has_placement(st, tb, t):
    """Can tile type t be placed anywhere?"""
    frontier = st.frontier
    four = four_rotations(tb, t)
    for k in range(st.nfront):
        if fit_bits(four, np.int64(frontier[k, 2])):
            return True
    return False


@hot
def list_placements(st, tb, t, out):
    """Write every legal placement of tile t into the columns of `out` (rows: board x,
    board y, rotation), by frontier cell then rotation; returns the count."""
    frontier = st.frontier
    four = four_rotations(tb, t)
    n = 0
    for k in range(st.nfront):
        bits = fit_bits(four, np.int64(frontier[k, 2]))
        for r in range(4):  # written always, kept when it fits: no branch
            out[0, n] = frontier[k, 0]
            out[1, n] = frontier[k, 1]
            out[2, n] = r
            n += (bits >> (8 * r + 7)) & 1
    return n


@hot
def count_placements(st, tb, t):
    """The count `list_placements` returns, without the list."""
    frontier = st.frontier
    four = four_rotations(tb, t)
    n = 0
    for k in range(st.nfront):
        n += n_fits(fit_bits(four, np.int64(frontier[k, 2])))
    return n


@hot
def nth_placement(st, tb, t, pick):
    """Placement `pick` of `list_placements`' list (0 <= pick < its count): board x,
    board y, rotation."""
    frontier = st.frontier
    four = four_rotations(tb, t)
    for k in range(st.nfront):
        bits = fit_bits(four, np.int64(frontier[k, 2]))
        c = n_fits(bits)
        if pick >= c:
            pick -= c
            continue
        for r in range(4):
            if (bits >> (8 * r + 7)) & 1:
                if pick == 0:
                    return frontier[k, 0], frontier[k, 1], r
                pick -= 1
    return -1, -1, -1


@hot
def neighbour_segment(st, tb, bx, by, d, seg_of_edge):
    """Segment of the placed neighbour across edge d of cell (bx, by) that meets it, or -1.
    `seg_of_edge` selects the table: 0 = edge_seg (city/road), 1 = half_seg (field, d is
    then a half-edge)."""
    e = d if seg_of_edge == 0 else d // 2
    j = st.board[by + NEIGHBOUR_DY[e], bx + NEIGHBOUR_DX[e]]
    if j < 0:
        return -1
    tj = st.ptype[j]
    rj = st.prot[j]
    if seg_of_edge == 0:
        s = tb.edge_seg[tj, rj, (d + 2) % 4]
    else:
        s = tb.half_seg[tj, rj, OPPOSITE_HALF[d]]
    return j * n_segments(st) + s


@hot
def frontier_slot(value):
    """Frontier slot encoded in a board value (-2 - k), or -1 if the cell is not open."""
    return -2 - value if value <= -2 else -1


@hot
def constraint(st, bx, by):
    """Packed edge constraint of cell (bx, by); 0 unless the cell is open."""
    k = frontier_slot(st.board[by, bx])
    return np.int64(st.frontier[k, 2]) if k >= 0 else 0


@hot_inline
def _remove_from_frontier(st, bx, by):
    """Drop open cell (bx, by) from the frontier: the last slot moves into its place."""
    frontier, board = st.frontier, st.board
    k = frontier_slot(board[by, bx])
    last = st.nfront - 1
    for c in range(3):
        frontier[k, c] = frontier[last, c]
    board[frontier[k, 1], frontier[k, 0]] = -2 - k
    st.nfront = last
    board[by, bx] = EMPTY


@hot_inline
def _init_segments(st, tb, t, i):
    S = n_segments(st)
    base = i * S
    word = i >> 6
    bit = np.uint64(1) << np.uint64(i & 63)
    parent, fbits, fntiles, fpenn = st.parent, st.fbits, st.fntiles, st.fpenn
    fopen, fmeep, fdone, owner = st.fopen, st.fmeep, st.fdone, st.owner
    fflag, fgoods = st.fflag, st.fgoods
    pairs = st.pairs
    # Inns and cathedrals count only with Inns & Cathedrals in full mode, trade goods
    # only with Traders & Builders in full mode outside solo.
    flags = st.expansions & C.EXP_INNS_CATHEDRALS
    goods = st.expansions & C.EXP_TRADERS_BUILDERS and not st.solo
    seg_kind, seg_pennants, seg_flag = tb.seg_kind, tb.seg_pennants, tb.seg_flag
    seg_open, seg_adj = tb.seg_open, tb.seg_adj
    for s in range(tb.n_seg[t]):
        g = base + s
        parent[g] = g
        for w in range(fbits.shape[1]):
            fbits[g, w] = 0
        fbits[g, word] = bit
        fntiles[g] = 1
        fpenn[g] = seg_pennants[t, s]
        fopen[g] = seg_open[t, s]
        for p in range(fmeep.shape[1]):
            fmeep[g, p] = 0
        fdone[g] = 0
        if st.expansions:  # (never set without them: zero from make_state)
            fflag[g] = seg_flag[t, s] if flags else 0
            for k in range(C.N_GOODS):
                fgoods[g, k] = 0
            if goods and tb.seg_good[t, s] >= 0:
                fgoods[g, tb.seg_good[t, s]] = 1
            st.fbuild[g] = 0
            st.fpig[g] = 0
        owner[g] = -1
        if seg_kind[t, s] == C.K_FIELD:
            adj = seg_adj[t, s]
            for c in range(S):
                if adj & (1 << c):
                    k = st.npairs
                    pairs[k, 0] = g
                    pairs[k, 1] = base + c
                    st.npairs = k + 1


@hot
def place_tile(st, tb, t, r, bx, by):
    """Put tile t (rotation r) on empty frontier cell (bx, by): update the frontier and
    constraints, merge features, count monastery neighbours. Returns the placement index.
    Assumes the placement is legal (`fits`)."""
    board = st.board
    frontier = st.frontier
    ptype, prot = st.ptype, st.prot
    fopen = st.fopen
    i = st.placed
    st.placed = i + 1
    st.xmin = min(st.xmin, bx)
    st.xmax = max(st.xmax, bx)
    st.ymin = min(st.ymin, by)
    st.ymax = max(st.ymax, by)
    ptype[i] = t
    prot[i] = r
    st.px[i] = bx
    st.py[i] = by
    _remove_from_frontier(st, bx, by)
    board[by, bx] = i
    _init_segments(st, tb, t, i)
    S = n_segments(st)
    base = i * S
    edge_seg, half_seg, mon_seg = tb.edge_seg, tb.half_seg, tb.mon_seg
    code = np.int64(tb.edge_code[t, r])
    for d in range(4):
        nx = bx + NEIGHBOUR_DX[d]
        ny = by + NEIGHBOUR_DY[d]
        od = (d + 2) % 4
        ter = (code >> (2 * d)) & 3
        j = board[ny, nx]
        if j < 0:
            k = frontier_slot(j)
            if k < 0:  # a new open cell
                k = st.nfront
                frontier[k, 0] = nx
                frontier[k, 1] = ny
                frontier[k, 2] = 0
                board[ny, nx] = -2 - k
                st.nfront = k + 1
            frontier[k, 2] |= (3 << (8 + 2 * od)) | (ter << (2 * od))
            continue
        tj = ptype[j]
        rj = prot[j]
        if ter != C.FIELD:  # city or road crossing this edge: two open ends meet
            root = union(st, base + edge_seg[t, r, d], j * S + edge_seg[tj, rj, od], True)
            fopen[root] -= 2
        if ter != C.CITY:  # field or road edge: a field on each half
            for h in range(2 * d, 2 * d + 2):
                union(
                    st, base + half_seg[t, r, h], j * S + half_seg[tj, rj, OPPOSITE_HALF[h]], False
                )
    # Monasteries: this tile's own, and those whose surroundings it fills.
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = board[by + dy, bx + dx]
            if j < 0:
                continue
            m = mon_seg[ptype[j]]
            if m < 0:
                continue
            if j == i:
                missing = 0
                for ey in range(-1, 2):
                    for ex in range(-1, 2):
                        if board[by + ey, bx + ex] < 0:
                            missing += 1
                fopen[base + m] = missing
            else:
                fopen[j * S + m] -= 1
    return i
