"""Candidate-move observations (`Encoder(candidate_moves=K)`): for each legal action of the
seat to move, a vector of rule quantities of the position right after that move, computed
by playing it on a scratch copy of the state (`turn.place_and_score`: tile and figure
down, completions scored, the turn not yet passed, so nothing of the hidden deck is read).
Each placement is played once and its follower options derived from it, the projected
gain comes by difference, and a symmetric tile's rotation that lies like an earlier one
on the same cell copies that one's rows (`encode_candidates`);
`encode_candidates_reference` plays every move in full, for the tests.

Column layout (P seats, seat columns in the observer's order: seat (observer + q) % P;
every column is documented in docs/observations.md, names in
`carcassonne_env.encoding.Encoder.candidate_names`):

    header, HEAD_FIXED + 3P columns:
      present, hand index one-hot (3), figure one-hot (none, follower, large, builder, pig),
      points scored now per seat (P), projected score gain per seat (P: score plus the
      end-of-game points pending if the game ended now, after minus before), the mover's
      supply after (followers, large followers, builders, pigs), extra turn earned,
      game certainly ends after this move (public information), monasteries around
      the tile completed now, followers per seat on the monasteries around the tile (P)
    N_SLOTS feature slots, SLOT_FIXED + 2P columns each: the distinct features of the
      placed tile's segments, the one holding this move's figure first, then cities,
      roads, monastery, fields (in segment order; fields past the last slot are left
      out):
      kind one-hot (city, road, field, monastery), holds this move's figure, tiles,
      pennants, open edges (monastery: missing neighbours), completed by this move,
      points if completed (field: completed cities touched x farm points), points if
      still incomplete at the end, inn, cathedral, trade goods, completed cities touched
      (field), incomplete cities touched (field), closers (tiles the observer has not
      seen that complete it in one placement on its single open cell; 0 when its open
      ends face several cells), features joined (how many features on the board before
      the move it now includes: 0 new, 1 extended, 2+ joined), followers per seat (P, a
      large one counts 2), majority per seat (P; for a feature completed now, the
      majority it was scored with)

Candidates are the legal actions inside the window in the core's legal-move order (hand
tile, frontier cell, rotation, slot); with more than K, the first K are kept.
"""

import numpy as np

from . import config as C
from .actions import turn_action
from .aggregates import (
    by_features,
    contains,
    end_points,
    field_city_counts,
    goods_points,
    pending_from_features,
    pending_points,
)
from .board import (
    constraint,
    find,
    fits,
    n_segments,
    neighbour_segment,
    origin,
    popcount64,
    root_of,
)
from .encode import _count_unseen, window_origin
from .jit import counted, hot
from .scoring import feature_points, majority, score_completed, score_game_end
from .state import copy_into
from .turn import (
    apply_move,
    figure_and_score,
    legal_moves,
    lift_figure,
    mark_completed,
    place_and_score,
    place_figure,
    put_tile,
    solo_blocked,
    solo_ends_after_turn,
    tile_to_place,
    undo_place,
)

N_SLOTS = 6
HEAD_FIXED = 16  # header columns besides the 3P per-seat ones
SLOT_FIXED = 18  # slot columns besides the 2P per-seat ones
_DX = np.array(C.DX, np.int64)
_DY = np.array(C.DY, np.int64)
# header offsets (per-seat blocks follow the fixed columns they name)
H_PRESENT, H_HAND, H_FIGURE = 0, 1, 4  # hand: 3 columns, figure: 5 (none + FIG_* + 1)
# slot offsets
S_KIND, S_FIGURE, S_TILES, S_PENNANTS, S_OPEN, S_DONE = 0, 4, 5, 6, 7, 8
S_POINTS_DONE, S_POINTS_END, S_INN, S_CATHEDRAL, S_GOODS = 9, 10, 11, 12, 13
S_FARM_DONE, S_FARM_OPEN, S_CLOSERS, S_JOINED, S_FOLLOWERS = 14, 15, 16, 17, 18


def n_columns(seats: int) -> int:
    """Columns of one candidate's vector with `seats` seats."""
    return HEAD_FIXED + 3 * seats + N_SLOTS * (SLOT_FIXED + 2 * seats)


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
                    x, y = st.px[i] + _DX[d], st.py[i] + _DY[d]
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
            j = board[cy + _DY[d], cx + _DX[d]]
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
            if unseen[t] and _type_closes(tb, t, con, nbr, root_edges, empty, whole,
                                          kind == C.K_MONASTERY):
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
    bits0, bits1 = _closing_types(tb, memo, key, con, nbr, root_edges, empty, whole,
                                  kind == C.K_MONASTERY)
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
        if fits(tb.edge_code, t, r, con) and (monastery or _closes(
                tb, t, r, nbr, root_edges, empty, whole)):
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


