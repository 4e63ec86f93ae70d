"""Candidate-move observations (`Encoder(candidate_moves=K)`): for each legal action of the
seat to move, a vector of rule quantities of the position right after that move, computed
by playing it on a scratch copy of the state (`turn.place_and_score`: tile and figure
down, completions scored, the turn not yet passed, so nothing of the hidden deck is read).
Each placement is played once and its follower options derived from it, the projected
gain comes by difference, and a symmetric tile's rotation that lies like an earlier one
on the same cell copies that one's rows (`encode_candidates`);
tests/support/candidates_reference.py plays every move in full, for the tests.

The columns: `core.candidate_columns`; the closing tile types: `core.closers`.
"""

from collections import namedtuple

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
from .planes import Window, count_unseen, window_origin
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

#: The candidate part's buffers: `after` and `scratch`, states of the game's shape
#: (overwritten); `unseen`, int64[tile types]; `before`, the pending points before the
#: move, int64[seats]; `memo`, the closing tile types' table (`closers.new_closers_memo`,
#: kept from call to call with the same tile set). The vector envs hold one of each per
#: thread.
CandidateBuffers = namedtuple("CandidateBuffers", ["after", "scratch", "unseen", "before", "memo"])

#: `_encode_placing`'s work arrays, made per call (`_placing_work`). Per placement: its
#: features (kind order) in `roots`, their figure-free columns in `cols`, their end
#: points in `ends`, and in `farm` their cities touched (fields) and the features they
#: joined (`pending_change`; the no-figure move); `pend` the no-figure move's pending
#: end-game points, `fig_end` a figure's feature's end points; `goods0` the trade goods
#: after the no-figure move; `city_counts` (`field_city_counts`), `stamp` (`once`) and
#: `links` (`pair_lists`) for the pending points by difference. Per rotation of the
#: cell (a symmetric tile's twin, `_copy_twin`): `perm` (`_twin`), `seg_q` (its segments'
#: roots indices), `row_of` (its rows by slot) and `n_twin` (its roots count, -1 before
#: it is played).
PlacingWork = namedtuple(
    "PlacingWork",
    [
        "roots",
        "cols",
        "ends",
        "farm",
        "pend",
        "fig_end",
        "goods0",
        "city_counts",
        "stamp",
        "perm",
        "seg_q",
        "row_of",
        "n_twin",
        "links",
    ],
)

#: What `_encode_placing` keeps for a position: the observer (its seat columns first),
#: the segment slots per tile S, the first slot block's column `base`, a slot block's
#: columns `width` and the events before the move `n_events`.
PlacingFrame = namedtuple("PlacingFrame", ["observer", "S", "base", "width", "n_events"])

#: A placement's legal rows rows[k:e]: hand index h (tile t) turned r on window cell
#: (col, row).
Placement = namedtuple("Placement", ["h", "t", "r", "row", "col", "k", "e"])


@hot
def _write_choice(st, after, tb, move, observer, pend_before, out):
    """A scoring choice at a solo scoring decision (`after`: a copy of `st`; `move`: its
    legal row): only its points and projected gain are filled (and present, hand_0,
    figure_none)."""
    P = st.seats
    h = move[0]
    apply_move(after, tb, h, move[1], move[2], move[3], move[4])
    out[H_PRESENT] = 1.0
    out[H_HAND + h] = 1.0
    out[H_FIGURE] = 1.0
    for q in range(P):
        out[H_FIGURE + 5 + q] = after.scores[(observer + q) % P] - st.scores[(observer + q) % P]
    projected_gain(st, after, tb, observer, pend_before, out, H_FIGURE + 5 + P)


@hot
def _encode_choices(st, tb, rows, n, window, observer, cand, feats, actions):
    """`encode_candidates` at a solo scoring decision (its rows[:n] legal choices)."""
    K = actions.shape[0]
    x0, y0, B, SL = window.x0, window.y0, window.size, window.slots
    after = cand.after
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
            _write_choice(st, after, tb, rows[k], observer, cand.before, feats[m])
        m += 1
    return np.int64(m)


