"""Batched solo games: one jitted call steps every game of a vector env and writes the
observations and masks in place (`carcassonne_env.envs.vector`)."""

import numpy as np
from numba import njit, prange

from . import config as C
from .aggregates import encode_aggregates
from .board import origin
from .candidates import encode_candidates
from .encode import MODE_TURN, encode, window_origin
from .jit import hot
from .turn import apply_move, reset


@hot
def _lowest(scores):
    low = scores[0]
    for p in range(1, scores.shape[0]):
        low = min(low, scores[p])
    return low


@njit(cache=True, parallel=True)
def step_batch(states, tb, sub, n_types, SL, actions, masks_in, rows, planes, feats, masks,
               dirty, pend, rewards, dones, illegal, outside):
    """Play actions[i] (turn mode) in game i, then encode its next observation into
    planes / feats / masks (another buffer set than the one holding `masks_in`, the masks
    the actions were chosen from). An action outside its mask plays nothing and sets
    illegal[i]. rewards[i] = rise of the lowest colour's score; dones[i] = game over (or
    illegal). Games are split into one chunk per thread (`rows` holds a legal-move buffer
    per thread)."""
    n = len(states)
    chunks = min(rows.shape[0], n)
    for c in prange(chunks):
        for k in range(c * n // chunks, (c + 1) * n // chunks):
            _step_one(states[k], tb, sub, n_types, SL, actions[k], masks_in[k], rows[c],
                      planes[k], feats[k], masks[k], dirty[k], pend, rewards, dones,
                      illegal, outside, k)


@hot
def apply_action(st, tb, B, SL, a):
    """Play turn-mode action `a` (layout: `core.encode.encode_mask`) in the B-cell window
    the state shows now, the one its observation was encoded in."""
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
    apply_move(st, tb, h, x0 + col - o, y0 + row - o, r, slot)


@hot
def _step_one(st, tb, sub, n_types, SL, a, mask_in, rows, planes, feats, mask, dirty, pend,
              rewards, dones, illegal, outside, i):
    B = planes.shape[0] // 3
    dones[i] = 0
    rewards[i] = 0.0
    illegal[i] = 0
    if a < 0 or a >= mask_in.shape[0] or mask_in[a] == 0:
        illegal[i] = 1
        dones[i] = 1
        return
    low = _lowest(st.scores)
    apply_action(st, tb, B, SL, a)
    rewards[i] = _lowest(st.scores) - low
    dones[i] = st.sc[C.SC_DONE]
    _, outside[i] = encode(st, tb, sub, n_types, SL, 0, MODE_TURN, pend, rows, planes, feats,
                           mask, dirty)


@njit(cache=True, parallel=True)
def encode_batch(states, tb, sub, n_types, SL, which, deck_len, rows, planes, feats, masks,
                 dirty, pend, outside):
    """Encode the observations of the games listed in `which`; with deck_len > 0, first
    start a new game in each from the deck already in its `deck` array."""
    n = which.shape[0]
    chunks = min(rows.shape[0], n)
    for c in prange(chunks):
        for k in range(c * n // chunks, (c + 1) * n // chunks):
            i = which[k]
            if deck_len > 0:
                reset(states[i], tb, deck_len)
            _, outside[i] = encode(states[i], tb, sub, n_types, SL, 0, MODE_TURN, pend,
                                   rows[c], planes[i], feats[i], masks[i], dirty[i])


@njit(cache=True, parallel=True)
def aggregate_batch(states, scratch, tb, sub, which, observers, out_rows, skip, planes, feats,
                    counts, pending, base, fbase):
    """Add the aggregate observation (`core.aggregates`) of seat observers[k] in game
    i = which[k] to the observation just encoded into row out_rows[k] of planes / feats,
    but for games with skip[i] set (an illegal action: no observation was encoded).
    scratch[i], counts[i], pending[i]: game i's buffers."""
    for k in prange(which.shape[0]):
        i = which[k]
        if skip[i] == 0:
            j = out_rows[k]
            encode_aggregates(states[i], tb, sub, observers[k], planes[j], base, feats[j],
                              fbase, scratch[i], counts[i], pending[i])


@njit(cache=True, parallel=True)
def candidates_batch(states, after, scratch, tb, rows, unseen, pend, memo, which, observers,
                     out_rows, skip, B, SL, feats, actions, counts):
    """Write the candidate-move observation (`core.candidates`) of seat observers[k] in
    game i = which[k] into row out_rows[k] of feats / actions, but for games with skip[i]
    set; counts[i] = its legal actions in the window. after, scratch, rows, unseen,
    pend, memo: one buffer per thread (games are split into one chunk per thread)."""
    n = which.shape[0]
    chunks = min(len(after), n)
    for chunk in prange(chunks):
        c = np.int64(chunk)  # prange(n) counts in uint64; a typed list's index is int64
        for k in range(c * n // chunks, (c + 1) * n // chunks):
            i = which[k]
            if skip[i] == 0:
                j = out_rows[k]
                counts[i] = encode_candidates(states[i], tb, after[c], scratch[c], rows[c], B,
                                              SL, observers[k], unseen[c], pend[c], memo[c],
                                              feats[j], actions[j])
