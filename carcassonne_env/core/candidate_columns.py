"""The columns of a candidate-move observation (`core.candidates`) and the functions that
write them for one move, from the state before it and the state right after it.

Column layout (P seats, seat columns in the observer's order: seat (observer + q) % P;
every column is documented in docs/observations.md, names in
`carcassonne_env.encoding.Encoder.candidate_names`):

    header, HEAD_FIXED + 3P columns:
      present, hand index one-hot (3), figure one-hot (none, follower, large, builder, pig),
      points scored now per seat (P), projected score gain per seat (P: score plus the
      end-of-game points pending if the game ended now, after minus before), the mover's
      supply after (followers, large followers, builders, pigs), extra turn earned,
      game certainly ends after this move (public information), monasteries around
      the tile completed now, followers per seat on the monasteries around the tile (P)
    N_SLOTS feature slots, SLOT_FIXED + 2P columns each: the distinct features of the
      placed tile's segments, the one holding this move's figure first, then cities,
      roads, monastery, fields (in segment order; fields past the last slot are left
      out):
      kind one-hot (city, road, field, monastery), holds this move's figure, tiles,
      pennants, open edges (monastery: missing neighbours), completed by this move,
      points if completed (field: completed cities touched x farm points), points if
      still incomplete at the end, inn, cathedral, trade goods, completed cities touched
      (field), incomplete cities touched (field), closers (tiles the observer has not
      seen that complete it in one placement on its single open cell; 0 when its open
      ends face several cells), features joined (how many features on the board before
      the move it now includes: 0 new, 1 extended, 2+ joined), followers per seat (P, a
      large one counts 2), majority per seat (P; for a feature completed now, the
      majority it was scored with)

Candidates are the legal actions inside the window in the core's legal-move order (hand
tile, frontier cell, rotation, slot); with more than K, the first K are kept.
"""

import numpy as np

from ..compiler.jit import hot
from . import constants as C
from .aggregates import (
    contains,
    end_points,
    goods_points,
)
from .board import (
    find,
    n_segments,
    neighbour_segment,
    root_of,
)
from .closers import closers
from .scoring import feature_points, majority, score_completed, score_game_end
from .turn import (
    figure_and_score,
    mark_completed,
    put_tile,
    solo_ends_after_turn,
    undo_place,
)

N_SLOTS = 6


HEAD_FIXED = 16  # header columns besides the 3P per-seat ones


SLOT_FIXED = 18  # slot columns besides the 2P per-seat ones


# header offsets (per-seat blocks follow the fixed columns they name)
H_PRESENT, H_HAND, H_FIGURE = 0, 1, 4  # hand: 3 columns, figure: 5 (none + FIG_* + 1)


# slot offsets
S_KIND, S_FIGURE, S_TILES, S_PENNANTS, S_OPEN, S_DONE = 0, 4, 5, 6, 7, 8


S_POINTS_DONE, S_POINTS_END, S_INN, S_CATHEDRAL, S_GOODS = 9, 10, 11, 12, 13


S_FARM_DONE, S_FARM_OPEN, S_CLOSERS, S_JOINED, S_FOLLOWERS = 14, 15, 16, 17, 18


def n_columns(seats: int) -> int:
    """Columns of one candidate's vector with `seats` seats."""
    return HEAD_FIXED + 3 * seats + N_SLOTS * (SLOT_FIXED + 2 * seats)


@hot
def farm_cities(st, field, out, base):
    """out[base] / out[base + 1] = completed / incomplete cities touching `field`."""
    parent, pairs, fdone = st.parent, st.pairs, st.fdone
    seen = st.work[C.W_OWN]
    n = 0
    for k in range(st.npairs):
        if find(parent, pairs[k, 0]) != field:
            continue
        c = find(parent, pairs[k, 1])
        if not contains(seen, n, c):
            seen[n] = c
            n += 1
            out[base + (0 if fdone[c] else 1)] += 1