@hot
def _farm_cities(st, field, out, base):
    """out[base] / out[base + 1] = completed / incomplete cities touching `field`."""
    parent, pairs, fdone = st.parent, st.pairs, st.fdone
    seen = st.work[C.W_OWN]
    n = 0
    for k in range(st.sc[C.SC_NPAIRS]):
        if find(parent, pairs[k, 0]) != field:
            continue
        c = find(parent, pairs[k, 1])
        if not contains(seen, n, c):
            seen[n] = c
            n += 1
            out[base + (0 if fdone[c] else 1)] += 1


@hot
def _joined(st, after, tb, i, root, kind):
    """How many features of the board before the move (`st`) feature `root` of `after`
    includes through placement i's edges (fields: half-edges)."""
    if kind == C.K_MONASTERY:
        return 0
    S = n_segments(after)
    t, r, bx, by = after.ptype[i], after.prot[i], after.px[i], after.py[i]
    field = kind == C.K_FIELD
    seen = after.work[C.W_OWN]
    n = 0
    for e in range(8 if field else 4):
        s = tb.half_seg[t, r, e] if field else tb.edge_seg[t, r, e]
        if s < 0 or find(after.parent, i * S + s) != root:
            continue
        g = neighbour_segment(after, tb, bx, by, e, 1 if field else 0)
        if g < 0:
            continue
        b = root_of(st.parent, g)
        if not contains(seen, n, b):
            seen[n] = b
            n += 1
    return n


@hot
def _slot_roots(after, tb, i, fig_root, roots, limit):
    """The distinct features of placement i's segments into roots[:n] (at most `limit`):
    `fig_root` first (if >= 0), then cities, roads, monastery, fields."""
    S = n_segments(after)
    t = after.ptype[i]
    n = 0
    if fig_root >= 0:
        roots[0] = fig_root
        n = 1
    for kind in (C.K_CITY, C.K_ROAD, C.K_MONASTERY, C.K_FIELD):
        for s in range(tb.n_seg[t]):
            if n == limit:
                return n
            if tb.seg_kind[t, s] != kind:
                continue
            g = find(after.parent, i * S + s)
            if not contains(roots, n, g):
                roots[n] = g
                n += 1
    return n


@hot
def _pair_lists(st, links):
    """Index the field-city adjacencies of `st` by the features they join: links[0, g] /
    links[1, g] the first adjacency whose field / city has root g (-1: none), links[2, k]
    / links[3, k] the next one after adjacency k with the same field / city root."""
    G = st.sc[C.SC_PLACED] * n_segments(st)
    for g in range(G):
        links[0, g] = -1
        links[1, g] = -1
    for k in range(st.sc[C.SC_NPAIRS]):
        for side in range(2):
            g = root_of(st.parent, st.pairs[k, side])
            links[2 + side, k] = links[side, g]
            links[side, g] = k


@hot
def _once(stamp, g, gen, q):
    """Whether (feature g, tile feature q) is met the first time in placement `gen`:
    stamp[g] holds gen (from bit 16) and the bits of the q met with g in it."""
    s = stamp[g]
    if s >> 16 != gen:
        s = gen << 16
    if s & (1 << q):
        return False
    stamp[g] = s | (1 << q)
    return True


@hot
def _pair_change(after, k, roots, n_roots, farm, stamp, gen, farm_pts, pend):
    """`_pending_change` for adjacency k of `after`: count its city for the tile's field
    it touches, or, for another field touching a city completed now, add that field's
    farm points; each (field, city) once in placement `gen` (`_once`: a city is stamped
    with its tile fields, a field with its tile cities)."""
    parent, pairs, fdone, fmeep, fpig = after.parent, after.pairs, after.fdone, \
        after.fmeep, after.fpig
    f = find(parent, pairs[k, 0])
    c = find(parent, pairs[k, 1])
    qf = qc = -1
    for q in range(n_roots):
        if roots[q] == f:
            qf = q
        elif roots[q] == c:
            qc = q
    if qf >= 0:
        if _once(stamp, c, gen, qf):
            farm[qf, 0 if fdone[c] else 1] += 1
    elif qc >= 0 and fdone[c] and _once(stamp, f, gen, qc):  # completed now
        maj = majority(fmeep[f])
        for p in range(after.cfg[C.CFG_SEATS]):
            if maj & (1 << p):
                pend[p] += farm_pts + (1 if fpig[f] & (1 << p) else 0)


