"""Observations and actions for the environments: numpy board planes, feature vectors,
flat action indices and their masks. Every env uses this module; see
docs/observations.md for the full description.

Window. The board is seen through a square window of `board_size` (B) cells, recentred
every turn on the bounding box of the placed tiles (odd leftovers go east / south). Cell
(col, row) of the window is board cell (x0 + col, y0 + row), `window_origin(game)`.

Board planes: int8[3B, 3B, C], channels last; each cell is 3x3 pixels (its four edge
midpoints, four corners and centre). See `plane_names`.

Actions ("turn" mode): one flat index per whole turn,

    index = (((hand * B + row) * B + col) * 4 + rotation) * SLOTS + slot

hand = 0 unless the strategic variant's hand_size is 3; slot 0 = no follower, slot s + 1
= segment s of the tile in the tile data's order (`TileSet.slot_names`), SLOTS = largest
segment count + 1 (9 for the base game). With the expansions' figures (`Rules.figures`)
slot f * S + s + 1 puts figure f (config.FIG_*: 1 large follower, 2 builder, 3 pig) on
segment s, S = largest segment count, SLOTS = 1 + S x (largest figure id + 1).
"two_step" mode: a placement index ((hand * B + row) * B + col) * 4 + rotation, then a
follower step whose action is the slot (0 .. SLOTS-1) in the same Discrete space.
"""

from __future__ import annotations

import warnings
from functools import cache
from typing import Any

import numpy as np
from gymnasium import spaces

from .checks import at_most, check_int, check_space, is_int
from .core import constants as C
from .core.actions import placements, split_placements, split_turn_actions, turn_actions
from .core.aggregates import (
    CAP_FOLLOWERS,
    CAP_OPEN,
    CAP_POINTS,
    CAP_TILES,
    N_AGG_FIXED,
    AggregateBuffers,
)
from .core.candidate_columns import HEAD_FIXED, N_SLOTS, SLOT_FIXED, n_columns
from .core.candidates import CandidateBuffers
from .core.closers import new_closers_memo
from .core.observe import Observation, ObservationScratch, ObsLayout, observe
from .core.planes import (
    MODE_FOLLOWER,
    MODE_PLACE,
    MODE_TURN,
    N_FIXED_PLANES,
    N_IC_PLANES,
    N_TB_PLANES,
)
from .core.state import STATE, GameState, copy_state, state_rows
from .game import Game, IllegalMoveError, Move
from .moves import core_ints, row_tile
from .rules import Rules
from .tiles import TileSet, tileset_for

ACTION_MODES = ("turn", "two_step")
OVERFLOW_POLICIES = ("warn", "raise", "truncate")
OBS_FEATURES = ("standard", "aggregate")
#: The largest `board_size`: a 256-cell window spans the board of any deck of the rule
#: sets (115 tiles with both expansions); its observation is about 20 MB.
MAX_BOARD_SIZE = 256
#: The largest `candidate_moves` (more than the legal moves of nearly any position).
MAX_CANDIDATE_MOVES = 4096


class WindowOverflowWarning(UserWarning):
    """Some legal moves lie outside the observation window (they are masked out)."""


class WindowOverflowError(RuntimeError):
    """The observation window is too small for this board (see `on_overflow`)."""


_MIDS = ((0, 1), (1, 2), (2, 1), (1, 0))  # pixels of the edge midpoints N, E, S, W
_CORNERS = (((0, 0), 0, 7), ((0, 2), 1, 2), ((2, 2), 3, 4), ((2, 0), 5, 6))  # + half-edges


@cache
def subtile_table(ts: TileSet) -> np.ndarray:
    """int8[T, 4, 3, 3, 2]: for each tile, rotation and pixel of its 3x3 picture, the
    terrain kind (K_CITY, K_ROAD, K_FIELD, K_MONASTERY) and the segment (-1 = a road
    junction, which belongs to no segment). Derived from the tile tables only:
    edge midpoints show their edge's segment (or the field of its first half-edge),
    corners the city joining both edges or the field of a corner half-edge, the centre
    the monastery, a city or road crossing the tile, a junction of >= 3 roads, or the
    tile's main field."""
    T = len(ts.names)
    out = np.zeros((T, 4, 3, 3, 2), np.int8)
    for t in range(T):
        for r in range(4):
            _tile_pixels(ts.tables, t, r, out[t, r])
    return out


