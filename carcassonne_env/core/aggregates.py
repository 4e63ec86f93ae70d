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

from collections import namedtuple

import numpy as np

from ..compiler.jit import counted, hot, hot_inline
from . import constants as C
from .board import find, n_segments, root_of
from .planes import window_origin
from .scoring import adjacency_keys, feature_points, majority, score_game_end
from .state import copy_into

N_AGG_FIXED = 5  # planes before the per-seat follower counts
# With numba's reference counting (unlike `hot`): these slice and reduce arrays.

CAP_POINTS, CAP_OPEN, CAP_TILES, CAP_FOLLOWERS = 60, 20, 40, 10

#: The aggregate part's inputs and buffers (`encode_aggregates`): its first plane
#: (`base`) and feature (`fbase`), a scratch state of the game's shape, counts
#: int64[segments] and the pending points int64[seats]. The vector envs hold one
#: scratch state, counts and points row per game.
AggregateBuffers = namedtuple("AggregateBuffers", ["base", "fbase", "scratch", "counts", "pending"])


@hot
def contains(values, n, v):
    """Whether v is among values[:n]."""
    for k in range(n):
        if values[k] == v:
            return True
    return False


@hot
def field_city_counts(st, counts):
    """counts[root of a field] = completed cities it touches (other entries 0)."""
    G = st.placed * n_segments(st)
    counts[:G] = 0
    m, G_all = adjacency_keys(st, False)
    for k in range(m):
        counts[st.keys[k] // G_all] += 1


@hot
def end_points(st, tb, root, n_cities, out, sign):
    """out[p] += sign x the points seat p scores for feature `root` at the end of a
    standard game (what `scoring.final_scoring` awards for it): an incomplete road,
    city or monastery to its majority; a field per field (farm_mode 0) its n_cities
    completed cities touched x farm points to its majority (and its pigs' owners 1
    point per city more); per city (farm_mode 1) for each completed city it touches
    that city's farm award, which the other fields touching the city share in.
    Nothing for a completed feature."""
    S = n_segments(st)
    P = st.seats
    kind = tb.seg_kind[st.ptype[root // S], root % S]
    fmeep, fpig = st.fmeep, st.fpig
    if kind != C.K_FIELD:
        if st.fdone[root]:
            return
        maj = majority(fmeep[root])
        if maj:
            pts = feature_points(st, root, kind, False)
            for p in range(P):
                if maj & (1 << p):
                    out[p] += sign * pts
        return
    farm = np.int64(st.farm_points)
    if st.farm_mode == 0:
        maj = majority(fmeep[root])
        for p in range(P):
            if maj & (1 << p):
                out[p] += sign * (n_cities * farm + (n_cities if fpig[root] & (1 << p) else 0))
        return
    parent, pairs, fdone = st.parent, st.pairs, st.fdone
    n_pairs = st.npairs
    cities, fields, counts = st.work[C.W_OWN], st.work[C.W_STACK], st.work[C.W_COUNTS]
    n = 0
    for k in range(n_pairs):
        if find(parent, pairs[k, 0]) != root:
            continue
        c = find(parent, pairs[k, 1])
        if fdone[c] and not contains(cities, n, c):
            cities[n] = c
            n += 1
    for q in range(n):
        m = 0
        pigs = 0
        for p in range(P):
            counts[p] = 0
        for k in range(n_pairs):
            if find(parent, pairs[k, 1]) != cities[q]:
                continue
            f = find(parent, pairs[k, 0])
            if not contains(fields, m, f):
                fields[m] = f
                m += 1
                for p in range(P):
                    counts[p] += fmeep[f, p]
                pigs |= fpig[f]
        maj = majority(counts[:P])
        for p in range(P):
            if maj & (1 << p):
                out[p] += sign * (farm + (1 if pigs & (1 << p) else 0))


@hot
def goods_points(st, out, sign):
    """out[p] += sign x seat p's trade goods points at the end (`scoring.score_goods`)."""
    for k in range(C.N_GOODS):
        maj = majority(st.goods[:, k])
        for p in range(st.goods.shape[0]):
            if maj & (1 << p):
                out[p] += sign * 10


@hot
def by_features(st):
    """Whether the rules let the pending points be summed feature by feature
    (`pending_from_features`, `core.candidates`' projected gain by difference):
    standard rules with farms per field."""
    return st.solo == 0 and st.farm_mode == 0


@hot
def pending_from_features(st, tb, counts, out):
    """`pending_points` without playing the end scoring, for standard rules with farms
    per field (not solo: its end bonus reads every colour's score): the end points of
    each feature holding a follower (`end_points`; a field's completed cities from
    counts, `field_city_counts`) and, with Traders & Builders, the trade goods'
    majorities. A feature nobody holds scores nothing, so only the followers' features
    are visited."""
    P = st.seats
    out[:P] = 0
    if st.done:
        return
    parent, active = st.parent, st.active
    n = st.nactive
    for k in range(n):
        root = root_of(parent, active[k])
        first = True  # each feature once: at its first follower in the list
        for k2 in range(k):
            if root_of(parent, active[k2]) == root:
                first = False
                break
        if first:
            end_points(st, tb, root, counts[root], out, 1)
    if st.expansions & C.EXP_TRADERS_BUILDERS:
        goods_points(st, out, 1)


@counted
def pending_points(st, tb, scratch, out):
    """out[p] = points seat p would score if the game ended now (0 once it has ended):
    the engine's own end-of-game scoring run on `scratch`, a copy of `st`."""
    P = st.seats
    out[:P] = 0
    if st.done:
        return
    copy_into(scratch, st)
    score_game_end(scratch, tb)
    for p in range(P):
        out[p] = scratch.scores[p] - st.scores[p]


@hot_inline
def _clip(value, cap):
    return min(max(value, 0), cap)


@counted
def encode_aggregates(st, tb, sub, observer, planes, feats, agg):
    """Paint the aggregate planes over the placed tiles in the window (the pixels the
    base encoder just painted, so its dirty rectangle covers them) and write the
    projected scores into `feats` (`agg`: `AggregateBuffers`)."""
    base, counts, pending = agg.base, agg.counts, agg.pending
    B = planes.shape[0] // 3
    x0, y0 = window_origin(st, B)
    S = n_segments(st)
    P = st.seats
    parent, fdone, fmeep = st.parent, st.fdone, st.fmeep
    farm_points = np.int64(st.farm_points)
    field_city_counts(st, counts)
    for i in range(st.placed):
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
                        px[base + 1] = _clip(feature_points(st, root, kind, False), CAP_POINTS)
                    px[base + 2] = _clip(st.fopen[root], CAP_OPEN)
                    px[base + 3] = _clip(
                        1 if kind == C.K_MONASTERY else st.fntiles[root], CAP_TILES
                    )
                held = 0
                for q in range(P):
                    n = fmeep[root, (observer + q) % P]
                    px[base + N_AGG_FIXED + q] = _clip(n, CAP_FOLLOWERS)
                    held += n
                if held == 0 and not done:
                    px[base + 4] = 1
    if by_features(st):
        pending_from_features(st, tb, counts, pending)
    else:
        pending_points(st, tb, agg.scratch, pending)
    for q in range(P):
        p = (observer + q) % P
        feats[agg.fbase + q] = (st.scores[p] + pending[p]) * 0.01
