"""Candidate-move observations (`Encoder(candidate_moves=K)`): for each legal action of the
seat to move, a vector of rule quantities of the position right after that move, computed
by playing it on a scratch copy of the state (`turn.place_and_score`: tile and figure
down, completions scored, the turn not yet passed, so nothing of the hidden deck is read).

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
from numba import njit

from . import config as C
from .aggregates import pending_points
from .board import constraint, find, fits, n_segments, neighbour_segment, origin, root_of
from .encode import _count_unseen, window_origin
from .jit import hot
from .scoring import feature_points, majority, score_game_end
from .state import copy_into
from .turn import apply_move, legal_moves, place_and_score, solo_ends_after_turn

counted = njit(cache=True, nogil=True, error_model="numpy")  # copy_into needs refcounts

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


@hot
def _contains(values, n, v):
    """Whether v is among values[:n]."""
    for k in range(n):
        if values[k] == v:
            return True
    return False


@hot
def _closes(st, tb, t, r, cx, cy, root, kind):
    """Would tile t turned r on empty cell (cx, cy) complete feature `root` (a road or
    city whose every open end faces that cell)? Follows the merge the placement would
    make: the open ends after it are those of every feature it joins, plus the new
    segments' edges facing empty cells, minus the edges that meet."""
    seg_kind, edge_seg = tb.seg_kind, tb.edge_seg
    board, parent, fopen = st.board, st.parent, st.fopen
    roots = st.work[C.W_NROOTS]
    roots[0] = root
    n_roots = 1
    sigma = 0  # bit s: segment s of the tile joins the feature
    changed = True
    while changed:
        changed = False
        for d in range(4):
            s = edge_seg[t, r, d]
            if s < 0 or seg_kind[t, s] != kind:
                continue
            j = board[cy + _DY[d], cx + _DX[d]]
            if j < 0:
                continue
            nb = find(parent, j * n_segments(st) + edge_seg[st.ptype[j], st.prot[j], (d + 2) % 4])
            known = _contains(roots, n_roots, nb)
            if sigma & (1 << s):
                if not known:
                    roots[n_roots] = nb
                    n_roots += 1
                    changed = True
            elif known:
                sigma |= 1 << s
                changed = True
    open_ends = 0
    for k in range(n_roots):
        open_ends += fopen[roots[k]]
    for d in range(4):
        s = edge_seg[t, r, d]
        if s >= 0 and sigma & (1 << s):
            open_ends += 1 if board[cy + _DY[d], cx + _DX[d]] < 0 else -1
    return open_ends == 0


@hot
def closers(st, tb, root, kind, unseen):
    """Tiles counted in `unseen` (per type) that complete feature `root` in one placement:
    a road or city whose open ends all face one empty cell, or a monastery missing one
    neighbour; 0 otherwise (completed features included)."""
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
        if st.fopen[root] == 0:
            return 0
        cx, cy = -1, -1
        fbits, edge_seg = st.fbits, tb.edge_seg
        for w in range(fbits.shape[1]):
            bits = np.uint64(fbits[root, w])
            b = 0
            while bits != np.uint64(0):
                if bits & np.uint64(1):
                    i = w * 64 + b
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
                bits >>= np.uint64(1)
                b += 1
    else:
        return 0
    con = constraint(st, cx, cy)
    total = 0
    for t in range(unseen.shape[0]):
        if unseen[t] == 0:
            continue
        for r in range(4):
            if fits(tb.edge_code, t, r, con) and (
                    kind == C.K_MONASTERY or _closes(st, tb, t, r, cx, cy, root, kind)):
                total += unseen[t]
                break
    return total


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
        if not _contains(seen, n, c):
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
        if not _contains(seen, n, b):
            seen[n] = b
            n += 1
    return n


@hot
def _slot_roots(after, tb, i, fig_root, roots):
    """The distinct features of placement i's segments into roots[:n] (at most N_SLOTS):
    `fig_root` first (if >= 0), then cities, roads, monastery, fields."""
    S = n_segments(after)
    t = after.ptype[i]
    n = 0
    if fig_root >= 0:
        roots[0] = fig_root
        n = 1
    for kind in (C.K_CITY, C.K_ROAD, C.K_MONASTERY, C.K_FIELD):
        for s in range(tb.n_seg[t]):
            if n == N_SLOTS:
                return n
            if tb.seg_kind[t, s] != kind:
                continue
            g = find(after.parent, i * S + s)
            if not _contains(roots, n, g):
                roots[n] = g
                n += 1
    return n


