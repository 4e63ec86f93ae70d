"""The random, greedy and heuristic bots inside numba, choosing exactly the moves of
`carcassonne_env.bots.simple.RandomAgent`, `carcassonne_env.bots.simple.GreedyAgent` and
`carcassonne_env.bots.heuristic.HeuristicAgent` (the batched `VsBots` vector env plays
them), and their Python side: `bot_spec` turns a bot spec into the kernel's (kind,
weights), `JittedBot` plays a jitted bot behind the `Agent` protocol.

Exactness. The Python bots draw their tie-breaks from ``random.Random(seed)``: a
Mersenne Twister (MT19937) seeded by ``init_by_array`` with the seed's 32-bit words, and
``choice(seq)`` = ``seq[_randbelow(len(seq))]`` with ``_randbelow(n)``: k = n.bit_length(),
draw ``genrand_uint32() >> (32 - k)`` until it is below n. This module implements that
generator (`mt_seed`, `mt_below`) on an int64[625] state (624 32-bit words, then the index), so
a jitted bot seeded like a Python bot draws the same numbers. The moves are chosen from
the core's legal rows, in the order of ``Game.legal_moves()``; the greedy values are the
same integers, the heuristic values come from the same jitted evaluation
(`carcassonne_env.bots.evaluation.evaluate_moves`). tests/bots/test_jitted_bots.py checks
move for move.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from carcassonne_env.compiler.jit import jitted
from carcassonne_env.core import constants as C
from carcassonne_env.core.board import n_segments, root_of
from carcassonne_env.core.choices import auto_choice
from carcassonne_env.core.state import GameState, copy_into, copy_state, max_legal_rows
from carcassonne_env.core.turn import (
    apply_move,
    apply_move_auto,
    legal_moves,
    solo_ends_after_turn,
    tile_to_place,
)

from . import evaluation as E

#: Bot kinds by seat in the kernel's tables (LEARNER: the learning seat; POLICY: a seat
#: moved from Python by a policy, see `carcassonne_env.envs.vs_bots`).
LEARNER, RANDOM, GREEDY, HEURISTIC, POLICY = -1, 0, 1, 2, 3
KINDS = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
MT_WORDS = 625  # 624 state words + the index

#: A jitted bot's buffers for games of one shape (`bot_buffers`): `rows`, legal-move rows
#: int64[R, 5]; `after` and `scratch`, states of the game's shape; `values`,
#: float64[seats]; `evals`, float64[R]; `unseen`, int64[tile types]; `keys`,
#: int64[R, 3]. A vector env holds one record whose arrays have a row per thread.
BotBuffers = namedtuple(
    "BotBuffers", ["rows", "after", "scratch", "values", "evals", "unseen", "keys"]
)


def bot_buffers(st: GameState, n_types: int) -> BotBuffers:
    """Fresh `BotBuffers` for games shaped like state `st` with `n_types` tile types."""
    R = max_legal_rows(st)
    return BotBuffers(
        np.empty((R, 5), np.int64),
        copy_state(st),
        copy_state(st),
        np.zeros(st.scores.shape[0]),
        np.zeros(R),
        np.zeros(n_types, np.int64),
        np.zeros((R, 3), np.int64),
    )


_N, _M = 624, 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_MASK32 = 0xFFFFFFFF
# The generator works on int64 words below 2**32 (products stay below 2**63): no
# unsigned arithmetic, so no signed/unsigned casts.


@jitted()
def _init_genrand(mt, s):
    mt[0] = s & _MASK32
    for i in range(1, _N):
        prev = mt[i - 1]
        mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & _MASK32
    mt[_N] = _N


@njit(cache=True, nogil=True)
def mt_seed(mt, seed):
    """Seed the MT19937 state `mt` (int64[625]: 624 words, then the index) as
    ``random.Random(seed)`` does for an integer seed in [0, 2**63) (CPython's
    ``init_by_array`` over the seed's 32-bit words, least significant first)."""
    key0 = seed & _MASK32
    key1 = seed >> 32
    n_key = 2 if key1 != 0 else 1
    _init_genrand(mt, 19650218)
    i, j = 1, 0
    for _ in range(max(_N, n_key)):
        prev = mt[i - 1]
        key = key0 if j == 0 else key1
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & _MASK32)) + key + j) & _MASK32
        i += 1
        j += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
        if j >= n_key:
            j = 0
    for _ in range(_N - 1):
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & _MASK32)) - i) & _MASK32
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
    mt[0] = 0x80000000
    mt[_N] = _N


