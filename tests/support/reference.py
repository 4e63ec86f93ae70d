"""Deliberately naive pure-Python reference scorer for Carcassonne game records.

It exists only to cross-check the fast rules core. It shares no code with
``carcassonne_env`` except the tile data files, and it favours obviousness over speed:

* the board is a plain ``dict`` from ``(x, y)`` to a placed tile;
* after every move *every* feature on the board is rebuilt from scratch by flood fill
  (no union-find, no incremental bookkeeping), so a stale-state bug in the engine cannot
  be mirrored here;
* solo-variant scoring orders are found by exhaustive search over every order (keeping
  the best finishes of each intermediate state, see `solo_best`).

Expansions (rules ``"expansions"``, ``"expansion_mode"``): their tiles join the deck under
prefixed names (Inns & Cathedrals ``EA``..``EQ``, Traders & Builders ``TA``..``TX``). With
``"tiles_only"`` they play as ordinary tiles. With Inns & Cathedrals in ``"full"`` mode (the
default) a road with an inn scores 2 per tile when completed and 0 when still open at the
end, a city with a cathedral 3 per tile and per pennant when completed and 0 when open
(neither stacks), and outside the solo variant each player also has one large follower
(record key ``"figure": "large"``) that counts twice for majority but never for points.
With Traders & Builders in ``"full"`` mode (the default; outside the solo variant, where its
tiles play as ordinary tiles): the player who places the tile completing a city takes one
token per trade good symbol in it (rules ``"goods_from_unowned_city": false``: only if a
follower stands on the city), and at the end (after the farms) the most tokens of each
good (at least one) score 10, ties all; each player has one builder (``"builder"``, on a
road or city of the new tile where the player already has a follower; it never counts for
majority, and a tile of that player that extends the builder's feature in a normal turn
earns one extra turn, never a chain; it returns with the followers when its feature is
scored) and one pig (``"pig"``, on a field of the new tile where the player already has a
farmer; a player winning a field with their own pig scores ``farm_city_points + 1`` per
completed city, with 1st-edition farms for a city touched by any field holding it). Who
moves next is derived (rotation, extra turns, and with a hand skipped empty hands), never
read from the record.

Entry points: `replay_scores` (scores after each move), `replay_result`, `end_reason`,
`replay_game` (the final `RefGame`, with a few extra observations), `RefGame` (a live
game: `legal_moves`, `play`, `to_move`; given a tile order also `tiles_to_play`, the tile
drawn or the hand), `check_draws` (tile draw and discard order, seats; `end_problems` for
the end of an already replayed game) and `draw_pile` (the tiles
of a deck).
Each move's legality is checked on the way; a breach raises `ValueError`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

EDGES = ("N", "E", "S", "W")
HALF_EDGES = ("N_w", "N_e", "E_n", "E_s", "S_e", "S_w", "W_s", "W_n")
# x grows east, y grows south.
STEP = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
OPPOSITE = {"N": "S", "E": "W", "S": "N", "W": "E"}
# The half-edge of the neighbour that touches ours across the shared edge.
HALF_MATE = {
    "N_w": "S_w", "S_w": "N_w", "N_e": "S_e", "S_e": "N_e",
    "E_n": "W_n", "W_n": "E_n", "E_s": "W_s", "W_s": "E_s",
}  # fmt: skip
# The eight cells around a monastery.
RING = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0))
START = ("D", 0, 0, 0)  # tile, x, y, rotation of the start tile
# Expansion name -> (tile file, prefix of its tile names).
EXPANSION_FILES = {
    "inns_cathedrals": ("i_and_c_tiles.json", "E"),
    "traders_builders": ("t_and_b_tiles.json", "T"),
}
# Ordinary follower, Inns & Cathedrals' large follower, Traders & Builders' builder and pig.
FIGURES = ("follower", "large", "builder", "pig")
GOODS = ("wine", "grain", "cloth")  # Traders & Builders' trade goods


# --------------------------------------------------------------------------- tile data


@dataclass(frozen=True)
class Segment:
    """One segment of a placed tile, already rotated into the board frame.

    ``sides`` holds edges (``"N"``...) for cities and roads and half-edges (``"N_w"``...)
    for fields; it is empty for the monastery and for inner fields.
    ``cities`` (fields only) are indices, on the same tile, of the city segments the field
    touches.
    """

    kind: str  # "city" | "road" | "field" | "monastery"
    sides: tuple[str, ...]
    pennants: int = 0
    cities: tuple[int, ...] = ()
    inner: bool = False
    inn: bool = False  # a road segment with an inn (Inns & Cathedrals)
    cathedral: bool = False  # a city segment with a cathedral (Inns & Cathedrals)
    good: str | None = None  # a city segment's trade good symbol (Traders & Builders)


def tile_data(name: str = "base_tiles.json") -> dict[str, Any]:
    """A tile data file shipped in the package (``carcassonne_env/data/``), parsed."""
    return json.loads(
        resources.files("carcassonne_env").joinpath(f"data/{name}").read_text("utf-8")
    )


@cache
def tile_types() -> dict[str, dict[str, Any]]:
    """Base tile letter -> raw JSON entry."""
    return {t["letter"]: t for t in tile_data()["tiles"]}


@cache
def expansion_types(expansion: str) -> dict[str, dict[str, Any]]:
    """Tile name (prefix + letter, e.g. ``"EK"``) -> raw JSON entry of one expansion."""
    name, prefix = EXPANSION_FILES[expansion]
    return {prefix + t["letter"]: t for t in tile_data(name)["tiles"]}


@cache
def all_tile_types() -> dict[str, dict[str, Any]]:
    """Every known tile name (base letters and prefixed expansion names) -> JSON entry."""
    out = dict(tile_types())
    for expansion in EXPANSION_FILES:
        out.update(expansion_types(expansion))
    return out


def draw_pile(expansions: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Every tile of the game except the start tile D, in data order."""
    types = dict(tile_types())
    for expansion in expansions:
        types.update(expansion_types(expansion))
    pile = [name for name, t in types.items() for _ in range(t["count"])]
    pile.remove(START[0])
    return pile