@hot
def _pending_change(st, after, tb, t, r, bx, by, roots, n_roots, farm, city_counts, stamp,
                    gen, links, pend):
    """pend[p] += the change of seat p's pending end-game points from `st` to `after`
    (the tile t/r put on (bx, by), no figure, completions scored), standard rules with
    farms per field, without running the end scoring: only the features the tile
    touches change, so add the end points of its features after (roots[:n_roots]) and
    of the monasteries around it, and take off those of the features they were before.
    A city completed now adds its farm points to every other field touching it. Also
    fills farm[q] = (completed cities, incomplete cities, features of `st`) that
    roots[q] touches (a field) or joined (the `joined` column, as `_joined` counts).
    city_counts[g]: completed cities touching field root g of `st`; stamp, gen: see
    `_once` (gen: this placement's number, stamp: int64[G], zero at the first);
    links: `st`'s adjacencies by feature (`_pair_lists`)."""
    S = n_segments(st)
    # the features of `st` the tile joined (through its edges)
    before = after.work[C.W_STACK]
    n_before = 0
    code = np.int64(tb.edge_code[t, r])
    for d in range(4):
        ter = (code >> (2 * d)) & 3
        if ter != C.FIELD:
            g = neighbour_segment(st, tb, bx, by, d, 0)
            if g >= 0:
                b = root_of(st.parent, g)
                if not contains(before, n_before, b):
                    before[n_before] = b
                    n_before += 1
        if ter != C.CITY:
            for h in range(2 * d, 2 * d + 2):
                g = neighbour_segment(st, tb, bx, by, h, 1)
                if g >= 0:
                    b = root_of(st.parent, g)
                    if not contains(before, n_before, b):
                        before[n_before] = b
                        n_before += 1
    # fields: the adjacencies of the tile's fields' cities and of the other fields
    # touching a city completed now, found through the features the tile joined (the
    # adjacencies of `st`) and the tile's own (those after st's)
    done_now = False
    for q in range(n_roots):
        farm[q, 0] = 0
        farm[q, 1] = 0
        farm[q, 2] = 0
        g = roots[q]
        if tb.seg_kind[after.ptype[g // S], g % S] == C.K_CITY and after.fdone[g]:
            done_now = True
    farm_pts = np.int64(after.cfg[C.CFG_FARM_POINTS])
    for q in range(n_before):
        b = before[q]
        g = find(after.parent, b)  # a feature joined lies in one of the tile's now
        for p in range(n_roots):
            if roots[p] == g:
                farm[p, 2] += 1
        kind = tb.seg_kind[st.ptype[b // S], b % S]
        side = 0 if kind == C.K_FIELD else 1 if kind == C.K_CITY and done_now else -1
        if side < 0:
            continue
        k = links[side, b]
        while k >= 0:
            _pair_change(after, k, roots, n_roots, farm, stamp, gen, farm_pts, pend)
            k = links[2 + side, k]
    for k in range(st.sc[C.SC_NPAIRS], after.sc[C.SC_NPAIRS]):
        _pair_change(after, k, roots, n_roots, farm, stamp, gen, farm_pts, pend)
    for q in range(n_roots):
        end_points(after, tb, roots[q], farm[q, 0], pend, 1)
    for q in range(n_before):
        end_points(st, tb, before[q], city_counts[before[q]], pend, -1)
    # monasteries around the tile: one more neighbour, or completed and scored now
    i = after.sc[C.SC_PLACED] - 1
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = after.board[by + dy, bx + dx]
            if j < 0 or j == i or tb.mon_seg[after.ptype[j]] < 0:
                continue
            g = j * S + tb.mon_seg[after.ptype[j]]
            end_points(st, tb, g, 0, pend, -1)
            end_points(after, tb, g, 0, pend, 1)
    if after.cfg[C.CFG_EXPANSIONS] & C.EXP_TRADERS_BUILDERS:
        goods_points(st, pend, -1)
        goods_points(after, pend, 1)


@hot
def _goods_differ(st, goods):
    """Whether the seats' trade goods tokens differ from goods[P, N_GOODS]."""
    for p in range(goods.shape[0]):
        for g in range(C.N_GOODS):
            if st.goods[p, g] != goods[p, g]:
                return True
    return False


@hot
def _figure(st, tb, i, slot):
    """`turn.figure_and_score` without the player's scoring choice (compiled once, not
    inlined at each call: its scoring is long)."""
    figure_and_score(st, tb, i, slot, False)


@hot
def _no_figure(st, tb, i):
    """`_figure(st, tb, i, NO_FOLLOWER)`, the marking inlined: most placements complete
    nothing and then skip the call (it passes the state's arrays one by one)."""
    n = mark_completed(st, tb, i)
    if n:
        _score_marked(st, tb, n)


@hot
def _score_marked(st, tb, n):
    """`figure_and_score`'s scoring of the n features `mark_completed` listed."""
    score_completed(st, tb, st.work[C.W_ROOTS], n, solo_ends_after_turn(st))


@hot
def _replay(st, after, tb, t, r, bx, by, score):
    """Put `after` back to the position `st` (`turn.undo_place`) and put tile t turned r
    on (bx, by); with `score`, the no-figure move's completions scored too (`_no_figure`).
    Returns the tile's index."""
    undo_place(after, st, tb)
    i = put_tile(after, tb, t, r, bx, by)
    if score:
        _no_figure(after, tb, i)
    return i


@hot
def _put_slot(after, tb, roots, cols, q, fig_root, observer, out, base, n_events):
    """Slot columns of feature roots[q] at out[base:]: its figure-free columns cols[q]
    and its holders after this move."""
    for c in range(cols.shape[1]):
        out[base + c] = cols[q, c]
    _write_holders(after, tb, roots[q], fig_root, observer, out, base, n_events)


@hot
def _write_slot(st, after, tb, root, unseen, memo, out, base, farm_done, farm_open, joined):
    """The slot columns of feature `root` of the position `after` (`st`: before the
    move) that do not depend on the move's figure: all but `holds_figure` and the
    followers and majorities (`_write_holders`). A field's completed and incomplete
    cities are farm_done / farm_open, and the features joined `joined`, when known
    (>= 0), else counted here."""
    kind = tb.seg_kind[after.ptype[root // n_segments(after)], root % n_segments(after)]
    out[base + S_KIND + kind] = 1.0
    done = after.fdone[root] != 0
    out[base + S_DONE] = 1.0 if done else 0.0
    if kind == C.K_FIELD:
        if farm_done >= 0:
            out[base + S_FARM_DONE] = farm_done
            out[base + S_FARM_OPEN] = farm_open
        else:
            _farm_cities(after, root, out, base + S_FARM_DONE)
        value = out[base + S_FARM_DONE] * after.cfg[C.CFG_FARM_POINTS]
        out[base + S_POINTS_DONE] = value
        out[base + S_POINTS_END] = value
    else:
        out[base + S_TILES] = 9 - after.fopen[root] if kind == C.K_MONASTERY \
            else after.fntiles[root]
        out[base + S_PENNANTS] = after.fpenn[root]
        out[base + S_OPEN] = after.fopen[root]
        # (feature_points gives a monastery's present count; completed it scores 9)
        out[base + S_POINTS_DONE] = 9.0 if kind == C.K_MONASTERY \
            else feature_points(after, root, kind, True)
        if not done:
            out[base + S_POINTS_END] = feature_points(after, root, kind, False)
        out[base + S_CLOSERS] = closers(after, tb, root, kind, unseen, memo)
    out[base + S_JOINED] = joined if joined >= 0 else _joined(
        st, after, tb, after.sc[C.SC_PLACED] - 1, root, kind)
    flag = after.fflag[root]
    out[base + S_INN] = 1.0 if flag & C.FLAG_INN else 0.0
    out[base + S_CATHEDRAL] = 1.0 if flag & C.FLAG_CATHEDRAL else 0.0
    goods = 0
    for k in range(C.N_GOODS):
        goods += after.fgoods[root, k]
    out[base + S_GOODS] = goods


@hot
def _write_holders(after, tb, root, fig_root, observer, out, base, n_events):
    """The slot columns of feature `root` of `after` that the move's figure decides:
    `holds_figure`, followers and majority per seat."""
    P = after.cfg[C.CFG_SEATS]
    S = n_segments(after)
    kind = tb.seg_kind[after.ptype[root // S], root % S]
    out[base + S_FIGURE] = 1.0 if root == fig_root else 0.0
    maj = majority(after.fmeep[root])
    if after.fdone[root]:  # scored now: its followers went home; the event keeps the majority
        for e in range(n_events, after.sc[C.SC_NEVENTS]):
            if after.events[e, C.EV_ROOT] == root and after.events[e, C.EV_KIND] == kind:
                maj = after.events[e, C.EV_MAJORITY]
    for q in range(P):
        p = (observer + q) % P
        out[base + S_FOLLOWERS + q] = after.fmeep[root, p]
        out[base + S_FOLLOWERS + P + q] = 1.0 if maj & (1 << p) else 0.0


@hot
def _write_header(st, after, tb, h, slot, observer, last_tile, out):
    """The header columns of a placing move (tile and figure down, completions scored in
    `after`) but the projected gain."""
    P = st.cfg[C.CFG_SEATS]
    S = n_segments(st)
    seat = st.sc[C.SC_SEAT]
    h_points = H_FIGURE + 5
    h_supply = h_points + 2 * P
    h_extra = h_supply + 4
    h_mon_done = h_extra + 2
    h_mon_held = h_mon_done + 1
    out[H_PRESENT] = 1.0
    out[H_HAND + h] = 1.0
    out[H_FIGURE + (0 if slot < 0 else 1 + slot // S)] = 1.0
    for q in range(P):
        out[h_points + q] = after.scores[(observer + q) % P] - st.scores[(observer + q) % P]
    out[h_supply] = after.supply[seat]
    for f in range(3):
        out[h_supply + 1 + f] = after.xsupply[seat, f]
    out[h_extra] = after.sc[C.SC_EARNED]
    if st.cfg[C.CFG_SOLO]:
        out[h_extra + 1] = 1.0 if solo_ends_after_turn(after) else 0.0
    else:
        out[h_extra + 1] = 1.0 if last_tile else 0.0
    i = after.sc[C.SC_PLACED] - 1
    bx, by = after.px[i], after.py[i]
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = after.board[by + dy, bx + dx]
            if j < 0 or j == i or tb.mon_seg[after.ptype[j]] < 0:
                continue
            g = j * S + tb.mon_seg[after.ptype[j]]
            if after.fopen[g] == 0:
                out[h_mon_done] += 1.0
            for q in range(P):  # before the move: followers of completed ones went home
                out[h_mon_held + q] += st.fmeep[g, (observer + q) % P]


@hot
def _last_tile(st):
    """Standard rules: whether the move ends the game: no tile left to draw and none in
    any hand but the one placed (public: the deck and hand sizes)."""
    last_tile = st.sc[C.SC_DECK_POS] >= st.sc[C.SC_DECK_LEN]
    if last_tile and st.cfg[C.CFG_HAND_SIZE] > 1:
        in_hands = 0
        for p in range(st.hands.shape[0]):
            for q in range(st.hands.shape[1]):
                if st.hands[p, q] >= 0:
                    in_hands += 1
        last_tile = in_hands == 1
    return last_tile


@hot
def _clear(feats, actions):
    """Zero the rows written last time: the present candidates are a prefix (action
    >= 0) and an absent row is left all zeros, so the rest is clear already."""
    for k in range(actions.shape[0]):
        if actions[k] < 0:
            return
        actions[k] = -1
        for c in range(feats.shape[1]):
            feats[k, c] = 0.0


@counted
def encode_candidates_reference(st, tb, after, scratch, rows, B, SL, observer, unseen,
                                pend_before, memo, feats, actions):
    """`encode_candidates` the plain way, each move played on a copy and scored to the end
    by the engine (slow; the tests check the fast path against it). `memo` goes unused:
    `closers` tests every type."""
    no_memo = np.zeros((0, 3), np.int64)
    K = actions.shape[0]
    P = st.cfg[C.CFG_SEATS]
    _clear(feats, actions)
    n = legal_moves(st, tb, rows)
    if n == 0:
        return 0
    x0, y0 = window_origin(st, B)
    o = origin(st)
    unseen[:] = 0
    _count_unseen(st, observer, unseen, 0)
    pending_points(st, tb, scratch, pend_before)
    placing = st.sc[C.SC_PHASE] == C.PHASE_PLACE
    S = n_segments(st)
    h_proj = H_FIGURE + 5 + P
    width = SLOT_FIXED + 2 * P
    slot_roots = st.work[C.W_STACK]
    last_tile = _last_tile(st)
    m = 0
    for k in range(n):
        h, x, y, r, slot = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4]
        col, row = x + o - x0, y + o - y0
        if not (0 <= col < B and 0 <= row < B):
            continue
        if m >= K:
            m += 1  # counted, left out
            continue
        actions[m] = turn_action(h, row, col, r, slot, B, SL)
        out = feats[m]
        m += 1
        copy_into(after, st)
        n_events = st.sc[C.SC_NEVENTS]
        if not placing:
            _write_choice(st, after, tb, h, x, y, r, slot, observer, pend_before, out)
            continue
        place_and_score(after, tb, h, x, y, r, slot, False)
        _write_header(st, after, tb, h, slot, observer, last_tile, out)
        i = after.sc[C.SC_PLACED] - 1
        fig_root = find(after.parent, i * S + slot % S) if slot >= 0 else -1
        n_slots = _slot_roots(after, tb, i, fig_root, slot_roots, N_SLOTS)
        base = HEAD_FIXED + 3 * P
        for q in range(n_slots):
            _write_slot(st, after, tb, slot_roots[q], unseen, no_memo, out,
                        base + q * width, -1, -1, -1)
            _write_holders(after, tb, slot_roots[q], fig_root, observer, out,
                           base + q * width, n_events)
        _projected_gain(st, after, tb, observer, pend_before, out, h_proj)
    return np.int64(m)


@hot
def _write_choice(st, after, tb, h, x, y, r, slot, observer, pend_before, out):
    """A scoring choice at a solo scoring decision (`after`: a copy of `st`): only its
    points and projected gain are filled (and present, hand_0, figure_none)."""
    P = st.cfg[C.CFG_SEATS]
    apply_move(after, tb, h, x, y, r, slot)
    out[H_PRESENT] = 1.0
    out[H_HAND + h] = 1.0
    out[H_FIGURE] = 1.0
    for q in range(P):
        out[H_FIGURE + 5 + q] = after.scores[(observer + q) % P] - st.scores[(observer + q) % P]
    _projected_gain(st, after, tb, observer, pend_before, out, H_FIGURE + 5 + P)


@hot
def _encode_choices(st, tb, after, rows, n, B, SL, observer, pend_before, feats, actions):
    """`encode_candidates` at a solo scoring decision (its rows[:n] legal choices)."""
    K = actions.shape[0]
    x0, y0 = window_origin(st, B)
    o = origin(st)
    m = 0
    for k in range(n):
        h, x, y, r, slot = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4]
        col, row = x + o - x0, y + o - y0
        if not (0 <= col < B and 0 <= row < B):
            continue
        if m < K:
            actions[m] = turn_action(h, row, col, r, slot, B, SL)
            copy_into(after, st)
            _write_choice(st, after, tb, h, x, y, r, slot, observer, pend_before, feats[m])
        m += 1
    return np.int64(m)


@counted
def encode_candidates(st, tb, after, scratch, rows, B, SL, observer, unseen, pend_before,
                      memo, feats, actions):
    """Write the candidate-move observation of `observer` (the seat to move) into
    feats[K, F] (zeros for absent candidates) and actions[K] (their turn-mode action
    indices in the B-cell window, -1 when absent). `after`, `scratch`: states of the
    game's shape (overwritten); rows: a legal-move buffer; unseen: int64[n_types];
    pend_before: int64[P]; memo: int64[M, 3], the `closers` table (`new_closers_memo`),
    kept from call to call with the same tile set. Returns the legal actions inside the
    window (more than K: the rest were left out).

    Each placement (tile, cell, rotation) is evaluated once: the no-figure move is
    played on `after` for the columns the figure does not change (every feature's slot
    columns but its holders) and, outside solo, for the end-of-game points pending. A
    follower option on a feature the tile did not complete scores nothing now: its
    figure is put on that no-figure move and lifted after (`turn.lift_figure`); any
    other option plays again from the position, its figure down, and scores. Between
    two plays `after` goes back to the position by `turn.undo_place`, which restores
    only what a move changes. The projected gain is the no-figure one with only the
    figure's feature's end-game points replaced (`aggregates.end_points`), the rest of
    the end scoring being unchanged by a figure. Solo (its end bonus depends on every
    colour's score) and a city whose trade goods the figure earns score to the end in
    full. `scratch` serves the end scoring of the position where the points pending are
    not summed per feature.
    `encode_candidates_reference` is the plain way; the tests compare the two."""
    n = legal_moves(st, tb, rows)
    return candidates_from_rows(st, tb, after, scratch, rows, n, B, SL, observer, unseen,
                                pend_before, memo, feats, actions)


@counted
def candidates_from_rows(st, tb, after, scratch, rows, n, B, SL, observer, unseen,
                         pend_before, memo, feats, actions):
    """`encode_candidates` with the legal moves already listed in rows[:n] (the observe
    pass lists them once for the mask and the candidates)."""
    P = st.cfg[C.CFG_SEATS]
    _clear(feats, actions)
    if n == 0:
        return 0
    unseen[:] = 0
    _count_unseen(st, observer, unseen, 0)
    placing = st.sc[C.SC_PHASE] == C.PHASE_PLACE
    if not (placing and by_features(st)):  # (else summed per feature in the pass)
        pending_points(st, tb, scratch, pend_before)
    if not placing:  # a solo scoring decision: few, cheap rows
        return _encode_choices(st, tb, after, rows, n, B, SL, observer, pend_before, feats,
                               actions)
    S = n_segments(st)
    width = SLOT_FIXED + 2 * P
    return _encode_placing(st, tb, after, rows, n, B, SL, observer, unseen,
                           pend_before, memo, feats, actions, np.zeros(S, np.int64),
                           np.zeros((S, width), np.float32), np.zeros((S, P), np.int64),
                           np.zeros((S, 3), np.int64), np.zeros((2, P), np.int64),
                           np.zeros((P, C.N_GOODS), np.int64),
                           np.zeros(st.parent.shape[0], np.int64),
                           np.zeros(st.parent.shape[0], np.int64), np.zeros((4, S), np.int64),
                           np.zeros((4, S), np.int64), np.zeros((4, 4 * S + 1), np.int64),
                           np.zeros(4, np.int64),
                           np.zeros((4, max(st.parent.shape[0], st.pairs.shape[0])), np.int64))


@hot
def _twin(tb, t, r, perm):
    """The smallest rotation r0 < r in which tile t lies exactly as in rotation r (same
    edges, segments and segment properties: a symmetric tile), or -1. perm[s]: the
    segment of rotation r0 in the place of segment s of rotation r."""
    n = tb.n_seg[t]
    for r0 in range(r):
        if tb.edge_code[t, r0] != tb.edge_code[t, r]:
            continue
        for q in range(n):
            perm[q] = -1
        same = True
        for e in range(12):  # 4 edges (roads, cities), then 8 half-edges (fields)
            if e < 4:
                a, b = tb.edge_seg[t, r, e], tb.edge_seg[t, r0, e]
            else:
                a, b = tb.half_seg[t, r, e - 4], tb.half_seg[t, r0, e - 4]
            if (a < 0) != (b < 0) or (a >= 0 and perm[a] >= 0 and perm[a] != b):
                same = False
            elif a >= 0:
                perm[a] = b
        if tb.mon_seg[t] >= 0:
            perm[tb.mon_seg[t]] = tb.mon_seg[t]
        images = 0
        for a in range(n):
            b = perm[a]
            if not same or b < 0 or images & (1 << b):
                same = False
                break
            images |= 1 << b
            if (tb.seg_kind[t, a] != tb.seg_kind[t, b]
                    or tb.seg_pennants[t, a] != tb.seg_pennants[t, b]
                    or tb.seg_open[t, a] != tb.seg_open[t, b]
                    or tb.seg_flag[t, a] != tb.seg_flag[t, b]
                    or tb.seg_good[t, a] != tb.seg_good[t, b]):
                same = False
                break
            adj = 0  # segment a's adjacent cities, renamed into rotation r0
            for c in range(n):
                if tb.seg_adj[t, a] & (1 << c):
                    adj |= 1 << perm[c]
            if adj != tb.seg_adj[t, b]:
                same = False
                break
        if same:
            return r0
    return -1


@hot
def _block(q, fig_q):
    """Where a row puts the slot block of feature q (index into the placement's roots):
    the figure's feature first, then the others in roots order."""
    if q == fig_q:
        return 0
    if fig_q < 0:
        return q
    return q + 1 if q < fig_q else q


@hot
def _twin_slot(slot, perm, S):
    """Rotation r's follower slot as its twin rotation names it (segments renamed by
    perm; the figure kept)."""
    return slot if slot < 0 else (slot // S) * S + perm[slot % S]


@hot
def _copy_twin(tb, t, r, r0, perm, seg_q, row_of, n_roots, rows, k, e, h, row, col, B,
               SL, S, base, width, feats, actions, m, order):
    """Write the rows of placement rows[k:e] (tile t turned r) from those of its twin
    rotation r0 (`_twin`: the same board, segments renamed by perm): the same columns,
    the feature blocks in the order rotation r lists them. seg_q[s]: the roots index of
    r0's segment s; row_of[slot + 1]: r0's row of each slot. False (nothing written)
    when a row is missing."""
    for c in range(k, e):
        if row_of[_twin_slot(rows[c, 4], perm, S) + 1] < 0:
            return False
    n = 0  # rotation r's roots order: kinds, then its own segment order
    for kind in (C.K_CITY, C.K_ROAD, C.K_MONASTERY, C.K_FIELD):
        for a in range(tb.n_seg[t]):
            if tb.seg_kind[t, a] == kind and not contains(order, n, seg_q[perm[a]]):
                order[n] = seg_q[perm[a]]
                n += 1
    for c in range(k, e):
        slot = rows[c, 4]
        twin_slot = _twin_slot(slot, perm, S)
        actions[m + c - k] = turn_action(h, row, col, r, slot, B, SL)
        out, src = feats[m + c - k], feats[row_of[twin_slot + 1]]
        for j in range(base):
            out[j] = src[j]
        fig_q = -1 if slot < 0 else seg_q[twin_slot % S]
        w = 0
        if fig_q >= 0:
            for j in range(width):
                out[base + j] = src[base + j]
            w = 1
        for q in range(n_roots):
            if order[q] == fig_q:
                continue
            at = base + _block(order[q], fig_q) * width
            for j in range(width):
                out[base + w * width + j] = src[at + j]
            w += 1
    return True


@hot
def _encode_placing(st, tb, after, rows, n, B, SL, observer, unseen, pend_before, memo,
                    feats, actions, roots, cols, ends, farm, tmp, goods0, city_counts, stamp,
                    perm, seg_q, row_of, n_twin, links):
    """`encode_candidates` at a placing decision, the rows[:n] legal moves listed; one
    call without reference counting (a state passed to a call from counted code costs
    an atomic pair per array). Per placement: its features (kind order) in roots, their
    figure-free columns in cols, their end points in ends, and in farm their cities
    touched (fields) and the features they joined (`_pending_change`; the no-figure
    move); tmp[0] the no-figure move's pending end-game points, tmp[1] a figure's
    feature's end points. A symmetric tile's rotation that lies like an earlier one of
    the same cell copies its rows (`_copy_twin`): per rotation of the cell, perm
    (`_twin`), seg_q (its segments' roots indices), row_of (its rows by slot) and n_twin
    (its roots count, -1 before it is played). links: `_pair_lists`; stamp: `_once`."""
    K = actions.shape[0]
    P = st.cfg[C.CFG_SEATS]
    x0, y0 = window_origin(st, B)
    o = origin(st)
    S = n_segments(st)
    solo = st.cfg[C.CFG_SOLO] != 0
    # standard rules with farms per field: pending points by difference (_pending_change)
    incremental = by_features(st)
    if incremental:
        field_city_counts(st, city_counts)
        pending_from_features(st, tb, city_counts, pend_before)
        _pair_lists(st, links)
    h_proj = H_FIGURE + 5 + P
    width = SLOT_FIXED + 2 * P
    base = HEAD_FIXED + 3 * P
    last_tile = _last_tile(st)
    n_events = st.sc[C.SC_NEVENTS]
    pend0, fig_end = tmp[0], tmp[1]
    copy_into(after, st)  # (it held another position: `undo_place` restores only a move)
    m = 0
    k = 0
    while k < n:
        h, x, y, r = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3]
        e = k + 1
        while e < n and rows[e, 3] == r and rows[e, 1] == x and rows[e, 2] == y \
                and rows[e, 0] == h:
            e += 1
        col, row = x + o - x0, y + o - y0
        if not (0 <= col < B and 0 <= row < B):
            k = e
            continue
        if m >= K:
            m += e - k  # counted, left out
            k = e
            continue
        t = tile_to_place(st, h)
        if k == 0 or rows[k - 1, 0] != h or rows[k - 1, 1] != x or rows[k - 1, 2] != y:
            for q in range(4):  # a new cell: no rotation of it played yet
                n_twin[q] = -1
        r0 = _twin(tb, t, r, perm[r])
        if r0 >= 0 and 0 <= n_twin[r0] <= N_SLOTS and e - k <= K - m and _copy_twin(
                tb, t, r, r0, perm[r], seg_q[r0], row_of[r0], n_twin[r0], rows, k, e, h,
                row, col, B, SL, S, base, width, feats, actions, m, roots):
            m += e - k
            k = e
            continue
        bx, by = x + o, y + o
        blocked = solo and solo_blocked(st, tb, t, r, bx, by)
        # the no-figure move on `after`: the columns a figure does not change
        i = _replay(st, after, tb, t, r, bx, by, True)
        n_roots = _slot_roots(after, tb, i, -1, roots, S)
        n_twin[r] = n_roots
        for a in range(tb.n_seg[t]):
            g = find(after.parent, i * S + a)
            for q in range(n_roots):
                if roots[q] == g:
                    seg_q[r, a] = q
        for q in range(4 * S + 1):
            row_of[r, q] = -1
        for q in range(n_roots):
            for c in range(3):
                farm[q, c] = -1
        if incremental:
            for p in range(P):
                pend0[p] = pend_before[p]
            _pending_change(st, after, tb, t, r, bx, by, roots, n_roots, farm, city_counts,
                            stamp, k + 1, links, pend0)
        for q in range(n_roots):
            for c in range(width):
                cols[q, c] = 0.0
            _write_slot(st, after, tb, roots[q], unseen, memo, cols[q], 0, farm[q, 0],
                        farm[q, 1], farm[q, 2])
            for p in range(P):
                ends[q, p] = 0
            if not solo:
                end_points(after, tb, roots[q], farm[q, 0], ends[q], 1)
        for p in range(P):
            for g in range(C.N_GOODS):
                goods0[p, g] = after.goods[p, g]
        if not solo and not incremental:  # the end scoring in full
            for p in range(P):
                pend0[p] = -after.scores[p]
            score_game_end(after, tb)
            for p in range(P):
                pend0[p] += after.scores[p]
        clean = incremental  # `after` holds the no-figure move
        seat = st.sc[C.SC_SEAT]
        for c in range(k, e):
            if m >= K:
                m += e - c
                break
            slot = rows[c, 4]
            actions[m] = turn_action(h, row, col, r, slot, B, SL)
            row_of[r, slot + 1] = m
            out = feats[m]
            m += 1
            g, fig = i * S + slot % S, slot // S  # the figure's segment and kind
            # A figure on a feature the tile did not complete scores nothing now: it is
            # put on the no-figure move and lifted after (incremental: never solo).
            lift = slot >= 0 and incremental and after.fdone[find(after.parent, g)] == 0
            if lift or (slot == C.NO_FOLLOWER and incremental):
                if not clean:
                    _replay(st, after, tb, t, r, bx, by, True)
                    clean = True
                if lift:
                    place_figure(after, g, fig, seat)
            else:
                _replay(st, after, tb, t, r, bx, by, False)
                if blocked and slot == C.NO_FOLLOWER:
                    after.sc[C.SC_SOLO_END_A] = 1
                _figure(after, tb, i, slot)
                clean = False
            _write_header(st, after, tb, h, slot, observer, last_tile, out)
            fig_root = find(after.parent, g) if slot >= 0 else -1
            fig_q = -1
            w = 0
            if fig_root >= 0:
                for q in range(n_roots):
                    if roots[q] == fig_root:
                        fig_q = q
                _put_slot(after, tb, roots, cols, fig_q, fig_root, observer, out, base,
                          n_events)
                w = 1
            for q in range(n_roots):
                if w == N_SLOTS:
                    break
                if q == fig_q:
                    continue
                _put_slot(after, tb, roots, cols, q, fig_root, observer, out,
                          base + w * width, n_events)
                w += 1
            if solo or _goods_differ(after, goods0):
                _projected_gain(st, after, tb, observer, pend_before, out, h_proj)
                clean = False  # (spent by the end scoring)
                continue
            # only the figure's feature's end points differ from the no-figure move's
            for p in range(P):
                fig_end[p] = 0
            if fig_q >= 0:
                end_points(after, tb, fig_root, farm[fig_q, 0], fig_end, 1)
            for q in range(P):
                p = (observer + q) % P
                gain = pend0[p] + after.scores[p] - st.scores[p] - pend_before[p]
                if fig_q >= 0:
                    gain += fig_end[p] - ends[fig_q, p]
                out[h_proj + q] = gain
            if lift:
                lift_figure(after, g, fig, seat)
        k = e
    return np.int64(m)


@hot
def _projected_gain(st, after, tb, observer, pend_before, out, base):
    """out[base + q] = seat q's score plus pending end-game points in `after` minus the
    same in `st` (pend_before), with the engine's own end scoring run on `after` (which
    it spends: call it last)."""
    P = st.cfg[C.CFG_SEATS]
    if not after.sc[C.SC_DONE]:
        score_game_end(after, tb)
    for q in range(P):
        p = (observer + q) % P
        out[base + q] = after.scores[p] - st.scores[p] - pend_before[p]
