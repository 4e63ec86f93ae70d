"""Jitted position evaluation for the heuristic bot (and any bot that wants one).

The value of a position for seat p estimates its final score:

    V_p = score_p
        + sum over unfinished roads, cities, monasteries where p holds the majority of
              P(done) * points if completed + (1 - P(done)) * points at the end
        + FARM * points p's farmers would score now
        + FOLLOWER * horizon * (followers in p's supply
                                + sum of P(done) over p's followers that can come back)
          (a large follower counts as two, in the supply and on the board)
        + FOLLOWER * horizon per builder on an unfinished road or city (its extra turns)
        + 10 per trade good whose majority p holds now (farm points include pigs)

P(done) of a feature multiplies, over the open cells next to it, the chance that a
fitting tile comes: CELL * min(1, fitting unseen tiles / FIT), and is 0 when some open
cell fits no unseen tile (a blocked feature: its followers are stuck). `horizon`,
min(1, own draws left / HORIZON), makes followers worth less as the game runs out.
In the solo variant unfinished features score nothing at the end, but each follower
left on the board may earn its 2 points: that replaces "points at the end"; followers
are worth SOLO_FOLLOWER instead of FOLLOWER, and a colour with an empty supply loses
SOLO_EMPTY (its next turn may end the game: end A).

Positions reached by a move that ends the game are valued by their exact final scores.
"""

from __future__ import annotations

import numpy as np

from carcassonne_env.compiler.jit import hot, hot_entry, hot_inline
from carcassonne_env.core import constants as C
from carcassonne_env.core.board import NEIGHBOUR_DX, NEIGHBOUR_DY, fits, n_segments, root_of
from carcassonne_env.core.scoring import (
    farms_per_city,
    farms_per_field,
    feature_points,
    majority,
    segment_kind,
)
from carcassonne_env.core.state import copy_into
from carcassonne_env.core.turn import apply_move_auto

# Indices into the weight vector (names and defaults in carcassonne_env/bots/heuristic.py).
W_CELL, W_FIT, W_FARM, W_FOLLOWER, W_HORIZON, W_SOLO_SUM, W_SOLO_FOLLOWER, W_SOLO_EMPTY = range(8)


@hot_entry
def unseen_tiles(st, n_types, out):
    """out[t] = copies of tile type t nobody has drawn yet (what a player cannot know the
    order of): the rest of the deck, or in solo the remaining stack tiles. Returns the
    total."""
    out[:] = 0
    total = 0
    if st.solo:
        colours = st.seats
        for k in range(st.deck_len):
            if k // colours >= st.spos[k % colours]:
                out[st.deck[k]] += 1
                total += 1
        return total
    for k in range(st.deck_pos, st.deck_len):
        out[st.deck[k]] += 1
        total += 1
    return total


@hot_inline
def _fitting_tiles(tb, unseen, con):
    """Unseen tiles that fit an open cell with packed constraint `con` in some rotation."""
    n = 0
    for t in range(unseen.shape[0]):
        if unseen[t] == 0:
            continue
        for r in range(4):
            if fits(tb.edge_code, t, r, con):
                n += unseen[t]
                break
    return n


@hot_inline
def _cell_chance(tb, st, unseen, k, w, fit):
    """Chance that open cell k (frontier slot) gets a fitting tile (0 when none is left).
    fit[k] caches the cell's count of fitting unseen tiles (-1: not counted yet)."""
    if fit[k] < 0:
        fit[k] = _fitting_tiles(tb, unseen, np.int64(st.frontier[k, 2]))
    return w[W_CELL] * min(1.0, fit[k] / w[W_FIT])


@hot_inline
def _side_roots(st, tb, roots):
    """roots[4k + d] = the feature (root segment) across side d of open cell k, -1 if
    none: one union-find lookup per side for all the features that are valued."""
    S = n_segments(st)
    for k in range(st.nfront):
        bx, by = st.frontier[k, 0], st.frontier[k, 1]
        for d in range(4):
            r = -1
            j = st.board[by + NEIGHBOUR_DY[d], bx + NEIGHBOUR_DX[d]]
            if j >= 0:
                s = tb.edge_seg[st.ptype[j], st.prot[j], (d + 2) % 4]
                if s >= 0:
                    r = root_of(st.parent, j * S + s)
            roots[4 * k + d] = r


@hot_inline
def _done_chance(st, tb, root, kind, unseen, w, draws_left, roots, fit):
    """P(done) of the unfinished road, city or monastery `root` (module docstring);
    `roots` from _side_roots, `fit` the cells' cache of _cell_chance."""
    if draws_left <= 0:
        return 0.0
    p = 1.0
    cells = 0
    if kind == C.K_MONASTERY:
        i = root // n_segments(st)
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                v = st.board[st.py[i] + dy, st.px[i] + dx]
                if v == -1:  # empty, not yet open: any later tile may come
                    p *= w[W_CELL]
                    cells += 1
                elif v <= -2:
                    p *= _cell_chance(tb, st, unseen, -2 - v, w, fit)
                    cells += 1
    else:
        for k in range(st.nfront):
            if (
                roots[4 * k] == root
                or roots[4 * k + 1] == root
                or roots[4 * k + 2] == root
                or roots[4 * k + 3] == root
            ):
                p *= _cell_chance(tb, st, unseen, k, w, fit)
                cells += 1
    if cells > draws_left:  # not enough turns left to fill them all
        p *= draws_left / cells
    return p


