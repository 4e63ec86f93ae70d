"""Observation planes, feature vectors and action masks, written in place (no allocation).

The layouts are documented in `carcassonne_env/encoding.py` and docs/observations.md;
this module only fills the arrays. Window coordinates: the window's top-left cell is
board index (x0, y0); cell (col, row) covers plane pixels [3row, 3row+3) x [3col, 3col+3).
"""

from collections import namedtuple

from ..compiler.jit import hot, hot_inline
from . import constants as C
from .actions import placement, turn_action
from .board import find, n_segments, origin
from .turn import solo_stack_size

# Board planes (last axis of the board observation).
P_CITY, P_ROAD, P_FIELD, P_MONASTERY = 0, 1, 2, 3  # = segment kinds K_*
P_PENNANT = 4
P_OPEN = 5
P_COMPLETED = 6
P_LAST = 7
P_FOLLOWER = 8  # + seat relative to the observer (solo: + colour)
N_FIXED_PLANES = 8
# With Inns & Cathedrals in full mode, after the follower planes (P_FOLLOWER + seats + k):
# roads with an inn, cities with a cathedral (whole features), large followers.
E_INN, E_CATHEDRAL, E_LARGE = 0, 1, 2
N_IC_PLANES = 3
# With Traders & Builders in full mode (not solo), after those: the city pixels of each
# trade good's symbol (wine, grain, cloth), builders, pigs.
E_GOODS, E_BUILDER, E_PIG = 0, 3, 4
N_TB_PLANES = 5

# Action modes.
MODE_TURN, MODE_PLACE, MODE_FOLLOWER = 0, 1, 2

#: Where an observation's window lies and how its actions are numbered: board index
#: (x0, y0) of its top-left cell (`window_origin`), its side in cells, the action slots
#: per cell (`core.actions`).
Window = namedtuple("Window", ["x0", "y0", "size", "slots"])


@hot
def window_origin(st, B):
    """Board index (x0, y0) of the window's top-left cell: centred on the bounding box of
    the placed tiles, odd leftovers going east / south."""
    half = (B - 1) // 2
    return (st.xmin + st.xmax) // 2 - half, (st.ymin + st.ymax) // 2 - half


@hot_inline
def _paint_tile(planes, sub, t, r, row, col, channel_extra):
    """Terrain of tile t turned r at window cell (col, row); plus `channel_extra` on all
    nine pixels when >= 0."""
    for a in range(3):
        for b in range(3):
            px = planes[3 * row + a, 3 * col + b]
            px[sub[t, r, a, b, 0]] = 1
            if channel_extra >= 0:
                px[channel_extra] = 1


