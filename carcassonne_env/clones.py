"""What makes `Game.clone` cheap: the spare states of dead games a clone copies into, the
persistent move and score logs clones share, and the core calls a game makes, compiled
once per tile set (`Game` in `carcassonne_env.game` uses them)."""

from __future__ import annotations

from sys import getrefcount
from typing import Any

import numpy as np

from .compiler.jit import entry_point
from .core.state import GameState, copy_game, copy_whole, make_state
from .core.turn import game_call
from .rules import Rules
from .tiles import TileSet

# Spare states for `Game.clone`: a dead game gives its state back here when nothing else
# holds it (no view of one of its arrays either), and a clone copies into one (one
# memcpy) instead of allocating. By kind (`spares_for`): (state, handed out), where "handed
# out" (`Game.state` was read) means code outside the game may have written past its
# counts, so a copy into it, or from its game, copies every word (`copy_whole`, else
# `copy_game`).
SPARE_STATES: dict[tuple, list[tuple[GameState, bool]]] = {}
SPARE_MAX = 8  # per kind: a search drops each clone before it makes the next


def spares_for(ts: TileSet, st: GameState) -> list[tuple[GameState, bool]]:
    """The spare states a game on `ts` with state `st` takes from and gives back to:
    those of its kind (the shapes that make states interchangeable)."""
    kind = (ts, *st.ptype.shape, *st.active.shape, *st.supply.shape)
    spares = SPARE_STATES.get(kind)
    if spares is None:
        spares = SPARE_STATES[kind] = []
    return spares


# The state's arrays a `Game` reads on every move, as views cached on first use (a field
# of a state is a new numpy view each time, dearer than a cached one); `give_back` counts them.
VIEWS = ("_scores",)


def give_back(game: Any) -> None:
    """`Game.__del__`: give the game's state to the next clone (`SPARE_STATES`), unless
    something else still holds it or one of its arrays (an env that kept `_st`, a view
    of the board...): the references to the state but the game's own and its cached
    views (`VIEWS`) must number `UNSHARED`. Runs on every dropped clone, so written out."""
    try:
        spares = game._spares
        if spares is not None and len(spares) < SPARE_MAX:
            d = game.__dict__
            if getrefcount(d["_st"]) - ("_scores" in d) == UNSHARED:
                spares.append((d["_st"], game._handed_out))
    except Exception:  # noqa: BLE001 (interpreter shutdown, half-built game)
        pass


class _Probe:
    """An object holding a state as a `Game` does and nothing else."""

    def __init__(self) -> None:
        self._st = make_state(Rules().to_config(), 1, 1, 1)
        self._spares: list = []
        self._handed_out = False


def _unshared() -> int:
    """The count `give_back` reads for a state its game alone holds: the interpreter's own
    temporary references vary between Python versions, so it is measured on a probe (the
    first count at which `give_back` takes the probe's state), not assumed."""
    global UNSHARED
    for UNSHARED in range(1, 16):  # (the global `give_back` reads)
        probe = _Probe()
        give_back(probe)
        if probe._spares:
            return UNSHARED
    raise RuntimeError("could not calibrate the spare states' reference count")


UNSHARED = _unshared()


# The move and score logs are persistent lists: () empty, else (earlier log, last entry).
# Appending is one tuple and a clone shares them: no list copies per clone.
def log_items(log: tuple) -> list[Any]:
    """The entries of a log (oldest first)."""
    items = []
    while log:
        log, item = log
        items.append(item)
    items.reverse()
    return items


def as_log(items: list[Any]) -> tuple:
    """The log of `items` (oldest first)."""
    log: tuple = ()
    for item in items:
        log = (log, item)
    return log


CORE_CALLS: dict[TileSet, Any] = {}  # a plain dict: one lookup, cheaper than `functools.cache`
NO_ROWS = np.empty((0, 5), np.int64)  # `rows` of a `core_call` that writes none


def core_call(ts: TileSet) -> Any:
    """`core.turn.game_call` compiled for a game's state and `ts`'s tables (every game's
    state has the same type): a `compiler.jit.entry_point`."""
    call = CORE_CALLS.get(ts)
    if call is None:
        st = make_state(Rules().to_config(), 1, 1, 1)
        call = CORE_CALLS[ts] = entry_point(game_call, st, ts.tables, 0, 0, 0, 0, 0, 0, NO_ROWS)
    return call


# `copy_whole` (key True) and `copy_game` (False) compiled for a game's state (`compiler.jit.
# entry_point`s), each added by `copy_call` once a program has made `COMPILE_AFTER`
# clones into spare states: until then numpy copies the buffer's live words (slower per
# clone), so a program that clones a few hundred times, such as a game of the greedy
# bot, never waits for the compiler. (A plain dict that a
# clone reads directly: one subscript.)
COPY_CALLS: dict[bool, Any] = {}
COMPILE_AFTER = 5000
_copies_before_compiling = [0]


def _copy_buffer(dst: GameState, src: GameState) -> None:
    """Copy every word before the scratch fields (what `copy_whole` copies, and more)."""
    n = src.live_words
    dst.words[:n] = src.words[:n]


def copy_call(full: bool) -> Any:
    """`COPY_CALLS[full]` once compiled (on the `COMPILE_AFTER`-th clone into a spare
    state), else `_copy_buffer`."""
    call = COPY_CALLS.get(full)
    if call is None:
        if _copies_before_compiling[0] < COMPILE_AFTER:
            _copies_before_compiling[0] += 1
            return _copy_buffer
        call = compile_copy(full)
    return call


def compile_copy(full: bool) -> Any:
    """Compile `COPY_CALLS[full]` now (warm-ups and benchmarks)."""
    call = COPY_CALLS.get(full)
    if call is None:
        st = make_state(Rules().to_config(), 1, 1, 1)
        call = COPY_CALLS[full] = entry_point(copy_whole if full else copy_game, st, st)
    return call