@jitted()
def _twist(mt):
    for kk in range(_N):
        y = (mt[kk] & _UPPER) | (mt[(kk + 1) % _N] & _LOWER)
        v = mt[(kk + _M) % _N] ^ (y >> 1)
        if y & 1:
            v ^= _MATRIX_A
        mt[kk] = v
    mt[_N] = 0


@jitted()
def mt_next(mt):
    """The next 32-bit output of the generator (CPython's ``genrand_uint32``)."""
    if mt[_N] >= _N:
        _twist(mt)
    y = mt[mt[_N]]
    mt[_N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@jitted()
def mt_below(mt, n):
    """``random.Random._randbelow(n)`` for 1 <= n < 2**32: a uniform integer in [0, n)."""
    k = 0
    m = n
    while m > 0:
        k += 1
        m >>= 1
    shift = 32 - k
    r = mt_next(mt) >> shift
    while r >= n:
        r = mt_next(mt) >> shift
    return r


@jitted()
def _greedy_keys(st, tb, row, after, seat, solo):
    """GreedyAgent._value of one legal row as (gain, second key, keep), and whether the
    move scored anything or could have (it completed a feature or ended the game)."""
    copy_into(after, st)
    apply_move_auto(after, tb, row[0], row[1], row[2], row[3], row[4])
    a, b = _score_keys(after, st, seat, solo)
    return a, b, _keep(st, tb, row), after.done != 0 or _completed(st, after, tb)


@jitted()
def _score_keys(after, st, seat, solo):
    if solo:
        lo = after.scores[0]
        total = 0
        for p in range(after.scores.shape[0]):
            lo = min(lo, after.scores[p])
            total += after.scores[p]
        return np.int64(lo), np.int64(total)
    return np.int64(after.scores[seat] - st.scores[seat]), np.int64(0)


@jitted()
def _keep(st, tb, row):
    """GreedyAgent's follower key: 0 none, -1 a figure on a field, 1 on another
    segment (slot: figure * S + segment)."""
    slot = row[4]
    if slot < 0:
        return 0
    if tb.seg_kind[tile_to_place(st, row[0]), slot % n_segments(st)] == C.K_FIELD:
        return -1
    return 1


@jitted()
def _completed(st, after, tb):
    """Whether the tile just placed in `after` (played from `st`) completed a road, city
    or monastery."""
    S = n_segments(after)
    i = after.placed - 1
    t = after.ptype[i]
    for s in range(tb.n_seg[t]):
        kind = tb.seg_kind[t, s]
        if (kind == C.K_CITY or kind == C.K_ROAD) and after.fdone[root_of(after.parent, i * S + s)]:
            return True
    bx, by = after.px[i], after.py[i]
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = after.board[by + dy, bx + dx]
            if j >= 0:
                m = tb.mon_seg[after.ptype[j]]
                if m >= 0 and after.fdone[j * S + m] and (j == i or not st.fdone[j * S + m]):
                    return True
    return False


@njit(cache=True, nogil=True)
def choose(st, tb, kind, w, mt, buf):
    """Index into buf.rows (filled here with the legal moves, `Game.legal_moves` order) of
    the move bot `kind` (RANDOM / GREEDY / HEURISTIC) plays in `st`, drawing from its
    generator `mt`; -1 if the game is over. `w`: heuristic weights; `buf`: the
    `BotBuffers`."""
    rows, after, keys = buf.rows, buf.after, buf.keys
    n = legal_moves(st, tb, rows)
    if n == 0:
        return -1
    if kind == RANDOM:
        return mt_below(mt, n)
    if st.phase != C.PHASE_PLACE:  # a scoring choice: what "auto" would take
        return auto_choice(st, tb, solo_ends_after_turn(st))
    seat = st.seat
    if kind == GREEDY:
        solo = st.solo != 0
        # The follower choices of one placement (consecutive rows) score the same unless
        # the placement completes a feature or ends the game: then each row is played.
        quiet = False
        a0, b0 = _score_keys(st, st, seat, solo)  # the scores of a move scoring nothing
        for i in range(n):
            same = (
                i > 0
                and rows[i, 0] == rows[i - 1, 0]
                and rows[i, 1] == rows[i - 1, 1]
                and rows[i, 2] == rows[i - 1, 2]
                and rows[i, 3] == rows[i - 1, 3]
            )
            if same and quiet:
                keys[i, 0], keys[i, 1], keys[i, 2] = a0, b0, _keep(st, tb, rows[i])
                continue
            a, b, keep, loud = _greedy_keys(st, tb, rows[i], after, seat, solo)
            quiet = not loud
            keys[i, 0], keys[i, 1], keys[i, 2] = a, b, keep
        b0, b1, b2 = keys[0, 0], keys[0, 1], keys[0, 2]
        for i in range(1, n):
            k0, k1, k2 = keys[i, 0], keys[i, 1], keys[i, 2]
            if k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
                b0, b1, b2 = k0, k1, k2
        m = 0
        for i in range(n):  # the tied moves' indices, in order, into column 2
            if keys[i, 0] == b0 and keys[i, 1] == b1 and keys[i, 2] == b2:
                keys[m, 2] = i  # row m <= i: its keys were already read
                m += 1
        return keys[mt_below(mt, m), 2]
    # HEURISTIC
    unseen, evals = buf.unseen, buf.evals
    E.unseen_tiles(st, unseen.shape[0], unseen)
    E.evaluate_moves(st, tb, rows, n, w, unseen, after, buf.scratch, buf.values, evals)
    best_v = evals[0]
    for i in range(1, n):
        best_v = max(best_v, evals[i])
    m = 0
    for i in range(n):
        if evals[i] >= best_v - 1e-9:
            keys[m, 0] = i
            m += 1
    return keys[mt_below(mt, m), 0]


@jitted()
def play_bot(st, tb, kind, w, mt, buf):
    """Let bot `kind` play its move in `st` (see `choose`); returns the row index."""
    i = choose(st, tb, kind, w, mt, buf)
    rows = buf.rows
    if i >= 0:
        apply_move(st, tb, rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], rows[i, 4])
    return i


