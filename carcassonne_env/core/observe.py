"""One observation in one pass: the legal moves listed once, then the board planes, the
feature vector, the action mask, the aggregate planes and features and the candidate
moves written from them (`carcassonne_env.encoding` documents every layout). `Encoder`,
the single envs, both vector envs and `puct`'s search all observe through `observe`.
"""

from collections import namedtuple

from ..compiler.jit import counted_entry
from .aggregates import encode_aggregates
from .candidates import candidates_from_rows
from .planes import Window, encode_board, encode_features, mask_from_rows, window_origin
from .turn import legal_moves

#: An encoder's fixed layout (`carcassonne_env.encoding.Encoder`): the sub-tile pixels
#: of each tile type and rotation, the number of tile types, the window's side in cells
#: and the action slots per cell.
ObsLayout = namedtuple("ObsLayout", ["subtiles", "n_types", "board_size", "slots"])

#: The arrays an observation is written into: the board planes int8[3B, 3B, C], the
#: feature vector float32[F], the action mask int8[n_actions] (empty: none), the
#: rectangle where planes and mask may hold ones (int64[6], `core.planes`), the
#: candidate features float32[K, F'] and actions int64[K] (K = 0 without candidates).
#: A vector env holds one record whose arrays have a row per game.
Observation = namedtuple(
    "Observation", ["planes", "feats", "mask", "dirty", "cand_feats", "cand_actions"]
)

#: The pass's buffers besides its output: the pending two-step placement `pend`
#: int64[5] (`observe`), a legal-move buffer `rows` and the aggregate and candidate
#: parts' buffers `agg`, `cand` (None: a part left out). A vector env holds one record
#: whose arrays have a row per thread (rows, cand) or per game (agg).
ObservationScratch = namedtuple("ObservationScratch", ["pend", "rows", "agg", "cand"])


@counted_entry
def observe(st, tb, layout, observer, mode, pend, rows, obs, agg, cand):
    """Write `observer`'s observation of `st` into `obs` (`Observation`, every array in
    place; `layout`: the encoder's `ObsLayout`); returns (legal moves, legal moves
    outside the window, candidate actions inside it):

    - planes, feats: the board planes and feature vector; pend = (hand, x, y, rotation,
      tile) of a pending two-step placement (tile -1: none), drawn as the last tile;
    - mask (skipped when empty): the seat to move's action mask in `mode` (MODE_TURN,
      MODE_PLACE, or MODE_FOLLOWER for `pend`); dirty says where planes and mask may
      hold ones on entry, and is updated (`core.planes`);
    - agg (`aggregates.AggregateBuffers`) adds the aggregate planes and features;
    - cand (`candidates.CandidateBuffers`) writes the candidate moves into cand_feats
      and cand_actions when `observer` is the seat to move (solo: always), zeros
      otherwise.
    agg and cand may be None: numba compiles a version without that part (and what it
    calls), so a program compiles only the parts it observes. rows: a legal-move buffer,
    holding the legal moves afterwards."""
    B = layout.board_size
    x0, y0 = window_origin(st, B)
    window = Window(x0, y0, B, layout.slots)
    encode_board(st, tb, layout.subtiles, observer, x0, y0, obs.planes, pend, obs.dirty)
    encode_features(st, layout.n_types, observer, 1.0 if pend[4] >= 0 else 0.0, obs.feats)
    n = outside = n_cand = 0
    mask = obs.mask
    if mask.shape[0] > 0 or cand is not None:
        n = legal_moves(st, tb, rows)
    if mask.shape[0] > 0:
        outside = mask_from_rows(st, rows, n, window, mode, pend, mask, obs.dirty)
    if agg is not None:
        encode_aggregates(st, tb, layout.subtiles, observer, obs.planes, obs.feats, agg)
    if cand is not None:
        to_move = st.done == 0 and (st.solo != 0 or observer == st.seat)
        n_cand = candidates_from_rows(
            st,
            tb,
            rows,
            n if to_move else 0,
            window,
            observer,
            cand,
            obs.cand_feats,
            obs.cand_actions,
        )
    return n, outside, n_cand
