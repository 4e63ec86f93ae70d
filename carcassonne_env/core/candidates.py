"""Candidate-move observations (`Encoder(candidate_moves=K)`): for each legal action of the
seat to move, a vector of rule quantities of the position right after that move, computed
by playing it on a scratch copy of the state (`turn.place_and_score`: tile and figure
down, completions scored, the turn not yet passed, so nothing of the hidden deck is read).
Each placement is played once and its follower options derived from it, the projected
gain comes by difference, and a symmetric tile's rotation that lies like an earlier one
on the same cell copies that one's rows (`encode_candidates`);
tests/candidates_reference.py plays every move in full, for the tests.

The columns: `core.candidate_columns`; the closing tile types: `core.closers`.
"""

import numpy as np

from ..compiler.jit import counted, hot
from . import constants as C
from .actions import turn_action
from .aggregates import (
    by_features,
    contains,
    end_points,
    field_city_counts,
    pending_from_features,
    pending_points,
)
from .board import (
    find,
    n_segments,
    origin,
)
from .candidate_columns import (
    H_FIGURE,
    H_HAND,
    H_PRESENT,
    HEAD_FIXED,
    N_SLOTS,
    SLOT_FIXED,
    clear,
    figure,
    goods_differ,
    is_last_tile,
    pair_lists,
    pending_change,
    projected_gain,
    put_slot,
    replay,
    slot_roots,
    write_header,
    write_slot,
)
from .planes import count_unseen, window_origin
from .scoring import score_game_end
from .state import copy_into
from .turn import (
    apply_move,
    legal_moves,
    lift_figure,
    place_figure,
    solo_blocked,
    tile_to_place,
)


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
    projected_gain(st, after, tb, observer, pend_before, out, H_FIGURE + 5 + P)


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


