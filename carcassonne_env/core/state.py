"""The game state: one packed buffer per game (`core.packed`), allocated once.

Sizes derive from the number of tiles N in the game: a board of (2N+1)^2 cells can hold
any layout, since no tile lies further than N-1 cells from the start tile.
Segment g = (placement index) * S + (segment of the tile); union-find runs over g.
Jitted code and Python read the arrays as attributes of the buffer: ``st.board[y, x]``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..compiler.jit import hot, hot_entry
from . import constants as C
from .packed import Packed, PackedArray

STATE = Packed(
    "GameState",
    [
        # name, dtype, shape (N tiles, S segments per tile: the dimensions of `make_state`),
        # scratch
        ("cfg", np.int32, (C.CFG_SIZE,), False),  # rule options (read by name: the views)
        ("sc", np.int32, (C.SC_SIZE,), False),  # scalars (turn, seat, counters: the views)
        ("board", np.int16, ("D", "D"), False),  # placement index, -1 empty, -2 - k open (slot k)
        ("frontier", np.int32, ("F", 3), False),  # open cells: x, y, packed edge constraint
        ("ptype", np.int8, ("N",), False),  # tile type of each placement
        ("prot", np.int8, ("N",), False),  # rotation of each placement
        ("px", np.int16, ("N",), False),  # board column of each placement
        ("py", np.int16, ("N",), False),  # board row of each placement
        ("parent", np.int16, ("G",), False),  # union-find over segments
        ("fbits", np.uint64, ("G", "W"), False),  # placements of a feature (roots; city, road)
        ("fntiles", np.int16, ("G",), False),  # distinct tiles of a feature (roots)
        ("fpenn", np.int16, ("G",), False),  # pennants of a feature (roots)
        ("fopen", np.int16, ("G",), False),  # open ends (city/road), missing neighbours (monastery)
        ("fmeep", np.uint8, ("G", "P"), False),  # followers per seat (roots; a large one: 2)
        ("fdone", np.uint8, ("G",), False),  # feature completed (roots)
        ("fflag", np.uint8, ("G",), False),  # FLAG_* bits of a feature (roots; inn, cathedral)
        ("fgoods", np.int8, ("G", C.N_GOODS), False),  # trade goods of a city (roots)
        ("fbuild", np.uint8, ("G",), False),  # bit p: seat p's builder on the feature (roots)
        ("fpig", np.uint8, ("G",), False),  # bit p: seat p's pig in the field (roots)
        ("owner", np.int8, ("G",), False),  # seat whose figure stands on the segment, -1 none
        ("ofig", np.int8, ("G",), False),  # FIG_* kind of that figure
        ("active", np.int16, ("A",), False),  # segments holding a figure (the first nactive)
        ("supply", np.int16, ("P",), False),  # followers in supply
        ("xsupply", np.int16, ("P", 3), False),  # large followers, builders, pigs (FIG_* - 1)
        ("goods", np.int16, ("P", C.N_GOODS), False),  # trade goods tokens per seat
        ("scores", np.int32, ("P",), False),
        ("deck", np.int8, ("L",), False),  # tile types in draw order
        ("spos", np.int16, ("P",), False),  # solo: tiles drawn from each colour's stack
        ("hands", np.int8, ("P", C.HAND_MAX), False),  # strategic variant hands, -1 = empty
        ("pairs", np.int16, ("MP", 2), False),  # (field segment, city segment) adjacencies
        ("discards", np.int8, ("L",), False),  # discarded tile types in order
        ("events", np.int32, ("E", C.EV_COLS), False),  # scoring log
        # scratch for the hot path: never game state, never copied
        ("work", np.int64, (C.WORK_ROWS, "K"), True),
        ("places", np.int64, (3, "M"), True),  # legal placements (x, y, rotation)
        ("keys", np.int64, ("MP",), True),  # field-city adjacency keys for farm scoring
    ],
    module=__name__,
    views=[
        # The rule options and the running game's scalars by name: ``st.seat`` reads (and
        # ``st.seat = p`` writes) sc[SC_SEAT], in jitted code and in Python (a Python int).
        # name, field, first index, shape (): a scalar (constants.py says what each holds)
        ("seats", "cfg", C.CFG_SEATS, ()),  # (solo: the colours)
        ("followers", "cfg", C.CFG_FOLLOWERS, ()),
        ("small_city", "cfg", C.CFG_SMALL_CITY, ()),
        ("farm_mode", "cfg", C.CFG_FARM_MODE, ()),
        ("farm_points", "cfg", C.CFG_FARM_POINTS, ()),
        ("hand_size", "cfg", C.CFG_HAND_SIZE, ()),
        ("solo", "cfg", C.CFG_SOLO, ()),
        ("start_tile", "cfg", C.CFG_START, ()),
        ("nseg", "cfg", C.CFG_NSEG, ()),
        ("player_order", "cfg", C.CFG_PLAYER_ORDER, ()),
        ("expansions", "cfg", C.CFG_EXPANSIONS, ()),
        ("goods_unowned", "cfg", C.CFG_GOODS_UNOWNED, ()),
        ("turn", "sc", C.SC_TURN, ()),
        ("placed", "sc", C.SC_PLACED, ()),
        ("seat", "sc", C.SC_SEAT, ()),
        ("tile", "sc", C.SC_TILE, ()),
        ("done", "sc", C.SC_DONE, ()),
        ("end_reason", "sc", C.SC_END, ()),
        ("deck_pos", "sc", C.SC_DECK_POS, ()),
        ("deck_len", "sc", C.SC_DECK_LEN, ()),
        ("nfront", "sc", C.SC_NFRONT, ()),
        ("npairs", "sc", C.SC_NPAIRS, ()),
        ("nevents", "sc", C.SC_NEVENTS, ()),
        ("ndisc", "sc", C.SC_NDISC, ()),
        ("nactive", "sc", C.SC_NACTIVE, ()),
        ("solo_end_a", "sc", C.SC_SOLO_END_A, ()),
        ("xmin", "sc", C.SC_XMIN, ()),
        ("xmax", "sc", C.SC_XMAX, ()),
        ("ymin", "sc", C.SC_YMIN, ()),
        ("ymax", "sc", C.SC_YMAX, ()),
        ("phase", "sc", C.SC_PHASE, ()),
        ("npend", "sc", C.SC_NPEND, ()),
        ("extra", "sc", C.SC_EXTRA, ()),
        ("earned", "sc", C.SC_EARNED, ()),
        ("pend", "sc", C.SC_PEND, (C.MAX_PEND,)),  # the pending roots (the first npend)
    ],
)
if TYPE_CHECKING:  # a class made at import is no type to a checker: its base is
    GameState = PackedArray
else:
    GameState = STATE.array_class  # a game's state in Python (an ndarray subclass)
as_state = STATE.cast  # jitted: an int64 row of a vector env's 2-D buffer as a state
SCRATCH_FIELDS = frozenset(f for f, *_, scratch in STATE.fields if scratch)


def make_state(cfg: np.ndarray, n_tiles: int, n_seg: int, max_adj: int) -> PackedArray:
    """Allocate an empty state for a game of `n_tiles` tiles (start tile included) under
    the rule options `cfg` (`Rules.to_config`), `n_seg` segment slots per tile and at
    most `max_adj` field-city adjacencies per tile."""
    N, S = n_tiles, n_seg
    P = int(cfg[C.CFG_SEATS])
    A = P * (int(cfg[C.CFG_FOLLOWERS]) + 3) + 1  # + a large follower, builder, pig each
    F = 2 * N + 2
    MP = N * max(max_adj, 1)
    st = STATE.allocate(
        {
            "N": N,  # placements
            "D": 2 * N + 1,  # board side
            "F": F,  # open cells
            "G": N * S,  # segments
            "W": (N + 63) // 64,  # words of a set of placements
            "P": P,  # seats
            "A": A,  # figures
            "L": max(N - 1, 1),  # tiles to draw
            "MP": MP,  # field-city adjacencies
            "E": 4 * N + A + 16,  # scoring events
            "K": max(8 * S, S + 16),  # work row
            "M": 4 * F,  # legal placements
        }
    )
    st.cfg[:] = cfg
    st.nseg = S
    st.board[:] = -1
    st.owner[:] = -1
    st.hands[:] = -1
    return st


def rule_config(**options: int) -> np.ndarray:
    """The rule options vector of a state (`cfg`, int32[CFG_SIZE]) holding `options`,
    each given by the name of its view (``seats=2``...); the others 0."""
    cfg = np.zeros(C.CFG_SIZE, np.int32)
    for name, value in options.items():
        view = STATE.views.get(name)
        if view is None or view.field != "cfg":
            raise ValueError(f"no rule option {name!r} in a state's cfg")
        cfg[view.first] = value
    return cfg


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


def n_figures(cfg: np.ndarray) -> int:
    """Figure ids a move's slot may name under the rules `cfg`: 1 + the largest FIG_*
    they have (a move's slot is figure * S + segment; ids of kinds the rules lack are
    never legal). Plain Python (it sizes buffers; no compiled code calls it): compiled,
    it would delay every program's first game."""
    has = getattr(has_figure, "py_func", has_figure)  # (plain already without numba's JIT)
    return 1 + max((fig for fig in range(1, 4) if has(cfg, fig)), default=0)


