"""Scoring decisions of the solo variant with ``scoring_order="player"``.

The solo rules let the player choose the order in which features completed by one move
are scored, and the order of the end bonus (docs/rules.md 6.4, 6.5, 6.7). With
``Rules(scoring_order="player")`` the core stops at those choices instead of taking the
best order itself (`core.scoring`):

* ``PHASE_FEATURE``: two or more completed features with followers await scoring (their
  roots in ``st.pend``); a choice scores one of them. When one is left it scores by
  itself, and the turn ends.
* ``PHASE_BONUS``: the game is over and followers of two or more colours stand on the
  board, one of which could score now; a choice scores one follower (2 points if its
  colour is lowest, else 0). When no choice is left to make the rest scores by itself.

A choice is named by a follower: the follower on the feature (its lowest segment index
when several stand there) or the bonus follower itself. Since a tile holds at most one
follower, the row (hand 0, x, y, rotation of that tile, slot of the follower) of the
legal-move list identifies it, so every env, bot and record handles choices as moves.
"""

from ..compiler.jit import hot, hot_entry, hot_inline
from . import constants as C
from .board import find, n_segments, origin
from .scoring import (
    auto_order,
    first_lowest_follower,
    lowest_mask,
    majority,
    score_bonus_follower,
    score_feature,
    solo_final_scoring,
)


@hot
def n_choices(st):
    """Choices open at the current decision (0 when it is a tile placement)."""
    phase = st.phase
    if phase == C.PHASE_FEATURE:
        return st.npend
    if phase == C.PHASE_BONUS:
        return st.nactive
    return 0


@hot
def choice_segment(st, k):
    """Segment of the follower that names choice `k`."""
    if st.phase == C.PHASE_BONUS:
        return st.active[k]
    root = st.pend[k]
    best = -1
    for j in range(st.nactive):
        g = st.active[j]
        if (best < 0 or g < best) and find(st.parent, g) == root:
            best = g
    return best


@hot_inline
def choice_index(st, g):
    """The choice named by the follower on segment `g`, -1 if none is."""
    for k in range(n_choices(st)):
        if choice_segment(st, k) == g:
            return k
    return -1


@hot
def choice_row(st, k):
    """(x, y, rotation, slot) of the follower that names choice `k`."""
    S = n_segments(st)
    o = origin(st)
    g = choice_segment(st, k)
    i = g // S
    return st.px[i] - o, st.py[i] - o, st.prot[i], g % S


@hot_inline
def choice_rows(st, out):
    """Write the open choices as legal-move rows (0, x, y, rotation, slot); their count."""
    n = n_choices(st)
    for k in range(n):
        x, y, r, slot = choice_row(st, k)
        out[k, 0] = 0
        out[k, 1] = x
        out[k, 2] = y
        out[k, 3] = r
        out[k, 4] = slot
    return n


@hot_inline
def start_feature_choice(st, roots, n):
    """After a move under scoring_order="player": keep the completed features that hold
    followers (the others score nothing) as pending; True if the player must choose
    (two or more), else False and the caller scores them as usual."""
    m = 0
    for k in range(n):
        if majority(st.fmeep[roots[k]]) != 0:
            st.pend[m] = roots[k]
            m += 1
    if m < 2:
        return False
    st.npend = m
    st.phase = C.PHASE_FEATURE
    return True


@hot
def bonus_needs_choice(st):
    """Whether the end bonus asks the player: followers of two or more colours remain,
    and one of them could score now (otherwise every order gives the same result)."""
    low = lowest_mask(st.scores)
    colours = 0
    can_score = False
    for k in range(st.nactive):
        p = st.owner[st.active[k]]
        colours |= 1 << p
        can_score = can_score or (low >> p) & 1 == 1
    return can_score and (colours & (colours - 1)) != 0


@hot_inline
def apply_choice(st, tb, k):
    """Make choice `k`. Returns True when the decision phase is over: a feature phase
    then needs the turn ended by the caller; a bonus phase has finished the game."""
    if st.phase == C.PHASE_BONUS:
        score_bonus_follower(st, k)
        if bonus_needs_choice(st):
            return False
        solo_final_scoring(st)
        st.phase = C.PHASE_PLACE
        st.done = 1
        return True
    root = st.pend[k]
    n = st.npend - 1
    for j in range(k, n):  # keep the others in order
        st.pend[j] = st.pend[j + 1]
    st.npend = n
    score_feature(st, tb, root)
    if n > 1:
        return False
    if n == 1:
        score_feature(st, tb, st.pend[0])
        st.npend = 0
    st.phase = C.PHASE_PLACE
    return True


@hot_entry
def auto_choice(st, tb, final):
    """The choice `scoring_order="auto"` would make now: the first feature of
    `auto_order` (`final`: the game ends after this turn), or the first follower of a
    lowest colour in the end bonus. Playing it at every decision gives the auto result."""
    if st.phase == C.PHASE_BONUS:
        return max(first_lowest_follower(st), 0)
    roots = st.work[C.W_ROOTS]
    n = st.npend
    for k in range(n):
        roots[k] = st.pend[k]
    auto_order(st, tb, roots, n, final)
    return st.work[C.W_ORDER][0]
