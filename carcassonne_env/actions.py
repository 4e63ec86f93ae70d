"""Flat action indices for the environments: (hand tile, cell, rotation, follower slot).

The board is seen through a square window of `board_size` cells recentred on the placed
tiles every turn (`window_origin`); an action is

    index = (((hand * B + row) * B + col) * 4 + rotation) * SLOTS + slot

with B = board_size, hand = 0 unless the strategic variant's hand_size > 1, and slot 0 =
no follower, slot s + 1 = segment s of the tile in the tile data's order (cities, roads,
fields, monastery; see `TileSet.slot_names` for the board-frame names). SLOTS is the
largest segment count of the tile set plus one.
"""

from __future__ import annotations

import numpy as np

from .game import Game, Move


class ActionCodec:
    """Maps moves of games with fixed rules and tile set to flat action indices."""

    def __init__(self, game: Game, board_size: int = 32) -> None:
        if not isinstance(board_size, int) or board_size < 3:
            raise ValueError(f"board_size must be an integer >= 3, got {board_size!r}")
        self.board_size = board_size
        self.hand_size = game.rules.hand_size
        self.slots = game._ts.max_segments + 1
        self.n_actions = self.hand_size * board_size * board_size * 4 * self.slots

    def window_origin(self, game: Game) -> tuple[int, int]:
        """(x, y) of the window's top-left cell: the window is centred on the bounding box
        of the placed tiles (odd leftovers go east / south)."""
        x_min, y_min, x_max, y_max = game._bounding_box()
        half = (self.board_size - 1) // 2
        return (x_min + x_max) // 2 - half, (y_min + y_max) // 2 - half

    def mask(self, game: Game, out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
        """int8 mask of the legal actions, and the number of legal moves that fall outside
        the window (they have no index; 0 while the board fits)."""
        mask = np.zeros(self.n_actions, np.int8) if out is None else out
        mask[:] = 0
        index, inside = self._indices(game, game._legal_rows())
        mask[index[inside]] = 1
        return mask, int((~inside).sum())

    def _indices(self, game: Game, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        B = self.board_size
        x0, y0 = self.window_origin(game)
        h, x, y, r, slot = rows.T
        col, row = x - x0, y - y0
        inside = (col >= 0) & (col < B) & (row >= 0) & (row < B)
        index = (((h * B + row) * B + col) * 4 + r) * self.slots + slot + 1
        return index, inside

    def encode(self, game: Game, move: Move) -> int:
        """Action index of a legal move; ValueError if it is not legal or outside the
        window."""
        game.legal_moves()  # fills the game's cache: move -> core row
        row = game._legal.get(move)
        if row is None:
            raise ValueError(f"{move} is not a legal move (use its canonical follower name)")
        index, inside = self._indices(game, np.array([row], np.int64))
        if not inside[0]:
            raise ValueError(f"{move} lies outside the {self.board_size}-cell window")
        return int(index[0])

    def decode(self, game: Game, action: int) -> Move:
        """The move of an action index in the current state (not checked for legality)."""
        if not 0 <= action < self.n_actions:
            raise ValueError(f"action must be in [0, {self.n_actions}), got {action}")
        B = self.board_size
        rest, slot = divmod(int(action), self.slots)
        rest, r = divmod(rest, 4)
        rest, col = divmod(rest, B)
        h, row = divmod(rest, B)
        x0, y0 = self.window_origin(game)
        tile = game.hand[h] if h < len(game.hand) else None
        follower = None
        if slot > 0 and tile is not None:
            names = game._ts.slot_names[game._ts.index(tile)][r]
            follower = names[slot - 1] if slot - 1 < len(names) else f"segment:{slot - 1}"
        return Move(x0 + col, y0 + row, r, follower, tile if self.hand_size > 1 else None)