def max_legal_rows(st: PackedArray, n_open: int | None = None) -> int:
    """Rows enough for every legal move of a game of `st`'s kind with `n_open` open
    cells (default: the most it can have): hand x 4 rotations x cells x (no follower +
    each figure kind on each segment)."""
    cells = st.frontier.shape[0] if n_open is None else max(int(n_open), 1)
    return st.hand_size * 4 * cells * (st.nseg * n_figures(st.cfg) + 1)


def copy_state(st: PackedArray) -> PackedArray:
    """An independent copy (Python side): one numpy copy of the buffer."""
    return st.copy()


def state_rows(proto: PackedArray, n: int) -> tuple[np.ndarray, list[PackedArray]]:
    """`n` copies of state `proto` as the rows of one int64[n, words] buffer (what the
    jitted batch kernels take: ``as_state(rows[i])``) and a state view of each row."""
    rows = np.tile(proto.words, (n, 1))
    return rows, [STATE.adopt(rows[i]) for i in range(n)]


# Bulk copies: numba compiles `dst[:n] = src[:n]` (and an explicit loop) to an
# element-by-element copy with aliasing checks; for the state's many small int8 / int16
# arrays that made `copy_into` the largest cost of a search step. `copy_flat` emits
# LLVM's memcpy over a range of a C-contiguous array (a numba intrinsic).


