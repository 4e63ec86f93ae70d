"""Scoring: completed features during play, end-of-game scoring, farms, solo rules."""

import numpy as np

from ..compiler.jit import hot, hot_inline
from . import constants as C
from .board import find, n_segments

_MAX_ORDER_SEARCH = 8  # simultaneous solo completions searched exhaustively (8! orders)


@hot
def segment_kind(st, tb, g):
    S = n_segments(st)
    return tb.seg_kind[st.ptype[g // S], g % S]


@hot
def feature_points(st, root, kind, complete):
    """Points of a road/city/monastery feature (complete: during play; else end of game)."""
    n = np.int64(st.fntiles[root])
    flag = st.fflag[root]
    if kind == C.K_ROAD:
        if flag & C.FLAG_INN:  # an inn: 2 per tile if complete, nothing at the end
            return 2 * n if complete else 0
        return n
    if kind == C.K_CITY:
        pennants = np.int64(st.fpenn[root])
        if flag & C.FLAG_CATHEDRAL:  # a cathedral: 3 per tile and pennant, or nothing
            return 3 * (n + pennants) if complete else 0
        if not complete:
            return n + pennants
        if st.small_city and n == 2:
            return n + pennants
        return 2 * (n + pennants)
    if kind == C.K_MONASTERY:
        return 9 - np.int64(st.fopen[root])  # 1 + neighbours present
    return 0


@hot
def majority(counts):
    """Bit mask of the seats with the most followers (0 when nobody has one)."""
    mx = 0
    for p in range(counts.shape[0]):
        if counts[p] > mx:
            mx = counts[p]
    mask = 0
    if mx > 0:
        for p in range(counts.shape[0]):
            if counts[p] == mx:
                mask |= 1 << p
    return mask


@hot
def copy_values(dst, src, n):
    """dst[:n] = src[:n], element by element: the arrays' dtypes may differ (`state.copy_flat`
    is a memcpy); numba's slice copy may allocate a temporary, which `hot` forbids."""
    for k in range(n):
        dst[k] = src[k]


@hot
def min_sum(a, n):
    """(min, sum) of a[:n] (numba's array reductions allocate, which `hot` forbids)."""
    lo = a[0]
    total = 0
    for k in range(n):
        lo = min(lo, a[k])
        total += a[k]
    return lo, total


@hot
def lowest_mask(scores):
    lo, _ = min_sum(scores, scores.shape[0])
    mask = 0
    for p in range(scores.shape[0]):
        if scores[p] == lo:
            mask |= 1 << p
    return mask


@hot
def log_event(st, kind, root, points, maj, scorers, final):
    k = st.nevents
    ev = st.events[k]
    ev[C.EV_TURN] = st.turn
    ev[C.EV_KIND] = kind
    ev[C.EV_ROOT] = root
    ev[C.EV_POINTS] = points
    ev[C.EV_MAJORITY] = maj
    ev[C.EV_SCORERS] = scorers
    ev[C.EV_FINAL] = final
    ev[C.EV_DETAIL] = C.DETAIL_NONE
    st.nevents = k + 1


@hot
def _detail_last(st, root, kind):
    """Mark the last event with the inn or cathedral that set its points."""
    flag = st.fflag[root]
    if kind == C.K_ROAD and flag & C.FLAG_INN:
        st.events[st.nevents - 1, C.EV_DETAIL] = C.DETAIL_INN
    elif kind == C.K_CITY and flag & C.FLAG_CATHEDRAL:
        st.events[st.nevents - 1, C.EV_DETAIL] = C.DETAIL_CATHEDRAL


@hot
def award(st, mask, points):
    scores = st.scores
    for p in range(scores.shape[0]):
        if mask & (1 << p):
            scores[p] += points


@hot
def release_followers(st, root):
    """Return every figure standing on the feature `root` (followers, large followers,
    builders) to its owner's supply."""
    active, parent, owner, supply = st.active, st.parent, st.owner, st.supply
    k = 0
    while k < st.nactive:
        g = active[k]
        if find(parent, g) == root:
            fig = st.ofig[g]
            if fig == C.FIG_FOLLOWER:
                supply[owner[g]] += 1
            else:
                st.xsupply[owner[g], fig - 1] += 1
            owner[g] = -1
            last = st.nactive - 1
            active[k] = active[last]
            st.nactive = last
        else:
            k += 1
    fmeep = st.fmeep
    for p in range(fmeep.shape[1]):
        fmeep[root, p] = 0
    st.fbuild[root] = 0


@hot
def solo_bonus(s, bonus, P, left):
    """The solo end bonus on the scores s[:P]: 2 points per follower counted in bonus[:P],
    paid only while its colour is lowest (`left` is scratch). Scoring a lowest colour
    never stops another tied-lowest colour from scoring next, so this one order (always
    the first lowest colour that still has a follower) reaches the best result."""
    copy_values(left, bonus, P)
    while True:
        low = lowest_mask(s[:P])
        pick = -1
        for p in range(P):
            if left[p] > 0 and low & (1 << p):
                pick = p
                break
        if pick < 0:
            return
        s[pick] += 2
        left[pick] -= 1


@hot_inline
def _solo_outcome(scores, maj, pts, order, n, out, bonus, final, left):
    """`out` = scores after scoring features in `order` under the solo lowest-colour rule
    (then the end bonus of `bonus` followers when `final`)."""
    P = scores.shape[0]
    copy_values(out, scores, P)
    s = out[:P]
    for k in range(n):
        f = order[k]
        if maj[f] & lowest_mask(s):
            for p in range(P):
                if maj[f] & (1 << p):
                    s[p] += pts[f]
    if final:
        solo_bonus(s, bonus, P, left)


@hot
def _better(a, b, n):
    """Is score vector a[:n] better than b[:n] for the solo player (min, then sum)?"""
    a_min, a_sum = min_sum(a, n)
    b_min, b_sum = min_sum(b, n)
    if a_min != b_min:
        return a_min > b_min
    return a_sum > b_sum


@hot_inline
def solo_best_order(st, maj, pts, n, bonus, final, best):
    """Write into `best` an order of the n simultaneous completions (majority bit masks
    maj[:n], points pts[:n]) that maximises, over every order, the lowest colour's score
    after this turn, then the sum of the scores. On the game's last turn (`final`) the
    scores compared are those after the end bonus too (bonus[p]: followers of colour p
    left on the board once the completed features have returned theirs). Exact: up to
    _MAX_ORDER_SEARCH features every order is enumerated (Heap's algorithm; the first best
    order in its enumeration wins ties); beyond, `_solo_order_dfs` (exact as well)."""
    if n > _MAX_ORDER_SEARCH:
        _solo_order_dfs(st, maj, pts, n, bonus, final, best)
        return
    scores = st.scores
    P = scores.shape[0]
    work = st.work
    order, c = work[C.W_PERM], work[C.W_HEAP]
    cur, top, left = work[C.W_SCORES_A], work[C.W_SCORES_B], work[C.W_STACK]
    for k in range(n):
        best[k] = order[k] = k
        c[k] = 0
    _solo_outcome(scores, maj, pts, order, n, top, bonus, final, left)
    i = 1
    while i < n:  # Heap's algorithm, iterative
        if c[i] < i:
            if i % 2 == 0:
                order[0], order[i] = order[i], order[0]
            else:
                order[c[i]], order[i] = order[i], order[c[i]]
            _solo_outcome(scores, maj, pts, order, n, cur, bonus, final, left)
            if _better(cur, top, P):
                copy_values(top, cur, P)
                copy_values(best, order, n)
            c[i] += 1
            i = 1
        else:
            c[i] = 0
            i += 1


@hot_inline
def _same_item(maj, pts, i, j):
    """Scoring feature i or j next changes the scores alike (follower-less ones: never)."""
    return maj[i] == maj[j] and (maj[i] == 0 or pts[i] == pts[j])


@hot
def _solo_order_dfs(st, maj, pts, n, bonus, final, best):
    """Exact depth-first search over the orders of n completions (same goal and tie rule
    as `solo_best_order`: the first best order found wins). Interchangeable features are
    tried once per position, and a branch stops when even every remaining feature paying
    its colours (and every bonus follower paying 2) could not beat the best order so far."""
    scores = st.scores
    P = scores.shape[0]
    work = st.work
    # snap holds (n + 1) * P scores: a move completes at most 13 features (4 roads or
    # cities, 9 monasteries) and solo has at most 4 colours, 56 <= a work row's 8 * S.
    pick, used, snap = work[C.W_PERM], work[C.W_HEAP], work[C.W_OCC]
    top, cur, left = work[C.W_SCORES_B], work[C.W_SCORES_A], work[C.W_STACK]
    for k in range(n):
        used[k] = 0
    copy_values(snap, scores, P)
    found = False
    d = 0
    pick[0] = -1
    while d >= 0:
        if d == n:  # a whole order: compare
            for p in range(P):
                cur[p] = snap[n * P + p]
            if final:
                solo_bonus(cur[:P], bonus, P, left)
            if not found or _better(cur, top, P):
                copy_values(top, cur, P)
                copy_values(best, pick, n)
                found = True
            d -= 1
            if d >= 0:
                used[pick[d]] = 0
            continue
        j = pick[d] + 1
        while j < n:
            if not used[j]:
                dup = False
                for i in range(j):
                    if not used[i] and _same_item(maj, pts, i, j):
                        dup = True
                        break
                if not dup:
                    break
            j += 1
        if j >= n:  # every choice at depth d tried: back up
            d -= 1
            if d >= 0:
                used[pick[d]] = 0
            continue
        pick[d] = j
        used[j] = 1
        base = d * P
        low = lowest_mask(snap[base : base + P])
        for p in range(P):
            v = snap[base + p]
            if maj[j] & low and maj[j] & (1 << p):
                v += pts[j]
            snap[base + P + p] = v
        if found:  # bound: every remaining feature (and bonus follower) paying
            ub_min = 0
            ub_sum = 0
            for p in range(P):
                v = snap[base + P + p]
                for k in range(n):
                    if not used[k] and maj[k] & (1 << p):
                        v += pts[k]
                if final:
                    v += 2 * bonus[p]
                ub_min = v if p == 0 else min(ub_min, v)
                ub_sum += v
            t_min, t_sum = min_sum(top, P)
            if ub_min < t_min or (ub_min == t_min and ub_sum <= t_sum):
                used[j] = 0
                continue
        d += 1
        pick[d] = -1


@hot
def score_completed(st, tb, roots, n, final):
    """Score the features `roots[:n]` that the current move completed, return followers.

    Solo: several completions are scored in the order `auto_order` picks; `final`
    (the game ends after this move) makes it count the end bonus of the followers left."""
    if n == 0:
        return
    auto_order(st, tb, roots, n, final)
    order = st.work[C.W_ORDER]
    for k in range(n):
        score_feature(st, tb, roots[order[k]])


@hot
def auto_order(st, tb, roots, n, final):
    """Write to `st.work[W_ORDER][:n]` the order (indices into `roots`) in which the
    features `roots[:n]` completed together are scored: as listed, but in solo the one
    `solo_best_order` picks (`final`: the game ends after this move)."""
    work = st.work
    order = work[C.W_ORDER]
    for k in range(n):
        order[k] = k
    if st.solo == 0 or n < 2:
        return
    maj, pts, bonus = work[C.W_MAJ], work[C.W_PTS], work[C.W_BONUS]
    for k in range(n):
        maj[k] = majority(st.fmeep[roots[k]])
        pts[k] = feature_points(st, roots[k], segment_kind(st, tb, roots[k]), True)
    for p in range(st.scores.shape[0]):
        bonus[p] = 0
    if final:
        _bonus_left(st, roots, n, bonus)
    solo_best_order(st, maj, pts, n, bonus, final, order)


@hot
def score_feature(st, tb, root):
    """Score the completed feature `root` now and return its followers. Solo: its
    majority colours score only if one of them is lowest at this moment."""
    maj = majority(st.fmeep[root])
    if maj == 0:
        return
    kind = segment_kind(st, tb, root)
    pts = feature_points(st, root, kind, True)
    scorers = maj
    if st.solo != 0 and (maj & lowest_mask(st.scores)) == 0:
        scorers = 0
    award(st, scorers, pts)
    log_event(st, kind, root, pts if scorers else 0, maj, scorers, 0)
    _detail_last(st, root, kind)
    release_followers(st, root)


@hot_inline
def _bonus_left(st, roots, n, bonus):
    """bonus[p] += followers of colour p on the board that are not on roots[:n]."""
    active, owner, parent = st.active, st.owner, st.parent
    for k in range(st.nactive):
        g = active[k]
        r = find(parent, g)
        on_done = False
        for q in range(n):
            if roots[q] == r:
                on_done = True
                break
        if not on_done:
            bonus[owner[g]] += 1


@hot
def score_game_end(st, tb):
    """The end-of-game scoring of the rules in force: the solo variant's or the standard
    one (`final_scoring`)."""
    if st.solo:
        solo_final_scoring(st)
    else:
        final_scoring(st, tb)


@hot_inline
def final_scoring(st, tb):
    """End of a standard game: incomplete roads, cities, monasteries, then farms."""
    S = n_segments(st)
    parent, ptype, fdone, fmeep = st.parent, st.ptype, st.fdone, st.fmeep
    n_seg, seg_kind = tb.n_seg, tb.seg_kind
    for g in range(st.placed * S):
        if g % S >= n_seg[ptype[g // S]] or parent[g] != g:
            continue
        kind = seg_kind[ptype[g // S], g % S]
        if kind == C.K_FIELD or fdone[g]:
            continue
        maj = majority(fmeep[g])
        if maj == 0:
            continue
        pts = feature_points(st, g, kind, False)
        award(st, maj, pts)
        log_event(st, kind, g, pts, maj, maj, 1)
        _detail_last(st, g, kind)
        release_followers(st, g)
    if st.farm_mode == 0:
        farms_per_field(st)
    else:
        farms_per_city(st)
    if st.expansions & C.EXP_TRADERS_BUILDERS:
        score_goods(st)


@hot_inline
def score_goods(st):
    """Traders & Builders, end of game: for each trade good, the seats holding the most
    tokens (at least one) score 10 points each."""
    for k in range(C.N_GOODS):
        maj = majority(st.goods[:, k])
        if maj:
            award(st, maj, 10)
            log_event(st, C.EV_KIND_GOODS, k, 10, maj, maj, 1)


@hot
def _award_farm(st, kind, root, maj, pigs, pts, bonus):
    """Farm points `pts` to the seats of `maj`; those in `pigs` (their pig stands in the
    field) get `bonus` more. One event per distinct amount."""
    plain = maj & ~pigs
    if plain:
        award(st, plain, pts)
        log_event(st, kind, root, pts, maj, plain, 1)
    if maj & pigs:
        award(st, maj & pigs, pts + bonus)
        log_event(st, kind, root, pts + bonus, maj, maj & pigs, 1)
        st.events[st.nevents - 1, C.EV_DETAIL] = C.DETAIL_PIG


@hot_inline
def sort_prefix(a, n):
    """Sort a[:n] in place (Shell sort: allocation-free, fine for a few hundred keys)."""
    gap = n // 2
    while gap > 0:
        for i in range(gap, n):
            v = a[i]
            j = i
            while j >= gap and a[j - gap] > v:
                a[j] = a[j - gap]
                j -= gap
            a[j] = v
        gap //= 2


@hot
def adjacency_keys(st, by_city):
    """Unique (field root, completed city root) pairs packed as major * G + minor, sorted,
    in st.keys[:m]; major is the field (or the city when `by_city`). Returns (m, G)."""
    parent, pairs, fdone, keys = st.parent, st.pairs, st.fdone, st.keys
    G = parent.shape[0]
    m = 0
    for k in range(st.npairs):
        f = find(parent, pairs[k, 0])
        c = find(parent, pairs[k, 1])
        if not fdone[c]:
            continue
        # int64 before multiplying: find() returns the int16 of `parent`, which overflows
        # under NUMBA_DISABLE_JIT (numpy keeps int16 * int in int16; numba widens)
        keys[m] = np.int64(c) * G + f if by_city else np.int64(f) * G + c
        m += 1
    sort_prefix(keys, m)
    u = 0
    for k in range(m):
        if u == 0 or keys[k] != keys[u - 1]:
            keys[u] = keys[k]
            u += 1
    return u, G


@hot
def farms_per_field(st):
    """3rd edition: each field's majority farmers score per completed city it touches."""
    m, G = adjacency_keys(st, False)
    keys, fmeep = st.keys, st.fmeep
    k = 0
    while k < m:
        f = keys[k] // G
        cities = 0
        while k < m and keys[k] // G == f:
            cities += 1
            k += 1
        maj = majority(fmeep[f])
        if maj == 0:
            continue
        # a pig (Traders & Builders) adds 1 point per city for its owner
        _award_farm(st, C.K_FIELD, f, maj, st.fpig[f], cities * np.int64(st.farm_points), cities)


@hot
def farms_per_city(st):
    """1st edition: each completed city scores once, for the most farmers in the fields
    touching it (a field touching the city twice counts once)."""
    m, G = adjacency_keys(st, True)
    keys, fmeep = st.keys, st.fmeep
    P = fmeep.shape[1]
    counts = st.work[C.W_COUNTS]
    k = 0
    while k < m:
        c = keys[k] // G
        counts[:P] = 0
        pigs = 0
        while k < m and keys[k] // G == c:
            f = keys[k] % G
            for p in range(P):
                counts[p] += fmeep[f, p]
            pigs |= st.fpig[f]
            k += 1
        maj = majority(counts[:P])
        if maj == 0:
            continue
        # a pig in a field touching the city adds 1 point for its owner
        _award_farm(st, C.K_FIELD, c, maj, pigs, np.int64(st.farm_points), 1)


@hot
def solo_final_scoring(st):
    """Solo end: 2 points per follower on the board, only while its colour is lowest.
    Scoring a lowest colour's follower never stops another tied-lowest colour from scoring
    next, so any order that keeps scoring a lowest colour reaches the same, best result;
    followers that can no longer score are logged with 0 points."""
    while True:
        pick = first_lowest_follower(st)
        if pick < 0:
            break
        score_bonus_follower(st, pick)
    while st.nactive > 0:
        score_bonus_follower(st, 0)


@hot
def first_lowest_follower(st):
    """Index into `st.active` of the first follower whose colour is lowest, -1 if none."""
    low = lowest_mask(st.scores)
    for k in range(st.nactive):
        if low & (1 << st.owner[st.active[k]]):
            return k
    return -1


@hot
def score_bonus_follower(st, k):
    """Solo end bonus for follower `st.active[k]`: 2 points to its colour if that colour
    is lowest now, else 0 (logged either way); the follower leaves the board."""
    g = st.active[k]
    p = st.owner[g]
    pts = 2 if lowest_mask(st.scores) & (1 << p) else 0
    st.scores[p] += pts
    log_event(st, C.EV_KIND_FOLLOWER, g, pts, 1 << p, (1 << p) if pts else 0, 1)
    _drop_active(st, k)


@hot_inline
def _drop_active(st, k):
    """Take follower k off the board (solo end bonus: it stays with its score)."""
    g = st.active[k]
    st.fmeep[find(st.parent, g), st.owner[g]] -= 1  # solo has no large follower
    st.owner[g] = -1
    last = st.nactive - 1
    st.active[k] = st.active[last]
    st.nactive = last
