"""The game state record: a named tuple of numpy arrays, allocated once per game.

Sizes derive from the number of tiles N in the game: a board of (2N+1)^2 cells can hold
any layout, since no tile lies further than N-1 cells from the start tile.
Segment g = (placement index) * S + (segment of the tile); union-find runs over g.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import config, types
from numba._dispatcher import compute_fingerprint
from numba.core import cgutils
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from . import config as C
from .jit import hot, hot_inline

State = namedtuple(
    "State",
    [
        "cfg",  # int32[CFG_SIZE]: rule options
        "sc",  # int32[SC_SIZE]: scalars (turn, seat, counters...)
        "board",  # int16[D, D]: placement index, -1 if empty, -2 - k if open (frontier slot k)
        "frontier",  # int32[F, 3]: open cells: board x, board y, packed edge constraint
        "ptype",  # int8[N]: tile type of each placement
        "prot",  # int8[N]: rotation of each placement
        "px",  # int16[N]: board column of each placement
        "py",  # int16[N]: board row of each placement
        "parent",  # int16[G]: union-find over segments
        "fbits",  # uint64[G, W]: set of placements of a feature (roots; cities and roads)
        "fntiles",  # int16[G]: distinct tiles of a feature (roots)
        "fpenn",  # int16[G]: pennants of a feature (roots)
        "fopen",  # int16[G]: open ends (city/road) or missing neighbours (monastery)
        "fmeep",  # uint8[G, P]: followers per seat on a feature (roots; a large one: 2)
        "fdone",  # uint8[G]: feature completed (roots)
        "fflag",  # uint8[G]: FLAG_* bits of a feature (roots; inn, cathedral)
        "fgoods",  # int8[G, N_GOODS]: trade goods of a city (roots; Traders & Builders)
        "fbuild",  # uint8[G]: bit p: seat p's builder stands on the feature (roots)
        "fpig",  # uint8[G]: bit p: seat p's pig stands in the field (roots)
        "owner",  # int8[G]: seat whose follower stands on this segment, -1 if none
        "ofig",  # int8[G]: FIG_* kind of that figure (follower, large, builder, pig)
        "active",  # int16[A]: segments holding a follower (first sc[NACTIVE])
        "supply",  # int16[P]: followers in supply
        "xsupply",  # int16[P, 3]: large followers, builders, pigs in supply (FIG_* - 1)
        "goods",  # int16[P, N_GOODS]: trade goods tokens per seat (Traders & Builders)
        "scores",  # int32[P]
        "deck",  # int8[L]: tile types in draw order
        "spos",  # int16[P]: solo: tiles drawn from each colour's stack
        "hands",  # int8[P, HAND_MAX]: strategic variant hands, -1 = empty
        "pairs",  # int16[MP, 2]: (field segment, city segment) adjacencies
        "discards",  # int8[L]: discarded tile types in order
        "events",  # int32[E, EV_COLS]: scoring log
        "work",  # int64[WORK_ROWS, K]: scratch rows for the hot path (never game state)
        "places",  # int64[3, 4F]: scratch: legal placements (x, y, rotation)
        "keys",  # int64[MP]: scratch: field-city adjacency keys for farm scoring
    ],
)


# Hot-path buffers inside the record: never game state, never compared or copied.
SCRATCH_FIELDS = frozenset({"work", "places", "keys"})


def make_state(cfg: np.ndarray, n_tiles: int, n_seg: int, max_adj: int) -> State:
    """Allocate an empty state for a game of `n_tiles` tiles (start tile included)."""
    N, S = n_tiles, n_seg
    P = int(cfg[C.CFG_SEATS])
    D = 2 * N + 1
    G = N * S
    W = (N + 63) // 64
    A = P * (int(cfg[C.CFG_FOLLOWERS]) + 3) + 1  # + a large follower, builder, pig each
    L = max(N - 1, 1)
    cfg = cfg.astype(np.int32).copy()
    cfg[C.CFG_NSEG] = S
    return State(
        cfg=cfg,
        sc=np.zeros(C.SC_SIZE, np.int32),
        board=np.full((D, D), -1, np.int16),
        frontier=np.zeros((2 * N + 2, 3), np.int32),
        ptype=np.zeros(N, np.int8),
        prot=np.zeros(N, np.int8),
        px=np.zeros(N, np.int16),
        py=np.zeros(N, np.int16),
        parent=np.zeros(G, np.int16),
        fbits=np.zeros((G, W), np.uint64),
        fntiles=np.zeros(G, np.int16),
        fpenn=np.zeros(G, np.int16),
        fopen=np.zeros(G, np.int16),
        fmeep=np.zeros((G, P), np.uint8),
        fdone=np.zeros(G, np.uint8),
        fflag=np.zeros(G, np.uint8),
        fgoods=np.zeros((G, C.N_GOODS), np.int8),
        fbuild=np.zeros(G, np.uint8),
        fpig=np.zeros(G, np.uint8),
        owner=np.full(G, -1, np.int8),
        ofig=np.zeros(G, np.int8),
        active=np.zeros(A, np.int16),
        supply=np.zeros(P, np.int16),
        xsupply=np.zeros((P, 3), np.int16),
        goods=np.zeros((P, C.N_GOODS), np.int16),
        scores=np.zeros(P, np.int32),
        deck=np.zeros(L, np.int8),
        spos=np.zeros(P, np.int16),
        hands=np.full((P, C.HAND_MAX), -1, np.int8),
        pairs=np.zeros((N * max(max_adj, 1), 2), np.int16),
        discards=np.zeros(L, np.int8),
        events=np.zeros((4 * N + A + 16, C.EV_COLS), np.int32),
        work=np.zeros((C.WORK_ROWS, max(8 * S, S + 16)), np.int64),
        places=np.zeros((3, 4 * (2 * N + 2)), np.int64),
        keys=np.zeros(N * max(max_adj, 1), np.int64),
    )


@hot
def has_figure(cfg, fig):
    """Whether the rules (`cfg`, a state's rule options) give each seat figures of kind
    `fig` (config.FIG_*): followers always; outside solo the large follower with Inns &
    Cathedrals, builder and pig with Traders & Builders (in full mode)."""
    if fig == C.FIG_FOLLOWER:
        return True
    if cfg[C.CFG_SOLO] != 0:
        return False
    if fig == C.FIG_LARGE:
        return (cfg[C.CFG_EXPANSIONS] & C.EXP_INNS_CATHEDRALS) != 0
    return (cfg[C.CFG_EXPANSIONS] & C.EXP_TRADERS_BUILDERS) != 0


@hot
def n_figures(cfg):
    """Figure ids a move's slot may name under the rules `cfg`: 1 + the largest FIG_*
    they have (a move's slot is figure * S + segment; ids of kinds the rules lack are
    never legal)."""
    n = 1
    for fig in range(1, 4):
        if has_figure(cfg, fig):
            n = fig + 1
    return n


def max_legal_rows(st: State, n_open: int | None = None) -> int:
    """Rows enough for every legal move of a game of `st`'s kind with `n_open` open
    cells (default: the most it can have): hand x 4 rotations x cells x (no follower +
    each figure kind on each segment)."""
    cfg = st.cfg
    cells = st.frontier.shape[0] if n_open is None else max(int(n_open), 1)
    return (int(cfg[C.CFG_HAND_SIZE]) * 4 * cells
            * (int(cfg[C.CFG_NSEG]) * int(n_figures(cfg)) + 1))


_SCRATCH_MASK = tuple(name in SCRATCH_FIELDS for name in State._fields)


def copy_state(st: State) -> State:
    """An independent copy (Python side); scratch buffers are fresh, not copied (nor
    cleared: the hot path never reads scratch it has not written, and a state's scratch
    holds leftovers of earlier calls anyway; clearing 23 KiB cost a third of a clone)."""
    return State._make([np.empty_like(a) if scratch else a.copy()
                        for a, scratch in zip(st, _SCRATCH_MASK, strict=True)])


# Bulk copies: numba compiles `dst[:n] = src[:n]` (and an explicit loop) to an
# element-by-element copy with aliasing checks; for the state's many small int8 / int16
# arrays that made `copy_into` the largest cost of a search step. `copy_flat` emits
# LLVM's memcpy over a range of a C-contiguous array (a numba intrinsic).


@intrinsic
def _memcpy(typingctx, dst, src, start, n):
    """dst.flat[start:start + n] = src.flat[start:start + n] (C-contiguous arrays of one
    dtype; n > 0, the range inside both: unchecked)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.dtype == src.dtype and dst.layout == "C" and src.layout == "C"
            and isinstance(start, types.Integer) and isinstance(n, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        d, s, first, count = args
        dst_arr = context.make_array(sig.args[0])(context, builder, d)
        src_arr = context.make_array(sig.args[1])(context, builder, s)
        first = context.cast(builder, first, sig.args[2], types.intp)
        count = context.cast(builder, count, sig.args[3], types.intp)
        itemsize = context.get_abi_sizeof(context.get_data_type(sig.args[0].dtype))
        dptr = builder.gep(dst_arr.data, [first])
        sptr = builder.gep(src_arr.data, [first])
        cgutils.raw_memcpy(builder, dptr, sptr, count, itemsize)
        return context.get_dummy_value()

    return types.void(dst, src, start, n), codegen


if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1 (debugging): intrinsics need the compiler
    def _memcpy(dst, src, start, n):  # noqa: F811
        dst.reshape(-1)[start:start + n] = src.reshape(-1)[start:start + n]


@hot
def copy_flat(dst, src, start, n):
    """dst.flat[start:start + n] = src.flat[start:start + n] for same-dtype C-contiguous
    arrays (2-D: rows of the flattened array); nothing when n <= 0."""
    if n > 0:
        _memcpy(dst, src, start, n)


@hot
def copy_prefix(dst, src, n):
    """dst[:n] = src[:n] for 1-D arrays, one memcpy."""
    copy_flat(dst, src, 0, n)


@hot
def copy_rows(dst, src, n):
    """dst[:n] = src[:n] for 2-D arrays, one memcpy."""
    copy_flat(dst, src, 0, n * dst.shape[1])


@hot_inline
def copy_features(dst, src, g, expansions):
    """Copy src's first g segments' feature arrays but the tile sets (`fbits`), and the
    figures, supplies and scores (the expansions' arrays with `expansions`): what a move
    changes besides the board, the frontier, the counters and the tile sets (shared by
    `copy_into` and `turn.undo_place`)."""
    copy_prefix(dst.parent, src.parent, g)
    copy_prefix(dst.fntiles, src.fntiles, g)
    copy_prefix(dst.fpenn, src.fpenn, g)
    copy_prefix(dst.fopen, src.fopen, g)
    copy_rows(dst.fmeep, src.fmeep, g)
    copy_prefix(dst.fdone, src.fdone, g)
    if expansions:
        copy_prefix(dst.fflag, src.fflag, g)
        copy_rows(dst.fgoods, src.fgoods, g)
        copy_prefix(dst.fbuild, src.fbuild, g)
        copy_prefix(dst.fpig, src.fpig, g)
        copy_rows(dst.xsupply, src.xsupply, src.xsupply.shape[0])
        copy_rows(dst.goods, src.goods, src.goods.shape[0])
    copy_prefix(dst.owner, src.owner, g)
    copy_prefix(dst.ofig, src.ofig, g)
    copy_prefix(dst.active, src.active, src.active.shape[0])
    copy_prefix(dst.supply, src.supply, src.supply.shape[0])
    copy_prefix(dst.scores, src.scores, src.scores.shape[0])


@hot
def copy_into(dst, src):
    """Make `dst` (same shapes) a copy of `src` without allocating. Only the part in use is
    copied: the board rectangle covering both games' tiles (outside it both are empty),
    the segments and events that exist; the expansions' aggregates only when either game
    has them (without, they stay zero)."""
    expansions = src.cfg[C.CFG_EXPANSIONS] | dst.cfg[C.CFG_EXPANSIONS]
    src_sc, dst_sc = src.sc, dst.sc
    copy_prefix(dst.cfg, src.cfg, src.cfg.shape[0])
    y0, y1 = src_sc[C.SC_YMIN] - 1, src_sc[C.SC_YMAX] + 2
    x0, x1 = src_sc[C.SC_XMIN] - 1, src_sc[C.SC_XMAX] + 2
    if dst_sc[C.SC_PLACED] > 0:  # dst's own tiles must be overwritten too
        y0, y1 = min(y0, dst_sc[C.SC_YMIN] - 1), max(y1, dst_sc[C.SC_YMAX] + 2)
        x0, x1 = min(x0, dst_sc[C.SC_XMIN] - 1), max(x1, dst_sc[C.SC_XMAX] + 2)
    src_board, dst_board = src.board, dst.board
    D = src_board.shape[1]
    # inside the board (a state never reset has an empty box at 0: nothing to clip for
    # the slices this replaced, but a raw memcpy must stay in bounds)
    y0, x0 = max(y0, 0), max(x0, 0)
    y1, x1 = min(y1, src_board.shape[0]), min(x1, D)
    for y in range(y0, y1):
        copy_flat(dst_board, src_board, y * D + x0, x1 - x0)
    copy_prefix(dst_sc, src_sc, src_sc.shape[0])
    n = src_sc[C.SC_PLACED]
    g = n * src.cfg[C.CFG_NSEG]
    copy_rows(dst.frontier, src.frontier, src_sc[C.SC_NFRONT])
    copy_prefix(dst.ptype, src.ptype, n)
    copy_prefix(dst.prot, src.prot, n)
    copy_prefix(dst.px, src.px, n)
    copy_prefix(dst.py, src.py, n)
    copy_rows(dst.fbits, src.fbits, g)
    copy_features(dst, src, g, expansions)
    copy_prefix(dst.deck, src.deck, src.deck.shape[0])
    copy_prefix(dst.spos, src.spos, src.spos.shape[0])
    copy_rows(dst.hands, src.hands, src.hands.shape[0])
    copy_rows(dst.pairs, src.pairs, src_sc[C.SC_NPAIRS])
    copy_prefix(dst.discards, src.discards, src_sc[C.SC_NDISC])
    copy_rows(dst.events, src.events, src_sc[C.SC_NEVENTS])


@hot
def copy_whole(dst, src):
    """Make `dst` (same shapes) an exact copy of `src` in every array but the scratch
    ones, one memcpy each, without allocating: what `Game.clone` does to a spare state
    (unlike `copy_into`, nothing of dst's earlier game is left past the live part)."""
    copy_flat(dst.cfg, src.cfg, 0, src.cfg.size)
    copy_flat(dst.sc, src.sc, 0, src.sc.size)
    copy_flat(dst.board, src.board, 0, src.board.size)
    copy_flat(dst.frontier, src.frontier, 0, src.frontier.size)
    copy_flat(dst.ptype, src.ptype, 0, src.ptype.size)
    copy_flat(dst.prot, src.prot, 0, src.prot.size)
    copy_flat(dst.px, src.px, 0, src.px.size)
    copy_flat(dst.py, src.py, 0, src.py.size)
    copy_flat(dst.parent, src.parent, 0, src.parent.size)
    copy_flat(dst.fbits, src.fbits, 0, src.fbits.size)
    copy_flat(dst.fntiles, src.fntiles, 0, src.fntiles.size)
    copy_flat(dst.fpenn, src.fpenn, 0, src.fpenn.size)
    copy_flat(dst.fopen, src.fopen, 0, src.fopen.size)
    copy_flat(dst.fmeep, src.fmeep, 0, src.fmeep.size)
    copy_flat(dst.fdone, src.fdone, 0, src.fdone.size)
    copy_flat(dst.fflag, src.fflag, 0, src.fflag.size)
    copy_flat(dst.fgoods, src.fgoods, 0, src.fgoods.size)
    copy_flat(dst.fbuild, src.fbuild, 0, src.fbuild.size)
    copy_flat(dst.fpig, src.fpig, 0, src.fpig.size)
    copy_flat(dst.owner, src.owner, 0, src.owner.size)
    copy_flat(dst.ofig, src.ofig, 0, src.ofig.size)
    copy_flat(dst.active, src.active, 0, src.active.size)
    copy_flat(dst.supply, src.supply, 0, src.supply.size)
    copy_flat(dst.xsupply, src.xsupply, 0, src.xsupply.size)
    copy_flat(dst.goods, src.goods, 0, src.goods.size)
    copy_flat(dst.scores, src.scores, 0, src.scores.size)
    copy_flat(dst.deck, src.deck, 0, src.deck.size)
    copy_flat(dst.spos, src.spos, 0, src.spos.size)
    copy_flat(dst.hands, src.hands, 0, src.hands.size)
    copy_flat(dst.pairs, src.pairs, 0, src.pairs.size)
    copy_flat(dst.discards, src.discards, 0, src.discards.size)
    copy_flat(dst.events, src.events, 0, src.events.size)


_COPY_ENTRIES: dict[bytes, object] = {}  # compiled copy_into by the records' fingerprint


class _RecordsDispatcher(CPUDispatcher):
    """`copy_into` as numba compiled it, but called from Python without numba's typing of
    the two state records: it fingerprints a named tuple field by field by name, which took
    five times the copy. Here the records count as plain tuples of arrays (their
    fingerprint: dtype, dimensions, layout and flags of every array, as numba's types
    need), which picks the compiled code. Jitted callers see an ordinary dispatcher."""

    __slots__ = ()

    def __call__(self, dst, src):
        if type(dst) is not State or type(src) is not State:
            return super().__call__(dst, src)
        try:
            key = compute_fingerprint((*dst, *src))
        except (TypeError, ValueError):  # not arrays: numba's own error
            return super().__call__(dst, src)
        entry = _COPY_ENTRIES.get(key)
        if entry is None:
            sig = (self.typeof_pyval(dst), self.typeof_pyval(src))
            if sig not in self.overloads:
                self.compile(sig)
            entry = _COPY_ENTRIES[key] = self.overloads[sig].entry_point
        return entry(dst, src)


if isinstance(copy_into, CPUDispatcher):  # not under NUMBA_DISABLE_JIT
    copy_into.__class__ = _RecordsDispatcher