@hot
def _lift_row(after, tb, src, out, fig, seat, roots, cols, n_roots, fig_q, observer, base,
              width, n_events):
    """The row of a figure put on a feature the tile did not complete (`after`: the
    no-figure move with that figure down) from the no-figure move's row `src`: nothing
    scores, so only the figure columns, the mover's supply and the figure's feature's
    holders differ; every other feature's block is src's, moved one block on past the
    figure's (which comes first)."""
    P = after.cfg[C.CFG_SEATS]
    for j in range(base):
        out[j] = src[j]
    out[H_FIGURE] = 0.0
    out[H_FIGURE + 1 + fig] = 1.0
    h_supply = H_FIGURE + 5 + 2 * P
    out[h_supply] = after.supply[seat]
    for f in range(3):
        out[h_supply + 1 + f] = after.xsupply[seat, f]
    put_slot(after, tb, roots, cols, fig_q, roots[fig_q], observer, out, base, n_events)
    for q in range(n_roots):
        at = _block(q, fig_q)  # (src, without a figure, has feature q's block at q)
        if q != fig_q and at < N_SLOTS:
            for j in range(width):
                out[base + at * width + j] = src[base + q * width + j]


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
    figure is put on that no-figure move and lifted after (`turn.lift_figure`), its
    row made from the no-figure move's (`_lift_row`); any other option plays again
    from the position, its figure down, and scores. Between
    two plays `after` goes back to the position by `turn.undo_place`, which restores
    only what a move changes. The projected gain is the no-figure one with only the
    figure's feature's end-game points replaced (`aggregates.end_points`), the rest of
    the end scoring being unchanged by a figure. Solo (its end bonus depends on every
    colour's score) and a city whose trade goods the figure earns score to the end in
    full. `scratch` serves the end scoring of the position where the points pending are
    not summed per feature.
    tests/candidates_reference.py is the plain way; the tests compare the two."""
    n = legal_moves(st, tb, rows)
    return candidates_from_rows(st, tb, after, scratch, rows, n, B, SL, observer, unseen,
                                pend_before, memo, feats, actions)


@counted
def candidates_from_rows(st, tb, after, scratch, rows, n, B, SL, observer, unseen,
                         pend_before, memo, feats, actions):
    """`encode_candidates` with the legal moves already listed in rows[:n] (the observe
    pass lists them once for the mask and the candidates)."""
    P = st.cfg[C.CFG_SEATS]
    clear(feats, actions)
    if n == 0:
        return 0
    unseen[:] = 0
    count_unseen(st, observer, unseen, 0)
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
                           np.empty(st.parent.shape[0], np.int64),  # (written before read)
                           np.zeros(st.parent.shape[0], np.int64), np.zeros((4, S), np.int64),
                           np.zeros((4, S), np.int64), np.zeros((4, 4 * S + 1), np.int64),
                           np.zeros(4, np.int64),
                           np.empty((4, max(st.parent.shape[0], st.pairs.shape[0])), np.int64))


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
    touched (fields) and the features they joined (`pending_change`; the no-figure
    move); tmp[0] the no-figure move's pending end-game points, tmp[1] a figure's
    feature's end points. A symmetric tile's rotation that lies like an earlier one of
    the same cell copies its rows (`_copy_twin`): per rotation of the cell, perm
    (`_twin`), seg_q (its segments' roots indices), row_of (its rows by slot) and n_twin
    (its roots count, -1 before it is played). links: `pair_lists`; stamp: `once`."""
    K = actions.shape[0]
    P = st.cfg[C.CFG_SEATS]
    x0, y0 = window_origin(st, B)
    o = origin(st)
    S = n_segments(st)
    solo = st.cfg[C.CFG_SOLO] != 0
    # standard rules with farms per field: pending points by difference (pending_change)
    incremental = by_features(st)
    if incremental:
        field_city_counts(st, city_counts)
        pending_from_features(st, tb, city_counts, pend_before)
        pair_lists(st, links)
    h_proj = H_FIGURE + 5 + P
    width = SLOT_FIXED + 2 * P
    base = HEAD_FIXED + 3 * P
    last_tile = is_last_tile(st)
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
        i = replay(st, after, tb, t, r, bx, by, True)
        n_roots = slot_roots(after, tb, i, -1, roots, S)
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
            pending_change(st, after, tb, t, r, bx, by, roots, n_roots, farm, city_counts,
                            stamp, k + 1, links, ends, pend0)
        for q in range(n_roots):
            for c in range(width):
                cols[q, c] = 0.0
            write_slot(st, after, tb, roots[q], unseen, memo, cols[q], 0, farm[q, 0],
                        farm[q, 1], farm[q, 2])
            if not solo and not incremental:  # (incremental: pending_change's)
                for p in range(P):
                    ends[q, p] = 0
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
                    replay(st, after, tb, t, r, bx, by, True)
                    clean = True
                if lift:
                    place_figure(after, g, fig, seat)
            else:
                replay(st, after, tb, t, r, bx, by, False)
                if blocked and slot == C.NO_FOLLOWER:
                    after.sc[C.SC_SOLO_END_A] = 1
                figure(after, tb, i, slot)
                clean = False
            fig_root = find(after.parent, g) if slot >= 0 else -1
            fig_q = -1
            for q in range(n_roots):
                if roots[q] == fig_root:
                    fig_q = q
            if lift and row_of[r, 0] >= 0:
                _lift_row(after, tb, feats[row_of[r, 0]], out, fig, seat, roots, cols,
                          n_roots, fig_q, observer, base, width, n_events)
            else:
                write_header(st, after, tb, h, slot, observer, last_tile, out)
                for q in range(n_roots):
                    at = _block(q, fig_q)
                    if at < N_SLOTS:
                        put_slot(after, tb, roots, cols, q, fig_root, observer, out,
                                  base + at * width, n_events)
            if solo or goods_differ(after, goods0):
                projected_gain(st, after, tb, observer, pend_before, out, h_proj)
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