@hot
def encode_board(st, tb, sub, observer, x0, y0, planes, pend, dirty):
    """Fill `planes` (int8[3B, 3B, C]) for `observer`. Only the pixel rectangle
    dirty[0:4] (rows r0:r1, columns c0:c1) may hold ones on entry: it is cleared, and the
    rectangle painted now is written back (the whole window would cost more than the
    board). A pending placement pend = (hand, x, y, rotation, tile) (two-step mode: the
    tile at (x, y), relative to the start tile like a move's row, not yet played) is
    drawn as the last tile when its tile >= 0."""
    o = origin(st)
    pend_t, pend_x, pend_y, pend_r = pend[4], pend[1] + o, pend[2] + o, pend[3]
    for i in range(dirty[0], dirty[1]):
        planes[i, dirty[2] : dirty[3], :] = 0  # slice fills compile to memset; loops don't
    B = planes.shape[0] // 3
    # Everything painted lies on the placed tiles' bounding box plus the open ring.
    dirty[0] = 3 * min(max(st.ymin - 1 - y0, 0), B)
    dirty[1] = 3 * min(max(st.ymax + 2 - y0, 0), B)
    dirty[2] = 3 * min(max(st.xmin - 1 - x0, 0), B)
    dirty[3] = 3 * min(max(st.xmax + 2 - x0, 0), B)
    S = n_segments(st)
    P = st.seats
    parent, owner, fdone, fflag, ofig = st.parent, st.owner, st.fdone, st.fflag, st.ofig
    seg_kind, seg_pennants = tb.seg_kind, tb.seg_pennants
    ic = tb_ = -1  # first Inns & Cathedrals / Traders & Builders plane, if any
    exp = st.expansions
    base = P_FOLLOWER + P
    if exp & C.EXP_INNS_CATHEDRALS:
        ic = base
        base += N_IC_PLANES
    if exp & C.EXP_TRADERS_BUILDERS and not st.solo:
        tb_ = base
    seg_good = tb.seg_good
    n = st.placed
    last = n - 1 if pend_t < 0 else -1
    for i in range(n):
        col, row = st.px[i] - x0, st.py[i] - y0
        if not (0 <= col < B and 0 <= row < B):
            continue
        t, r = st.ptype[i], st.prot[i]
        _paint_tile(planes, sub, t, r, row, col, P_LAST if i == last else -1)
        for a in range(3):
            for b in range(3):
                s = sub[t, r, a, b, 1]
                if s < 0:
                    continue
                px = planes[3 * row + a, 3 * col + b]
                g = i * S + s
                kind = seg_kind[t, s]
                if kind == C.K_CITY and seg_pennants[t, s] > 0:
                    px[P_PENNANT] = 1
                root = find(parent, g) if kind != C.K_FIELD else -1
                if root >= 0 and fdone[root]:
                    px[P_COMPLETED] = 1
                if owner[g] >= 0:
                    px[P_FOLLOWER + (owner[g] - observer) % P] = 1
                if ic >= 0:
                    flag = fflag[root] if root >= 0 else 0
                    if kind == C.K_ROAD and flag & C.FLAG_INN:
                        px[ic + E_INN] = 1
                    if kind == C.K_CITY and flag & C.FLAG_CATHEDRAL:
                        px[ic + E_CATHEDRAL] = 1
                    if owner[g] >= 0 and ofig[g] == C.FIG_LARGE:
                        px[ic + E_LARGE] = 1
                if tb_ >= 0:
                    if seg_good[t, s] >= 0:
                        px[tb_ + E_GOODS + seg_good[t, s]] = 1
                    if owner[g] >= 0 and ofig[g] == C.FIG_BUILDER:
                        px[tb_ + E_BUILDER] = 1
                    if owner[g] >= 0 and ofig[g] == C.FIG_PIG:
                        px[tb_ + E_PIG] = 1
    for k in range(st.nfront):
        col, row = st.frontier[k, 0] - x0, st.frontier[k, 1] - y0
        if (
            0 <= col < B
            and 0 <= row < B
            and not (pend_t >= 0 and st.frontier[k, 0] == pend_x and st.frontier[k, 1] == pend_y)
        ):
            for a in range(3):
                for b in range(3):
                    planes[3 * row + a, 3 * col + b, P_OPEN] = 1
    if pend_t >= 0:
        col, row = pend_x - x0, pend_y - y0
        if 0 <= col < B and 0 <= row < B:
            _paint_tile(planes, sub, pend_t, pend_r, row, col, P_LAST)


@hot
def count_unseen(st, observer, out, offset):
    """Tiles the observer has not seen yet, per type: the undrawn deck (solo: every
    stack) plus, in the strategic variant, the other seats' hands."""
    deck = st.deck
    if st.solo:
        colours = st.seats
        for c in range(colours):
            for k in range(st.spos[c], solo_stack_size(st, c)):
                out[offset + deck[c + colours * k]] += 1
    else:
        for k in range(st.deck_pos, st.deck_len):
            out[offset + deck[k]] += 1
        if st.hand_size > 1:
            for p in range(st.hands.shape[0]):
                if p != observer:
                    for h in range(st.hands.shape[1]):
                        if st.hands[p, h] >= 0:
                            out[offset + st.hands[p, h]] += 1


