"""The heuristic evaluation as it was before its speed-up (issue 26), in plain Python over
the core's jitted helpers: the reference that tests/bots/test_evaluation.py holds
`carcassonne_env.bots.evaluation.position_values` to, value for value. Do not optimise."""

import numpy as np

from carcassonne_env.bots.evaluation import (
    W_CELL,
    W_FARM,
    W_FIT,
    W_FOLLOWER,
    W_HORIZON,
    W_SOLO_EMPTY,
    W_SOLO_FOLLOWER,
)
from carcassonne_env.core import constants as C
from carcassonne_env.core.board import fits, n_segments, root_of
from carcassonne_env.core.scoring import (
    farms_per_city,
    farms_per_field,
    feature_points,
    majority,
    segment_kind,
)
from carcassonne_env.core.state import copy_into

_DX = np.array(C.DX, np.int64)
_DY = np.array(C.DY, np.int64)


def _fitting_tiles(tb, unseen, con):
    n = 0
    for t in range(unseen.shape[0]):
        if unseen[t] == 0:
            continue
        for r in range(4):
            if fits(tb.edge_code, t, r, con):
                n += unseen[t]
                break
    return n


def _cell_chance(tb, unseen, con, w):
    fit = _fitting_tiles(tb, unseen, con)
    return w[W_CELL] * min(1.0, fit / w[W_FIT])


def _done_chance(st, tb, root, kind, unseen, w, draws_left):
    if draws_left <= 0:
        return 0.0
    p = 1.0
    cells = 0
    if kind == C.K_MONASTERY:
        i = root // n_segments(st)
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                v = st.board[st.py[i] + dy, st.px[i] + dx]
                if v == -1:
                    p *= w[W_CELL]
                    cells += 1
                elif v <= -2:
                    p *= _cell_chance(tb, unseen, np.int64(st.frontier[-2 - v, 2]), w)
                    cells += 1
    else:
        S = n_segments(st)
        for k in range(st.sc[C.SC_NFRONT]):
            bx, by = st.frontier[k, 0], st.frontier[k, 1]
            touches = False
            for d in range(4):
                j = st.board[by + _DY[d], bx + _DX[d]]
                if j < 0:
                    continue
                s = tb.edge_seg[st.ptype[j], st.prot[j], (d + 2) % 4]
                if s >= 0 and root_of(st.parent, j * S + s) == root:
                    touches = True
                    break
            if touches:
                p *= _cell_chance(tb, unseen, np.int64(st.frontier[k, 2]), w)
                cells += 1
    if cells > draws_left:
        p *= draws_left / cells
    return p


def position_values(st, tb, scratch, unseen, w, out):
    P = st.scores.shape[0]
    solo = st.cfg[C.CFG_SOLO] != 0
    seats = st.cfg[C.CFG_SEATS]
    n_unseen = 0
    for t in range(unseen.shape[0]):
        n_unseen += unseen[t]
    draws_left = n_unseen / seats
    horizon = min(1.0, draws_left / w[W_HORIZON])
    follower = w[W_SOLO_FOLLOWER] if solo else w[W_FOLLOWER]
    for p in range(P):
        out[p] = st.scores[p] + follower * horizon * (st.supply[p] + 2 * st.xsupply[p, 0])
        if solo and st.supply[p] == 0:
            out[p] -= w[W_SOLO_EMPTY]
    n_active = st.sc[C.SC_NACTIVE]
    for k in range(n_active):
        g = st.active[k]
        root = root_of(st.parent, g)
        seen = False
        for k2 in range(k):
            if root_of(st.parent, st.active[k2]) == root:
                seen = True
                break
        if seen:
            continue
        kind = segment_kind(st, tb, root)
        if kind == C.K_FIELD:
            continue
        for p in range(P):
            if st.fbuild[root] & (1 << p):
                out[p] += follower * horizon
        chance = _done_chance(st, tb, root, kind, unseen, w, draws_left)
        done_pts = feature_points(st, root, kind, True)
        maj = majority(st.fmeep[root])
        for p in range(P):
            mine = st.fmeep[root, p]
            if mine == 0:
                continue
            out[p] += follower * horizon * chance * mine
            if maj & (1 << p):
                if solo:
                    end_pts = 2.0 * mine
                else:
                    end_pts = feature_points(st, root, kind, False)
                out[p] += chance * done_pts + (1.0 - chance) * end_pts
    if not solo and n_active > 0:
        copy_into(scratch, st)
        if st.cfg[C.CFG_FARM_MODE] == 0:
            farms_per_field(scratch)
        else:
            farms_per_city(scratch)
        for p in range(P):
            out[p] += w[W_FARM] * (scratch.scores[p] - st.scores[p])
    if st.cfg[C.CFG_EXPANSIONS] & C.EXP_TRADERS_BUILDERS and not solo:
        for k in range(C.N_GOODS):
            maj = majority(st.goods[:, k])
            for p in range(P):
                if maj & (1 << p):
                    out[p] += 10.0
