"""Compact text picture of a board: 3x3 characters per tile, drawn from the tile data;
and `move_text`, a move in words (the replay page writes moves the same way).

    C city   - | road   . field   M monastery   * road junction   digit: a seat's follower
    seats 0-5: a-f large follower (Inns & Cathedrals), A-F builder, p-u pig (Traders &
    Builders)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.constants import CITY, HALF_EDGES, K_CITY, K_MONASTERY, K_ROAD, ROAD

if TYPE_CHECKING:
    from ..game import Game

LEGEND = (
    "C city, -| road, . field, M monastery, * junction, digit = follower of that seat; "
    "seats 0-5: a-f large follower, A-F builder, p-u pig"
)
_FIGURE_GLYPHS: dict[str | None, str] = {"large": "abcdef", "builder": "ABCDEF", "pig": "pqrstu"}
_EDGE_CELL = {"N": (0, 1), "E": (1, 2), "S": (2, 1), "W": (1, 0)}
# The corner nearest each half-edge.
_HALF_CELL = {
    "N_w": (0, 0),
    "N_e": (0, 2),
    "E_n": (0, 2),
    "E_s": (2, 2),
    "S_e": (2, 2),
    "S_w": (2, 0),
    "W_s": (2, 0),
    "W_n": (0, 0),
}
_CORNERS = ((0, 0, 3, 0), (0, 2, 0, 1), (2, 2, 1, 2), (2, 0, 2, 3))  # row, col, edge a, edge b


FIGURE_WORDS = {
    "follower": "follower",
    "large": "large follower",
    "builder": "builder",
    "pig": "pig",
}


def move_text(
    x: int,
    y: int,
    rotation: int,
    follower: str | None = None,
    tile: str | None = None,
    figure: str = "follower",
) -> str:
    """A move in words, as the replay page writes it (``moveText`` in view.html):
    ``(2, -1) rot 1, follower on the city (city:N)``; the figure and the feature its spot
    is on (the location's kind: city, road, field, monastery), the tile in brackets when
    the move names one (strategic hands): ``(0, 1) rot 0 [D], pig on the field
    (field:S_w)``. The arguments are a `Move`'s fields, in order: ``move_text(*move)``."""
    text = f"({x}, {y}) rot {rotation}" + (f" [{tile}]" if tile else "")
    if follower:
        text += f", {FIGURE_WORDS[figure]} on the {follower.split(':', 1)[0]} ({follower})"
    return text


def tile_glyph(game: Game, name: str, rotation: int) -> list[list[str]]:
    """3x3 characters of one tile (no follower)."""
    ts = game.tileset
    t = ts.index(name)
    tb = ts.tables
    code = int(tb.edge_code[t, rotation])
    ter = [(code >> (2 * e)) & 3 for e in range(4)]
    g = [["."] * 3 for _ in range(3)]
    for e, (row, col) in enumerate(_EDGE_CELL.values()):
        if ter[e] == CITY:
            g[row][col] = "C"
        elif ter[e] == ROAD:
            g[row][col] = "|" if e % 2 == 0 else "-"
    for row, col, a, b in _CORNERS:
        sa, sb = tb.edge_seg[t, rotation, a], tb.edge_seg[t, rotation, b]
        if ter[a] == CITY and sa == sb:
            g[row][col] = "C"
    kinds = [tb.seg_kind[t, s] for s in range(tb.n_seg[t])]
    roads = [int(tb.seg_edges[t, rotation, s]) for s, k in enumerate(kinds) if k == K_ROAD]
    cities = [int(tb.seg_edges[t, rotation, s]) for s, k in enumerate(kinds) if k == K_CITY]
    if K_MONASTERY in kinds:
        g[1][1] = "M"
    elif len(roads) >= 3:
        g[1][1] = "*"
    elif any(bin(m).count("1") == 2 for m in roads):
        m = next(m for m in roads if bin(m).count("1") == 2)
        g[1][1] = {0b0101: "|", 0b1010: "-"}.get(m, "+")
    elif any(bin(m).count("1") >= 2 for m in cities):
        g[1][1] = "C"
    return g


def _follower_cell(location: str) -> tuple[int, int]:
    kind, _, where = location.partition(":")
    if kind in ("city", "road"):
        return _EDGE_CELL[where]
    if kind == "field" and where in HALF_EDGES:
        return _HALF_CELL[where]
    return (1, 1)  # monastery, inner field


def render_board(game: Game) -> str:
    """The board as text with coordinates, followers, scores and the tile to place."""
    board = game.board
    xs = [x for x, _ in board]
    ys = [y for _, y in board]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    lines = ["     " + "".join(f"{x:^3d}" for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        rows = [[" "] * (3 * (x1 - x0 + 1)) for _ in range(3)]
        for x in range(x0, x1 + 1):
            placed = board.get((x, y))
            if placed is None:
                continue
            glyph = tile_glyph(game, placed.tile, placed.rotation)
            if placed.follower is not None:
                row, col = _follower_cell(placed.follower[1])
                seat = placed.follower[0]
                glyph[row][col] = _FIGURE_GLYPHS.get(placed.figure, "0123456789")[seat]
            for row in range(3):
                rows[row][3 * (x - x0) : 3 * (x - x0) + 3] = glyph[row]
        for row in range(3):
            label = f"{y:>4d} " if row == 1 else "     "
            lines.append(label + "".join(rows[row]).rstrip())
    status = f"scores {game.scores}, followers in supply {game.followers_in_supply}"
    for figure in game.rules.figures[1:]:
        status += f", {figure} {[s[figure] for s in game.figures_in_supply]}"
    if game.done:
        status += f"; game over ({game.end_reason}), result {game.result}"
    else:
        status += f"; turn {game.turn}, seat {game.current_player} to place {game.hand}"
    return "\n".join(lines + ["", status, LEGEND])


__all__ = ["LEGEND", "render_board", "tile_glyph"]