def _tile_pixels(tb, t: int, r: int, out: np.ndarray) -> None:
    n = int(tb.n_seg[t])
    kinds = [int(k) for k in tb.seg_kind[t, :n]]
    fields = [s for s in range(n) if kinds[s] == C.K_FIELD]
    # The main field: the inner one, else the one touching most half-edges.
    main = max(
        fields,
        key=lambda s: (
            int(tb.seg_halves[t, r, s]) == 0,
            bin(int(tb.seg_halves[t, r, s])).count("1"),
        ),
        default=-1,
    )

    def put(pos, seg, kind=None):
        out[pos] = (kinds[seg] if kind is None else kind, seg)

    for e, pos in enumerate(_MIDS):
        seg = int(tb.edge_seg[t, r, e])
        put(pos, seg if seg >= 0 else int(tb.half_seg[t, r, 2 * e]))
    for pos, h1, h2 in _CORNERS:
        s1, s2 = int(tb.edge_seg[t, r, h1 // 2]), int(tb.edge_seg[t, r, h2 // 2])
        if s1 >= 0 and s1 == s2 and kinds[s1] == C.K_CITY:
            put(pos, s1)
        elif tb.half_seg[t, r, h1] >= 0:
            put(pos, int(tb.half_seg[t, r, h1]))
        elif tb.half_seg[t, r, h2] >= 0:
            put(pos, int(tb.half_seg[t, r, h2]))
        else:
            put(pos, main if main >= 0 else s1)
    crossing = [
        s
        for s in range(n)
        if kinds[s] in (C.K_CITY, C.K_ROAD) and bin(int(tb.seg_edges[t, r, s])).count("1") >= 2
    ]
    roads = [s for s in range(n) if kinds[s] == C.K_ROAD]
    if tb.mon_seg[t] >= 0:
        put((1, 1), int(tb.mon_seg[t]))
    elif crossing:
        put((1, 1), min(crossing, key=lambda s: kinds[s]))  # cities first
    elif len(roads) >= 3:
        put((1, 1), -1, C.K_ROAD)
    else:
        put((1, 1), main)


def empty_observation(space: spaces.Dict) -> dict[str, np.ndarray]:
    """An observation of the Dict `space` with nothing in it: zeros, and every candidate
    absent (``candidate_actions`` -1). For a game cut short without a visible move."""
    boxes = {k: check_space(space, spaces.Box, k) for k in space.spaces}
    return {
        k: np.full(box.shape, -1 if k == "candidate_actions" else 0, box.dtype)
        for k, box in boxes.items()
    }


class Encoder:
    """Observation and action layouts for games under fixed `rules`.

    Args:
        rules: the rule options of every game this encoder sees.
        board_size: window size B in cells (default 32; any B from 3 to
            `MAX_BOARD_SIZE`, 256).
        action_mode: "turn" (one action per turn) or "two_step" (placement, then follower).
        on_overflow: what happens when legal moves fall outside the window: "warn" (a
            `WindowOverflowWarning` once per encoder; those moves are masked out and
            counted in `last_outside`), "raise" (`WindowOverflowError`) or "truncate".
            If no legal move at all is inside the window, the encoder raises
            `WindowOverflowError` under every policy; "truncate" is "warn" here, and
            tells the vector envs (`SoloVectorEnv`, `VsBotsVectorEnv`) to end such a
            game as truncated (``final_info["window_overflow"]``) and deal a new one
            instead of raising. The single-game envs treat "truncate" as "warn".
        obs_features: "standard" (the planes and features above) or "aggregate" (also,
            per pixel, what the rules core tracks about its feature: points when
            completed and at the end, open edges, tiles, whether it can still be claimed,
            followers per seat; per seat, the score plus pending end-game points; see
            `core.aggregates` and docs/observations.md).
        candidate_moves: K > 0 adds, for up to K legal actions of the seat to move (turn
            action mode), their action indices ("candidate_actions", int64[K], -1 when
            absent) and what the rules core computes for the position after each
            ("candidates", float32[K, F]: points now, projected scores, the features the
            tile joins or closes, ...; `candidate_names`, `core.candidates` and
            docs/observations.md). Rule quantities only, no bot's evaluation. 0 (the
            default) leaves them out; at most `MAX_CANDIDATE_MOVES` (4,096).
    """

    def __init__(
        self,
        rules: Rules | None = None,
        board_size: int = 32,
        action_mode: str = "turn",
        on_overflow: str = "warn",
        tileset: TileSet | None = None,
        obs_features: str = "standard",
        candidate_moves: int = 0,
    ) -> None:
        at_most(
            "board_size",
            check_int("board_size", board_size, 3),
            MAX_BOARD_SIZE,
            "a window wider than any game's board",
        )
        if action_mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {ACTION_MODES}, got {action_mode!r}")
        if on_overflow not in OVERFLOW_POLICIES:
            raise ValueError(f"on_overflow must be one of {OVERFLOW_POLICIES}, got {on_overflow!r}")
        if obs_features not in OBS_FEATURES:
            raise ValueError(f"obs_features must be one of {OBS_FEATURES}, got {obs_features!r}")
        at_most(
            "candidate_moves", check_int("candidate_moves", candidate_moves, 0), MAX_CANDIDATE_MOVES
        )
        if candidate_moves and action_mode != "turn":
            raise ValueError(
                "candidate_moves needs action_mode='turn' (a candidate is a whole turn's action)"
            )
        self.obs_features = obs_features
        self.candidate_moves = int(candidate_moves)
        self.rules = rules if rules is not None else Rules()
        self.tileset = tileset or tileset_for(self.rules.expansions)
        self.board_size = B = int(board_size)
        self.action_mode = action_mode
        self.on_overflow = on_overflow
        self.hand_size = self.rules.hand_size
        # Follower slots per rotation: none, then each figure id (config.FIG_*, up to the
        # largest the rules have) on each segment.
        figure_ids = 1 + max(C.FIGURES.index(f) for f in self.rules.figures)
        self.slots = 1 + self.tileset.max_segments * figure_ids
        self.n_types = len(self.tileset.names)
        self.n_placements = self.hand_size * B * B * 4
        self.n_actions = self.n_placements * (self.slots if action_mode == "turn" else 1)
        seats = self.rules.seats
        self.aggregate = obs_features == "aggregate"
        figures = self.rules.figures
        self.inns_cathedrals = "inns_cathedrals" in self.rules.full_expansions
        self.traders_builders = "builder" in figures  # its full mode, outside solo
        self._agg_base = (
            N_FIXED_PLANES
            + seats
            + N_IC_PLANES * self.inns_cathedrals
            + N_TB_PLANES * self.traders_builders
        )
        self.board_shape = (3 * B, 3 * B, self._agg_base + self.aggregate * (N_AGG_FIXED + seats))
        self.n_features = len(self.feature_names)
        self._agg_fbase = self.n_features - self.aggregate * seats
        # the observe pass's buffers (`scratch_buffers`), for games of the shape _buffers_for
        self._buffers: tuple[AggregateBuffers | None, CandidateBuffers | None] = (None, None)
        self._buffers_for: tuple[int, ...] | None = None
        self.subtiles = subtile_table(self.tileset)
        self.layout = ObsLayout(self.subtiles, self.n_types, B, self.slots)  # as `observe` takes it
        self.last_outside = 0
        self.overflow_warned = False
        self._rows = np.empty((0, 5), np.int64)
        self._pend = np.full(5, -1, np.int64)
        self._no_mask = np.empty(0, np.int8)
        self._dirty = np.zeros(6, np.int64)
        self.n_candidate_columns = n_columns(seats)
        self._no_candidates = (
            np.zeros((0, self.n_candidate_columns), np.float32),
            np.zeros(0, np.int64),
        )  # an `Observation`'s, K = 0
        self.last_candidates = 0  # legal actions in the window at the last encode

    # ------------------------------------------------------------------ layouts
    @property
    def plane_names(self) -> list[str]:
        """Names of the board planes, in channel order."""
        seats = self.rules.seats
        owners = (
            [f"follower_colour_{c}" for c in range(seats)]
            if self.rules.variant == "solo"
            else ["follower_me"] + [f"follower_opponent_{k}" for k in range(1, seats)]
        )
        names = [
            "city",
            "road",
            "field",
            "monastery",
            "pennant",
            "open_cell",
            "completed_feature",
            "last_tile",
            *owners,
        ]
        if self.inns_cathedrals:
            names += ["inn_road", "cathedral_city", "large_follower"]
        if self.traders_builders:
            names += [*(f"goods_{g}" for g in C.GOODS), "builder", "pig"]
        if self.aggregate:
            names += [
                "feature_points_complete",
                "feature_points_end",
                "feature_open_edges",
                "feature_tiles",
                "feature_claimable",
                *(f"feature_{o}" for o in owners),
            ]
        return names

    @property
    def feature_names(self) -> list[str]:
        """Names of the feature vector's entries, in order (see docs/observations.md)."""
        names = self.tileset.names
        hand = [
            f"hand{h}_{t}" if self.hand_size > 1 else f"tile_{t}"
            for h in range(self.hand_size)
            for t in names
        ]
        seats = range(self.rules.seats)
        return [
            *hand,
            *(f"unseen_{t}" for t in names),
            "unseen_fraction",
            *(f"score_{q}" for q in seats),
            *(f"supply_{q}" for q in seats),
            *(f"to_move_{q}" for q in seats),
            "follower_phase",
            *(f"players_{p}" for p in range(1, C.MAX_SEATS + 1)),
            "small_city",
            "farms_per_city",
            "farm_city_points",
            "strategic_hand",
            "solo",
            *(f"large_supply_{q}" for q in seats if "large" in self.rules.figures),
            *(self._builder_features() if self.traders_builders else ()),
            *(f"projected_score_{q}" for q in seats if self.aggregate),
        ]

    def _builder_features(self) -> list[str]:
        seats = range(self.rules.seats)
        return [
            *(f"builder_supply_{q}" for q in seats),
            *(f"pig_supply_{q}" for q in seats),
            *(f"goods_{g}_{q}" for q in seats for g in C.GOODS),
            "extra_turn",
        ]

    @property
    def candidate_names(self) -> list[str]:
        """Names of the columns of a candidate's vector ("candidates"), in order; seat
        columns are relative to the observer (``_0`` = the observer; solo: colour)."""
        seats = range(self.rules.seats)
        head = [
            "present",
            *(f"hand_{h}" for h in range(C.HAND_MAX)),
            "figure_none",
            *(f"figure_{f}" for f in C.FIGURES),
            *(f"points_now_{q}" for q in seats),
            *(f"projected_gain_{q}" for q in seats),
            "supply_follower",
            "supply_large",
            "supply_builder",
            "supply_pig",
            "extra_turn",
            "game_ends",
            "monasteries_completed",
            *(f"monastery_followers_{q}" for q in seats),
        ]
        slot = [
            "city",
            "road",
            "field",
            "monastery",
            "holds_figure",
            "tiles",
            "pennants",
            "open_edges",
            "completed",
            "points_if_completed",
            "points_at_end",
            "inn",
            "cathedral",
            "goods",
            "farm_completed_cities",
            "farm_open_cities",
            "closers",
            "joined",
            *(f"followers_{q}" for q in seats),
            *(f"majority_{q}" for q in seats),
        ]
        assert len(head) == HEAD_FIXED + 3 * len(seats) and len(slot) == SLOT_FIXED + 2 * len(seats)
        return [*head, *(f"f{k}_{name}" for k in range(N_SLOTS) for name in slot)]

    def plane_highs(self) -> np.ndarray:
        """int8[C]: the largest value of each board plane (1 but for aggregate planes)."""
        highs = np.ones(self.board_shape[2], np.int8)
        if self.aggregate:
            caps = (CAP_POINTS, CAP_POINTS, CAP_OPEN, CAP_TILES, 1)
            highs[self._agg_base : self._agg_base + N_AGG_FIXED] = caps
            highs[self._agg_base + N_AGG_FIXED :] = CAP_FOLLOWERS
        return highs

    def observation_space(self) -> spaces.Dict:
        """Dict(board: Box int8 [3B, 3B, C] in {0, 1} (aggregate planes: 0 to
        `plane_highs`), features: Box float32; with `candidate_moves` K also
        candidates: Box float32 [K, F], candidate_actions: Box int64 [K] in [-1,
        n_actions))."""
        high = np.broadcast_to(self.plane_highs(), self.board_shape).copy()
        parts: dict[str, spaces.Space] = {
            "board": spaces.Box(
                np.zeros(self.board_shape, np.int8), high, self.board_shape, np.int8
            ),
            "features": spaces.Box(
                0.0, np.float32(C.MAX_SEATS * 1000), (self.n_features,), np.float32
            ),
        }
        if self.candidate_moves:
            K, F = self.candidate_moves, self.n_candidate_columns
            parts["candidates"] = spaces.Box(-1000.0, 1000.0, (K, F), np.float32)
            parts["candidate_actions"] = spaces.Box(-1, self.n_actions - 1, (K,), np.int64)
        return spaces.Dict(parts)

    def action_space(self) -> spaces.Discrete:
        """The action space: `Discrete(n_actions)` in the action mode's layout."""
        return spaces.Discrete(self.n_actions)

    # ------------------------------------------------------------------ encoding
    def window_origin(self, game: Game) -> tuple[int, int]:
        """(x, y) of the window's top-left cell in game coordinates (the formula of
        `core.planes.window_origin`, in Python: a jitted call would cost more)."""
        x_min, y_min, x_max, y_max = game.bounding_box()
        half = (self.board_size - 1) // 2
        return (x_min + x_max) // 2 - half, (y_min + y_max) // 2 - half

    def _check(self, game: Game) -> None:
        if game.rules != self.rules or game.tileset is not self.tileset:
            raise ValueError("this encoder was built for other rules or another tile set")

    def encode(
        self,
        game: Game,
        observer: int,
        pending: tuple | None = None,
        with_mask: bool = True,
        out: dict | None = None,
    ) -> dict[str, np.ndarray]:
        """The observation of `game` seen by seat `observer` (solo: 0): "board" planes,
        "features" and, with `with_mask`, the "action_mask" of the seat to move (all zero
        once the game is over). `pending` = (hand, x, y, rotation) of a two_step
        placement awaiting its follower step: it is drawn as the last tile and the mask
        covers the follower slots (first SLOTS entries). Applies the overflow policy;
        `last_outside` counts the legal moves the window could not show. `out` reuses
        arrays of an earlier call."""
        self._check(game)
        if not (is_int(observer) and 0 <= observer < self.rules.seats):
            raise ValueError(
                f"observer must be a seat in [0, {self.rules.seats}), got {observer!r}"
            )
        dirty = self._dirty
        if out is None:
            out = {
                "board": np.zeros(self.board_shape, np.int8),
                "features": np.zeros(self.n_features, np.float32),
            }
            if with_mask:
                out["action_mask"] = np.zeros(self.n_actions, np.int8)
            dirty[:] = 0
        else:  # unknown contents: clear everything
            self._check_out(out, with_mask)
            dirty[:] = (0, self.board_shape[0], 0, self.board_shape[1], 0, self.n_actions)
        st = game.state
        pend = self._pend
        if pending is None:
            pend[:] = -1
        else:
            h, x, y, r = self._checked_pending(pending)
            pend[:4] = h, x, y, r
            pend[4] = row_tile(game, st, h, x, y)
        mode = (
            MODE_TURN
            if self.action_mode == "turn"
            else MODE_PLACE
            if pending is None
            else MODE_FOLLOWER
        )
        need = self.hand_size * 4 * st.frontier.shape[0] * self.slots
        if self._rows.shape[0] < need:  # room for every legal move of this game's size
            self._rows = np.empty((need, 5), np.int64)
        if self._buffers_for != st.shape:  # (games of another length: other shapes)
            self._buffers, self._buffers_for = self.scratch_buffers(st), st.shape
        agg, cand = self._buffers
        cand_feats, cand_actions = (
            self._no_candidates if cand is None else self._candidate_arrays(out)
        )
        obs = Observation(
            out["board"],
            out["features"],
            out["action_mask"] if with_mask else self._no_mask,
            dirty,
            cand_feats,
            cand_actions,
        )
        n, outside, n_cand = observe(
            st, self.tileset.tables, self.layout, observer, mode, pend, self._rows, obs, agg, cand
        )
        self.last_candidates = int(n_cand)
        self.last_outside = int(outside)
        if outside and with_mask:
            self.report_overflow(game, n, outside)
        return out

    def _candidate_arrays(self, out: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The candidate features and actions of the observation `out`, added when
        missing (no candidate yet)."""
        feats = out.get("candidates")
        if feats is None:
            feats = out["candidates"] = np.zeros(
                (self.candidate_moves, self.n_candidate_columns), np.float32
            )
        actions = out.get("candidate_actions")
        if actions is None:  # (the pass clears only the rows its actions mark)
            actions = out["candidate_actions"] = np.full(self.candidate_moves, -1, np.int64)
            feats[:] = 0.0
        return feats, actions

    def _check_out(self, out: Any, with_mask: bool) -> None:
        """ValueError unless `out` holds arrays `encode` can write into: those of an
        earlier observation of this encoder (the pass writes by this layout, unchecked)."""
        K, F = self.candidate_moves, self.n_candidate_columns
        layout = {
            "board": (self.board_shape, np.int8),
            "features": ((self.n_features,), np.float32),
            "action_mask": ((self.n_actions,), np.int8),
            "candidates": ((K, F), np.float32),
            "candidate_actions": ((K,), np.int64),
        }
        if not isinstance(out, dict):
            raise ValueError(f"out must be the dict of an earlier observation, got {out!r}")
        needed = ("board", "features", "action_mask") if with_mask else ("board", "features")
        for key, (shape, dtype) in layout.items():
            array = out.get(key)
            if array is None and key not in needed:
                continue
            if not (
                isinstance(array, np.ndarray)
                and array.shape == shape
                and array.dtype == dtype
                and array.flags.writeable
            ):
                got = (
                    f"{array.dtype} array of shape {array.shape}"
                    if isinstance(array, np.ndarray)
                    else repr(array)
                )
                raise ValueError(
                    f"out[{key!r}] must be a writable {np.dtype(dtype).name} "
                    f"array of shape {shape} (this encoder's layout), got {got}"
                )

    def scratch_buffers(
        self, st: GameState
    ) -> tuple[AggregateBuffers | None, CandidateBuffers | None]:
        """The observe pass's buffers for games shaped like state `st` (`core.observe`):
        ``(agg, cand)``, the `AggregateBuffers` with obs_features="aggregate" and the
        `CandidateBuffers` with candidate_moves; None for a part the encoder leaves
        out."""
        P = self.rules.seats
        agg = cand = None
        if self.aggregate:
            agg = AggregateBuffers(
                self._agg_base,
                self._agg_fbase,
                copy_state(st),
                np.zeros(st.parent.shape[0], np.int64),
                np.zeros(P, np.int64),
            )
        if self.candidate_moves:
            cand = self._candidate_buffers(st)
        return agg, cand

    def _candidate_buffers(self, st: GameState) -> CandidateBuffers:
        return CandidateBuffers(
            copy_state(st),
            copy_state(st),
            np.zeros(self.n_types, np.int64),
            np.zeros(self.rules.seats, np.int64),
            new_closers_memo(),
        )

    def batch_scratch(self, states: np.ndarray, threads: int) -> ObservationScratch:
        """`scratch_buffers` for the vector envs' kernels (`carcassonne_env.envs.vector_kernels`):
        the games `states` (the rows of one buffer, `core.state.state_rows`) split among
        `threads` threads. An `ObservationScratch` whose arrays have a row per thread
        (the legal-move rows, the `CandidateBuffers`) or per game (the
        `AggregateBuffers`' scratch states, counts and pending points); no pending
        placement."""
        proto = STATE.adopt(states[0])
        T, N, P = threads, states.shape[0], self.rules.seats
        R = self.hand_size * 4 * proto.frontier.shape[0] * self.slots
        agg = cand = None
        if self.aggregate:
            agg = AggregateBuffers(
                self._agg_base,
                self._agg_fbase,
                states.copy(),
                np.zeros((N, proto.parent.shape[0]), np.int64),
                np.zeros((N, P), np.int64),
            )
        if self.candidate_moves:
            cand = CandidateBuffers(
                state_rows(proto, T)[0],
                state_rows(proto, T)[0],
                np.zeros((T, self.n_types), np.int64),
                np.zeros((T, P), np.int64),
                np.stack([new_closers_memo() for _ in range(T)]),
            )
        return ObservationScratch(
            np.full(5, -1, np.int64), np.empty((T, R, 5), np.int64), agg, cand
        )

    def observation_buffers(self, st: GameState) -> tuple[ObservationScratch, Observation]:
        """What a jitted caller needs to observe the seat to move of games shaped like
        state `st` as `encode` does (turn mode, no action mask, candidate moves; the
        layout: `layout`): ``(scratch, obs)``, an `ObservationScratch` (no pending
        placement, its aggregate part as in `scratch_buffers`, its candidate part always)
        and the `Observation` written. The observation arrays start zeroed (their
        `dirty` says so). Used by `agents.puct_kernel`."""
        K = max(self.candidate_moves, 1)
        agg, cand = self.scratch_buffers(st)
        if cand is None:
            cand = self._candidate_buffers(st)
        rows = np.empty((self.hand_size * 4 * st.frontier.shape[0] * self.slots, 5), np.int64)
        obs = Observation(
            np.zeros(self.board_shape, np.int8),
            np.zeros(self.n_features, np.float32),
            self._no_mask,
            np.zeros(6, np.int64),
            np.zeros((K, self.n_candidate_columns), np.float32),
            np.full(K, -1, np.int64),
        )
        return ObservationScratch(np.full(5, -1, np.int64), rows, agg, cand), obs

    def action_mask(self, game: Game, pending: tuple | None = None) -> np.ndarray:
        """Just the action mask (see `encode`)."""
        return self.encode(game, int(game.state.seat), pending)["action_mask"]

    def report_overflow(self, game: Game, n: int, outside: int) -> None:
        """Apply `on_overflow` to a decision of `game` where `outside` of its `n` legal
        moves lie outside the window: WindowOverflowError when none fits or the policy is
        "raise", else one WindowOverflowWarning per encoder (`overflow_warned`)."""
        what = (
            f"{outside} of {n} legal moves lie outside the {self.board_size}-cell "
            f"window (bounding box {game.bounding_box()})"
        )
        if outside == n or self.on_overflow == "raise":
            raise WindowOverflowError(f"{what}; use a larger board_size")
        if not self.overflow_warned:
            self.overflow_warned = True
            warnings.warn(
                f"{what}; they are masked out (warned once per encoder)",
                WindowOverflowWarning,
                stacklevel=3,
            )

    # ------------------------------------------------------------------ actions
    def _checked_pending(self, pending: Any) -> list[int]:
        """A two_step pending placement (hand, x, y, rotation) as ints the core can take
        (x and y clamped far off the board: `moves.core_ints`); ValueError unless it is
        four integers with a hand index and rotation in range."""
        if not isinstance(pending, (tuple, list, np.ndarray)) or len(pending) != 4:
            raise ValueError(f"pending must be a placement (hand, x, y, rotation), got {pending!r}")
        try:
            h, x, y, r = pending = core_ints(
                list(pending), ("pending hand", "pending x", "pending y", "pending rotation")
            )
        except IllegalMoveError as err:  # (not a move: a wrong argument)
            raise ValueError(str(err)) from None
        if not (0 <= h < self.hand_size and 0 <= r < 4):
            raise ValueError(
                f"pending placement {tuple(pending)}: hand index must be in "
                f"[0, {self.hand_size}) and rotation in [0, 4)"
            )
        return pending

    def split(self, action: int) -> tuple[int, int, int, int, int]:
        """(hand, row, col, rotation, slot) of a turn-mode action, or of a two_step
        placement action (slot -1)."""
        if not (is_int(action) and 0 <= action < self.n_actions):
            raise ValueError(f"action must be in [0, {self.n_actions}), got {action!r}")
        if self.action_mode == "turn":
            return split_turn_actions(int(action), self.board_size, self.slots)
        return (*split_placements(int(action), self.board_size), -1)

    def placement(self, game: Game, action: int) -> tuple[int, int, int, int]:
        """(hand, x, y, rotation) in game coordinates of a placement action."""
        h, row, col, r, _ = self.split(action)
        x0, y0 = self.window_origin(game)
        return h, x0 + col, y0 + row, r

    def action_to_move(self, game: Game, action: int, pending: tuple | None = None) -> Move:
        """The `Move` of a turn-mode action (or of a two_step follower action given the
        `pending` placement) in the current state; not checked for legality."""
        if self.action_mode == "two_step":
            if pending is None:
                raise ValueError(
                    "two_step mode: a whole move needs the pending placement "
                    "(pass pending=(hand, x, y, rotation))"
                )
            if not (is_int(action) and 0 <= action < self.slots):
                raise ValueError(f"follower action must be in [0, {self.slots}), got {action!r}")
            (h, x, y, r), slot = self._checked_pending(pending), int(action) - 1
        else:
            h, x, y, r = self.placement(game, action)
            slot = self.split(action)[4]
        tile = row_tile(game, game.state, h, x, y)
        follower, figure = None, "follower"
        if slot >= 0 and tile >= 0:
            S = self.tileset.max_segments
            names = self.tileset.slot_names[tile][r]
            follower = names[slot % S] if slot % S < len(names) else f"segment:{slot % S}"
            figure = C.FIGURES[slot // S]
        placing = game.decision == "place"
        name = self.tileset.names[tile] if placing and self.hand_size > 1 and tile >= 0 else None
        return Move(x, y, r, follower, name, figure)

    def move_to_action(self, game: Game, move: Move) -> int | tuple[int, int]:
        """Action index of a legal move (two_step: the pair (placement, follower));
        ValueError if the move is illegal or lies outside the window."""
        self._check(game)
        game.legal_moves()  # fills the game's cache: move -> core row
        try:
            h, x, y, r, slot = game.row_of(move)
        except IllegalMoveError as err:
            raise ValueError(f"{move} is not a legal move: {err}") from None
        x0, y0 = self.window_origin(game)
        B = self.board_size
        col, wrow = x - x0, y - y0
        if not (0 <= col < B and 0 <= wrow < B):
            raise ValueError(f"{move} lies outside the {B}-cell window")
        if self.action_mode == "turn":
            return turn_actions(h, wrow, col, r, slot, B, self.slots)
        return placements(h, wrow, col, r, B), slot + 1
