"""The values of the `Game` API (a `Move`, a tile on the board, a scoring, a scoring
choice, the error an illegal move raises) and the reading of a player's move: its fields
checked, turned into the core's row, and the reason when the rules refuse it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from .checks import is_int
from .compiler.jit import entry_point
from .core import constants as C
from .core.state import make_state
from .core.turn import check_move
from .rules import Rules

if TYPE_CHECKING:
    from .core.state import GameState
    from .game import Game
    from .tiles import TileSet


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the current state (the state is unchanged)."""


class Move(NamedTuple):
    """One turn: put the tile at (x, y) turned `rotation` quarter turns clockwise, and
    optionally a follower on `follower` (e.g. ``"city:N"``, ``"field:S_w"``,
    ``"monastery"``; board frame, after rotation). `tile` picks the tile from the hand
    in the strategic variant (``hand_size > 1``). `figure` is the kind of figure put on
    `follower`: ``"follower"`` (default) or, with the expansions in full mode,
    ``"large"`` (Inns & Cathedrals), ``"builder"``, ``"pig"`` (Traders & Builders;
    `Rules.figures`)."""

    x: int
    y: int
    rotation: int
    follower: str | None = None
    tile: str | None = None
    figure: str = "follower"


class PlacedTile(NamedTuple):
    """A tile on the board; `follower` is ``(seat, location)`` while a figure stands on
    it, `figure` its kind (``"follower"``, ``"large"``, ``"builder"``, ``"pig"``; None
    without one)."""

    tile: str
    rotation: int
    follower: tuple[int, str] | None
    figure: str | None = None


class ScoringEvent(NamedTuple):
    """One scoring. `points` is what each seat in `scorers` got; `majority` are the seats
    with most followers on the feature (in solo a majority colour may not score), or
    with most tokens of a trade good. `detail` names what set the points, with the
    expansions in full mode: "inn", "cathedral" (road / city events), "pig" (the farm
    points of the pig's owner), the good of a "goods" event ("wine", "grain",
    "cloth"); None otherwise."""

    turn: int
    kind: str  # "road", "city", "monastery", "field", "follower" (solo end bonus), "goods"
    tiles: tuple[tuple[int, int], ...]
    points: int
    majority: tuple[int, ...]
    scorers: tuple[int, ...]
    final: bool
    detail: str | None = None


class ScoringChoice(NamedTuple):
    """One option of a scoring decision (solo, ``scoring_order="player"``): `move` (play
    it to choose this option) names a follower on the feature to score, or the end-bonus
    follower. `kind` is "road", "city", "monastery" or "follower"; `points` what each
    colour of `majority` gets if one of them is lowest when it is scored (else 0)."""

    move: Move
    kind: str
    tiles: tuple[tuple[int, int], ...]
    points: int
    majority: tuple[int, ...]


#: The reason of each core check code (`core.turn.check_move`), to format with the move.
MESSAGES = {
    C.E_OVER: "the game is over",
    C.E_NOT_IN_HAND: "that tile is not in the hand of the seat to move",
    C.E_OCCUPIED_CELL: "cell ({x}, {y}) already holds a tile",
    C.E_NOT_ADJACENT: "cell ({x}, {y}) shares no edge with a placed tile",
    C.E_EDGE_MISMATCH: "tile {tile} turned {rotation} does not match every neighbouring edge "
    "at ({x}, {y})",
    C.E_NO_SUCH_SEGMENT: "tile {tile} turned {rotation} has no {follower!r}",
    C.E_NO_SUPPLY: "seat {seat} has no {figure} in supply",
    C.E_NOT_OWN: "a {figure} goes where seat {seat} already has a follower ({follower!r} "
    "holds none of theirs{where})",
    C.E_FEATURE_OCCUPIED: "the feature at {follower!r} already holds a follower",
    C.E_SOLO_FARMER: "no farmers in the solo variant ({follower!r})",
    C.E_SOLO_COMPULSORY: "solo variant: a follower must be placed when a spot is free",
    C.E_BAD_ROTATION: "rotation must be 0, 1, 2 or 3, got {rotation}",
    C.E_OFF_BOARD: "cell ({x}, {y}) is beyond the reach of any tile",
    C.E_NOT_A_CHOICE: "{decision} decision: no follower awaiting scoring stands at ({x}, "
    "{y}) on {follower!r} of a tile turned {rotation}; the choices: {choices}",
}