@intrinsic
def _memcpy(typingctx, dst, src, start, n):
    """dst.flat[start:start + n] = src.flat[start:start + n] (C-contiguous arrays of one
    dtype; n > 0, the range inside both: unchecked)."""
    if not (
        isinstance(dst, types.Array)
        and isinstance(src, types.Array)
        and dst.dtype == src.dtype
        and dst.layout == "C"
        and src.layout == "C"
        and isinstance(start, types.Integer)
        and isinstance(n, types.Integer)
    ):
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
        dst.reshape(-1)[start : start + n] = src.reshape(-1)[start : start + n]


@hot
def copy_flat(dst, src, start, n):
    """dst.flat[start:start + n] = src.flat[start:start + n] for same-dtype C-contiguous
    arrays (2-D: rows of the flattened array); nothing when n <= 0."""
    if n > 0:
        _memcpy(dst, src, start, n)


@hot
def _copy_board(dst, src):
    """Copy src's board into dst's (same shapes; both scalars still their own): the
    rectangle covering both games' tiles and the open cells around them, outside which
    both boards are empty."""
    y0, y1 = src.ymin - 1, src.ymax + 2
    x0, x1 = src.xmin - 1, src.xmax + 2
    if dst.placed > 0:  # dst's own tiles must be overwritten too
        y0, y1 = min(y0, dst.ymin - 1), max(y1, dst.ymax + 2)
        x0, x1 = min(x0, dst.xmin - 1), max(x1, dst.xmax + 2)
    src_board, dst_board = src.board, dst.board
    D = src_board.shape[1]
    # inside the board (a state never reset has an empty box at 0: a raw memcpy must
    # stay in bounds)
    y0, x0 = max(y0, 0), max(x0, 0)
    y1, x1 = min(y1, src_board.shape[0]), min(x1, D)
    for y in range(y0, y1):
        copy_flat(dst_board, src_board, y * D + x0, x1 - x0)


