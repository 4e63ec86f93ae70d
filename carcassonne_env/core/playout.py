"""Random playouts inside numba: the core benchmark's workload and the rollout policy of
search bots. The policy: a uniformly random legal placement (over the hand tiles too),
then a uniformly random follower choice among those allowed for it."""

import numpy as np
from numba import njit

from ..compiler.jit import hot, hot_entry, hot_inline
from . import constants as C
from .board import count_placements, nth_placement
from .choices import choice_row, n_choices
from .followers import options_after_put
from .state import copy_into
from .turn import apply_move, finish_placing, put_tile, reset, tile_to_place

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@hot_inline
def rng_next(rng):
    """splitmix64 step on the one-element uint64 array `rng`; returns 64 random bits."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@hot
def rng_below(rng, n):
    """Uniform integer in [0, n) for 0 < n < 2**32: the top 32 random bits scaled by n
    (multiply and shift; each value's probability is within 2**-32 of 1/n), not a 64-bit
    modulo: integer division is slow."""
    return np.int64(((rng_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@hot_inline
def shuffle(a, n, rng):
    """Fisher-Yates shuffle of a[:n] in place."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        a[i], a[j] = a[j], a[i]


@hot_inline
def random_move(st, tb, rng):
    """Play one random legal move (policy in the module docstring); at a scoring
    decision (scoring_order="player"), a uniform choice."""
    if st.phase != C.PHASE_PLACE:
        x, y, r, slot = choice_row(st, rng_below(rng, n_choices(st)))
        apply_move(st, tb, 0, x, y, r, slot)
        return
    n_hand = st.hand_size
    opts = st.work[C.W_OPTS]
    counts = st.work[C.W_COUNTS]
    total = 0
    for h in range(n_hand):
        counts[h] = 0
        t = tile_to_place(st, h)
        if t >= 0:
            counts[h] = count_placements(st, tb, t)
            total += counts[h]
    pick = rng_below(rng, total)
    h = 0
    while pick >= counts[h]:
        pick -= counts[h]
        h += 1
    t = tile_to_place(st, h)
    bx, by, r = nth_placement(st, tb, t, pick)
    # The tile first, then its follower slots from the merged features: the moves of
    # `follower_options` then `apply_move`, for less work.
    i = put_tile(st, tb, t, r, bx, by)
    n_opts, blocked = options_after_put(st, tb, t, i, opts)
    if blocked:  # (solo: the slot is then NO_FOLLOWER, as `place_and_score` checks)
        st.solo_end_a = 1
    finish_placing(st, tb, h, i, opts[rng_below(rng, n_opts)])


@hot
def random_playout(st, tb, rng):
    """Play random moves until the game ends; returns the number of moves played."""
    moves = 0
    while not st.done:
        random_move(st, tb, rng)
        moves += 1
    return moves


@njit(cache=True)
def random_games(st, tb, full_deck, n_games, rng, scores_out):
    """Play `n_games` random games from freshly shuffled full decks, reusing `st`; `rng`
    is the one-element uint64 generator state (advanced). Final scores go to
    scores_out[game]; returns the total number of moves."""
    n = full_deck.shape[0]
    moves = 0
    for g in range(n_games):
        st.deck[:n] = full_deck
        shuffle(st.deck, n, rng)
        reset(st, tb, n)
        moves += random_playout(st, tb, rng)
        scores_out[g, :] = st.scores
    return moves


@hot_entry
def shuffle_undrawn(st, rng):
    """Reshuffle the tiles nobody has drawn yet (a determinisation of the hidden order):
    the rest of the deck, or in solo every colour's remaining stack tiles together.
    Hands of the strategic variant are left as they are."""
    deck = st.deck
    if not st.solo:
        start = st.deck_pos
        n = st.deck_len - start
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            deck[start + i], deck[start + j] = deck[start + j], deck[start + i]
        return
    colours = st.seats
    undrawn = st.keys  # scratch: deck indices not drawn yet
    n = 0
    for k in range(st.deck_len):
        if k // colours >= st.spos[k % colours]:
            undrawn[n] = k
            n += 1
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        a, b = undrawn[i], undrawn[j]
        deck[a], deck[b] = deck[b], deck[a]


@njit(cache=True)
def playouts_from(st, tb, scratch, n_games, rng, reshuffle, scores_out):
    """Random playouts continuing from `st` (left unchanged); `scratch` is a same-shaped
    state, `rng` the generator state. With `reshuffle` the undrawn tiles are reshuffled
    for each playout. Final scores go to scores_out[game]; returns the number of moves."""
    moves = 0
    for g in range(n_games):
        copy_into(scratch, st)
        if reshuffle:
            shuffle_undrawn(scratch, rng)
        moves += random_playout(scratch, tb, rng)
        scores_out[g, :] = scratch.scores
    return moves