def as_move(move: Any) -> Move:
    """A `Move` from a sequence of its fields; TypeError saying what a move is otherwise
    (a string is a sequence, but never a move)."""
    try:
        if isinstance(move, (str, bytes)):
            raise TypeError
        return Move(*move)
    except TypeError:
        raise TypeError(
            "a move is a Move (from legal_moves(), or Move(x, y, rotation, "
            "follower=None, tile=None, figure='follower')) or a tuple of its "
            f"fields, got {move!r}"
        ) from None


def check_move_types(move: Move) -> None:
    """IllegalMoveError unless x, y, rotation are integers, follower, tile are None
    or strings and figure a string (a fast path for the plain ints of `legal_moves`)."""
    x, y, r, follower, tile, figure = move
    if not isinstance(figure, str):
        raise IllegalMoveError(f"figure must be a string, got {figure!r}")
    if not (type(x) is int and type(y) is int and type(r) is int):
        for name, v in (("x", x), ("y", y), ("rotation", r)):
            if not is_int(v):
                raise IllegalMoveError(f"{name} must be an integer, got {v!r}")
    for name, text in (("follower", follower), ("tile", tile)):
        if text is not None and not isinstance(text, str):
            raise IllegalMoveError(f"{name} must be None or a string, got {text!r}")


def resolve(game: Game, st: GameState, move: Move) -> list[int]:
    """The core row [hand index, x, y, rotation, slot] of `move` in `game` (whose state
    is `st`: passed by the game, which reading `Game.state` would mark as handed out),
    checked by the core; `IllegalMoveError` saying why if the rules do not allow it
    (`Game.play`'s path for a move its legal-move cache does not know; the fields' types
    already passed `check_move_types`)."""
    x, y, r = int(move.x), int(move.y), int(move.rotation)
    ts = game.tileset
    fmt = _fields(game, x, y, r, move.follower, move.tile, move.figure)
    if game.done:
        raise IllegalMoveError(MESSAGES[C.E_OVER])
    if game.decision != "place":
        return _resolve_choice(game, st, move, fmt)
    h = 0
    if game.rules.hand_size > 1:
        hand = game.hand
        if move.tile not in hand:
            raise IllegalMoveError(f"tile {move.tile!r} is not in the hand {hand}")
        h = hand.index(move.tile)
    elif move.tile is not None and move.tile != game.current_tile:
        raise IllegalMoveError(f"the tile to place is {game.current_tile}, not {move.tile!r}")
    t = st.hands[game.current_player, h] if game.rules.hand_size > 1 else st.tile
    fmt["tile"] = ts.names[t]
    slot = C.NO_FOLLOWER
    if move.figure not in game.rules.figures:
        raise IllegalMoveError(
            f"figure must be one of {list(game.rules.figures)} in this game, got "
            f"{move.figure!r}"
            + (
                " (the large follower comes with Inns & Cathedrals in full mode, not in solo)"
                if move.figure == "large"
                else " (builder and pig come with Traders & Builders in full mode, not in solo)"
                if move.figure in ("builder", "pig")
                else ""
            )
        )
    if move.follower is not None:
        if not 0 <= r < 4:
            raise IllegalMoveError(MESSAGES[C.E_BAD_ROTATION].format(**fmt))
        slot = ts.slot_aliases[t][r].get(move.follower, -2)
        if slot == -2:
            where = ", ".join(ts.slot_names[t][r])
            raise IllegalMoveError(
                f"tile {ts.names[t]} turned {r} has no follower location "
                f"{move.follower!r} (its segments: {where})"
            )
        slot += C.FIGURES.index(move.figure) * ts.max_segments
    elif move.figure != "follower":
        raise IllegalMoveError(f"figure {move.figure!r} without a location: name one in `follower`")
    code = check_call(ts)(st, ts.tables, h, *core_ints((x, y, r), ROW_FIELDS[1:4]), slot)
    if code != C.OK:
        raise IllegalMoveError(MESSAGES[code].format(**fmt))
    return [h, x, y, r, slot]