def rotate_edge(edge: str, rotation: int) -> str:
    """Rotate an edge name clockwise by ``rotation`` quarter turns."""
    return EDGES[(EDGES.index(edge) + rotation) % 4]


def rotate_half(half: str, rotation: int) -> str:
    """Rotate a half-edge name clockwise by ``rotation`` quarter turns (index + 2 each)."""
    return HALF_EDGES[(HALF_EDGES.index(half) + 2 * rotation) % 8]


@cache
def segments(letter: str, rotation: int) -> tuple[Segment, ...]:
    """All segments of a tile in the board frame: cities, roads, fields, monastery."""
    raw = all_tile_types()[letter]
    city_ids = [c["id"] for c in raw["cities"]]
    out = [
        Segment(
            "city",
            tuple(rotate_edge(e, rotation) for e in c["edges"]),
            c["pennants"],
            cathedral=bool(c.get("cathedral")),
            good=c.get("trade_good"),
        )
        for c in raw["cities"]
    ]
    out += [
        Segment("road", tuple(rotate_edge(e, rotation) for e in r["edges"]), inn=bool(r.get("inn")))
        for r in raw["roads"]
    ]
    for f in raw["fields"]:
        halves = tuple(rotate_half(h, rotation) for h in f["half_edges"])
        near = tuple(city_ids.index(c) for c in f["adjacent_cities"])
        inner = bool(f.get("inner")) or not halves  # no tile edge: an enclosed field
        out.append(Segment("field", halves, cities=near, inner=inner))
    if raw["monastery"]:
        out.append(Segment("monastery", ()))
    return tuple(out)


@cache
def edge_terrain(letter: str, rotation: int, edge: str) -> str:
    """Terrain ("city"/"road"/"field") on ``edge`` of a rotated tile."""
    unrotated = EDGES[(EDGES.index(edge) - rotation) % 4]
    return all_tile_types()[letter]["edges"][unrotated]


def locate(letter: str, rotation: int, location: str) -> int:
    """Index of the segment a follower location (board frame) names on a rotated tile."""
    segs = segments(letter, rotation)
    if location == "monastery":
        hits = [i for i, s in enumerate(segs) if s.kind == "monastery"]
    elif location == "field:inner":
        hits = [i for i, s in enumerate(segs) if s.kind == "field" and s.inner]
    else:
        kind, side = location.split(":")
        hits = [i for i, s in enumerate(segs) if s.kind == kind and side in s.sides]
    if len(hits) != 1:
        raise ValueError(f"location {location!r} names {len(hits)} segments on {letter}/{rotation}")
    return hits[0]


# --------------------------------------------------------------------------- board state


@dataclass
class Board:
    """Placed tiles and standing followers; nothing else is remembered between moves."""

    tiles: dict[tuple[int, int], tuple[str, int]] = field(default_factory=dict)
    # (x, y) -> (seat, segment index, figure); at most one figure per tile (one per move);
    # figure is "follower", "large" (Inns & Cathedrals' large follower), "builder" or "pig"
    # (Traders & Builders).
    followers: dict[tuple[int, int], tuple[int, int, str]] = field(default_factory=dict)

    def segs(self, pos: tuple[int, int]) -> tuple[Segment, ...]:
        """Segments of the tile at ``pos``."""
        return segments(*self.tiles[pos])


@dataclass
class Feature:
    """A road, city, field or monastery as found by flood fill."""

    kind: str
    nodes: set[tuple[int, int, int]]  # (x, y, segment index)
    tiles: set[tuple[int, int]]
    complete: bool
    pennants: int = 0
    inn: bool = False  # a road with at least one inn
    cathedral: bool = False  # a city with at least one cathedral
    goods: tuple[str, ...] = ()  # the trade good symbols of its segments, one per symbol

    def followers(self, board: Board) -> list[int]:
        """Seats of the followers standing on this feature, one entry per follower and two
        per large follower (it counts as two followers for the majority). Builders and
        pigs are no followers: they never count."""
        return [
            seat
            for pos, (seat, seg, figure) in board.followers.items()
            if (pos[0], pos[1], seg) in self.nodes and figure in ("follower", "large")
            for _ in range(2 if figure == "large" else 1)
        ]

    def holds(self, board: Board, seat: int, figure: str) -> bool:
        """Whether a figure of that kind of ``seat`` stands on this feature."""
        return any(
            s == seat and f == figure and (pos[0], pos[1], seg) in self.nodes
            for pos, (s, seg, f) in board.followers.items()
        )


