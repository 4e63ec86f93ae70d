"""Read-only questions about a state that the Python wrappers and bots ask."""

import numpy as np
from numba import njit

from . import constants as C
from .board import n_segments, root_of


@njit(cache=True)
def feature_tiles(st, tb, root, kind):
    """Placement indices of the tiles of the feature `root` (each once, ascending).
    Monastery: the monastery tile and its present neighbours; follower (solo end bonus):
    the follower's tile."""
    S = n_segments(st)
    placed = st.placed
    out = np.empty(placed, np.int64)
    n = 0
    if kind == C.EV_KIND_FOLLOWER:
        out[0] = root // S
        return out[:1]
    if kind == C.K_MONASTERY:
        i = root // S
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                j = st.board[st.py[i] + dy, st.px[i] + dx]
                if j >= 0:
                    out[n] = j
                    n += 1
        return np.sort(out[:n])
    for i in range(placed):
        t = st.ptype[i]
        for s in range(tb.n_seg[t]):
            if root_of(st.parent, i * S + s) == root:
                out[n] = i
                n += 1
                break
    return out[:n]
