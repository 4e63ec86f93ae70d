"""Helpers for the rule scenario tests: fixed tile orders and fixed move lists.

Coordinates follow docs/api.md: the start tile D (rotation 0: city N, road W-E) lies at
(0, 0), x grows east, y grows south. A move is a `Move` or a tuple
``(x, y, rotation, follower[, tile])``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from carcassonne_env import Game, Move, Rules

# Base-game draw pile (72 tiles minus the start tile D); scenarios never use more.
DECK = {
    "A": 2, "B": 4, "C": 1, "D": 3, "E": 5, "F": 2, "G": 1, "H": 3, "I": 2, "J": 3, "K": 3,
    "L": 3, "M": 2, "N": 3, "O": 2, "P": 3, "Q": 1, "R": 3, "S": 2, "T": 1, "U": 8, "V": 9,
    "W": 4, "X": 1,
}  # fmt: skip


def as_move(m: Move | tuple) -> Move:
    """A `Move` from a move tuple."""
    return m if isinstance(m, Move) else Move(*m)


def new_game(rules: Rules | None, tile_order: str) -> Game:
    """A game on a fixed tile order that the real deck can supply."""
    over = {t: n for t, n in Counter(tile_order).items() if n > DECK[t]}
    assert not over, f"scenario uses more tiles than the deck has: {over}"
    return Game(rules if rules is not None else Rules(), tile_order=tile_order)


def play(game: Game, moves: Iterable[Move | tuple]) -> Game:
    """Play the moves in order (each must be legal) and return the game."""
    for m in moves:
        game.play(as_move(m))
    return game


def run(rules: Rules | None, tile_order: str, moves: Iterable[Move | tuple]) -> Game:
    """New game on `tile_order`, then play `moves`."""
    return play(new_game(rules, tile_order), moves)


def snapshot(game: Game) -> dict[str, Any]:
    """Everything observable that an illegal move must leave untouched."""
    return {
        "scores": list(game.scores),
        "supply": list(game.followers_in_supply),
        "turn": game.turn,
        "player": game.current_player,
        "tile": game.current_tile,
        "board": dict(game.board),
        "legal": list(game.legal_moves()),
        "events": list(game.events),
        "discarded": list(game.discarded),
        "done": game.done,
    }


def followers_offered(game: Game, x: int, y: int, rotation: int) -> set[str | None]:
    """Follower locations `legal_moves()` offers for one placement of the current tile."""
    return {m.follower for m in game.legal_moves() if (m.x, m.y, m.rotation) == (x, y, rotation)}


def placements(game: Game) -> set[tuple[int, int, int]]:
    """Legal (x, y, rotation) placements of the current tile."""
    return {(m.x, m.y, m.rotation) for m in game.legal_moves()}


def scored(game: Game, kind: str | None = None, final: bool | None = None) -> list[tuple]:
    """Scoring events as ``(kind, tiles, points, majority, final)`` with sets/tuples sorted."""
    out = []
    for e in game.events:
        if (kind is None or e.kind == kind) and (final is None or bool(e.final) == final):
            out.append(
                (
                    e.kind,
                    frozenset(map(tuple, e.tiles)),
                    e.points,
                    tuple(sorted(e.majority)),
                    bool(e.final),
                )
            )
    return out


def assert_figures_conserved(game: Game, start: list[dict[str, int]]) -> None:
    """Every seat's figures of each kind in supply plus on the board equal `start`
    (`game.figures_in_supply` at the beginning): the expansions' figure invariant."""
    rules = game.rules
    on_board = [dict.fromkeys(rules.figures, 0) for _ in range(rules.seats)]
    for placed in game.board.values():
        if placed.follower is not None:
            on_board[placed.follower[0]][placed.figure] += 1
    for p in range(rules.seats):
        for f in rules.figures:
            assert game.figures_in_supply[p][f] + on_board[p][f] == start[p][f], (p, f)