def _resolve_choice(game: Game, st: GameState, move: Move, fmt: dict[str, Any]) -> list[int]:
    """Core arguments of a scoring choice (`decision` is not "place")."""
    ts = game.tileset
    x, y, r = fmt["x"], fmt["y"], fmt["rotation"]
    i = game.cell_index(x, y)
    slot = -2
    if i >= 0 and move.follower is not None and int(st.prot[i]) == r:
        slot = ts.slot_aliases[int(st.ptype[i])][r].get(move.follower, -2)
    if (
        slot < 0
        or check_call(ts)(st, ts.tables, 0, *core_ints((x, y, r), ROW_FIELDS[1:4]), slot) != C.OK
    ):
        raise IllegalMoveError(
            MESSAGES[C.E_NOT_A_CHOICE].format(
                decision=game.decision, choices=game.legal_moves(), **fmt
            )
        )
    return [0, x, y, r, slot]


def _fields(
    game: Game, x: int, y: int, r: int, follower: str | None, tile: str | None, figure: str
) -> dict[str, Any]:
    """The fields `MESSAGES` are formatted with, for a move of these values in `game`."""
    return {
        "x": x,
        "y": y,
        "rotation": r,
        "follower": follower,
        "tile": tile,
        "seat": game.current_player,
        "figure": "large follower" if figure == "large" else figure,
        "where": ": a builder on a road or city, a pig on a field"
        if figure in ("builder", "pig")
        else "",
    }


# ---------------------------------------------------------------------- core rows
#: The fields of a core row, as `Game.play_row` names them in its errors.
ROW_FIELDS = ("h", "x", "y", "rotation", "slot")
#: Beyond any hand index, cell, rotation or slot of any board: a value past it reaches
#: the core's check as this bound, and the check says what is wrong. Not just any int64:
#: the core adds the board's origin to a coordinate, and the machine code numba makes
#: assumes that such a sum never overflows (x = 2**63 - 1 passed its bounds check).
CORE_INT_LIMIT = 2**31

_CHECK_CALLS: dict[TileSet, Any] = {}  # (a plain dict, as `clones.CORE_CALLS`)


def check_call(ts: TileSet) -> Any:
    """`core.turn.check_move` compiled for a game's state and `ts`'s tables, called
    without numba's dispatch (`compiler.jit.entry_point`, which Python ints of any size
    never reach: `core_ints`): the rules' own legality check of a core row."""
    call = _CHECK_CALLS.get(ts)
    if call is None:
        st = make_state(Rules().to_config(), 1, 1, 1)
        call = _CHECK_CALLS[ts] = entry_point(check_move, st, ts.tables, 0, 0, 0, 0, 0)
    return call


def core_ints(values: Sequence[Any], names: Sequence[str]) -> list[int]:
    """`values` as Python ints the core can take, whatever their size (clamped to
    +-`CORE_INT_LIMIT`); IllegalMoveError naming the first that is not an integer (a
    Python or numpy integer, not a bool)."""
    out = []
    for name, v in zip(names, values, strict=True):
        if type(v) is not int:
            if not is_int(v):
                raise IllegalMoveError(f"{name} must be an integer, got {v!r}")
            v = int(v)
        out.append(
            v
            if -CORE_INT_LIMIT <= v <= CORE_INT_LIMIT
            else CORE_INT_LIMIT
            if v > 0
            else -CORE_INT_LIMIT
        )
    return out


