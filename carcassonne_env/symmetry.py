"""Dihedral symmetries of the board (the 8 rotations / reflections of the square) for data
augmentation: observation planes, feature vectors, action masks and action indices are
transformed consistently.

    sym = Symmetry(encoder)              # reflections=False: rotations only (k in 0..3)
    obs2 = sym.transform_obs(obs, k)     # {"board", "features"[, "action_mask"]}
    mask2 = sym.transform_mask(mask, k, obs)
    a2 = sym.transform_action(a, k, obs)
    sym.transform_obs(sym.transform_obs(obs, k), sym.inverse(k)) == obs

Elements. Element k (0..7) turns the whole window (k % 4) quarter turns clockwise, after a
left-right mirror when k >= 4. One clockwise quarter turn moves window cell (col, row) to
(B-1-row, col) (game coordinates: (x, y) -> (-y, x), x east, y south); the mirror moves
(col, row) to (B-1-col, row). Board planes move with their pixels (np.flip / np.rot90
over the two spatial axes), every channel alike.

Tiles. Turning the board turns every tile: a tile placed with rotation r has rotation
r+1 after a quarter turn, and its segments (follower slots) keep their indices, which are
intrinsic to the tile. The mirror image of a tile is in general another tile type (a road
bending left becomes a road bending right): `mirror_table` finds it from the tile tables
alone, together with the rotation and the segment bijection that give exactly the
mirrored edges, half-edges, segment kinds, pennants, monastery and field-city
adjacencies. The mirror maps tile t turned r to tile t' turned (q_t - r) % 4 with one
segment bijection per tile (the same for every r), and is an involution. Under a mirror,
the features that name tile types (the tile / hand one-hots and the unseen counts) are
permuted t -> t'; every other feature is unchanged by every element. The 3x3 tile
pictures (`subtile_table`) are consistent with both operations for the base tiles (the
tests check it), so a transformed board looks like one the encoder draws.

Window. The encoder recentres its window on the bounding box of the placed tiles with
odd leftovers going east / south; the transformed window keeps its content in place, so
it can sit one cell off from the window the encoder would draw for the transformed game
(they agree exactly when B and the bounding box's width and height are odd). That is
harmless for augmentation: board planes, mask and actions of a transformed observation
are consistent with each other, and a transformed legal action is legal on the
transformed board.

Two-step mode. Placement observations transform like turn-mode ones (without a slot).
In the follower phase (feature "follower_phase" = 1) the mask covers the slots of the
pending tile, which a mirror permutes: the pending tile is the tile in hand (hand size
1), or given by `pending` (its hand index, or the encoder's pending tuple (hand, x, y,
rotation)), or else recognised from the board (the "last_tile" cell's picture among the
hand's tiles); a ValueError asks for `pending` when that is ambiguous.

Batches: transform_obs / transform_mask / transform_action accept a leading batch
dimension; a transform is a few numpy gathers with index tables built once per encoder.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .core import constants as C
from .encoding import Encoder
from .tiles import TileSet

N_ELEMENTS = 8
# Left-right mirror: edge N, E, S, W -> N, W, S, E; half-edge
# N_w, N_e, E_n, E_s, S_e, S_w, W_s, W_n -> N_e, N_w, W_n, W_s, S_w, S_e, E_s, E_n.
MIRROR_EDGE = (0, 3, 2, 1)
MIRROR_HALF = (1, 0, 7, 6, 5, 4, 3, 2)


@dataclass(frozen=True, eq=False)
class MirrorTable:
    """How the left-right mirror maps tiles (`mirror_table`). For tile t turned r, the
    mirror image is tile `tile[t]` turned `rotation[t, r]`, and segment s of t becomes
    segment `segment[t, s]` of it (identity beyond the tile's segment count). Tiles with
    no mirror image in the set are named in `missing` (their entries map to themselves)."""

    tile: np.ndarray  # int64[T]
    rotation: np.ndarray  # int64[T, 4]
    segment: np.ndarray  # int64[T, S]
    missing: tuple[str, ...]

    def pairs(self, names: tuple[str, ...]) -> list[tuple[str, str]]:
        """(t, t') name pairs of the tiles whose mirror image is another type."""
        return [
            (names[t], names[u])
            for t, u in enumerate(self.tile.tolist())
            if u > t and names[t] not in self.missing
        ]


def _inner_field(tb, t: int) -> int:
    n = int(tb.n_seg[t])
    inner = [s for s in range(n) if tb.seg_kind[t, s] == C.K_FIELD and tb.seg_halves[t, 0, s] == 0]
    return inner[0] if inner else -1


def _match(tb, t: int, r: int, u: int, q: int) -> np.ndarray | None:
    """The segment bijection that makes the mirror image of tile t turned r equal to tile
    u turned q, or None if they differ."""
    n = int(tb.n_seg[t])
    if int(tb.n_seg[u]) != n:
        return None
    pairs = [(tb.edge_seg[t, r, MIRROR_EDGE[e]], tb.edge_seg[u, q, e]) for e in range(4)]
    pairs += [(tb.half_seg[t, r, MIRROR_HALF[h]], tb.half_seg[u, q, h]) for h in range(8)]
    pairs += [(tb.mon_seg[t], tb.mon_seg[u]), (_inner_field(tb, t), _inner_field(tb, u))]
    sigma = np.full(n, -1, np.int64)
    for a, b in pairs:
        a, b = int(a), int(b)
        if (a < 0) != (b < 0):
            return None
        if a < 0:
            continue
        if sigma[a] < 0:
            sigma[a] = b
        elif sigma[a] != b:
            return None
    if (sigma < 0).any() or len(set(sigma.tolist())) != n:
        return None
    for s in range(n):
        d = int(sigma[s])
        if tb.seg_kind[t, s] != tb.seg_kind[u, d] or tb.seg_pennants[t, s] != tb.seg_pennants[u, d]:
            return None
        adj = int(tb.seg_adj[t, s])
        mapped = sum(1 << int(sigma[c]) for c in range(n) if adj >> c & 1)
        if mapped != int(tb.seg_adj[u, d]):
            return None
    return sigma


@cache
def mirror_table(ts: TileSet) -> MirrorTable:
    """The left-right mirror of every tile of `ts`, found from its tables (see
    `MirrorTable`). A tile that is its own mirror image maps to itself; the others come
    in pairs."""
    tb = ts.tables
    T, S = len(ts.names), ts.max_segments
    tile = np.arange(T, dtype=np.int64)
    q0 = np.zeros(T, np.int64)
    segment = np.tile(np.arange(S, dtype=np.int64), (T, 1))
    done = np.zeros(T, bool)
    missing = []
    for t in range(T):
        if done[t]:
            continue
        found = None
        for u in [t] + [u for u in range(T) if u != t and not done[u]]:
            for q in range(4):
                sigma = _match(tb, t, 0, u, q)
                if sigma is not None:
                    found = u, q, sigma
                    break
            if found:
                break
        done[t] = True
        if found is None:
            missing.append(ts.names[t])
            continue
        u, q, sigma = found
        n = len(sigma)
        tile[t], q0[t], segment[t, :n] = u, q, sigma
        if u != t:  # mirroring back: u turned 0 -> t turned q, inverse bijection
            tile[u], q0[u], segment[u, :n] = t, q, np.argsort(sigma)
            done[u] = True
    rotation = (q0[:, None] - np.arange(4)[None, :]) % 4
    for t in range(T):  # the same bijection holds for every rotation
        if ts.names[t] in missing:
            continue
        n = int(tb.n_seg[t])
        for r in range(4):
            sigma = _match(tb, t, r, int(tile[t]), int(rotation[t, r]))
            if sigma is None or not np.array_equal(sigma, segment[t, :n]):
                raise RuntimeError(f"tile {ts.names[t]}: inconsistent mirror at rotation {r}")
    return MirrorTable(tile, rotation, segment, tuple(missing))


def _spatial(x: np.ndarray, k: int, row_axis: int, col_axis: int) -> np.ndarray:
    """View of `x` with element k applied to its (row, col) axes."""
    if k >= 4:
        x = np.flip(x, axis=col_axis)
    return np.rot90(x, k=-(k % 4), axes=(row_axis, col_axis))


class Symmetry:
    """The dihedral group acting on an `Encoder`'s observations and actions.

    Args:
        encoder: any Encoder (turn or two_step mode, any board size and hand size).
        reflections: include the 4 mirrored elements (k = 4..7). They need a mirror image
            of every tile in the tile set; a ValueError names the tiles without one.
    """

    def __init__(self, encoder: Encoder, reflections: bool = True) -> None:
        self.encoder = enc = encoder
        self.reflections = bool(reflections)
        self.n_elements = N_ELEMENTS if reflections else 4
        ts = enc.tileset
        T, SL, H, B = enc.n_types, enc.slots, enc.hand_size, enc.board_size
        self.board_size, self.hand_size, self.slots, self.n_types = B, H, SL, T
        self.two_step = enc.action_mode == "two_step"
        self.mirror = mirror_table(ts)
        if reflections and self.mirror.missing:
            raise ValueError(
                f"tiles {', '.join(self.mirror.missing)} have no mirror image in this tile "
                "set; use Symmetry(encoder, reflections=False) for rotations only"
            )
        names = enc.feature_names
        where = {name: i for i, name in enumerate(names)}
        tnames = ts.names
        hand = [[where[f"hand{h}_{t}" if H > 1 else f"tile_{t}"] for t in tnames] for h in range(H)]
        self._hand_idx = np.array(hand, np.int64)  # [H, T] feature index of hand h = tile t
        unseen = np.array([where[f"unseen_{t}"] for t in tnames], np.int64)
        self._phase_idx = where["follower_phase"]
        self._last_plane = enc.plane_names.index("last_tile")
        self._subtiles = enc.subtiles

        # Action of element k on a placed tile (t, r, slot), with t = T meaning no tile.
        n_el = self.n_elements
        self.tile_map = np.empty((n_el, T + 1), np.int64)  # [k, t] -> t'
        self._slot_dst = np.empty((n_el, T + 1, SL), np.int64)  # [k, t, slot] -> slot'
        self._rot_dst = np.empty((n_el, T + 1, 4), np.int64)  # [k, t, r] -> r'
        for k in range(n_el):
            for t in range(T + 1):
                for r in range(4):
                    for slot in range(SL):
                        t2, r2, s2 = self._act(k, t, r, slot)
                        self._slot_dst[k, t, slot] = s2
                    self._rot_dst[k, t, r] = r2
                self.tile_map[k, t] = t2
        # Flat (rotation, slot) part of an action -> after element k; and the inverse.
        if self.two_step:
            self._q_dst = self._rot_dst
        else:
            self._q_dst = (
                self._rot_dst[:, :, :, None] * SL + self._slot_dst[:, :, None, :]
            ).reshape(n_el, T + 1, 4 * SL)
        self._q_src = np.argsort(self._q_dst, axis=-1)  # new (r', slot') <- old (r, slot)
        self._slot_src = np.argsort(self._slot_dst, axis=-1)
        # Features: new[i] = old[src[i]].
        F = enc.n_features
        self._feat_src = np.tile(np.arange(F, dtype=np.int64), (n_el, 1))
        for k in range(4, n_el):
            for idx in [*hand, unseen]:
                idx = np.asarray(idx)
                self._feat_src[k, idx[self.mirror.tile]] = idx

    # ------------------------------------------------------------------ group
    def _check_k(self, k: int) -> int:
        if (
            isinstance(k, bool)
            or not isinstance(k, (int, np.integer))
            or not 0 <= k < self.n_elements
        ):
            raise ValueError(f"k must be an integer in [0, {self.n_elements}), got {k!r}")
        return int(k)

    def inverse(self, k: int) -> int:
        """The element undoing k: transform(transform(x, k), inverse(k)) == x."""
        k = self._check_k(k)
        return k if k >= 4 else (4 - k) % 4

    def compose(self, a: int, b: int) -> int:
        """The element c with transform(transform(x, b), a) == transform(x, c)."""
        a, b = self._check_k(a), self._check_k(b)
        turn = (a % 4 + (-1 if a >= 4 else 1) * (b % 4)) % 4
        return turn + 4 * ((a >= 4) != (b >= 4))

    # ------------------------------------------------------------------ helpers
    def transform_cell(self, row, col, k: int):
        """Window cell (row, col) after element k (ints or arrays)."""
        k = self._check_k(k)
        B = self.board_size
        if k >= 4:
            col = B - 1 - col
        for _ in range(k % 4):
            row, col = col, B - 1 - row
        return row, col

    def _act(self, k: int, t: int, r: int, slot: int) -> tuple[int, int, int]:
        if t >= self.n_types:  # no tile (never legal): any bijection keeping group laws
            return t, ((-r if k >= 4 else r) + k % 4) % 4, slot
        if k >= 4:
            n = int(self.encoder.tileset.tables.n_seg[t])
            fig, seg = divmod(slot - 1, self.encoder.tileset.max_segments)  # figure slots
            if slot >= 1 and seg < n:
                slot = (
                    fig * self.encoder.tileset.max_segments + int(self.mirror.segment[t, seg]) + 1
                )
            t, r = int(self.mirror.tile[t]), int(self.mirror.rotation[t, r])
        return t, (r + k % 4) % 4, slot

    def transform_tile(
        self, tile: int, rotation: int, k: int, slot: int = 0
    ) -> tuple[int, int, int]:
        """(tile', rotation', slot') of tile type `tile` placed with `rotation` after
        element k; slot 0 = no follower, s + 1 = segment s (as in actions)."""
        k = self._check_k(k)
        if not (0 <= tile < self.n_types and 0 <= rotation < 4 and 0 <= slot < self.slots):
            raise ValueError(f"bad tile / rotation / slot: {tile}, {rotation}, {slot}")
        return self._act(k, int(tile), int(rotation), int(slot))

    def _features(self, obs: dict) -> np.ndarray:
        inner = obs["observation"] if "observation" in obs else obs
        return np.asarray(inner["features"])

    def _hand_tiles(self, feats2: np.ndarray) -> np.ndarray:
        """int64[N, H]: tile type in each hand position (T if none)."""
        onehot = feats2[:, self._hand_idx] > 0.5  # [N, H, T]
        return np.where(onehot.any(-1), onehot.argmax(-1), self.n_types)

    def _follower_rows(self, feats2: np.ndarray) -> np.ndarray:
        if not self.two_step:
            return np.zeros(feats2.shape[0], bool)
        return feats2[:, self._phase_idx] > 0.5

    def _pending_tiles(
        self,
        k: int,
        obs: dict,
        feats2: np.ndarray,
        tiles: np.ndarray,
        rows: np.ndarray,
        pending: Any,
    ) -> np.ndarray:
        """Tile type of the pending placement of each follower-phase row in `rows`."""
        if pending is not None:
            h = np.asarray(pending[0] if isinstance(pending, tuple) else pending, np.int64)
            h = np.broadcast_to(h, tiles.shape[:1])[rows]
            if ((h < 0) | (h >= self.hand_size)).any():
                raise ValueError(f"pending hand index out of range: {pending!r}")
            return tiles[rows, h]
        out = tiles[rows, 0].copy()
        if k < 4 or self.hand_size == 1:
            return out  # slots unchanged by rotations; one tile in hand
        board = np.asarray((obs["observation"] if "observation" in obs else obs)["board"])
        board = board.reshape((-1, *board.shape[-3:]))
        for i, n in enumerate(np.flatnonzero(rows)):
            cand = sorted({int(t) for t in tiles[n] if t < self.n_types})
            if len({self._slot_dst[k, t].tobytes() for t in cand}) == 1:
                out[i] = cand[0]  # every tile in hand moves its slots alike
            elif cand:
                out[i] = self._recognise(board[n], cand, k)
        return out

    def _recognise(self, board: np.ndarray, cand: list, k: int) -> int:
        ys, xs = np.nonzero(board[:, :, self._last_plane])
        if len(ys) == 0:
            raise ValueError("follower phase without a last tile on the board: pass pending")
        row, col = ys.min() // 3, xs.min() // 3
        kinds = board[3 * row : 3 * row + 3, 3 * col : 3 * col + 3, :4].argmax(-1)
        hits = [
            t for t in cand if any((self._subtiles[t, r, :, :, 0] == kinds).all() for r in range(4))
        ]
        if len({self._slot_dst[k, t].tobytes() for t in hits}) != 1:
            raise ValueError(
                "cannot tell which hand tile is pending from the board; pass "
                "pending=(hand, x, y, rotation) or the hand index"
            )
        return hits[0]

    # ------------------------------------------------------------------ transforms
    def transform_obs(self, obs: dict, k: int, pending: Any = None) -> dict:
        """Observation `obs` after element k, as new arrays: {"board", "features"} and
        "action_mask" when present (PettingZoo form {"observation": {...},
        "action_mask"} too). Batched arrays (leading batch axis) are accepted. `pending`:
        see `transform_mask`."""
        k = self._check_k(k)
        allowed = {"board", "features", "action_mask", "observation"}
        if set(obs) - allowed:
            raise ValueError(f"unknown observation keys {sorted(set(obs) - allowed)}")
        out: dict[str, Any] = {}
        if "observation" in obs:
            out["observation"] = self.transform_obs(obs["observation"], k)
        else:
            board = np.asarray(obs["board"])
            out["board"] = np.array(_spatial(board, k, -3, -2), order="C")
            feats = np.asarray(obs["features"])
            out["features"] = feats[..., self._feat_src[k]]
        if "action_mask" in obs:
            out["action_mask"] = self.transform_mask(obs["action_mask"], k, obs, pending)
        return out

    def transform_mask(
        self, mask: np.ndarray, k: int, obs: dict, pending: Any = None
    ) -> np.ndarray:
        """Action mask after element k (new array, same dtype). `obs` is the untransformed
        observation the mask belongs to (its features name the tiles in hand); batched
        masks [N, n_actions] need batched obs. `pending` (two_step follower phase only):
        hand index of the pending placement, or the encoder's (hand, x, y, rotation)."""
        k = self._check_k(k)
        mask = np.asarray(mask)
        A = self.encoder.n_actions
        if mask.shape[-1] != A or mask.ndim not in (1, 2):
            raise ValueError(f"mask must have shape ([N,] {A}), got {mask.shape}")
        feats2 = np.atleast_2d(self._features(obs))
        m2 = mask.reshape(-1, A)
        N = m2.shape[0]
        if feats2.shape[0] != N:
            raise ValueError(f"{N} masks but {feats2.shape[0]} feature vectors")
        tiles = self._hand_tiles(feats2)
        B, H = self.board_size, self.hand_size
        Q = self._q_src.shape[-1]
        grid = _spatial(m2.reshape(N, H, B, B, Q), k, 2, 3)
        idx = self._q_src[k][tiles][:, :, None, None, :]
        out = np.take_along_axis(grid, idx, axis=-1).reshape(N, A)
        rows = self._follower_rows(feats2)
        if rows.any():
            t = self._pending_tiles(k, obs, feats2, tiles, rows, pending)
            SL = self.slots
            fol = np.zeros((int(rows.sum()), A), mask.dtype)
            fol[:, :SL] = np.take_along_axis(m2[rows, :SL], self._slot_src[k][t], axis=-1)
            fol[:, SL:] = m2[rows, SL:]
            out[rows] = fol
        return out.reshape(mask.shape)

    def transform_action(self, action, k: int, obs: dict, pending: Any = None):
        """Action index after element k (an int for an int; an array of actions for an
        array, against one observation or a batch of the same length). `obs` and
        `pending` as in `transform_mask`."""
        k = self._check_k(k)
        a = np.asarray(action)
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got {action!r}")
        a1 = np.atleast_1d(a).astype(np.int64)
        A = self.encoder.n_actions
        if ((a1 < 0) | (a1 >= A)).any():
            raise ValueError(f"actions must be in [0, {A}), got {action!r}")
        feats = self._features(obs)
        feats2 = np.atleast_2d(feats)
        if feats.ndim == 1:  # one observation for every action
            pick = np.zeros(len(a1), np.int64)
        elif feats2.shape[0] == len(a1):
            pick = np.arange(len(a1))
        else:
            raise ValueError(f"{len(a1)} actions but {feats2.shape[0]} feature vectors")
        tiles = self._hand_tiles(feats2)
        B, SLe = self.board_size, 1 if self.two_step else self.slots
        rest, slot = np.divmod(a1, SLe)
        rest, r = np.divmod(rest, 4)
        rest, col = np.divmod(rest, B)
        h, row = np.divmod(rest, B)
        q = self._q_dst[k, tiles[pick, h], r * SLe + slot]
        row, col = self.transform_cell(row, col, k)
        out = ((h * B + row) * B + col) * 4 * SLe + q
        rows = self._follower_rows(feats2)
        if rows.any():
            tp = np.zeros(feats2.shape[0], np.int64)
            tp[rows] = self._pending_tiles(k, obs, feats2, tiles, rows, pending)
            fol = rows[pick]
            if (a1[fol] >= self.slots).any():
                raise ValueError(f"follower actions must be in [0, {self.slots})")
            out[fol] = self._slot_dst[k, tp[pick[fol]], a1[fol]]
        return int(out[0]) if a.ndim == 0 else out.reshape(a.shape)
