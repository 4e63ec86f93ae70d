"""The "aggregate" observation (`Encoder(obs_features="aggregate")`): what the union-find
already knows about each feature, painted on its pixels, and each seat's pending
end-game points. Layout in `carcassonne_env.encoding` and docs/observations.md.

Extra board planes, from channel `base` on (values clipped to AGG_CAPS):
    base + 0  points the feature scores when completed (city, road, monastery at its
              current size; field: farm points for the completed cities it touches)
    base + 1  points it scores if still incomplete at the end (0 once completed)
    base + 2  open edges (city, road) or missing neighbours (monastery)
    base + 3  tiles in it (city, road; monastery: 1)
    base + 4  1 if nobody holds it and it is not completed (a follower may still join)
    base + 5 + q  followers of seat (observer + q) % P on it (solo: colour q)
Extra features, from `fbase` on: banked score plus pending end-game points of seat
(observer + q) % P, times 0.01 (what the scores would be if the game ended now).
"""

import numpy as np
from numba import njit

from . import config as C
from .board import find, n_segments
from .encode import encode, window_origin
from .jit import hot
from .scoring import _adjacency_keys, feature_points, score_game_end
from .state import copy_into

N_AGG_FIXED = 5  # planes before the per-seat follower counts
# With numba's reference counting (unlike `hot`): these slice and reduce arrays.
counted = njit(cache=True, nogil=True, error_model="numpy")
CAP_POINTS, CAP_OPEN, CAP_TILES, CAP_FOLLOWERS = 60, 20, 40, 10


@hot
def field_city_counts(st, counts):
    """counts[root of a field] = completed cities it touches (other entries 0)."""
    G = st.sc[C.SC_PLACED] * n_segments(st)
    counts[:G] = 0
    m, G_all = _adjacency_keys(st, False)
    for k in range(m):
        counts[st.keys[k] // G_all] += 1


@counted
def pending_points(st, tb, scratch, out):
    """out[p] = points seat p would score if the game ended now (0 once it has ended):
    the engine's own end-of-game scoring run on `scratch`, a copy of `st`."""
    P = st.cfg[C.CFG_SEATS]
    out[:P] = 0
    if st.sc[C.SC_DONE]:
        return
    copy_into(scratch, st)
    score_game_end(scratch, tb)
    for p in range(P):
        out[p] = scratch.scores[p] - st.scores[p]


@hot
def _clip(value, cap):
    return min(max(value, 0), cap)


@counted
def encode_aggregates(st, tb, sub, observer, planes, base, feats, fbase, scratch, counts,
                      pending):
    """Paint the aggregate planes over the placed tiles in the window (the pixels the
    base encoder just painted, so its dirty rectangle covers them) and write the
    projected scores into `feats`."""
    B = planes.shape[0] // 3
    x0, y0 = window_origin(st, B)
    S = n_segments(st)
    P = st.cfg[C.CFG_SEATS]
    parent, fdone, fmeep = st.parent, st.fdone, st.fmeep
    farm_points = np.int64(st.cfg[C.CFG_FARM_POINTS])
    field_city_counts(st, counts)
    for i in range(st.sc[C.SC_PLACED]):
        col, row = st.px[i] - x0, st.py[i] - y0
        if not (0 <= col < B and 0 <= row < B):
            continue
        t, r = st.ptype[i], st.prot[i]
        for a in range(3):
            for b in range(3):
                s = sub[t, r, a, b, 1]
                if s < 0:
                    continue
                root = find(parent, i * S + s)
                kind = tb.seg_kind[t, s]
                px = planes[3 * row + a, 3 * col + b]
                done = fdone[root] != 0
                if kind == C.K_FIELD:
                    value = counts[root] * farm_points
                    px[base] = _clip(value, CAP_POINTS)
                    px[base + 1] = _clip(value, CAP_POINTS)
                else:
                    px[base] = _clip(feature_points(st, root, kind, True), CAP_POINTS)
                    if not done:
                        px[base + 1] = _clip(feature_points(st, root, kind, False),
                                             CAP_POINTS)
                    px[base + 2] = _clip(st.fopen[root], CAP_OPEN)
                    px[base + 3] = _clip(1 if kind == C.K_MONASTERY else st.fntiles[root],
                                         CAP_TILES)
                held = 0
                for q in range(P):
                    n = fmeep[root, (observer + q) % P]
                    px[base + N_AGG_FIXED + q] = _clip(n, CAP_FOLLOWERS)
                    held += n
                if held == 0 and not done:
                    px[base + 4] = 1
    pending_points(st, tb, scratch, pending)
    for q in range(P):
        p = (observer + q) % P
        feats[fbase + q] = (st.scores[p] + pending[p]) * 0.01


@counted
def encode_with_aggregates(st, tb, sub, n_types, SL, observer, mode, pend, rows, planes,
                           feats, mask, dirty, base, fbase, scratch, counts, pending):
    """`core.encode.encode` then `encode_aggregates`, in one call."""
    result = encode(st, tb, sub, n_types, SL, observer, mode, pend, rows, planes, feats,
                    mask, dirty)
    encode_aggregates(st, tb, sub, observer, planes, base, feats, fbase, scratch, counts,
                      pending)
    return result