@hot
def encode_features(st, n_types, observer, phase, feats):
    """Fill the float32 feature vector (layout: `carcassonne_env.encoding.feature_names`)."""
    for i in range(feats.shape[0]):
        feats[i] = 0.0
    P = st.seats
    HS = st.hand_size
    T = n_types
    done = st.done != 0
    # The tile(s) to place: the drawn tile (public), or the observer's own hand.
    if not done:
        if HS == 1:
            feats[st.tile] = 1.0
        else:
            for h in range(HS):
                t = st.hands[observer, h]
                if t >= 0:
                    feats[h * T + t] = 1.0
    k = HS * T
    count_unseen(st, observer, feats, k)
    for t in range(T):
        feats[k + t] *= 0.1
    k += T
    left = 0.0
    for t in range(T):
        left += feats[HS * T + t] * 10.0
    feats[k] = left / max(st.deck_len, 1)
    k += 1
    followers = max(st.followers, 1)
    for q in range(P):
        p = (observer + q) % P
        feats[k + q] = st.scores[p] * 0.01
        feats[k + P + q] = st.supply[p] / followers
        if not done and st.seat == p:
            feats[k + 2 * P + q] = 1.0
    k += 3 * P
    feats[k] = phase
    k += 1
    feats[k + (0 if st.solo else P - 1)] = 1.0  # players one-hot (1-6; solo = 1)
    k += C.MAX_SEATS
    feats[k] = st.small_city
    feats[k + 1] = st.farm_mode
    feats[k + 2] = st.farm_points * 0.25
    feats[k + 3] = HS > 1
    feats[k + 4] = st.solo
    k += 5
    if st.solo:
        return
    if st.expansions & C.EXP_INNS_CATHEDRALS:
        for q in range(P):  # large followers in supply
            feats[k + q] = st.xsupply[(observer + q) % P, 0]
        k += P
    if st.expansions & C.EXP_TRADERS_BUILDERS:
        for q in range(P):  # builders, pigs in supply; trade goods tokens / 5
            p = (observer + q) % P
            feats[k + q] = st.xsupply[p, 1]
            feats[k + P + q] = st.xsupply[p, 2]
            for j in range(C.N_GOODS):
                feats[k + 2 * P + C.N_GOODS * q + j] = st.goods[p, j] * 0.2
        feats[k + (2 + C.N_GOODS) * P] = st.extra  # playing a builder's extra turn


@hot
def mask_from_rows(st, rows, n, window, mode, pend, mask, dirty):
    """Fill the int8 action `mask` from the legal moves in rows[:n]; returns how many lie
    outside the `window` (`Window`). mode MODE_TURN: turn actions, MODE_PLACE: placement
    actions (`core.actions`); MODE_FOLLOWER: slot + 1 of the rows matching the pending
    placement `pend` (h, x, y, r; board coordinates relative to the start tile like the
    rows). Entries dirty[4]:dirty[5] are cleared first, and the range set now is written
    back."""
    x0, y0, B, SL = window.x0, window.y0, window.size, window.slots
    mask[dirty[4] : dirty[5]] = 0
    lo, hi = mask.shape[0], 0
    o = origin(st)
    outside = 0
    for k in range(n):
        h, x, y, r, slot = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4]
        if mode == MODE_FOLLOWER:
            if not (h == pend[0] and x == pend[1] and y == pend[2] and r == pend[3]):
                continue
            index = slot + 1
        else:
            col, row = x + o - x0, y + o - y0
            if not (0 <= col < B and 0 <= row < B):
                outside += 1
                continue
            index = (
                turn_action(h, row, col, r, slot, B, SL)
                if mode == MODE_TURN
                else placement(h, row, col, r, B)
            )
        mask[index] = 1
        lo, hi = min(lo, index), max(hi, index + 1)
    dirty[4], dirty[5] = lo, max(hi, lo)
    return outside