@hot
def features_joined(st, after, tb, i, root, kind):
    """How many features of the board before the move (`st`) feature `root` of `after`
    includes through placement i's edges (fields: half-edges)."""
    if kind == C.K_MONASTERY:
        return 0
    S = n_segments(after)
    t, r, bx, by = after.ptype[i], after.prot[i], after.px[i], after.py[i]
    field = kind == C.K_FIELD
    seen = after.work[C.W_OWN]
    n = 0
    for e in range(8 if field else 4):
        s = tb.half_seg[t, r, e] if field else tb.edge_seg[t, r, e]
        if s < 0 or find(after.parent, i * S + s) != root:
            continue
        g = neighbour_segment(after, tb, bx, by, e, 1 if field else 0)
        if g < 0:
            continue
        b = root_of(st.parent, g)
        if not contains(seen, n, b):
            seen[n] = b
            n += 1
    return n


@hot
def slot_roots(after, tb, i, fig_root, roots, limit):
    """The distinct features of placement i's segments into roots[:n] (at most `limit`):
    `fig_root` first (if >= 0), then cities, roads, monastery, fields."""
    S = n_segments(after)
    t = after.ptype[i]
    n = 0
    if fig_root >= 0:
        roots[0] = fig_root
        n = 1
    for kind in (C.K_CITY, C.K_ROAD, C.K_MONASTERY, C.K_FIELD):
        for s in range(tb.n_seg[t]):
            if n == limit:
                return n
            if tb.seg_kind[t, s] != kind:
                continue
            g = find(after.parent, i * S + s)
            if not contains(roots, n, g):
                roots[n] = g
                n += 1
    return n


@hot
def pair_lists(st, links):
    """Index the field-city adjacencies of `st` by the features they join: links[0, g] /
    links[1, g] the first adjacency whose field / city has root g (-1: none), links[2, k]
    / links[3, k] the next one after adjacency k with the same field / city root."""
    G = st.placed * n_segments(st)
    for g in range(G):
        links[0, g] = -1
        links[1, g] = -1
    for k in range(st.npairs):
        for side in range(2):
            g = root_of(st.parent, st.pairs[k, side])
            links[2 + side, k] = links[side, g]
            links[side, g] = k


@hot
def once(stamp, g, gen, q):
    """Whether (feature g, tile feature q) is met the first time in placement `gen`:
    stamp[g] holds gen (from bit 16) and the bits of the q met with g in it."""
    s = stamp[g]
    if s >> 16 != gen:
        s = gen << 16
    if s & (1 << q):
        return False
    stamp[g] = s | (1 << q)
    return True


@hot
def pair_change(after, k, roots, n_roots, farm, stamp, gen, farm_pts, pend):
    """`pending_change` for adjacency k of `after`: count its city for the tile's field
    it touches, or, for another field touching a city completed now, add that field's
    farm points; each (field, city) once in placement `gen` (`once`: a city is stamped
    with its tile fields, a field with its tile cities)."""
    parent, pairs, fdone, fmeep, fpig = (
        after.parent,
        after.pairs,
        after.fdone,
        after.fmeep,
        after.fpig,
    )
    f = find(parent, pairs[k, 0])
    c = find(parent, pairs[k, 1])
    qf = qc = -1
    for q in range(n_roots):
        if roots[q] == f:
            qf = q
        elif roots[q] == c:
            qc = q
    if qf >= 0:
        if once(stamp, c, gen, qf):
            farm[qf, 0 if fdone[c] else 1] += 1
    elif qc >= 0 and fdone[c] and once(stamp, f, gen, qc):  # completed now
        maj = majority(fmeep[f])
        for p in range(after.seats):
            if maj & (1 << p):
                pend[p] += farm_pts + (1 if fpig[f] & (1 << p) else 0)