@hot
def _write_slot(st, after, tb, root, fig_root, observer, unseen, out, base, n_events):
    """Slot columns of feature `root` of the position `after` (`st`: before the move)."""
    P = st.cfg[C.CFG_SEATS]
    kind = tb.seg_kind[after.ptype[root // n_segments(after)], root % n_segments(after)]
    out[base + S_KIND + kind] = 1.0
    out[base + S_FIGURE] = 1.0 if root == fig_root else 0.0
    done = after.fdone[root] != 0
    out[base + S_DONE] = 1.0 if done else 0.0
    if kind == C.K_FIELD:
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
        out[base + S_CLOSERS] = closers(after, tb, root, kind, unseen)
    out[base + S_JOINED] = _joined(st, after, tb, after.sc[C.SC_PLACED] - 1, root, kind)
    flag = after.fflag[root]
    out[base + S_INN] = 1.0 if flag & C.FLAG_INN else 0.0
    out[base + S_CATHEDRAL] = 1.0 if flag & C.FLAG_CATHEDRAL else 0.0
    goods = 0
    for k in range(C.N_GOODS):
        goods += after.fgoods[root, k]
    out[base + S_GOODS] = goods
    maj = majority(after.fmeep[root])
    if done:  # scored now: its followers went home; the event keeps the majority
        for e in range(n_events, after.sc[C.SC_NEVENTS]):
            if after.events[e, C.EV_ROOT] == root and after.events[e, C.EV_KIND] == kind:
                maj = after.events[e, C.EV_MAJORITY]
    for q in range(P):
        p = (observer + q) % P
        out[base + S_FOLLOWERS + q] = after.fmeep[root, p]
        out[base + S_FOLLOWERS + P + q] = 1.0 if maj & (1 << p) else 0.0


@counted
def encode_candidates(st, tb, after, scratch, rows, B, SL, observer, unseen, pend_before,
                      feats, actions):
    """Write the candidate-move observation of `observer` (the seat to move) into
    feats[K, F] (zeros for absent candidates) and actions[K] (their turn-mode action
    indices in the B-cell window, -1 when absent). `after`, `scratch`: states of the
    game's shape (overwritten); rows: a legal-move buffer; unseen: int64[n_types];
    pend_before: int64[P]. Returns the legal actions inside the window
    (more than K: the rest were left out)."""
    K = actions.shape[0]
    P = st.cfg[C.CFG_SEATS]
    for k in range(K):
        actions[k] = -1
        for c in range(feats.shape[1]):
            feats[k, c] = 0.0
    n = legal_moves(st, tb, rows)
    if n == 0:
        return 0
    x0, y0 = window_origin(st, B)
    o = origin(st)
    unseen[:] = 0
    _count_unseen(st, observer, unseen, 0)
    pending_points(st, tb, scratch, pend_before)
    seat = st.sc[C.SC_SEAT]
    placing = st.sc[C.SC_PHASE] == C.PHASE_PLACE
    S = n_segments(st)
    h_points = H_FIGURE + 5
    h_proj = h_points + P
    h_supply = h_proj + P
    h_extra = h_supply + 4
    h_mon_done = h_extra + 2
    h_mon_held = h_mon_done + 1
    width = SLOT_FIXED + 2 * P
    slot_roots = st.work[C.W_STACK]
    # standard: the move ends the game when no tile is left to draw and none in any hand
    # but the one placed (public: the deck and hand sizes)
    last_tile = st.sc[C.SC_DECK_POS] >= st.sc[C.SC_DECK_LEN]
    if last_tile and st.cfg[C.CFG_HAND_SIZE] > 1:
        in_hands = 0
        for p in range(st.hands.shape[0]):
            for q in range(st.hands.shape[1]):
                if st.hands[p, q] >= 0:
                    in_hands += 1
        last_tile = in_hands == 1
    m = 0
    for k in range(n):
        h, x, y, r, slot = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4]
        col, row = x + o - x0, y + o - y0
        if not (0 <= col < B and 0 <= row < B):
            continue
        if m >= K:
            m += 1  # counted, left out
            continue
        actions[m] = (((h * B + row) * B + col) * 4 + r) * SL + slot + 1
        out = feats[m]
        m += 1
        copy_into(after, st)
        n_events = st.sc[C.SC_NEVENTS]
        if placing:
            place_and_score(after, tb, h, x, y, r, slot, False)
        else:  # a scoring choice (scoring_order="player"): its scores only
            apply_move(after, tb, h, x, y, r, slot)
        out[H_PRESENT] = 1.0
        out[H_HAND + h] = 1.0
        out[H_FIGURE + (0 if slot < 0 or not placing else 1 + slot // S)] = 1.0
        for q in range(P):
            out[h_points + q] = after.scores[(observer + q) % P] - st.scores[(observer + q) % P]
        if not placing:
            _projected_gain(st, after, tb, observer, pend_before, out, h_proj)
            continue
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
        fig_root = find(after.parent, i * S + slot % S) if slot >= 0 else -1
        n_slots = _slot_roots(after, tb, i, fig_root, slot_roots)
        base = HEAD_FIXED + 3 * P
        for q in range(n_slots):
            _write_slot(st, after, tb, slot_roots[q], fig_root, observer, unseen, out,
                        base + q * width, n_events)
        _projected_gain(st, after, tb, observer, pend_before, out, h_proj)
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