def row_tile(game: Game, st: GameState, h: int, x: int, y: int) -> int:
    """The tile type a core row (hand index h, cell (x, y)) concerns in `game` (state
    `st`): the hand's tile, or at a scoring decision the tile on the board at (x, y); -1
    if there is none (an empty hand slot, an empty cell, an index out of range, the game
    over)."""
    if st.done:
        return -1
    if st.phase != C.PHASE_PLACE:
        i = game.cell_index(x, y)
        return int(st.ptype[i]) if i >= 0 else -1
    if game.rules.hand_size > 1:
        return int(st.hands[st.seat, h]) if 0 <= h < C.HAND_MAX else -1
    return st.tile


def core_row(row: Sequence[Any]) -> list[int]:
    """A core row (hand index, x, y, rotation, slot) as Python ints the core can take
    (`core_ints`: IllegalMoveError naming a field that is not an integer)."""
    return core_ints(row, ROW_FIELDS)


def row_error(
    game: Game, st: GameState, row: list[int], given: Sequence[Any], code: int
) -> IllegalMoveError:
    """The error of core row `row` (`core_row` of the values `given`), illegal in `game`
    (state `st`) with core check code `code` (or `C.E_NOT_IN_HAND` for a hand index
    out of range)."""
    given = [int(v) for v in given]  # (the message shows them unclamped)
    return IllegalMoveError(
        f"core row {tuple(given)} is not a legal move: " + _row_reason(game, st, row, given, code)
    )


def check_row(
    game: Game, st: GameState, row: list[int], given: Sequence[Any], follower: str | None = None
) -> None:
    """IllegalMoveError unless core row `row` (`core_row` of `given`) is a legal move
    of `game` (state `st`) now (the core's own check, `check_call`) and `follower`, if
    given, names its location (the name `play_row` logs instead of the canonical one)."""
    h, x, y, r, slot = row
    ts = game.tileset
    code = check_call(ts)(st, ts.tables, *row)
    if code != C.OK:
        raise row_error(game, st, row, given, code)
    if follower is None:
        return
    t, S = row_tile(game, st, h, x, y), ts.max_segments
    if (
        not isinstance(follower, str)
        or slot == C.NO_FOLLOWER
        or ts.slot_aliases[t][r].get(follower, -2) != slot % S
    ):
        where = "none" if slot == C.NO_FOLLOWER else repr(ts.slot_names[t][r][slot % S])
        raise IllegalMoveError(
            f"core row {tuple(row)}: follower {follower!r} does not "
            f"name its location (slot {slot}: {where})"
        )


def _row_reason(game: Game, st: GameState, row: list[int], given: list[int], code: int) -> str:
    """The reason core row `row` (`core_ints` of the values `given`) is illegal (core
    check code `code`)."""
    h, x, y, r, slot = row
    if code == C.E_NOT_IN_HAND and not 0 <= h < game.rules.hand_size:
        return f"hand index {given[0]} is not in [0, {game.rules.hand_size})"
    ts, S = game.tileset, game.tileset.max_segments
    t = row_tile(game, st, h, x, y)
    names = ts.slot_names[t][r] if t >= 0 and 0 <= r < 4 else ()
    fig = slot // S if slot >= 0 else 0
    figure = C.FIGURES[fig] if fig < len(C.FIGURES) else "figure"
    follower = (
        None
        if slot == C.NO_FOLLOWER
        else names[slot % S]
        if slot >= 0 and slot % S < len(names)
        else f"segment {slot}"
    )
    fmt = _fields(
        game, given[1], given[2], given[3], follower, ts.names[t] if t >= 0 else None, figure
    )
    fmt["decision"] = game.decision
    fmt["choices"] = game.legal_moves() if code == C.E_NOT_A_CHOICE else []
    return MESSAGES[code].format(**fmt)


@cache
def slot_labels(ts: TileSet, t: int, S: int) -> tuple:
    """[rotation][slot + 1] -> (follower location, figure) of tile type t's moves (slot:
    figure * S + segment, -1 none), for `Game.legal_moves`."""
    return tuple(
        ((None, "follower"),)
        + tuple(
            (names[slot % S] if slot % S < len(names) else None, C.FIGURES[slot // S])
            for slot in range(S * len(C.FIGURES))
        )
        for names in ts.slot_names[t]
    )