@hot
def position_values(st, tb, scratch, unseen, w, out):
    """out[p] = V_p of the unfinished position `st` (module docstring); `scratch` is a
    same-shaped state (its scratch rows hold the lookups of this call; its game arrays
    count farm points)."""
    P = st.scores.shape[0]
    solo = st.solo != 0
    seats = st.seats
    n_unseen = 0
    for t in range(unseen.shape[0]):
        n_unseen += unseen[t]
    draws_left = n_unseen / seats  # each seat's (colour's) own turns still to come
    horizon = min(1.0, draws_left / w[W_HORIZON])
    follower = w[W_SOLO_FOLLOWER] if solo else w[W_FOLLOWER]
    for p in range(P):
        # a large follower (Inns & Cathedrals) counts as two, as on the board (fmeep)
        out[p] = st.scores[p] + follower * horizon * (st.supply[p] + 2 * st.xsupply[p, 0])
        if solo and st.supply[p] == 0:  # its next turn may end the game (end A)
            out[p] -= w[W_SOLO_EMPTY]
    # Followers on the board: each feature once (its followers all sit in `active`).
    n_active = st.nactive
    roots, fit, active_roots = scratch.places[0], scratch.places[1], scratch.places[2]
    if n_active > 0:
        _side_roots(st, tb, roots)
        for k in range(st.nfront):
            fit[k] = -1
        for k in range(n_active):
            active_roots[k] = root_of(st.parent, st.active[k])
    for k in range(n_active):
        root = active_roots[k]
        seen = False
        for k2 in range(k):
            if active_roots[k2] == root:
                seen = True
                break
        if seen:
            continue
        kind = segment_kind(st, tb, root)
        if kind == C.K_FIELD:
            continue
        for p in range(P):  # a builder (Traders & Builders): extra turns to come
            if st.fbuild[root] & (1 << p):
                out[p] += follower * horizon
        chance = _done_chance(st, tb, root, kind, unseen, w, draws_left, roots, fit)
        done_pts = feature_points(st, root, kind, True)
        maj = majority(st.fmeep[root])
        for p in range(P):
            mine = st.fmeep[root, p]
            if mine == 0:
                continue
            out[p] += follower * horizon * chance * mine  # followers coming back
            if maj & (1 << p):
                if solo:
                    end_pts = 2.0 * mine  # the solo end bonus per follower left
                else:
                    end_pts = feature_points(st, root, kind, False)
                out[p] += chance * done_pts + (1.0 - chance) * end_pts
    if not solo and n_active > 0:  # farm points as they stand
        copy_into(scratch, st)
        if st.farm_mode == 0:
            farms_per_field(scratch)
        else:
            farms_per_city(scratch)
        for p in range(P):
            out[p] += w[W_FARM] * (scratch.scores[p] - st.scores[p])
    if st.expansions & C.EXP_TRADERS_BUILDERS and not solo:
        for k in range(C.N_GOODS):  # trade goods majorities as they stand
            maj = majority(st.goods[:, k])
            for p in range(P):
                if maj & (1 << p):
                    out[p] += 10.0


@hot
def objective(values, seat, solo, w):
    """What a seat maximises: its value minus the best other seat's; in solo the lowest
    colour's value plus SOLO_SUM times the mean (a tie-break towards progress)."""
    P = values.shape[0]
    if solo:
        lo = values[0]
        total = 0.0
        for p in range(P):
            lo = min(lo, values[p])
            total += values[p]
        return lo + w[W_SOLO_SUM] * total / P
    best_other = -1e18
    for p in range(P):
        if p != seat:
            best_other = max(best_other, values[p])
    return values[seat] - best_other


@hot_entry
def evaluate_moves(st, tb, rows, n, w, unseen, after, scratch, values, out):
    """out[i] = objective of the seat to move after playing legal move rows[i]
    (hand, x, y, rotation, slot) from `st`, which is left unchanged. `after` and
    `scratch` are same-shaped states; `values` a float buffer of one entry per seat."""
    seat = st.seat
    solo = st.solo != 0
    for i in range(n):
        copy_into(after, st)
        apply_move_auto(after, tb, rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], rows[i, 4])
        if after.done:
            for p in range(values.shape[0]):
                values[p] = after.scores[p]
        else:
            position_values(after, tb, scratch, unseen, w, values)
        out[i] = objective(values, seat, solo, w)
