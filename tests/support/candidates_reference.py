"""The plain candidate-move encoder the tests check the fast one against
(`carcassonne_env.core.candidates.encode_candidates`): every move played on a copy of the
state and scored to the end by the engine, no shortcut."""

import numpy as np

from carcassonne_env.compiler.jit import counted
from carcassonne_env.core import constants as C
from carcassonne_env.core.actions import turn_action
from carcassonne_env.core.aggregates import pending_points
from carcassonne_env.core.board import find, n_segments, origin
from carcassonne_env.core.candidate_columns import (
    H_FIGURE,
    HEAD_FIXED,
    N_SLOTS,
    SLOT_FIXED,
    clear,
    is_last_tile,
    projected_gain,
    slot_roots,
    write_header,
    write_holders,
    write_slot,
)

# internals: a scoring choice's row, as the fast encoder writes it (the check is of placements)
from carcassonne_env.core.candidates import _write_choice
from carcassonne_env.core.planes import count_unseen, window_origin
from carcassonne_env.core.state import copy_into
from carcassonne_env.core.turn import legal_moves, place_and_score


@counted
def encode_candidates_reference(st, tb, rows, B, SL, observer, cand, feats, actions):
    """`encode_candidates` the plain way, each move played on a copy and scored to the end
    by the engine (slow; the tests check the fast path against it). cand.memo goes
    unused: `closers` tests every type."""
    after, scratch, unseen, pend_before = cand.after, cand.scratch, cand.unseen, cand.before
    no_memo = np.zeros((0, 3), np.int64)
    no_farm = np.full(3, -1, np.int64)  # (write_slot counts the farm's cities itself)
    K = actions.shape[0]
    P = st.cfg[C.CFG_SEATS]
    clear(feats, actions)
    n = legal_moves(st, tb, rows)
    if n == 0:
        return 0
    x0, y0 = window_origin(st, B)
    o = origin(st)
    unseen[:] = 0
    count_unseen(st, observer, unseen, 0)
    pending_points(st, tb, scratch, pend_before)
    placing = st.sc[C.SC_PHASE] == C.PHASE_PLACE
    S = n_segments(st)
    h_proj = H_FIGURE + 5 + P
    width = SLOT_FIXED + 2 * P
    roots = st.work[C.W_STACK]
    last_tile = is_last_tile(st)
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
            _write_choice(st, after, tb, rows[k], observer, pend_before, out)
            continue
        place_and_score(after, tb, h, x, y, r, slot, False)
        write_header(st, after, tb, h, slot, observer, last_tile, out)
        i = after.sc[C.SC_PLACED] - 1
        fig_root = find(after.parent, i * S + slot % S) if slot >= 0 else -1
        n_slots = slot_roots(after, tb, i, fig_root, roots, N_SLOTS)
        base = HEAD_FIXED + 3 * P
        for q in range(n_slots):
            write_slot(st, after, tb, roots[q], unseen, no_memo, out, base + q * width, no_farm)
            write_holders(after, tb, roots[q], fig_root, observer, out, base + q * width, n_events)
        projected_gain(st, after, tb, observer, pend_before, out, h_proj)
    return np.int64(m)
