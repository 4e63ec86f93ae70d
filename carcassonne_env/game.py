"""`Game`: the public, Pythonic wrapper over the jitted core. It converts names and
coordinates, validates input with clear errors and keeps the move log; every rule lives
in `carcassonne_env.core`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .checks import at_most, check_int, check_optional_int, check_seed
from .clones import (
    COPY_CALLS,
    NO_ROWS,
    VIEWS,
    as_log,
    copy_call,
    core_call,
    give_back,
    log_items,
    spares_for,
)
from .core import constants as C
from .core.board import find, n_segments
from .core.choices import auto_choice
from .core.playout import playouts_from
from .core.queries import feature_tiles
from .core.scoring import feature_points, majority
from .core.state import GameState, copy_state, make_state, max_legal_rows
from .core.turn import OP_APPLY_MOVE, OP_LEGAL_MOVES, OP_RESET, solo_ends_after_turn
from .moves import (
    CORE_INT_LIMIT,
    IllegalMoveError,
    Move,
    PlacedTile,
    ScoringChoice,
    ScoringEvent,
    as_move,
    check_move_types,
    check_row,
    core_row,
    resolve,
    row_error,
    row_tile,
    slot_labels,
)
from .records import RECORD_FORMAT, RECORD_VERSION, check_outcome, check_record, check_seats
from .rendering.text import render_board
from .rules import Rules
from .tiles import TileSet, shuffled_deck, tileset_for

MAX_TILES = 2000  # keeps segment and board indices inside the core's int16 arrays
MAX_PLAYOUTS = 10_000_000  # `random_playouts`' n: its scores array (240 MB at 6 seats)


_EVENT_KINDS = (*C.KINDS, "follower", "goods")
_new_object = object.__new__  # (`clone`: no lookup of `Game.__new__` per clone)


class Game:
    """A game of Carcassonne under `rules`.

    Args:
        rules: rule options (default `Rules()`: 2 players, base game).
        seed: shuffle the 71 tiles after the start tile with this seed (numpy PCG64;
            a non-negative integer).
        tile_order: instead of shuffling, draw exactly these tiles in this order (a string
            of letters or a list of names); the game ends when they are used up. Any
            tile of the rule set may come any number of times, more than the deck holds
            (``"A" * 20``): positions built for tests need not be real deals.

    The state rests between turns: `current_player` holds `current_tile` (or `hand`),
    which can be placed; unplaceable draws have already been discarded. With
    ``Rules(variant="solo", scoring_order="player")`` it also rests at scoring decisions
    (`decision`): then `legal_moves()` lists one move per option, each naming a follower
    already on the board (`scoring_choices()` describes them).
    """

    # Whether `state` was read: code outside may then have written past the state's
    # counts (a clone copies every word of it: `SPARE_STATES`). Set on the instance.
    _handed_out = False
    # The spare states of games of its kind (`clones.spares_for`); None: its state is not
    # its own (`over_state`), never given back.
    _spares: list | None = None

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | None = None,
        tile_order: str | Sequence[str] | None = None,
        *,
        tileset: TileSet | None = None,
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        if not isinstance(self.rules, Rules):
            raise TypeError(f"rules must be a Rules instance, got {type(self.rules).__name__}")
        if tileset is not None and not isinstance(tileset, TileSet):
            raise TypeError(f"tileset must be a TileSet, got {type(tileset).__name__}")
        self._ts = tileset or tileset_for(self.rules.expansions)
        seed = check_seed("seed", seed)
        if tile_order is not None and seed is not None:
            raise ValueError("give either seed or tile_order, not both")
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an integer or None, got {seed!r}")
            if seed < 0:
                raise ValueError(f"seed must be a non-negative integer, got {seed}")
        deck: np.ndarray | list[int]
        if tile_order is None:
            deck = shuffled_deck(self._ts, seed)
        else:
            if isinstance(tile_order, str):
                tile_order = list(tile_order)
            if not isinstance(tile_order, (Sequence, np.ndarray)) or not all(
                isinstance(name, str) for name in tile_order
            ):
                raise ValueError(
                    "tile_order must be a string of tile letters or a list of "
                    f"tile names, got {tile_order!r}"
                )
            deck = [self._ts.index(name) for name in tile_order]
            if len(deck) > MAX_TILES:
                raise ValueError(f"tile_order holds {len(deck)} tiles; at most {MAX_TILES}")
        self.seed = seed
        n_tiles = len(deck) + 1
        self._hold(
            make_state(
                self.rules.to_config(),
                n_tiles,
                self._ts.max_segments,
                int(self._ts.tables.n_adj.max()),
            )
        )
        self._st.start_tile = self._ts.start
        self._st.deck[: len(deck)] = deck
        core_call(self._ts)(self._st, self._ts.tables, OP_RESET, len(deck), 0, 0, 0, 0, NO_ROWS)
        self._spares = spares_for(self._ts, self._st)
        self._moves: tuple = ()  # logs: `clones.log_items`
        self._score_log: tuple = ()
        self._legal: dict[Move, list[int]] | None = None
        self._events: tuple[ScoringEvent, ...] = ()  # read from the state on demand

    def _hold(self, st: GameState) -> None:
        """Make `st` this game's state."""
        self._st = st
        self._rows_per_cell = max_legal_rows(st, 1)

    def __getstate__(self) -> dict[str, Any]:
        # the cached views would unpickle as copies, apart from the state: made anew;
        # the logs as plain lists of entries (`__setstate__` rebuilds the persistent logs)
        state = {k: v for k, v in self.__dict__.items() if k not in VIEWS and k != "_spares"}
        state["_moves"], state["_score_log"] = self.moves_played, self._scores_played()
        state["_events"] = list(self._events)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._spares = spares_for(self._ts, self._st)  # its own state now: a copy
        self._moves = as_log(state["_moves"])
        self._score_log = as_log(state["_score_log"])
        self._events = tuple(state["_events"])

    def __getattr__(self, name: str) -> Any:  # only for attributes not set yet
        if name in VIEWS and "_st" in self.__dict__:  # cached on first use
            view = self.__dict__[name] = getattr(self._st, name[1:])
            return view
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ the core underneath
    # What bots, envs and searches use to work on the numba core directly: the packed
    # state, the tile tables and moves as core rows (hand index, x, y, rotation, slot).
    @property
    def state(self) -> GameState:
        """The packed core state this game plays on (`carcassonne_env.core.state`).
        Change it through `play` / `play_row`; code that changes it through the core
        directly calls `forget_legal_moves()` afterwards. Once handed out, the state may
        hold anything past its counts, so clones of this game copy every word of it
        (slower than for a game only played through `play`)."""
        self._handed_out = True  # (clones of this game copy every word: `SPARE_STATES`)
        return self._st

    @property
    def tileset(self) -> TileSet:
        """The tile set of this game's rules (names, slot names, tables)."""
        return self._ts

    @property
    def tables(self) -> Any:
        """The packed tile tables the core functions take beside the state."""
        return self._ts.tables

    @property
    def moves_played(self) -> list[dict[str, Any]]:
        """The move log as in `to_record()["moves"]` (a copy)."""
        return [dict(m) for m in log_items(self._moves)]

    def _scores_played(self) -> list[list[int]]:
        return [list(s) for s in log_items(self._score_log)]

    def forget_legal_moves(self) -> None:
        """Drop the cached legal moves: the state was changed outside `play`."""
        self._legal = None

    def row_of(self, move: Move) -> list[int]:
        """The core row of a legal `move`; `IllegalMoveError` with the reason otherwise."""
        check_move_types(move)  # before the cache: Move(0.0, ...) == Move(0, ...) there
        row = self._legal.get(move) if self._legal is not None else None
        return row if row is not None else resolve(self, self._st, move)

    # ------------------------------------------------------------------ state
    @property
    def done(self) -> bool:
        """True once the game is over and fully scored."""
        return bool(self._st.done)

    @property
    def decision(self) -> str | None:
        """What the next move decides: "place" (a tile, the ordinary turn),
        "score_feature" (which of the features this turn completed scores next) or
        "score_follower" (which follower the end bonus scores next); the last two only
        with ``scoring_order="player"``. None once the game is over."""
        return None if self.done else C.PHASES[self._st.phase]

    @property
    def current_player(self) -> int | None:
        """Seat to move (solo: the colour), None when the game is over."""
        return None if self.done else self._st.seat

    @property
    def current_tile(self) -> str | None:
        """Tile to place now; None when the game is over, at a scoring decision or with
        hand_size > 1 (see `hand`)."""
        t = self._st.tile
        placing = self._st.phase == C.PHASE_PLACE
        return None if self.done or t < 0 or not placing else self._ts.names[t]

    @property
    def hand(self) -> list[str]:
        """Tiles the seat to move may place (its hand; [current_tile] with hand_size 1);
        empty at a scoring decision."""
        if self.done or self._st.phase != C.PHASE_PLACE:
            return []
        if self.rules.hand_size == 1:
            tile = self.current_tile
            return [] if tile is None else [tile]
        return [self._ts.names[t] for t in self._st.hands[self._st.seat] if t >= 0]

    @property
    def scores(self) -> list[int]:
        """Current scores per seat (solo: per colour)."""
        return self._scores.tolist()

    @property
    def result(self) -> list[int] | int | None:
        """Final scores (solo: the lowest colour's score); None while the game runs."""
        if not self.done:
            return None
        if self.rules.variant == "solo":
            return int(self._scores.min())
        return self.scores

    @property
    def end_reason(self) -> str | None:
        """Why the game ended: "tiles" (tiles used up), solo "A" / "B"; None while running
        (with scoring_order="player" already set while the end bonus awaits choices)."""
        return C.END_NAMES[self._st.end_reason]

    @property
    def followers_in_supply(self) -> list[int]:
        """Ordinary followers in each seat's supply."""
        return self._st.supply.tolist()

    @property
    def figures_in_supply(self) -> list[dict[str, int]]:
        """Each seat's supply per figure kind of the rules (`Rules.figures`), e.g.
        ``{"follower": 6, "large": 1}``."""
        st = self._st
        return [
            {
                f: int(st.supply[p] if f == "follower" else st.xsupply[p, C.FIGURES.index(f) - 1])
                for f in self.rules.figures
            }
            for p in range(self.rules.seats)
        ]

    @property
    def goods(self) -> list[dict[str, int]]:
        """Traders & Builders: each seat's trade goods tokens, e.g. ``{"wine": 2,
        "grain": 0, "cloth": 1}`` (all zero in other games)."""
        return [dict(zip(C.GOODS, map(int, row), strict=True)) for row in self._st.goods]

    @property
    def turn(self) -> int:
        """Moves played so far."""
        return self._st.turn

    @property
    def tiles_left(self) -> int:
        """Tiles not drawn yet (in solo: over all stacks)."""
        st = self._st
        if self.rules.variant == "solo":
            return int(self._st.deck_len - st.spos.sum())
        return int(self._st.deck_len - self._st.deck_pos)

    @property
    def discarded(self) -> list[str]:
        """Tiles discarded because they could not be placed, in order."""
        return [self._ts.names[t] for t in self._st.discards[: self._st.ndisc]]

    @property
    def board(self) -> dict[tuple[int, int], PlacedTile]:
        """Placed tiles by (x, y), in placement order."""
        st, ts = self._st, self._ts
        S = n_segments(st)
        n = self._st.placed
        # Each field read of a packed state makes a numpy view: read each once, as lists.
        types, rotations = st.ptype[:n].tolist(), st.prot[:n].tolist()
        owner, ofig = st.owner[: n * S].tolist(), st.ofig[: n * S].tolist()
        cells = self._cells(range(n))
        n_seg = ts.tables.n_seg.tolist()
        out = {}
        for i in range(n):
            t, r = types[i], rotations[i]
            follower = figure = None
            for s in range(n_seg[t]):
                seat = owner[i * S + s]
                if seat >= 0:
                    follower = (seat, ts.slot_names[t][r][s])
                    figure = C.FIGURES[ofig[i * S + s]]
            out[cells[i]] = PlacedTile(ts.names[t], r, follower, figure)
        return out

    def _cells(self, placements: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """The (x, y) of the placed tiles with these placement indices."""
        st, o = self._st, self._st.ptype.shape[0]
        index = np.asarray(placements, np.int64)
        return tuple(zip((st.px[index] - o).tolist(), (st.py[index] - o).tolist(), strict=True))

    @property
    def events(self) -> list[ScoringEvent]:
        """Every scoring so far, in order."""
        st = self._st
        new = []
        for k in range(len(self._events), self._st.nevents):
            ev = st.events[k]
            kind = int(ev[C.EV_KIND])
            goods = kind == C.EV_KIND_GOODS
            placements = (
                () if goods else feature_tiles(st, self._ts.tables, int(ev[C.EV_ROOT]), kind)
            )
            new.append(
                ScoringEvent(
                    turn=max(int(ev[C.EV_TURN]) - int(ev[C.EV_FINAL]), 0),
                    kind=_EVENT_KINDS[kind],
                    tiles=self._cells(placements),
                    points=int(ev[C.EV_POINTS]),
                    majority=_seats(ev[C.EV_MAJORITY]),
                    scorers=_seats(ev[C.EV_SCORERS]),
                    final=bool(ev[C.EV_FINAL]),
                    detail=C.GOODS[ev[C.EV_ROOT]] if goods else C.DETAILS[ev[C.EV_DETAIL]],
                )
            )
        if new:  # a tuple, shared with clones
            self._events += tuple(new)
        return list(self._events)

    # ------------------------------------------------------------------ moves
    def legal_moves(self) -> list[Move]:
        """Every legal move (placement x follower choice), each exactly once."""
        if self._legal is None:
            self._legal = {}
            st, ts = self._st, self._ts
            rows = self.legal_rows()
            if self._st.phase != C.PHASE_PLACE:
                for row in rows.tolist():
                    _, x, y, r, slot = row
                    self._legal[Move(x, y, r, self._slot_name_at(x, y, slot))] = row
                return list(self._legal)
            if self.rules.hand_size > 1:
                tiles = [int(t) for t in st.hands[self._st.seat]]
                names = [ts.names[t] if t >= 0 else None for t in tiles]
            else:
                tiles, names = [self._st.tile], [None]
            # Hot for Python users: plain tuples, locals, no per-row numpy indexing.
            labels = [slot_labels(ts, t, ts.max_segments) if t >= 0 else None for t in tiles]
            new = tuple.__new__
            for row in rows.tolist():
                h, x, y, r, slot = row
                follower, figure = labels[h][r][slot + 1]
                self._legal[new(Move, (x, y, r, follower, names[h], figure))] = row
        return list(self._legal)

    def scoring_choices(self) -> list[ScoringChoice]:
        """The options of a scoring decision (`decision` "score_feature" or
        "score_follower"), in `legal_moves()` order; [] at any other point."""
        st = self._st
        if self.done or self._st.phase == C.PHASE_PLACE:
            return []
        S = n_segments(st)
        out = []
        self.legal_moves()  # fills self._legal: move -> core row
        assert self._legal is not None
        for move, row in self._legal.items():
            g = self.cell_index(move.x, move.y) * S + row[4]
            if self._st.phase == C.PHASE_BONUS:
                out.append(
                    ScoringChoice(move, "follower", ((move.x, move.y),), 2, (int(st.owner[g]),))
                )
                continue
            root = find(st.parent, g)
            kind = int(self._ts.tables.seg_kind[st.ptype[g // S], g % S])
            tiles = feature_tiles(st, self._ts.tables, root, kind)
            out.append(
                ScoringChoice(
                    move,
                    C.KINDS[kind],
                    self._cells(tiles),
                    int(feature_points(st, root, kind, True)),
                    _seats(majority(st.fmeep[root])),
                )
            )
        return out

    def auto_scoring_move(self) -> Move:
        """At a scoring decision, the option ``scoring_order="auto"`` would take (the
        first of the best order, docs/rules.md 6.4); a player who always takes it scores
        what the auto mode scores. ValueError at any other point."""
        if self.done or self._st.phase == C.PHASE_PLACE:
            raise ValueError(f"no scoring decision now (decision: {self.decision})")
        k = auto_choice(self._st, self._ts.tables, solo_ends_after_turn(self._st))
        return self.legal_moves()[k]

    def cell_index(self, x: int, y: int) -> int:
        """Placement index of the tile at (x, y), -1 if none (also off the board)."""
        o = self._st.ptype.shape[0]
        bx, by = x + o, y + o
        board = self._st.board
        return int(board[by, bx]) if 0 <= by < board.shape[0] and 0 <= bx < board.shape[1] else -1

    def _slot_name_at(self, x: int, y: int, slot: int) -> str:
        """Canonical name of segment `slot` of the tile at (x, y) (board frame)."""
        i = self.cell_index(x, y)
        st = self._st
        return self._ts.slot_names[int(st.ptype[i])][int(st.prot[i])][slot]

    __del__ = give_back  # (`clones.give_back`: the state to the next clone)

    def legal_rows(self) -> np.ndarray:
        """Every legal move as core rows, int64[n, 5]: hand index, x, y, rotation, slot
        (figure * max_segments + segment; -1: no follower). `play_row(*row)` plays one."""
        rows = np.empty((self._rows_per_cell * max(self._st.nfront, 1), 5), np.int64)
        return rows[
            : core_call(self._ts)(self._st, self._ts.tables, OP_LEGAL_MOVES, 0, 0, 0, 0, 0, rows)
        ]

    def bounding_box(self) -> tuple[int, int, int, int]:
        """(x_min, y_min, x_max, y_max) of the placed tiles."""
        st = self._st
        o = st.ptype.shape[0]
        return st.xmin - o, st.ymin - o, st.xmax - o, st.ymax - o

    def play(self, move: Move | Sequence) -> None:
        """Play one whole turn (tile, optional follower, scoring, next draw; the final
        scoring when the tiles run out). Raises `IllegalMoveError` with the reason, leaving
        the state untouched; TypeError if `move` is not a `Move` or a tuple of its fields."""
        if not isinstance(move, Move):
            move = as_move(move)
        self._play_legal_row(self.row_of(move), move.follower)

    def play_row(
        self, h: int, x: int, y: int, r: int, slot: int, follower: str | None = None
    ) -> None:
        """Play a move given as a core row (a row of `legal_rows()`: the envs' path) and
        log it; `follower` names the slot's location in the log (default: its canonical
        name; slot: figure * S + segment). The rules core checks the row before it plays
        it: `IllegalMoveError` with the reason, the state untouched, unless it is a legal
        move now (a hand index in the hand) and `follower` (if given) names its
        location."""
        L = CORE_INT_LIMIT  # (the envs' rows: plain ints in range, taken as they are)
        if (
            type(h) is int
            and type(x) is int
            and type(y) is int
            and type(r) is int
            and type(slot) is int
            and -L <= x <= L
            and -L <= y <= L
            and -L <= r <= L
            and -L <= slot <= L
        ):
            row = given = [h, x, y, r, slot]
        else:
            given = [h, x, y, r, slot]
            row = core_row(given)
        if row[0] and not 0 <= row[0] < self.rules.hand_size:  # (the core reads it
            raise row_error(self, self._st, row, given, C.E_NOT_IN_HAND)  # only if > 1)
        check_row(self, self._st, row, given, follower)
        self._play_legal_row(row, follower)

    def _play_legal_row(self, row: list[int], follower: str | None) -> None:
        """Play core row `row`, a legal move (a row of the legal moves, or one the core's
        check passed: `play`, `play_row`), and log it."""
        st, ts = self._st, self._ts
        h, x, y, r, slot = row
        seat = st.seat
        decision = C.PHASES[st.phase]
        t = row_tile(self, st, h, x, y)  # (the hand's tile goes with the move)
        core_call(ts)(st, ts.tables, OP_APPLY_MOVE, h, x, y, r, slot, NO_ROWS)
        self._legal = None
        S = ts.max_segments  # = the core's segment slots (a jitted call costs more)
        if follower is None and slot != C.NO_FOLLOWER:
            follower = ts.slot_names[t][r][slot % S]
        entry = {
            "player": seat,
            "tile": ts.names[t],
            "x": x,
            "y": y,
            "rotation": r,
            "follower": follower,
        }
        if slot >= S and decision == "place":
            entry["figure"] = C.FIGURES[slot // S]
        if decision != "place":
            entry["decision"] = decision
        self._moves = (self._moves, entry)
        self._score_log = (self._score_log, self.scores)

    def random_playouts(
        self, n: int, seed: int | None = None, reshuffle: bool = True
    ) -> np.ndarray:
        """Final scores (int32 array, one row per playout) of `n` uniformly random
        continuations of this game, played inside numba; the game itself is unchanged.
        With `reshuffle` (default) the tiles not drawn yet are reshuffled before each
        playout (the hidden order is unknown to the players); otherwise the recorded
        order is kept. Policy: a uniform legal placement, then a uniform follower choice."""
        n = at_most("n", check_int("n", n, 0), MAX_PLAYOUTS, "playouts per call")
        seed = check_optional_int("seed", seed)
        if seed is None:
            seed = int(np.random.default_rng().integers(2**63))
        rng = np.array([seed % 2**64], np.uint64)
        scores = np.zeros((n, self.rules.seats), np.int32)
        scratch = copy_state(self._st)
        playouts_from(self._st, self._ts.tables, scratch, n, rng, bool(reshuffle), scores)
        return scores

    # ------------------------------------------------------------------ copies and records
    @classmethod
    def over_state(
        cls, rules: Rules, tileset: TileSet, st: GameState, seed: int | None = None
    ) -> Game:
        """A Game reading (and sharing) a core state `st` that something else drives, such
        as a vector env's games or a search's scratch state; its move log is empty. After
        the state changes under it, call `forget_legal_moves()`."""
        game = cls.__new__(cls)
        game.rules, game.seed, game._ts = rules, seed, tileset
        game._hold(st)
        game._moves, game._score_log, game._legal, game._events = (), (), None, ()
        game._spares = None  # the state is not the game's own: never given back
        return game

    def clone(self) -> Game:
        """An independent copy of this game (state and move log). Cheapest when an earlier
        game of the same kind has been dropped: its state is reused (copied into)."""
        src, handed_out, spares = self._st, self._handed_out, self._spares
        if spares:  # a dead game's state (`__del__`), else a new one
            st, dirty = spares.pop()
            try:
                COPY_CALLS[dirty or handed_out](st, src)
            except KeyError:  # (once per program and kind of copy)
                copy_call(dirty or handed_out)(st, src)
        else:
            st = copy_state(src)
        other = _new_object(Game)
        if handed_out:  # the copy holds whatever this state held past its counts
            other._handed_out = True
        other.rules, other.seed, other._ts, other._spares = self.rules, self.seed, self._ts, spares
        other._st, other._rows_per_cell = st, self._rows_per_cell
        other._moves, other._score_log = self._moves, self._score_log  # immutable: shared
        other._legal, other._events = self._legal, self._events
        return other

    def tile_order(self) -> list[str]:
        """The draw order after the start tile (whole deck, drawn or not)."""
        return [self._ts.names[t] for t in self._st.deck[: self._st.deck_len]]

    def to_record(self) -> dict[str, Any]:
        """A JSON-serialisable record: rules, tile order, moves and scores after each move."""
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "tile_order": self.tile_order(),
            "moves": self.moves_played,
            "scores": self._scores_played(),
            "discarded": self.discarded,
            "result": self.result,
            "end_reason": self.end_reason,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        """Replay a record from `to_record` (format: docs/records.md, JSON Schema
        `carcassonne_env/data/record.schema.json`); raises ValueError naming the field
        (and move index) if it does not follow the schema, if a move is illegal, or if
        what it says of the game differs from the replay: the scores after each move (one
        row per move, one score per seat), the final `result` and the `end_reason`."""
        check_record(record)
        try:
            rules = Rules.from_dict(record["rules"])
        except ValueError as err:
            raise ValueError(f"malformed record at rules: {err}") from None
        try:
            game = cls(rules, tile_order=record["tile_order"])
        except ValueError as err:
            raise ValueError(f"malformed record at tile_order: {err}") from None
        game.seed = record.get("seed")
        recorded = record.get("scores", [])
        check_seats(record, rules, len(game.scores))
        for k, m in enumerate(record["moves"]):
            if game.current_player != m["player"]:
                raise ValueError(
                    f"move {k}: seat {game.current_player} is to move, "
                    f"the record says {m['player']}"
                )
            try:
                game.play(
                    Move(
                        m["x"],
                        m["y"],
                        m["rotation"],
                        m.get("follower"),
                        m.get("tile"),
                        m.get("figure", "follower"),
                    )
                )
            except IllegalMoveError as err:
                raise ValueError(f"move {k} of the record is illegal: {err}") from err
            if k < len(recorded) and list(recorded[k]) != game.scores:
                raise ValueError(
                    f"move {k}: replay scores {game.scores} differ from the "
                    f"record's {list(recorded[k])}"
                )
        check_outcome(record, game)
        return game

    def __repr__(self) -> str:
        state = (
            f"result={self.result}"
            if self.done
            else (f"turn={self.turn}, seat={self.current_player}, tile={self.hand}")
        )
        return f"Game({self.rules!r}, {state}, scores={self.scores})"

    def __str__(self) -> str:
        return render_board(self)


def _seats(mask: int) -> tuple[int, ...]:
    return tuple(p for p in range(C.MAX_SEATS) if int(mask) >> p & 1)