@hot
def _lift_row(after, tb, src, out, fig, seat, fig_q, n_roots, work, frame):
    """The row of a figure put on a feature the tile did not complete (`after`: the
    no-figure move with that figure down; `fig_q`: the feature's index in work.roots)
    from the no-figure move's row `src`: nothing scores, so only the figure columns, the
    mover's supply and the figure's feature's holders differ; every other feature's block
    is src's, moved one block on past the figure's (which comes first)."""
    roots, base, width = work.roots, frame.base, frame.width
    P = after.seats
    for j in range(base):
        out[j] = src[j]
    out[H_FIGURE] = 0.0
    out[H_FIGURE + 1 + fig] = 1.0
    h_supply = H_FIGURE + 5 + 2 * P
    out[h_supply] = after.supply[seat]
    for f in range(3):
        out[h_supply + 1 + f] = after.xsupply[seat, f]
    put_slot(
        after, tb, roots, work.cols, fig_q, roots[fig_q], frame.observer, out, base, frame.n_events
    )
    for q in range(n_roots):
        at = _block(q, fig_q)  # (src, without a figure, has feature q's block at q)
        if q != fig_q and at < N_SLOTS:
            for j in range(width):
                out[base + at * width + j] = src[base + q * width + j]


@counted
def encode_candidates(st, tb, rows, B, SL, observer, cand, feats, actions):
    """Write the candidate-move observation of `observer` (the seat to move) into
    feats[K, F] (zeros for absent candidates) and actions[K] (their turn-mode action
    indices in the B-cell window, SL slots per cell; -1 when absent). rows: a legal-move
    buffer; cand: the `CandidateBuffers`. Returns the legal actions inside the window
    (more than K: the rest were left out).

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
    full. `cand.scratch` serves the end scoring of the position where the points pending
    are not summed per feature.
    tests/support/candidates_reference.py is the plain way; the tests compare the two."""
    n = legal_moves(st, tb, rows)
    x0, y0 = window_origin(st, B)
    return candidates_from_rows(
        st, tb, rows, n, Window(x0, y0, B, SL), observer, cand, feats, actions
    )


@counted
def candidates_from_rows(st, tb, rows, n, window, observer, cand, feats, actions):
    """`encode_candidates` with the legal moves already listed in rows[:n] (the observe
    pass lists them once for the mask and the candidates) and the `window`
    (`planes.Window`) worked out."""
    clear(feats, actions)
    if n == 0:
        return 0
    cand.unseen[:] = 0
    count_unseen(st, observer, cand.unseen, 0)
    placing = st.phase == C.PHASE_PLACE
    if not (placing and by_features(st)):  # (else summed per feature in the pass)
        pending_points(st, tb, cand.scratch, cand.before)
    if not placing:  # a solo scoring decision: few, cheap rows
        return _encode_choices(st, tb, rows, n, window, observer, cand, feats, actions)
    return _encode_placing(
        st, tb, rows, n, window, observer, cand, feats, actions, _placing_work(st)
    )


