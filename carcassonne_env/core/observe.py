"""One observation in one pass: the legal moves listed once, then the board planes, the
feature vector, the action mask, the aggregate planes and features and the candidate
moves written from them (`carcassonne_env.encoding` documents every layout). `Encoder`,
the single envs, both vector envs and `puct`'s search all observe through `observe`.
"""

from ..compiler.jit import counted_entry
from . import constants as C
from .aggregates import encode_aggregates
from .board import origin
from .candidates import candidates_from_rows
from .planes import encode_board, encode_features, mask_from_rows, window_origin
from .turn import legal_moves


@counted_entry
def observe(st, tb, sub, n_types, SL, observer, mode, pend, rows, planes, feats, mask, dirty,
            agg, cand):
    """Write `observer`'s observation of `st` (every array in place; returns (legal
    moves, legal moves outside the window, candidate actions inside it)):

    - planes, feats: the board planes and feature vector; pend = (hand, x, y, rotation,
      tile) of a pending two-step placement (tile -1: none), drawn as the last tile;
    - mask (skipped when empty): the seat to move's action mask in `mode` (MODE_TURN,
      MODE_PLACE, or MODE_FOLLOWER for `pend`); dirty (int64[6]) says where planes and
      mask may hold ones on entry, and is updated (`core.planes`);
    - agg = (base plane, base feature, scratch state, counts, pending points) adds the
      aggregate planes and features (`core.aggregates`);
    - cand = (after state, scratch state, unseen, pending points before, closers memo,
      candidate features, candidate actions) writes the candidate moves
      (`core.candidates`) when `observer` is the seat to move (solo: always), zeros
      otherwise.
    agg and cand may be None: numba compiles a version without that part (and what it
    calls), so a program compiles only the parts it observes. rows: a legal-move buffer,
    holding the legal moves afterwards."""
    B = planes.shape[0] // 3
    x0, y0 = window_origin(st, B)
    o = origin(st)
    encode_board(st, tb, sub, observer, x0, y0, planes, pend[4], pend[1] + o, pend[2] + o,
                 pend[3], dirty)
    encode_features(st, n_types, observer, 1.0 if pend[4] >= 0 else 0.0, feats)
    n = outside = n_cand = 0
    if mask.shape[0] > 0 or cand is not None:
        n = legal_moves(st, tb, rows)
    if mask.shape[0] > 0:
        outside = mask_from_rows(st, rows, n, x0, y0, B, SL, mode, pend, mask, dirty)
    if agg is not None:
        base, fbase, scratch, counts, pending = agg
        encode_aggregates(st, tb, sub, observer, planes, base, feats, fbase, scratch, counts,
                          pending)
    if cand is not None:
        after, scratch, unseen, before, memo, cand_feats, cand_actions = cand
        to_move = st.sc[C.SC_DONE] == 0 and (st.cfg[C.CFG_SOLO] != 0
                                             or observer == st.sc[C.SC_SEAT])
        n_cand = candidates_from_rows(st, tb, after, scratch, rows, n if to_move else 0, B,
                                      SL, observer, unseen, before, memo, cand_feats,
                                      cand_actions)
    return n, outside, n_cand
