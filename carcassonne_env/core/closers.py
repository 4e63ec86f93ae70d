"""Closers: the tile types not yet seen by the observer that would complete a feature in
one placement on its single open cell, remembered per open-cell pattern from position to
position (a column of the candidate-move observation, `core.candidate_columns`)."""

import numpy as np

from ..compiler.jit import hot
from . import constants as C
from .board import (
    NEIGHBOUR_DX,
    NEIGHBOUR_DY,
    constraint,
    find,
    fits,
    n_segments,
    popcount64,
)


def new_closers_memo(size: int = 2048) -> np.ndarray:
    """An empty table for `closers`' closing tile types (`encode_candidates`' memo): one
    per thread, used with one tile set only (the types are its indices)."""
    return np.full((size, 3), -1, np.int64)


@hot
def _closes(tb, t, r, nbr, root_edges, empty, whole):
    """Would tile t turned r, fitting the empty cell, complete the road or city whose open
    ends face the cell's edges root_edges (bits)? nbr[d]: the feature across edge d (-1:
    no tile, -2: a field edge), nbr[4 + d]: the edges facing that same feature; empty: the
    edges without a tile; whole: the edges whose feature has all its open ends on this
    cell. Follows the merge the placement would make (its segments at the feature's
    edges, the features across their other edges, their segments, ...): complete if none
    of those segments reaches an empty edge and every feature it takes in has no open end
    elsewhere."""
    edges = root_edges
    while True:
        reached = 0  # the edges of the tile's segments in the merge
        for d in range(4):
            if edges & (1 << d):
                reached |= tb.seg_edges[t, r, tb.edge_seg[t, r, d]]
        grown = edges
        for d in range(4):
            if reached & (1 << d) and nbr[d] >= 0:
                grown |= nbr[4 + d]
        if grown == edges:
            return (reached & empty) == 0 and (edges & ~whole) == 0
        edges = grown


@hot
def closers(st, tb, root, kind, unseen, memo):
    """Tiles counted in `unseen` (per type) that complete feature `root` in one placement:
    a road or city whose open ends all face one empty cell, or a monastery missing one
    neighbour; 0 otherwise (completed features included). memo: `_closing_types`'s
    table (none when empty)."""
    S = n_segments(st)
    board, parent = st.board, st.parent
    if kind == C.K_MONASTERY:
        if st.fopen[root] != 1:
            return 0
        i = root // S
        cx, cy = -1, -1
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                if board[st.py[i] + dy, st.px[i] + dx] < 0:
                    cx, cy = st.px[i] + dx, st.py[i] + dy
    elif kind == C.K_CITY or kind == C.K_ROAD:
        if st.fopen[root] == 0 or st.fopen[root] > 4:
            return 0  # completed, or open ends on several cells (a cell has 4 edges)
        cx, cy = -1, -1
        fbits, edge_seg = st.fbits, tb.edge_seg
        for w in range(fbits.shape[1]):
            bits = np.uint64(fbits[root, w])
            while bits != np.uint64(0):
                low = bits & (~bits + np.uint64(1))  # the lowest tile left in the word
                bits ^= low
                i = w * 64 + popcount64(low - np.uint64(1))
                t, r = st.ptype[i], st.prot[i]
                for d in range(4):
                    s = edge_seg[t, r, d]
                    if s < 0 or find(parent, i * S + s) != root:
                        continue
                    x, y = st.px[i] + NEIGHBOUR_DX[d], st.py[i] + NEIGHBOUR_DY[d]
                    if board[y, x] >= 0:
                        continue
                    if cx >= 0 and (x != cx or y != cy):
                        return 0  # open ends on two cells: not in one placement
                    cx, cy = x, y
    else:
        return 0
    con = constraint(st, cx, cy)
    nbr = st.work[C.W_NCOUNT]  # the features around the cell, found once (_closes)
    root_edges = empty = whole = 0
    if kind != C.K_MONASTERY:
        for d in range(4):
            j = board[cy + NEIGHBOUR_DY[d], cx + NEIGHBOUR_DX[d]]
            if j < 0:
                nbr[d] = -1
                empty |= 1 << d
                continue
            s = tb.edge_seg[st.ptype[j], st.prot[j], (d + 2) % 4]
            nbr[d] = find(parent, j * S + s) if s >= 0 else -2
        for d in range(4):
            g = nbr[d]
            if g < 0:
                continue
            same = facing = 0
            for e in range(4):
                if nbr[e] == g:
                    same |= 1 << e
                    facing += 1
            nbr[4 + d] = same
            if st.fopen[g] == facing:
                whole |= 1 << d
            if g == root:
                root_edges = same
    if memo.shape[0] == 0:  # no memo: test the unseen types
        total = 0
        for t in range(unseen.shape[0]):
            if unseen[t] and _type_closes(
                tb, t, con, nbr, root_edges, empty, whole, kind == C.K_MONASTERY
            ):
                total += unseen[t]
        return total
    # Which types close it depends only on the cell's edges: its constraint, and which
    # of them face the feature, the same other features, features with no open end
    # elsewhere (a key of 41 bits); the types are remembered per key across positions.
    key = np.int64(con)
    if kind == C.K_MONASTERY:
        key |= np.int64(1) << 40
    else:
        key |= np.int64(root_edges << 16 | whole << 20)
        for d in range(4):
            if nbr[d] >= 0:
                key |= np.int64(nbr[4 + d]) << (24 + 4 * d)
    bits0, bits1 = _closing_types(
        tb, memo, key, con, nbr, root_edges, empty, whole, kind == C.K_MONASTERY
    )
    total = 0
    while bits0 != 0:
        low = bits0 & -bits0
        total += unseen[popcount64(np.uint64(low - 1))]
        bits0 ^= low
    while bits1 != 0:
        low = bits1 & -bits1
        total += unseen[64 + popcount64(np.uint64(low - 1))]
        bits1 ^= low
    return total


@hot
def _type_closes(tb, t, con, nbr, root_edges, empty, whole, monastery):
    """Whether tile type t, in some rotation, fits the cell of constraint `con` and
    completes the feature (`_closes`; a monastery: fits)."""
    for r in range(4):
        if fits(tb.edge_code, t, r, con) and (
            monastery or _closes(tb, t, r, nbr, root_edges, empty, whole)
        ):
            return True
    return False


@hot
def _closing_types(tb, memo, key, con, nbr, root_edges, empty, whole, monastery):
    """The tile types (bits of two words) that close the feature (`_type_closes`), from
    memo[M, 3] (rows: key, the two words; key -1: free) or tested and remembered (a full
    run of probes overwrites the first)."""
    M = memo.shape[0]
    h = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) % M
    for probe in range(8):
        k = (h + probe) % M
        if memo[k, 0] == key:
            return memo[k, 1], memo[k, 2]
        if memo[k, 0] < 0:
            h = k
            break
    bits0 = bits1 = np.int64(0)
    for t in range(tb.edge_code.shape[0]):
        if not _type_closes(tb, t, con, nbr, root_edges, empty, whole, monastery):
            continue
        if t < 64:
            bits0 |= np.int64(1) << t
        else:
            bits1 |= np.int64(1) << (t - 64)
    memo[h, 0] = key
    memo[h, 1] = bits0
    memo[h, 2] = bits1
    return bits0, bits1
