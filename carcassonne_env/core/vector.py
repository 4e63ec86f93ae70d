"""Batched solo games: one jitted call steps every game of a vector env and writes the
observations and masks in place (`carcassonne_env.envs.vector`)."""

import numpy as np
from numba import get_thread_id, njit, prange

from . import config as C
from .board import origin
from .encode import MODE_TURN, encode, window_origin
from .turn import apply_move


@njit(cache=True)
def _lowest(scores):
    low = scores[0]
    for p in range(1, scores.shape[0]):
        low = min(low, scores[p])
    return low


@njit(cache=True, parallel=True)
def step_batch(states, tb, sub, n_types, SL, actions, rows, planes, feats, masks, dirty,
               pend, rewards, dones, illegal, outside):
    """Play actions[i] (turn mode) in game i, then encode its next observation. An action
    outside the mask plays nothing and sets illegal[i]. rewards[i] = rise of the lowest
    colour's score; dones[i] = game over (or illegal). `rows` holds one legal-move buffer
    per thread."""
    B = planes.shape[1] // 3
    for k in prange(len(states)):
        i = np.int64(k)  # prange counts in uint64; the typed list wants a signed index
        st = states[i]
        a = actions[i]
        dones[i] = 0
        rewards[i] = 0.0
        illegal[i] = 0
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            illegal[i] = 1
            dones[i] = 1
            continue
        rest = a // SL
        slot = a % SL - 1
        r = rest % 4
        rest //= 4
        col = rest % B
        rest //= B
        row = rest % B
        h = rest // B
        x0, y0 = window_origin(st, B)
        o = origin(st)
        low = _lowest(st.scores)
        apply_move(st, tb, h, x0 + col - o, y0 + row - o, r, slot)
        rewards[i] = _lowest(st.scores) - low
        dones[i] = st.sc[C.SC_DONE]
        _, outside[i] = encode(st, tb, sub, n_types, SL, 0, MODE_TURN, pend,
                               rows[get_thread_id()], planes[i], feats[i], masks[i], dirty[i])


@njit(cache=True, parallel=True)
def encode_batch(states, tb, sub, n_types, SL, which, rows, planes, feats, masks, dirty,
                 pend, outside):
    """Encode the observations of the games listed in `which` (after resets)."""
    for k in prange(which.shape[0]):
        i = np.int64(which[k])
        _, outside[i] = encode(states[i], tb, sub, n_types, SL, 0, MODE_TURN, pend,
                               rows[get_thread_id()], planes[i], feats[i], masks[i],
                               dirty[i])