def linked(board: Board, node: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """Segments of neighbouring tiles that the segment ``node`` joins across its sides."""
    x, y, i = node
    seg = board.segs((x, y))[i]
    out = []
    for side in seg.sides:
        edge = side[0]
        dx, dy = STEP[edge]
        other = (x + dx, y + dy)
        if other not in board.tiles:
            continue
        want = HALF_MATE[side] if seg.kind == "field" else OPPOSITE[edge]
        for j, s in enumerate(board.segs(other)):
            if s.kind == seg.kind and want in s.sides:
                out.append((other[0], other[1], j))
    return out


def open_sides(board: Board, node: tuple[int, int, int]) -> int:
    """How many sides of a segment face an empty cell."""
    x, y, i = node
    seg = board.segs((x, y))[i]
    count = 0
    for side in seg.sides:
        dx, dy = STEP[side[0]]
        count += (x + dx, y + dy) not in board.tiles
    return count


def flood(board: Board, start: tuple[int, int, int]) -> Feature:
    """The whole feature containing segment ``start`` (road, city or field)."""
    kind = board.segs(start[:2])[start[2]].kind
    seen = {start}
    todo = [start]
    while todo:
        node = todo.pop()
        for nxt in linked(board, node):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    complete = all(open_sides(board, n) == 0 for n in seen)
    segs = [board.segs(n[:2])[n[2]] for n in seen]
    pennants = sum(s.pennants for s in segs)
    return Feature(
        kind,
        seen,
        {n[:2] for n in seen},
        complete,
        pennants,
        inn=any(s.inn for s in segs),
        cathedral=any(s.cathedral for s in segs),
        goods=tuple(s.good for s in segs if s.good),
    )


def monastery_feature(board: Board, pos: tuple[int, int], index: int) -> Feature:
    """A monastery: its own tile plus whichever of the 8 surrounding cells hold tiles."""
    x, y = pos
    around = {(x + dx, y + dy) for dx, dy in RING if (x + dx, y + dy) in board.tiles}
    return Feature("monastery", {(x, y, index)}, {pos} | around, len(around) == 8)


def all_features(board: Board, kinds: tuple[str, ...]) -> list[Feature]:
    """Every feature of the given kinds, rebuilt from scratch."""
    found: list[Feature] = []
    seen: set[tuple[int, int, int]] = set()
    for pos in board.tiles:
        for i, seg in enumerate(board.segs(pos)):
            node = (pos[0], pos[1], i)
            if seg.kind not in kinds or node in seen:
                continue
            if seg.kind == "monastery":
                found.append(monastery_feature(board, pos, i))
            else:
                feature = flood(board, node)
                seen |= feature.nodes
                found.append(feature)
    return found


def features_at(board: Board, pos: tuple[int, int], kinds: tuple[str, ...]) -> list[Feature]:
    """The features of the given kinds (not monasteries) with a segment on the tile at
    ``pos``: those of `all_features` whose tiles include ``pos``, in its order (each
    feature's first segment in placement order, then segment order)."""
    found: list[Feature] = []
    for i, seg in enumerate(board.segs(pos)):
        if seg.kind in kinds and not any((pos[0], pos[1], i) in f.nodes for f in found):
            found.append(flood(board, (pos[0], pos[1], i)))
    placed = {p: k for k, p in enumerate(board.tiles)}
    return sorted(found, key=lambda f: min((placed[n[:2]], n[2]) for n in f.nodes))


def feature_of(board: Board, node: tuple[int, int, int]) -> Feature:
    """The feature (any kind) that contains one segment."""
    seg = board.segs(node[:2])[node[2]]
    if seg.kind == "monastery":
        return monastery_feature(board, node[:2], node[2])
    return flood(board, node)


def majority(seats: list[int]) -> list[int]:
    """Seats with the most followers (all of them on a tie); empty if nobody."""
    counts = Counter(seats)
    if not counts:
        return []
    top = max(counts.values())
    return sorted(s for s, c in counts.items() if c == top)


# --------------------------------------------------------------------------- scoring values


def inns_cathedrals(rules: dict[str, Any]) -> bool:
    """Inns & Cathedrals is played with its rules (inns, cathedrals, large follower)."""
    return (
        "inns_cathedrals" in rules.get("expansions", ())
        and rules.get("expansion_mode", "full") == "full"
    )


def traders_builders(rules: dict[str, Any]) -> bool:
    """Traders & Builders is played with its rules (goods, builder, pig): full mode, and
    not in the solo variant (there its tiles play as ordinary tiles)."""
    return (
        "traders_builders" in rules.get("expansions", ())
        and rules.get("expansion_mode", "full") == "full"
        and rules.get("variant", "standard") != "solo"
    )


def completed_value(feature: Feature, small_city: bool, ic: bool = False) -> int:
    """Points for a feature completed during the game (``ic``: Inns & Cathedrals rules)."""
    if feature.kind == "road":
        return (2 if ic and feature.inn else 1) * len(feature.tiles)
    if feature.kind == "monastery":
        return 9
    if ic and feature.cathedral:  # before the small-city rule
        return 3 * len(feature.tiles) + 3 * feature.pennants
    if small_city and len(feature.tiles) == 2:
        return 2 + feature.pennants  # old rule: a 2-tile city scores 1/tile, 1/pennant
    return 2 * len(feature.tiles) + 2 * feature.pennants


def incomplete_value(feature: Feature, ic: bool = False) -> int:
    """Points for a feature still open at the end of a standard game (``ic``: Inns &
    Cathedrals rules: an open road with an inn or city with a cathedral scores 0)."""
    if ic and (feature.inn or feature.cathedral):
        return 0
    if feature.kind == "city":
        return len(feature.tiles) + feature.pennants
    return len(feature.tiles)  # road: 1/tile; monastery: itself + neighbours


def farm_points(board: Board, rules: dict[str, Any]) -> list[int]:
    """End-of-game farmer points per seat, both editions (pigs included)."""
    return farm_scores(board, rules)[0]


def farm_scores(board: Board, rules: dict[str, Any]) -> tuple[list[int], list[int]]:
    """End-of-game farmer points per seat, both editions, and the part of them that the
    seats' pigs added (one point per city a pig's owner scores with a pig there)."""
    seats = num_seats(rules)
    points = [0] * seats
    pig_points = [0] * seats
    cities = all_features(board, ("city",))
    city_at = {n: k for k, c in enumerate(cities) for n in c.nodes}
    fields = all_features(board, ("field",))
    per = rules.get("farm_city_points", 3)

    def touched(farm: Feature) -> set[int]:
        """Indices of the completed cities a field touches anywhere along it."""
        out = set()
        for x, y, i in farm.nodes:
            for c in board.segs((x, y))[i].cities:
                k = city_at[(x, y, c)]
                if cities[k].complete:
                    out.add(k)
        return out

    if rules.get("farm_scoring", "field") == "field":
        for farm in fields:
            for seat in majority(farm.followers(board)):
                pig = farm.holds(board, seat, "pig")
                points[seat] += (per + pig) * len(touched(farm))
                pig_points[seat] += pig * len(touched(farm))
        return points, pig_points
    # 1st edition: every completed city goes once to whoever has most farmers in all the
    # distinct fields touching it; a pig of such a seat in any of those fields adds 1.
    farmers_near: dict[int, list[int]] = {}
    pigs_near: dict[int, set[int]] = {}
    for farm in fields:
        pigs = {s for s in range(seats) if farm.holds(board, s, "pig")}
        for k in touched(farm):
            farmers_near.setdefault(k, []).extend(farm.followers(board))
            pigs_near.setdefault(k, set()).update(pigs)
    for k, seats_near in farmers_near.items():
        for seat in majority(seats_near):
            pig = seat in pigs_near[k]
            points[seat] += per + pig
            pig_points[seat] += pig
    return points, pig_points


# --------------------------------------------------------------------------- solo ordering


def solo_outcomes(
    scores: tuple[int, ...], items: tuple[tuple[tuple[int, ...], int], ...]
) -> set[tuple[int, ...]]:
    """Every score vector reachable by scoring ``items`` one at a time in some order.

    Each item is ``(majority colours, points)``: it pays its colours only if one of them
    is lowest right before it is scored. Exhaustive over orders (memoised on the multiset
    of items left and the scores, which is all the future depends on).
    """

    @cache
    def go(left: tuple, now: tuple[int, ...]) -> frozenset:
        if not left:
            return frozenset([now])
        out: set = set()
        for rest, nxt in _solo_steps(left, now):
            out |= go(rest, nxt)
        return frozenset(out)

    return set(go(tuple(sorted(items)), tuple(scores)))


def _solo_steps(left: tuple, now: tuple[int, ...]):
    """Every (items left, scores) after scoring one more of `left` next: its points go to
    its colours if one of them is a lowest colour now. Identical items are tried once."""
    for k, item in enumerate(left):
        if item in left[:k]:
            continue
        colours, pts = item
        nxt = list(now)
        if any(now[c] == min(now) for c in colours):
            for c in colours:
                nxt[c] += pts
        yield left[:k] + left[k + 1 :], tuple(nxt)


def best_outcomes(outcomes: set[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The outcomes with the highest lowest score, then the highest sum (sorted)."""
    best = max((min(o), sum(o)) for o in outcomes)
    return sorted(o for o in outcomes if (min(o), sum(o)) == best)


def solo_best(
    scores: tuple[int, ...], items: tuple[tuple[tuple[int, ...], int], ...]
) -> list[tuple[int, ...]]:
    """``best_outcomes(solo_outcomes(scores, items))``, without listing every outcome.

    Still tries every order, but each state keeps only its best finishes: the goal depends
    on the final scores alone, so the best finishes of a state are the best among the best
    finishes of its successors; and states that differ by a constant on every score share
    one search. (Many followers left at a solo game's end make the full outcome sets large.)
    """

    @cache
    def go(left: tuple, now: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        if not left:
            return (now,)
        low = min(now)
        if low:  # only score differences matter: solve from min 0 and shift back
            return tuple(tuple(v + low for v in o) for o in go(left, tuple(v - low for v in now)))
        found: set[tuple[int, ...]] = set()
        for rest, nxt in _solo_steps(left, now):
            found.update(go(rest, nxt))
        return tuple(best_outcomes(found))

    return list(go(tuple(sorted(items)), tuple(scores)))


# --------------------------------------------------------------------------- replay


def num_seats(rules: dict[str, Any]) -> int:
    """Scoring seats: players, or colours in the solo variant."""
    if rules.get("variant", "standard") == "solo":
        return rules.get("solo_colours", 3)
    players = rules.get("players")
    return 2 if players is None else players


def supply_size(rules: dict[str, Any]) -> int:
    """Followers per seat."""
    if rules.get("followers") is not None:
        return rules["followers"]
    return 4 if rules.get("variant") == "solo" else 7


def large_size(rules: dict[str, Any]) -> int:
    """Large followers per seat: one with Inns & Cathedrals in full mode, none in solo."""
    return int(inns_cathedrals(rules) and rules.get("variant", "standard") != "solo")


def figure_size(rules: dict[str, Any], figure: str) -> int:
    """How many figures of a kind each seat starts with: followers, one large follower
    (Inns & Cathedrals), one builder and one pig (Traders & Builders); none in solo."""
    if figure == "follower":
        return supply_size(rules)
    if figure == "large":
        return large_size(rules)
    if figure in ("builder", "pig"):
        return int(traders_builders(rules))
    raise ValueError(f"unknown figure {figure!r}")


def figures(rules: dict[str, Any]) -> tuple[str, ...]:
    """The figure kinds a move may name under these rules (the follower always)."""
    return tuple(f for f in FIGURES if f == "follower" or figure_size(rules, f))


def placement_error(board: Board, letter: str, x: int, y: int, rotation: int) -> str | None:
    """Why the tile cannot go there (occupied, no neighbour, edge mismatch), or None."""
    if (x, y) in board.tiles:
        return f"cell {(x, y)} is occupied"
    if rotation not in (0, 1, 2, 3):
        return f"bad rotation {rotation}"
    neighbours = 0
    for edge, (dx, dy) in STEP.items():
        other = (x + dx, y + dy)
        if other in board.tiles:
            neighbours += 1
            mine = edge_terrain(letter, rotation, edge)
            theirs = edge_terrain(*board.tiles[other], OPPOSITE[edge])
            if mine != theirs:
                return f"{letter}/{rotation} at {(x, y)}: {edge} {mine} != {theirs}"
    return None if neighbours else f"{letter} at {(x, y)} touches no tile"


def _placements(board: Board, letter: str) -> Iterator[tuple[int, int, int]]:
    cells = {
        (x + dx, y + dy)
        for x, y in board.tiles
        for dx, dy in STEP.values()
        if (x + dx, y + dy) not in board.tiles
    }
    for x, y in sorted(cells):
        for r in range(4):
            if placement_error(board, letter, x, y, r) is None:
                yield x, y, r


def placements(board: Board, letter: str) -> list[tuple[int, int, int]]:
    """Every legal (x, y, rotation) for a tile: all empty cells next to a tile, 4 turns."""
    return list(_placements(board, letter))


def placeable(board: Board, letter: str) -> bool:
    """Whether the tile has a legal placement (`placements` stops at the first)."""
    return next(_placements(board, letter), None) is not None


def free_spots(board: Board, pos: tuple[int, int], solo: bool) -> list[int]:
    """Segments of the tile at ``pos`` whose feature holds no follower (no fields in solo).

    The tile is already on the board, so each feature is the one *after* the tile joined
    it: another segment of the same tile may link it to an occupied feature elsewhere.
    """
    out = []
    for i, seg in enumerate(board.segs(pos)):
        if solo and seg.kind == "field":
            continue
        if not feature_of(board, (pos[0], pos[1], i)).followers(board):
            out.append(i)
    return out


# Where a builder and a pig may go: segments of these kinds whose feature already holds
# one of the mover's own followers (farmers for the pig).
OWN_KINDS = {"builder": ("road", "city"), "pig": ("field",)}


def own_spots(board: Board, pos: tuple[int, int], seat: int, figure: str) -> list[int]:
    """Segments of the tile at ``pos`` where ``seat`` may put its builder or pig: of the
    figure's kinds, on a feature (after the tile joined it) with a follower of ``seat``."""
    return [
        i
        for i, seg in enumerate(board.segs(pos))
        if seg.kind in OWN_KINDS[figure]
        and seat in feature_of(board, (pos[0], pos[1], i)).followers(board)
    ]


def canonical(seg: Segment) -> str:
    """The follower location name docs/api.md gives a segment: its first side in order."""
    if seg.kind == "monastery":
        return "monastery"
    if seg.inner:
        return "field:inner"
    order = HALF_EDGES if seg.kind == "field" else EDGES
    return f"{seg.kind}:{min(seg.sides, key=order.index)}"


def completed_now(board: Board, pos: tuple[int, int]) -> list[Feature]:
    """Roads, cities and monasteries completed by the tile just placed at ``pos``."""
    done = [f for f in features_at(board, pos, ("road", "city")) if f.complete]
    x, y = pos
    for dx, dy in ((0, 0),) + RING:
        here = (x + dx, y + dy)
        if here not in board.tiles:
            continue
        for i, seg in enumerate(board.segs(here)):
            if seg.kind == "monastery":
                feature = monastery_feature(board, here, i)
                if feature.complete:  # it was not before: `pos` was empty
                    done.append(feature)
    return done


def remove_followers(board: Board, feature: Feature) -> None:
    """Send every follower on a feature back to its owner's supply."""
    for pos, (_, seg, _) in list(board.followers.items()):
        if (pos[0], pos[1], seg) in feature.nodes:
            del board.followers[pos]


def move_follower(move: dict[str, Any]) -> str | None:
    """The follower location of a recorded move (a string, or ``[seat, location]``)."""
    follower = move.get("follower")
    if follower is None or isinstance(follower, str):
        return follower
    if isinstance(follower, dict):
        return follower["location"]
    return follower[1]


def move_figure(move: dict[str, Any]) -> str:
    """The figure of a recorded move: ``"figure"`` (absent: an ordinary follower)."""
    follower = move.get("follower")
    if isinstance(follower, dict) and "figure" in follower:
        return follower["figure"]
    return move.get("figure") or "follower"


class RefGame:
    """Naive game state, advanced one recorded move at a time.

    It checks each move's legality on the way (the seat to move, placement, figure
    supplies, occupied features, where a builder or pig may go, solo compulsory followers)
    and raises `ValueError` on a breach. Given the game's ``tile_order`` it also deals the
    tiles (one deck; solo: a stack per colour; ``hand_size`` > 1: hands) and checks that
    each move places the tile drawn (or one of the hand), discarding unplaceable draws
    into ``discarded``.

    Who moves is derived, never read from the record (`to_move`): seats take turns, a
    builder's extra turn keeps the seat, and with a hand a seat whose hand is empty is
    skipped (only known with the tile order; without it the record's seat is taken as is).
    """

    def __init__(self, rules: dict[str, Any], tile_order: list[str] | None = None):
        self.rules = dict(rules)
        self.solo = self.rules.get("variant", "standard") == "solo"
        self.ic = inns_cathedrals(self.rules)
        self.tb = traders_builders(self.rules)
        self.seats = num_seats(self.rules)
        self.hand_size = 1 if self.solo else self.rules.get("hand_size", 1)
        self.board = Board()
        self.board.tiles[START[1:3]] = (START[0], START[3])
        self.scores = list(range(1, self.seats + 1)) if self.solo else [0] * self.seats
        self.turn = 0
        # Trade goods tokens per seat (Traders & Builders).
        self.goods = [dict.fromkeys(GOODS, 0) for _ in range(self.seats)]
        self.to_move = 0  # the seat that moves next
        self.extra = False  # the next move is a builder's extra turn
        self.extra_turns: list[int] = []  # moves that were extra turns
        self.pig_points = [0] * self.seats  # farm points the pigs added at the end
        # Turns where equally good solo scoring orders gave different score vectors (the
        # rules leave that choice to the player).
        self.ambiguous: list[int] = []
        # Solo: turns after which a compulsory follower could not be placed (end A).
        self.solo_end_a: list[int] = []
        self.history: list[list[int]] = []  # scores after each move (filled by replay_game)
        # The tiles, when the tile order is known: draw stacks (one shared deck, or one per
        # solo colour), hands (hand_size > 1, else None), tiles discarded as unplaceable.
        self.stacks: list[list[str]] | None = None
        self.hands: list[list[str]] | None = None
        self.discarded: list[str] = []
        if tile_order is not None:
            order = list(tile_order)
            if self.solo:
                self.stacks = [order[c :: self.seats] for c in range(self.seats)]
            elif self.hand_size == 1:
                self.stacks = [order]
            else:
                h = self.hand_size
                self.hands = [order[h * p : h * p + h] for p in range(self.seats)]
                self.stacks = [order[h * self.seats :]]

    def result(self) -> list[int] | int:
        """Final result of a finished game: the scores, or the lowest colour's score (solo)."""
        return min(self.scores) if self.solo else list(self.scores)

    def end_reason(self) -> str:
        """Why a finished game ended: ``"tiles"``, or in solo ``"A"`` / ``"B"``."""
        if not self.solo:
            return "tiles"
        return "A" if self.turn - 1 in self.solo_end_a else "B"

    def supply(self, seat: int, figure: str = "follower") -> int:
        """Figures of a kind (default: ordinary followers) the seat still has in hand."""
        on_board = sum(1 for s, _, f in self.board.followers.values() if s == seat and f == figure)
        return figure_size(self.rules, figure) - on_board

    # ----------------------------------------------------------------------- tiles

    def tiles_to_play(self) -> list[str]:
        """The tiles the seat to move may place (the tile drawn, or its hand), after
        discarding unplaceable draws; [] once the tiles are used up (the game is over).

        With a hand: at the start of a seat's turn its unplaceable tiles are discarded and
        replaced from the deck until all fit (or the deck is empty); a seat left with an
        empty hand is skipped (`to_move` moves on, an extra turn is lost). Needs the tile
        order (``RefGame(rules, tile_order)``).
        """
        if self.stacks is None:
            raise ValueError("the tiles are unknown: RefGame was made without a tile order")
        if self.hands is None:
            stack = self.stacks[self.to_move if self.solo else 0]
            while stack and not placeable(self.board, stack[0]):
                self.discarded.append(stack.pop(0))
            return stack[:1]
        deck = self.stacks[0]
        for _ in range(self.seats):
            hand = self.hands[self.to_move]
            while bad := [t for t in hand if not placeable(self.board, t)]:
                for letter in bad:
                    hand.remove(letter)
                    self.discarded.append(letter)
                while len(hand) < self.hand_size and deck:
                    hand.append(deck.pop(0))
            if hand:
                return list(hand)
            self.to_move = (self.to_move + 1) % self.seats  # nothing to play: skipped
            self.extra = False
        return []

    def _take_tile(self, letter: str) -> None:
        """Check that the move places a tile it may (tile order known) and take it."""
        if self.stacks is None:
            return
        tiles = self.tiles_to_play()
        if letter not in tiles:
            raise ValueError(f"move {self.turn}: drew {tiles} but placed {letter}")
        if self.hands is None:
            self.stacks[self.to_move if self.solo else 0].pop(0)
            return
        hand = self.hands[self.to_move]
        hand.remove(letter)
        if self.stacks[0]:  # the replacement, drawn right after placing
            hand.append(self.stacks[0].pop(0))

    # ----------------------------------------------------------------------- moves

    def follower_options(self, pos: tuple[int, int], seat: int) -> list[tuple[str | None, str]]:
        """Legal (location, figure) choices on the tile just placed at ``pos``: (None,
        "follower") places nothing; each free segment once per follower kind in supply
        (ordinary, large); the builder on each road or city segment, the pig on each field
        segment, whose feature holds a follower of ``seat`` (while in supply)."""
        segs = self.board.segs(pos)
        kinds = [f for f in ("follower", "large") if self.supply(seat, f) > 0]
        spots = free_spots(self.board, pos, self.solo) if kinds else []
        names = [(canonical(segs[i]), f) for i in spots for f in kinds]
        if self.solo and names:
            return names  # compulsory
        for figure in OWN_KINDS:
            if self.supply(seat, figure) > 0:
                spots = own_spots(self.board, pos, seat, figure)
                names += [(canonical(segs[i]), figure) for i in spots]
        return [(None, "follower")] + names

    def legal_moves(self, letter: str, seat: int) -> set[tuple[int, int, int, str | None, str]]:
        """Every legal (x, y, rotation, follower location, figure) for ``letter``, found
        by trying them all (figure "follower" also when no follower is placed, like the
        engine's `Move`)."""
        out = set()
        for x, y, r in placements(self.board, letter):
            self.board.tiles[(x, y)] = (letter, r)
            out |= {(x, y, r, loc, fig) for loc, fig in self.follower_options((x, y), seat)}
            del self.board.tiles[(x, y)]
        return out

    def play(self, move: dict[str, Any], last: bool = False, hint: list[int] | None = None):
        """Apply one recorded move; ``last`` adds the end-of-game scoring.

        ``hint`` (the recorded scores after the move) only breaks ties between equally
        good solo scoring orders.
        """
        seat, pos, letter = move["player"], (move["x"], move["y"]), move["tile"]
        if self.stacks is None and self.hand_size > 1:
            self.to_move = seat  # hands unknown: skipped seats cannot be derived
        self._take_tile(letter)  # (may skip seats with an empty hand)
        if seat != self.to_move:
            raise ValueError(f"move {self.turn}: seat {seat} moved, seat {self.to_move} was to")
        error = placement_error(self.board, letter, *pos, move["rotation"])
        if error:
            raise ValueError(f"move {self.turn}: {error}")
        self.board.tiles[pos] = (letter, move["rotation"])
        if self.extra:
            self.extra_turns.append(self.turn)
        # A builder's extra turn: the tile (before this move's own figure) extends a road or
        # city holding the mover's builder, and this move is not an extra turn itself.
        earned = self.tb and not self.extra and self._extends_builder(seat, pos)
        loc, figure = move_follower(move), move_figure(move)
        if loc is not None:
            self._place_follower(seat, pos, loc, figure)
        elif figure != "follower":
            raise ValueError(f"move {self.turn}: figure {figure!r} without a location")
        elif self.solo and free_spots(self.board, pos, True):
            if self.supply(seat) > 0:
                raise ValueError(f"move {self.turn}: a follower was compulsory (solo)")
            self.solo_end_a.append(self.turn)
        done = completed_now(self.board, pos)
        if self.tb:  # the completer takes the goods of every city it completes (with
            # goods_from_unowned_city=False, BGA's way, only of a city with a follower on it)
            unowned_too = self.rules.get("goods_from_unowned_city", True)
            for feature in done:
                if feature.kind == "city" and (unowned_too or feature.followers(self.board)):
                    for good in feature.goods:
                        self.goods[seat][good] += 1
        items = self._complete(done)
        if not self.solo:
            for owners, pts in items:
                for s in owners:
                    self.scores[s] += pts
            if last:
                self._final_standard()
        elif not last:
            self.scores = self._pick(solo_best(tuple(self.scores), items), hint)
        else:
            self._solo_last(items, hint)
        self.extra = bool(earned)
        self.to_move = seat if earned else (seat + 1) % self.seats
        self.turn += 1
        return list(self.scores)

    def _extends_builder(self, seat: int, pos: tuple[int, int]) -> bool:
        """Whether a road or city segment of the tile at ``pos`` joins a feature holding
        the builder of ``seat``."""
        return any(
            seg.kind in OWN_KINDS["builder"]
            and feature_of(self.board, (pos[0], pos[1], i)).holds(self.board, seat, "builder")
            for i, seg in enumerate(self.board.segs(pos))
        )

    def _place_follower(
        self, seat: int, pos: tuple[int, int], loc: str, figure: str = "follower"
    ) -> None:
        """Put a figure on the new tile, checking supply and where it may go: a follower
        (ordinary or large) on an empty feature, a builder or pig where the seat already
        has a follower."""
        if figure not in FIGURES:
            raise ValueError(f"move {self.turn}: unknown figure {figure!r}")
        if self.supply(seat, figure) <= 0:
            what = "large follower" if figure == "large" else figure
            raise ValueError(f"move {self.turn}: seat {seat} has no {what} left")
        index = locate(*self.board.tiles[pos], loc)
        if self.solo and self.board.segs(pos)[index].kind == "field":
            raise ValueError(f"move {self.turn}: no farmers in the solo variant")
        if figure in OWN_KINDS:
            if index not in own_spots(self.board, pos, seat, figure):
                raise ValueError(
                    f"move {self.turn}: a {figure} goes on a {'/'.join(OWN_KINDS[figure])} "
                    f"where seat {seat} already has a follower, not {pos} {loc}"
                )
        elif index not in free_spots(self.board, pos, self.solo):
            raise ValueError(f"move {self.turn}: feature at {pos} {loc} is already occupied")
        self.board.followers[pos] = (seat, index, figure)

    def _complete(self, done: list[Feature]) -> tuple[tuple[tuple[int, ...], int], ...]:
        """(majority seats, points) of each completed feature; its followers (and builder)
        go home."""
        small = bool(self.rules.get("small_city", False))
        items = []
        for feature in done:
            owners = majority(feature.followers(self.board))
            if owners:
                items.append((tuple(owners), completed_value(feature, small, self.ic)))
            remove_followers(self.board, feature)
        return tuple(items)

    def _pick(self, options: list[tuple[int, ...]], hint: list[int] | None) -> list[int]:
        """The best solo outcome; among equally good ones the record's own choice."""
        if len(options) > 1:
            self.ambiguous.append(self.turn)
            if hint is not None and tuple(hint) in options:
                return list(hint)
        return list(options[0])

    def _final_standard(self) -> None:
        """End of a standard game: open roads, cities, monasteries, then farms (pigs
        included), then the trade goods majorities."""
        for feature in all_features(self.board, ("road", "city", "monastery")):
            if feature.complete:
                continue  # scored when it was completed; no follower is left there
            for seat in majority(feature.followers(self.board)):
                self.scores[seat] += incomplete_value(feature, self.ic)
            remove_followers(self.board, feature)
        points, self.pig_points = farm_scores(self.board, self.rules)
        for seat, pts in enumerate(points):
            self.scores[seat] += pts
        if self.tb:
            for good in GOODS:
                top = max(g[good] for g in self.goods)
                for seat in range(self.seats):
                    if top >= 1 and self.goods[seat][good] == top:
                        self.scores[seat] += 10

    def _solo_last(self, items, hint: list[int] | None) -> None:
        """Last solo turn: completed features, then the follower bonus, in the best order.

        Each follower left on the board pays its colour 2 if that colour is lowest at that
        moment. The player knows the game ends with this move, so the features' order is
        chosen for the score after the bonus (every order of the features is tried).
        """
        bonus = tuple(((seat,), 2) for seat, _, _ in self.board.followers.values())
        finals = best_outcomes(
            {
                o
                for first in solo_outcomes(tuple(self.scores), items)
                for o in solo_best(first, bonus)
            }
        )
        if len(finals) > 1:
            self.ambiguous.append(self.turn)
        pick = tuple(hint) if hint is not None else None
        self.scores = list(pick if pick in finals else finals[0])


def replay_game(record: dict[str, Any], final: bool | None = None) -> RefGame:
    """Replay a record naively and return the reference state at its end.

    ``final``: run end-of-game scoring after the last move. Default: yes, unless the record
    says ``"result": None`` (an unfinished game). With the record's ``tile_order`` the
    tiles placed must also be the ones drawn (see `RefGame`).
    """
    if final is None:
        final = record.get("result", True) is not None
    game = RefGame(record.get("rules", {}), record.get("tile_order"))
    recorded = record.get("scores") or []
    moves = record["moves"]
    for turn, move in enumerate(moves):
        hint = recorded[turn] if turn < len(recorded) else None
        game.history.append(game.play(move, last=final and turn == len(moves) - 1, hint=hint))
    return game


def replay_scores(record: dict[str, Any], final: bool | None = None) -> list[list[int]]:
    """Scores of every seat after every move of ``record``, computed naively.

    Uses only the record's rules, its moves (player, tile, x, y, rotation, follower,
    figure) and, to check the draws, its tile order if it has one.
    The last move is taken to end the game (end-of-game scoring included in its entry)
    unless the record says ``"result": None``. In the solo variant, where the rules let the
    player order simultaneous scorings, equally good orders that give different scores are
    resolved in favour of the record's own numbers (the choice is free by the rules).
    """
    return replay_game(record, final).history


def replay_result(record: dict[str, Any]) -> list[int] | int:
    """The final result: the last scores, or the lowest colour's score in solo."""
    return replay_game(record).result()


def end_reason(record: dict[str, Any]) -> str:
    """Why the recorded game ended: ``"tiles"``, or in solo ``"A"`` / ``"B"``."""
    return replay_game(record).end_reason()


def check_draws(record: dict[str, Any]) -> list[str]:
    """Problems with the order tiles were drawn and discarded, and with who moved.

    Standard: the moves take ``tile_order`` in turn (with a hand: from the seat's hand,
    refilled from the order), skipping exactly the tiles that fit nowhere (the record's
    ``discarded``), and the game ends when no placeable tile is left. Solo: colour ``c``
    draws from ``tile_order[c::colours]``, colours move in turn, and the game ends exactly
    at end A (compulsory follower, empty supply) or B (a stack is used up). The seat of
    every move must be the derived one (`RefGame.to_move`: builders' extra turns, skipped
    empty hands).
    """
    game = RefGame(record.get("rules", {}), record["tile_order"])
    for move in record["moves"]:
        try:
            game.play(move)
        except ValueError as error:
            return [str(error)]
    return end_problems(game, record)


def end_problems(game: RefGame, record: dict[str, Any]) -> list[str]:
    """`check_draws`'s checks of the game's end, on a game that replayed ``record``'s
    moves with its tile order (as `replay_game` does): no placeable tile left (solo: end
    A or B reached exactly), and the record's discards are the reference's."""
    problems = []
    if record["moves"] and game.solo:
        last = len(record["moves"]) - 1
        if any(turn != last for turn in game.solo_end_a):
            problems.append(f"the game went on after end A (moves {game.solo_end_a})")
        mover = record["moves"][last]["player"]
        if last not in game.solo_end_a and game.stacks[mover] and game.tiles_to_play():
            # (end B also when the next colour's stack holds only unplaceable tiles)
            problems.append(
                f"solo game ended without end A and with {game.stacks[mover]} in the stack"
            )
    elif not game.solo and game.tiles_to_play():
        problems.append(f"game ended with a placeable tile {game.tiles_to_play()} left")
    if game.discarded != list(record.get("discarded", [])):
        problems.append(f"discarded {record.get('discarded')} but reference says {game.discarded}")
    return problems