# Words of the header (equal in states of the same shapes: `copy_into` and `copy_game`
# skip it); header words of the board's and the next field's byte offsets.
_HEAD = STATE.header_words
_BOARD_AT = STATE.header_word("board")
_AFTER_BOARD = STATE.header_word(STATE.names[STATE.index["board"] + 1])


@hot_entry
def copy_whole(dst, src):
    """Make `dst` (same shapes) an exact copy of `src` but for the scratch fields, without
    allocating (unlike `copy_into`, nothing of dst's earlier game is left past the live
    part). Every word is copied but the empty part of the board (`_copy_board`): two
    memcpys and the board's rows in use."""
    words_d, words_s = dst.words, src.words
    _copy_board(dst, src)  # (first: it reads both games' scalars)
    copy_flat(words_d, words_s, 0, words_s[_BOARD_AT] // 8)
    after = words_s[_AFTER_BOARD] // 8
    copy_flat(words_d, words_s, after, words_s[1] - after)


# Each field as `copy_field` reads it: (header word of its byte offset, followed by its
# dimensions; item size; number of dimensions). A global named tuple: constants to numba.
STATE_FIELDS = namedtuple("StateFields", STATE.names)(
    *((STATE.header_word(f), dt.itemsize, len(shape)) for f, dt, shape, _ in STATE.fields)
)


@hot
def copy_field(words_d, words_s, field, rows):
    """Copy the first `rows` rows of a field (`STATE_FIELDS`) as whole int64 words (every
    field starts on a word; the last word's bytes past the rows are src's too): one
    compiled copy for every field, whatever its dtype."""
    at, itemsize, ndim = field
    nbytes = itemsize * rows
    for d in range(1, ndim):  # times the bytes of a row
        nbytes *= words_s[at + 1 + d]
    copy_flat(words_d, words_s, words_s[at] // 8, (nbytes + 7) // 8)


@hot
def copy_features(dst, src, g, expansions):
    """Copy src's first g segments' feature arrays but the tile sets (`fbits`), and the
    figures, supplies and scores (the expansions' arrays with `expansions`): what a move
    changes besides the board, the frontier, the counters and the tile sets (what
    `turn.undo_place` restores; `copy_into` copies them too)."""
    wd, ws, F = dst.words, src.words, STATE_FIELDS
    copy_field(wd, ws, F.parent, g)
    copy_field(wd, ws, F.fntiles, g)
    copy_field(wd, ws, F.fpenn, g)
    copy_field(wd, ws, F.fopen, g)
    copy_field(wd, ws, F.fmeep, g)
    copy_field(wd, ws, F.fdone, g)
    if expansions:
        copy_field(wd, ws, F.fflag, g)
        copy_field(wd, ws, F.fgoods, g)
        copy_field(wd, ws, F.fbuild, g)
        copy_field(wd, ws, F.fpig, g)
        copy_field(wd, ws, F.xsupply, src.xsupply.shape[0])
        copy_field(wd, ws, F.goods, src.goods.shape[0])
    copy_field(wd, ws, F.owner, g)
    copy_field(wd, ws, F.ofig, g)
    copy_field(wd, ws, F.active, src.active.shape[0])
    copy_field(wd, ws, F.supply, src.supply.shape[0])
    copy_field(wd, ws, F.scores, src.scores.shape[0])


@hot
def _copy_fields(dst, src, nfront, n, npairs, ndisc, nevents, expansions):
    """Copy src's fields after the board into dst's (same shapes): the first `nfront`
    frontier rows, `n` placements and their segments, `npairs` adjacencies, `ndisc`
    discards and `nevents` events; the per-seat and deck arrays whole; the expansions'
    arrays only with `expansions`. Written out field by field: a loop over a table of
    the fields took half as long again (a branch per field)."""
    wd, ws, F = dst.words, src.words, STATE_FIELDS
    g = n * np.int64(src.nseg)
    copy_field(wd, ws, F.frontier, nfront)
    copy_field(wd, ws, F.ptype, n)
    copy_field(wd, ws, F.prot, n)
    copy_field(wd, ws, F.px, n)
    copy_field(wd, ws, F.py, n)
    copy_field(wd, ws, F.fbits, g)
    copy_features(dst, src, g, expansions)
    copy_field(wd, ws, F.deck, src.deck.shape[0])
    copy_field(wd, ws, F.spos, src.spos.shape[0])
    copy_field(wd, ws, F.hands, src.hands.shape[0])
    copy_field(wd, ws, F.pairs, npairs)
    copy_field(wd, ws, F.discards, ndisc)
    copy_field(wd, ws, F.events, nevents)


@hot_entry
def copy_into(dst, src):
    """Make `dst` (same shapes) a copy of `src` without allocating. Only the part in use is
    copied: the board rectangle covering both games' tiles (outside it both are empty),
    the segments and events that exist; the expansions' aggregates only when either game
    has them (without, they stay zero). What lies past src's counts in dst stays."""
    expansions = (src.expansions | dst.expansions) != 0
    n = np.int64(src.placed)  # (int64 counts: one compiled `_copy_fields`)
    _copy_board(dst, src)  # (before the scalars: it reads both games' boxes)
    copy_flat(dst.words, src.words, _HEAD, src.words[_BOARD_AT] // 8 - _HEAD)  # cfg, sc
    _copy_fields(
        dst,
        src,
        np.int64(src.nfront),
        n,
        np.int64(src.npairs),
        np.int64(src.ndisc),
        np.int64(src.nevents),
        expansions,
    )


@hot_entry
def copy_game(dst, src):
    """`copy_whole` for two states that hold nothing past their counts (placements,
    adjacencies, discards, events): states only `turn.reset` (on a fresh state) and
    `turn.apply_move` ever changed, as a `Game` keeps its own until it hands it out
    (`Game.state`). Copying src over the larger of the two games' extents then leaves
    nothing of dst's game (tests/game/test_clones.py) at about half the cost; the
    frontier is copied whole (its rows past the count are stale)."""
    expansions = (src.expansions | dst.expansions) != 0
    n = max(np.int64(src.placed), dst.placed)  # (int64 counts)
    npairs = max(np.int64(src.npairs), dst.npairs)
    ndisc = max(np.int64(src.ndisc), dst.ndisc)
    nevents = max(np.int64(src.nevents), dst.nevents)
    _copy_board(dst, src)  # (before the scalars: it reads both games' boxes)
    copy_flat(dst.words, src.words, _HEAD, src.words[_BOARD_AT] // 8 - _HEAD)  # cfg, sc
    _copy_fields(dst, src, np.int64(src.frontier.shape[0]), n, npairs, ndisc, nevents, expansions)