# ------------------------------------------------------------------ the Python side


class JittedBot:
    """A jitted bot behind the `Agent` protocol (``act(game) -> Move``): same moves as the
    Python bot of the same spec and seed. For tests and for comparing the two.

    Args:
        spec: "random", "greedy" or "heuristic" (with weight options, e.g.
            ``"heuristic:follower=3.0"``).
        seed: the seed the Python bot would get (``random.Random(seed)``); an integer in
            [0, 2**63) (the envs draw bot seeds below 2**63).
    """

    def __init__(self, spec: str, seed: int) -> None:
        self.kind, self.weights = bot_spec(spec)
        self.name = spec
        if (
            not isinstance(seed, (int, np.integer))
            or isinstance(seed, bool)
            or not 0 <= seed < 2**63
        ):
            raise ValueError(f"seed must be an integer in [0, 2**63), got {seed!r}")
        self.mt = np.zeros(MT_WORDS, np.int64)
        mt_seed(self.mt, np.int64(seed))

    def choose_row(self, game) -> np.ndarray:
        """The core row (hand, x, y, rotation, slot) this bot plays in `game`."""
        st, ts = game.state, game.tileset
        buf = bot_buffers(st, len(ts.names))
        i = choose(st, ts.tables, self.kind, self.weights, self.mt, buf)
        if i < 0:
            raise ValueError("the game is over")
        return buf.rows[i].copy()

    def act(self, game):
        """The move the jitted bot chooses in `game` (the Python bot's move)."""
        row = self.choose_row(game)
        moves = game.legal_moves()
        rows = game.legal_rows()
        return moves[int(np.flatnonzero((rows == row).all(axis=1))[0])]


def bot_spec(spec: str) -> tuple[int, np.ndarray]:
    """(kind, heuristic weight vector) of a bot spec the jitted bots can play: "random",
    "greedy", "heuristic" or "heuristic:WEIGHT=VALUE:..."; ValueError otherwise."""
    # Imported here, not above: no compiled code needs the Python bots (nor does the
    # tests' numba cache key, which follows a jitted module's module-level imports).
    from .factory import make_bot
    from .heuristic import HeuristicAgent, weight_vector

    name = spec.split(":")[0]
    if name not in KINDS:
        raise ValueError(f"no jitted version of bot {spec!r}; jitted bots: {', '.join(KINDS)}")
    agent = make_bot(spec, seed=0)  # validates the options
    w = agent.weight_array.copy() if isinstance(agent, HeuristicAgent) else weight_vector({})
    return KINDS[name], w