@counted
def _placing_work(st):
    """Fresh `PlacingWork` for a position of `st`'s game."""
    P, S, G = st.seats, n_segments(st), st.parent.shape[0]
    return PlacingWork(
        roots=np.zeros(S, np.int64),
        cols=np.zeros((S, SLOT_FIXED + 2 * P), np.float32),
        ends=np.zeros((S, P), np.int64),
        farm=np.zeros((S, 3), np.int64),
        pend=np.zeros(P, np.int64),
        fig_end=np.zeros(P, np.int64),
        goods0=np.zeros((P, C.N_GOODS), np.int64),
        city_counts=np.empty(G, np.int64),  # (written before read)
        stamp=np.zeros(G, np.int64),
        perm=np.zeros((4, S), np.int64),
        seg_q=np.zeros((4, S), np.int64),
        row_of=np.zeros((4, 4 * S + 1), np.int64),
        n_twin=np.zeros(4, np.int64),
        links=np.empty((4, max(G, st.pairs.shape[0])), np.int64),
    )


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
            if (
                tb.seg_kind[t, a] != tb.seg_kind[t, b]
                or tb.seg_pennants[t, a] != tb.seg_pennants[t, b]
                or tb.seg_open[t, a] != tb.seg_open[t, b]
                or tb.seg_flag[t, a] != tb.seg_flag[t, b]
                or tb.seg_good[t, a] != tb.seg_good[t, b]
            ):
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
def _copy_twin(tb, place, r0, rows, window, work, frame, feats, actions, m):
    """Write the rows of `place` (`Placement`: rows[k:e], tile t turned r) into feats and
    actions from row m on, from those of its twin rotation r0 (`_twin`: the same board,
    segments renamed by work.perm[r]): the same columns, the feature blocks in the order
    rotation r lists them. work.seg_q[r0, s]: the roots index of r0's segment s;
    work.row_of[r0, slot + 1]: r0's row of each slot. False (nothing written) when a row
    is missing."""
    t, r, k, e, h, row, col = place.t, place.r, place.k, place.e, place.h, place.row, place.col
    perm, seg_q, row_of = work.perm[r], work.seg_q[r0], work.row_of[r0]
    n_roots, order = work.n_twin[r0], work.roots
    B, SL, S, base, width = window.size, window.slots, frame.S, frame.base, frame.width
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
def _encode_placing(st, tb, rows, n, window, observer, cand, feats, actions, work):
    """`encode_candidates` at a placing decision, the rows[:n] legal moves listed, with
    the `PlacingWork` arrays `work`; one call without reference counting (a state
    passed to a call from counted code costs an atomic pair per array). A symmetric
    tile's rotation that lies like an earlier one of the same cell copies its rows
    (`_copy_twin`)."""
    K = actions.shape[0]
    P = st.seats
    x0, y0, B, SL = window.x0, window.y0, window.size, window.slots
    after, unseen, pend_before, memo = cand.after, cand.unseen, cand.before, cand.memo
    roots, cols, ends, farm = work.roots, work.cols, work.ends, work.farm
    pend0, fig_end, goods0 = work.pend, work.fig_end, work.goods0
    perm, seg_q, row_of, n_twin = work.perm, work.seg_q, work.row_of, work.n_twin
    city_counts = work.city_counts
    o = origin(st)
    S = n_segments(st)
    solo = st.solo != 0
    # standard rules with farms per field: pending points by difference (pending_change)
    incremental = by_features(st)
    if incremental:
        field_city_counts(st, city_counts)
        pending_from_features(st, tb, city_counts, pend_before)
        pair_lists(st, work.links)
    h_proj = H_FIGURE + 5 + P
    width = SLOT_FIXED + 2 * P
    base = HEAD_FIXED + 3 * P
    frame = PlacingFrame(observer, S, base, width, st.nevents)
    last_tile = is_last_tile(st)
    copy_into(after, st)  # (it held another position: `undo_place` restores only a move)
    m = 0
    k = 0
    while k < n:
        h, x, y, r = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3]
        e = k + 1
        while e < n and rows[e, 3] == r and rows[e, 1] == x and rows[e, 2] == y and rows[e, 0] == h:
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
        if (
            r0 >= 0
            and 0 <= n_twin[r0] <= N_SLOTS
            and e - k <= K - m
            and _copy_twin(
                tb,
                Placement(h, t, r, row, col, k, e),
                r0,
                rows,
                window,
                work,
                frame,
                feats,
                actions,
                m,
            )
        ):
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
            pending_change(st, after, tb, t, r, bx, by, n_roots, k + 1, work)
        for q in range(n_roots):
            for c in range(width):
                cols[q, c] = 0.0
            write_slot(st, after, tb, roots[q], unseen, memo, cols[q], 0, farm[q])
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
        seat = st.seat
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
                    after.solo_end_a = 1
                figure(after, tb, i, slot)
                clean = False
            fig_root = find(after.parent, g) if slot >= 0 else -1
            fig_q = -1
            for q in range(n_roots):
                if roots[q] == fig_root:
                    fig_q = q
            if lift and row_of[r, 0] >= 0:
                _lift_row(
                    after, tb, feats[row_of[r, 0]], out, fig, seat, fig_q, n_roots, work, frame
                )
            else:
                write_header(st, after, tb, h, slot, observer, last_tile, out)
                for q in range(n_roots):
                    at = _block(q, fig_q)
                    if at < N_SLOTS:
                        put_slot(
                            after,
                            tb,
                            roots,
                            cols,
                            q,
                            fig_root,
                            observer,
                            out,
                            base + at * width,
                            frame.n_events,
                        )
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
