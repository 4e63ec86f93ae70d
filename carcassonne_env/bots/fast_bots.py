"""Python side of the jitted bots (`carcassonne_env.bots.jitted_bots`): `bot_spec` turns a bot spec
into the kernel's (kind, weights), `JittedBot` plays a jitted bot behind the `Agent`
protocol. Kept apart from the jitted module so that it imports no other bot module (the
tests' numba cache key covers what jitted modules import)."""

from __future__ import annotations

import numpy as np

from carcassonne_env.core.state import copy_state, max_legal_rows

from .jitted_bots import KINDS, MT_WORDS, choose, mt_seed


class JittedBot:
    """A jitted bot behind the `Agent` protocol (``act(game) -> Move``): same moves as the
    Python bot of the same spec and seed. For tests and for comparing the two.

    Args:
        spec: "random", "greedy" or "heuristic" (with weight options, e.g.
            ``"heuristic:follower=3.0"``).
        seed: the seed the Python bot would get (``random.Random(seed)``); an integer in
            [0, 2**63) (the envs draw bot seeds below 2**63).
    """

    def __init__(self, spec: str, seed: int) -> None:
        self.kind, self.weights = bot_spec(spec)
        self.name = spec
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) \
                or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer in [0, 2**63), got {seed!r}")
        self.mt = np.zeros(MT_WORDS, np.int64)
        mt_seed(self.mt, np.int64(seed))

    def choose_row(self, game) -> np.ndarray:
        """The core row (hand, x, y, rotation, slot) this bot plays in `game`."""
        st, ts = game.state, game.tileset
        rows = np.empty((max_legal_rows(st), 5), np.int64)
        i = choose(st, ts.tables, self.kind, self.weights, self.mt, rows, copy_state(st),
                   copy_state(st), np.zeros(st.scores.shape[0]), np.zeros(rows.shape[0]),
                   np.zeros(len(ts.names), np.int64), np.zeros((rows.shape[0], 3), np.int64))
        if i < 0:
            raise ValueError("the game is over")
        return rows[i].copy()

    def act(self, game):
        """The move the jitted bot chooses in `game` (the Python bot's move)."""
        row = self.choose_row(game)
        moves = game.legal_moves()
        rows = game.legal_rows()
        return moves[int(np.flatnonzero((rows == row).all(axis=1))[0])]


def bot_spec(spec: str) -> tuple[int, np.ndarray]:
    """(kind, heuristic weight vector) of a bot spec the jitted bots can play: "random",
    "greedy", "heuristic" or "heuristic:WEIGHT=VALUE:..."; ValueError otherwise."""
    from .base import make_bot
    from .heuristic import weight_vector

    name = spec.split(":")[0]
    if name not in KINDS:
        raise ValueError(f"no jitted version of bot {spec!r}; jitted bots: "
                         f"{', '.join(KINDS)}")
    agent = make_bot(spec, seed=0)  # validates the options
    w = agent.weight_array.copy() if name == "heuristic" else weight_vector({})
    return KINDS[name], w
