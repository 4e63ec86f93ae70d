"""The values of the `Game` API: a `Move`, a tile on the board, a scoring, a scoring
choice, and the error an illegal move raises."""

from __future__ import annotations

from typing import NamedTuple


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