@hot
def pending_change(st, after, tb, t, r, bx, by, n_roots, gen, work):
    """pend[p] += the change of seat p's pending end-game points from `st` to `after`
    (the tile t/r put on (bx, by), no figure, completions scored), standard rules with
    farms per field, without running the end scoring: only the features the tile
    touches change, so add the end points of its features after (roots[:n_roots]) and
    of the monasteries around it, and take off those of the features they were before.
    A city completed now adds its farm points to every other field touching it. Also
    fills farm[q] = (completed cities, incomplete cities, features of `st`) that
    roots[q] touches (a field) or joined (the `joined` column, as `joined` counts).
    The arrays are those of `work` (`candidates.PlacingWork`): city_counts[g], the
    completed cities touching field root g of `st`; stamp, gen: see `once` (gen: this
    placement's number, stamp: int64[G], zero at the first); links: `st`'s adjacencies
    by feature (`pair_lists`); ends[q]: the end points of roots[q] after (written);
    pend, the points changed."""
    roots, farm, city_counts, stamp = work.roots, work.farm, work.city_counts, work.stamp
    links, ends, pend = work.links, work.ends, work.pend
    S = n_segments(st)
    # the features of `st` the tile joined (through its edges)
    before = after.work[C.W_STACK]
    n_before = 0
    code = np.int64(tb.edge_code[t, r])
    for d in range(4):
        ter = (code >> (2 * d)) & 3
        if ter != C.FIELD:
            g = neighbour_segment(st, tb, bx, by, d, 0)
            if g >= 0:
                b = root_of(st.parent, g)
                if not contains(before, n_before, b):
                    before[n_before] = b
                    n_before += 1
        if ter != C.CITY:
            for h in range(2 * d, 2 * d + 2):
                g = neighbour_segment(st, tb, bx, by, h, 1)
                if g >= 0:
                    b = root_of(st.parent, g)
                    if not contains(before, n_before, b):
                        before[n_before] = b
                        n_before += 1
    # fields: the adjacencies of the tile's fields' cities and of the other fields
    # touching a city completed now, found through the features the tile joined (the
    # adjacencies of `st`) and the tile's own (those after st's)
    done_now = False
    for q in range(n_roots):
        farm[q, 0] = 0
        farm[q, 1] = 0
        farm[q, 2] = 0
        g = roots[q]
        if tb.seg_kind[after.ptype[g // S], g % S] == C.K_CITY and after.fdone[g]:
            done_now = True
    farm_pts = np.int64(after.farm_points)
    for q in range(n_before):
        b = before[q]
        g = find(after.parent, b)  # a feature joined lies in one of the tile's now
        for p in range(n_roots):
            if roots[p] == g:
                farm[p, 2] += 1
        kind = tb.seg_kind[st.ptype[b // S], b % S]
        side = 0 if kind == C.K_FIELD else 1 if kind == C.K_CITY and done_now else -1
        if side < 0:
            continue
        k = links[side, b]
        while k >= 0:
            pair_change(after, k, roots, n_roots, farm, stamp, gen, farm_pts, pend)
            k = links[2 + side, k]
    for k in range(st.npairs, after.npairs):
        pair_change(after, k, roots, n_roots, farm, stamp, gen, farm_pts, pend)
    for q in range(n_roots):
        for p in range(pend.shape[0]):
            ends[q, p] = 0
        end_points(after, tb, roots[q], farm[q, 0], ends[q], 1)
        for p in range(pend.shape[0]):
            pend[p] += ends[q, p]
    for q in range(n_before):
        end_points(st, tb, before[q], city_counts[before[q]], pend, -1)
    # monasteries around the tile: one more neighbour, or completed and scored now
    i = after.placed - 1
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = after.board[by + dy, bx + dx]
            if j < 0 or j == i or tb.mon_seg[after.ptype[j]] < 0:
                continue
            g = j * S + tb.mon_seg[after.ptype[j]]
            end_points(st, tb, g, 0, pend, -1)
            end_points(after, tb, g, 0, pend, 1)
    if after.expansions & C.EXP_TRADERS_BUILDERS:
        goods_points(st, pend, -1)
        goods_points(after, pend, 1)


@hot
def goods_differ(st, goods):
    """Whether the seats' trade goods tokens differ from goods[P, N_GOODS]."""
    for p in range(goods.shape[0]):
        for g in range(C.N_GOODS):
            if st.goods[p, g] != goods[p, g]:
                return True
    return False


@hot
def figure(st, tb, i, slot):
    """`turn.figure_and_score` without the player's scoring choice (compiled once, not
    inlined at each call: its scoring is long)."""
    figure_and_score(st, tb, i, slot, False)


@hot
def no_figure(st, tb, i):
    """`figure(st, tb, i, NO_FOLLOWER)`, the marking inlined: most placements complete
    nothing and then skip the call (it passes the state's arrays one by one)."""
    n = mark_completed(st, tb, i)
    if n:
        score_marked(st, tb, n)


@hot
def score_marked(st, tb, n):
    """`figure_and_score`'s scoring of the n features `mark_completed` listed."""
    score_completed(st, tb, st.work[C.W_ROOTS], n, solo_ends_after_turn(st))


@hot
def replay(st, after, tb, t, r, bx, by, score):
    """Put `after` back to the position `st` (`turn.undo_place`) and put tile t turned r
    on (bx, by); with `score`, the no-figure move's completions scored too (`no_figure`).
    Returns the tile's index."""
    undo_place(after, st, tb)
    i = put_tile(after, tb, t, r, bx, by)
    if score:
        no_figure(after, tb, i)
    return i


@hot
def put_slot(after, tb, roots, cols, q, fig_root, observer, out, base, n_events):
    """Slot columns of feature roots[q] at out[base:]: its figure-free columns cols[q]
    and its holders after this move."""
    for c in range(cols.shape[1]):
        out[base + c] = cols[q, c]
    write_holders(after, tb, roots[q], fig_root, observer, out, base, n_events)


@hot
def write_slot(st, after, tb, root, unseen, memo, out, base, farm):
    """The slot columns of feature `root` of the position `after` (`st`: before the
    move) that do not depend on the move's figure: all but `holds_figure` and the
    followers and majorities (`write_holders`). farm = (a field's completed cities,
    its incomplete cities, the features joined), each when known (>= 0), else counted
    here."""
    farm_done, farm_open, joined = farm[0], farm[1], farm[2]
    kind = tb.seg_kind[after.ptype[root // n_segments(after)], root % n_segments(after)]
    out[base + S_KIND + kind] = 1.0
    done = after.fdone[root] != 0
    out[base + S_DONE] = 1.0 if done else 0.0
    if kind == C.K_FIELD:
        if farm_done >= 0:
            out[base + S_FARM_DONE] = farm_done
            out[base + S_FARM_OPEN] = farm_open
        else:
            farm_cities(after, root, out, base + S_FARM_DONE)
        value = out[base + S_FARM_DONE] * after.farm_points
        out[base + S_POINTS_DONE] = value
        out[base + S_POINTS_END] = value
    else:
        out[base + S_TILES] = (
            9 - after.fopen[root] if kind == C.K_MONASTERY else after.fntiles[root]
        )
        out[base + S_PENNANTS] = after.fpenn[root]
        out[base + S_OPEN] = after.fopen[root]
        # (feature_points gives a monastery's present count; completed it scores 9)
        out[base + S_POINTS_DONE] = (
            9.0 if kind == C.K_MONASTERY else feature_points(after, root, kind, True)
        )
        if not done:
            out[base + S_POINTS_END] = feature_points(after, root, kind, False)
        out[base + S_CLOSERS] = closers(after, tb, root, kind, unseen, memo)
    out[base + S_JOINED] = (
        joined if joined >= 0 else features_joined(st, after, tb, after.placed - 1, root, kind)
    )
    flag = after.fflag[root]
    out[base + S_INN] = 1.0 if flag & C.FLAG_INN else 0.0
    out[base + S_CATHEDRAL] = 1.0 if flag & C.FLAG_CATHEDRAL else 0.0
    goods = 0
    for k in range(C.N_GOODS):
        goods += after.fgoods[root, k]
    out[base + S_GOODS] = goods


@hot
def write_holders(after, tb, root, fig_root, observer, out, base, n_events):
    """The slot columns of feature `root` of `after` that the move's figure decides:
    `holds_figure`, followers and majority per seat."""
    P = after.seats
    S = n_segments(after)
    kind = tb.seg_kind[after.ptype[root // S], root % S]
    out[base + S_FIGURE] = 1.0 if root == fig_root else 0.0
    maj = majority(after.fmeep[root])
    if after.fdone[root]:  # scored now: its followers went home; the event keeps the majority
        for e in range(n_events, after.nevents):
            if after.events[e, C.EV_ROOT] == root and after.events[e, C.EV_KIND] == kind:
                maj = after.events[e, C.EV_MAJORITY]
    for q in range(P):
        p = (observer + q) % P
        out[base + S_FOLLOWERS + q] = after.fmeep[root, p]
        out[base + S_FOLLOWERS + P + q] = 1.0 if maj & (1 << p) else 0.0


@hot
def write_header(st, after, tb, h, slot, observer, last_tile, out):
    """The header columns of a placing move (tile and figure down, completions scored in
    `after`) but the projected gain."""
    P = st.seats
    S = n_segments(st)
    seat = st.seat
    h_points = H_FIGURE + 5
    h_supply = h_points + 2 * P
    h_extra = h_supply + 4
    h_mon_done = h_extra + 2
    h_mon_held = h_mon_done + 1
    out[H_PRESENT] = 1.0
    out[H_HAND + h] = 1.0
    out[H_FIGURE + (0 if slot < 0 else 1 + slot // S)] = 1.0
    for q in range(P):
        out[h_points + q] = after.scores[(observer + q) % P] - st.scores[(observer + q) % P]
    out[h_supply] = after.supply[seat]
    for f in range(3):
        out[h_supply + 1 + f] = after.xsupply[seat, f]
    out[h_extra] = after.earned
    if st.solo:
        out[h_extra + 1] = 1.0 if solo_ends_after_turn(after) else 0.0
    else:
        out[h_extra + 1] = 1.0 if last_tile else 0.0
    i = after.placed - 1
    bx, by = after.px[i], after.py[i]
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = after.board[by + dy, bx + dx]
            if j < 0 or j == i or tb.mon_seg[after.ptype[j]] < 0:
                continue
            g = j * S + tb.mon_seg[after.ptype[j]]
            if after.fopen[g] == 0:
                out[h_mon_done] += 1.0
            for q in range(P):  # before the move: followers of completed ones went home
                out[h_mon_held + q] += st.fmeep[g, (observer + q) % P]


@hot
def is_last_tile(st):
    """Standard rules: whether the move ends the game: no tile left to draw and none in
    any hand but the one placed (public: the deck and hand sizes)."""
    last_tile = st.deck_pos >= st.deck_len
    if last_tile and st.hand_size > 1:
        in_hands = 0
        for p in range(st.hands.shape[0]):
            for q in range(st.hands.shape[1]):
                if st.hands[p, q] >= 0:
                    in_hands += 1
        last_tile = in_hands == 1
    return last_tile


@hot
def clear(feats, actions):
    """Zero the rows written last time: the present candidates are a prefix (action
    >= 0) and an absent row is left all zeros, so the rest is clear already."""
    for k in range(actions.shape[0]):
        if actions[k] < 0:
            return
        actions[k] = -1
        for c in range(feats.shape[1]):
            feats[k, c] = 0.0


@hot
def projected_gain(st, after, tb, observer, pend_before, out, base):
    """out[base + q] = seat q's score plus pending end-game points in `after` minus the
    same in `st` (pend_before), with the engine's own end scoring run on `after` (which
    it spends: call it last)."""
    P = st.seats
    if not after.done:
        score_game_end(after, tb)
    for q in range(P):
        p = (observer + q) % P
        out[base + q] = after.scores[p] - st.scores[p] - pend_before[p]
