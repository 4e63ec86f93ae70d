"""Monte Carlo tree search bot: information-set UCT over the unknown tile order."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from carcassonne_env import Game, Move
from carcassonne_env.bots.base import (
    MAX_CANDIDATES,
    MAX_MOVES_AHEAD,
    check_weight,
    forced_move,
)
from carcassonne_env.bots.heuristic import HeuristicAgent
from carcassonne_env.checks import at_most, check_int, check_optional_int, is_int

from . import search_kernels as S

#: The most tree nodes of one search, iterations x trees (about 100 bytes each: 1 GB).
MAX_NODES = 10_000_000
#: The most trees (each with its own scratch states), and threads.
MAX_TREES = 256


class MCTSAgent:
    """Single-observer information-set MCTS (`agents.search_kernels`), all inside numba. By
    default it searches the heuristic's 10 best moves, and values a leaf by one move of
    the heuristic policy for the next seat and then the heuristic's estimate of the
    final scores; `depth=-1, top_k=0` gives plain ISMCTS with random playouts to the
    end. The budget is counted in iterations, so a seeded bot plays the same moves on
    any machine.

    Args:
        seed: seeds the determinisations, expansions and playouts.
        iterations: iterations per search tree and move.
        c: UCB1 exploration constant (rewards lie in [0, 1]).
        trees: independent search trees whose root statistics are summed (root
            parallelisation); each gets `iterations`.
        threads: threads running the trees (results do not depend on it).
        depth: leaf valuation: -1 = a random playout to the end; k >= 0 = k moves of the
            heuristic policy, then the heuristic's estimate of the final scores.
        top_k: search only the k root moves the heuristic values most (0 = all moves).
        margin_scale: reward 0.5 + 0.5 tanh(margin / margin_scale) of the final score
            margin over the best other seat; 0 = win 1 / tie 0.5 / loss 0.
        solo_scale: solo reward = lowest colour's final score / solo_scale.
        **weights: the heuristic's weights for depth >= 0 (see `HeuristicAgent`).
    """

    name = "mcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 200,
        c: float = 4.0,
        trees: int = 1,
        threads: int = 1,
        depth: int = 1,
        top_k: int = 10,
        margin_scale: float = 20.0,
        solo_scale: float = 10.0,
        **weights: float,
    ) -> None:
        self.iterations = at_most(
            "iterations",
            check_int("iterations", iterations, 1),
            MAX_NODES,
            "a tree node per iteration",
        )
        self.trees = at_most("trees", check_int("trees", trees, 1), MAX_TREES)
        if self.iterations * self.trees > MAX_NODES:
            raise ValueError(
                f"iterations x trees must be at most {MAX_NODES:,} (a tree "
                f"node per iteration and tree), got {self.iterations} x "
                f"{self.trees}"
            )
        self.threads = at_most("threads", check_int("threads", threads, 1), MAX_TREES)
        self.c = check_weight("c", c, 0)
        self.margin_scale = check_weight("margin_scale", margin_scale, 0)
        self.solo_scale = check_weight("solo_scale", solo_scale, 0, strict=True)
        if not is_int(depth) or depth < -1:
            raise ValueError(f"depth must be -1 (playout to the end) or >= 0, got {depth!r}")
        self.depth = at_most("depth", int(depth), MAX_MOVES_AHEAD)
        self.top_k = at_most("top_k", check_int("top_k", top_k, 0), MAX_CANDIDATES)
        self._heuristic = HeuristicAgent(None, **weights)  # ranks the root moves for top_k
        self._w = self._heuristic.weight_array
        self._rng = random.Random(check_optional_int("seed", seed))
        self._buffers: dict = {}
        self.last_stats: dict[tuple, tuple[int, float]] = {}

    def _tree_buffers(self, game: Game) -> list:
        st, ts = game.state, game.tileset
        key = (st.ptype.shape[0], ts, game.rules.hand_size)
        if key not in self._buffers:
            self._buffers = {
                key: [
                    (S.make_tree(self.iterations + 1), S.search_buffers(st, len(ts.names)))
                    for _ in range(self.trees)
                ]
            }
        return self._buffers[key]

    def _root_rows(self, game: Game, rows: np.ndarray) -> np.ndarray:
        """The root moves to search: all legal `rows`, or the heuristic's top_k."""
        if self.top_k == 0 or len(rows) <= self.top_k:
            return rows
        _, values = self._heuristic.move_values(game)  # in the order of the legal rows
        keep = np.sort(np.argsort(-values, kind="stable")[: self.top_k])
        return np.ascontiguousarray(rows[keep])

    def _search(
        self, game: Game, root_rows: np.ndarray, k: int, seed: int
    ) -> list[tuple[tuple, int, float]]:
        tree, buf = self._tree_buffers(game)[k]
        settings = S.SearchSettings(
            float(self.c), float(self.margin_scale), float(self.solo_scale), int(self.depth)
        )
        S.search(
            game.state,
            game.tables,
            root_rows,
            tree,
            self.iterations,
            settings,
            self._w,
            buf,
            np.array([seed], np.uint64),
        )
        out = []
        ch = int(tree.child[0])
        while ch >= 0:
            out.append((tuple(tree.row[ch].tolist()), int(tree.visits[ch]), float(tree.value[ch])))
            ch = int(tree.sibling[ch])
        return out

    def act(self, game: Game) -> Move:
        """The move the search visits most from `game` (information-set MCTS over the
        unseen tiles)."""
        if (forced := forced_move(game)) is not None:
            return forced
        moves = game.legal_moves()
        seeds = [self._rng.getrandbits(64) for _ in range(self.trees)]
        rows = game.legal_rows()  # in the order of `moves`
        root_rows = self._root_rows(game, rows)
        if self.threads > 1 and self.trees > 1:
            with ThreadPoolExecutor(min(self.threads, self.trees)) as pool:
                results = list(
                    pool.map(
                        self._search,
                        [game] * self.trees,
                        [root_rows] * self.trees,
                        range(self.trees),
                        seeds,
                    )
                )
        else:
            results = [self._search(game, root_rows, k, s) for k, s in enumerate(seeds)]
        stats: dict[tuple, list] = {}
        for tree_result in results:
            for row, visits, value in tree_result:
                entry = stats.setdefault(row, [0, 0.0])
                entry[0] += visits
                entry[1] += value
        self.last_stats = {row: (v, w / max(v, 1)) for row, (v, w) in stats.items()}
        # Most visited move; ties: higher mean reward, then a seeded random pick.
        best = max(self.last_stats.values())
        picks = [row for row, s in self.last_stats.items() if s == best]
        row = picks[self._rng.randrange(len(picks))]
        index = {tuple(r): i for i, r in enumerate(rows.tolist())}
        return moves[index[row]]
