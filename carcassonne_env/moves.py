"""The values of the `Game` API (a `Move`, a tile on the board, a scoring, a scoring
choice, the error an illegal move raises) and the reading of a player's move: its fields
checked, turned into the core's row, and the reason when the rules refuse it."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from .checks import is_int
from .core import config as C
from .core.turn import check_move

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
        raise TypeError("a move is a Move (from legal_moves(), or Move(x, y, rotation, "
                        "follower=None, tile=None, figure='follower')) or a tuple of its "
                        f"fields, got {move!r}") from None


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
    for name, v in (("follower", follower), ("tile", tile)):
        if v is not None and not isinstance(v, str):
            raise IllegalMoveError(f"{name} must be None or a string, got {v!r}")


def resolve(game: Game, st: GameState, move: Move) -> list[int]:
    """The core row [hand index, x, y, rotation, slot] of `move` in `game` (whose state
    is `st`: passed by the game, which reading `Game.state` would mark as handed out),
    checked by the core; `IllegalMoveError` saying why if the rules do not allow it
    (`Game.play`'s path for a move its legal-move cache does not know; the fields' types
    already passed `check_move_types`)."""
    x, y, r = int(move.x), int(move.y), int(move.rotation)
    ts = game.tileset
    fmt = {"x": x, "y": y, "rotation": r, "follower": move.follower, "tile": move.tile,
           "seat": game.current_player,
           "figure": "large follower" if move.figure == "large" else move.figure,
           "where": ": a builder on a road or city, a pig on a field" if
           move.figure in ("builder", "pig") else ""}
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
        raise IllegalMoveError(
            f"the tile to place is {game.current_tile}, not {move.tile!r}"
        )
    t = st.hands[game.current_player, h] if game.rules.hand_size > 1 else st.sc[C.SC_TILE]
    fmt["tile"] = ts.names[t]
    slot = C.NO_FOLLOWER
    if move.figure not in game.rules.figures:
        raise IllegalMoveError(
            f"figure must be one of {list(game.rules.figures)} in this game, got "
            f"{move.figure!r}" + (
                " (the large follower comes with Inns & Cathedrals in full mode, not "
                "in solo)" if move.figure == "large" else
                " (builder and pig come with Traders & Builders in full mode, not in "
                "solo)" if move.figure in ("builder", "pig") else ""))
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
        raise IllegalMoveError(f"figure {move.figure!r} without a location: name one "
                               "in `follower`")
    code = check_move(st, ts.tables, h, x, y, r, slot)
    if code != C.OK:
        raise IllegalMoveError(MESSAGES[code].format(**fmt))
    return [h, x, y, r, slot]


def _resolve_choice(game: Game, st: GameState, move: Move, fmt: dict[str, Any]
                    ) -> list[int]:
    """Core arguments of a scoring choice (`decision` is not "place")."""
    ts = game.tileset
    x, y, r = fmt["x"], fmt["y"], fmt["rotation"]
    i = game.cell_index(x, y)
    slot = -2
    if i >= 0 and move.follower is not None and int(st.prot[i]) == r:
        slot = ts.slot_aliases[int(st.ptype[i])][r].get(move.follower, -2)
    if slot < 0 or check_move(st, ts.tables, 0, x, y, r, slot) != C.OK:
        raise IllegalMoveError(MESSAGES[C.E_NOT_A_CHOICE].format(
            decision=game.decision, choices=game.legal_moves(), **fmt))
    return [0, x, y, r, slot]


@cache
def slot_labels(ts: TileSet, t: int, S: int) -> tuple:
    """[rotation][slot + 1] -> (follower location, figure) of tile type t's moves (slot:
    figure * S + segment, -1 none), for `Game.legal_moves`."""
    return tuple(
        ((None, "follower"),) + tuple(
            (names[slot % S] if slot % S < len(names) else None, C.FIGURES[slot // S])
            for slot in range(S * len(C.FIGURES)))
        for names in ts.slot_names[t])
