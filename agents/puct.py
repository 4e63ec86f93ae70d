"""PUCT search guided by a trained policy's move probabilities and value (AlphaZero-style),
over determinised tile orders, with the chance of the draw made explicit.

Every simulation deals a determinisation (the undrawn tiles reshuffled: the hidden order
is unknown), then walks the tree from the root. A decision node is a seat to move with
its tile (or hand); its edges are that position's legal moves, each with the policy's
prior P, visits N and summed value W. Below an edge, the next decision node depends on
the tile the determinisation draws: one child per drawn tile (OpenSpiel's explicit
chance nodes, sampled with the deck's probabilities). An edge is chosen by

    Q + c * P * sqrt(N_parent) / (1 + N),   Q = W / N in points / value_scale

(an unvisited edge's Q is its node's value estimate). A value is an expected final
margin: own score minus the best other seat's (2 players: one seat's margin is minus the
other's); solo, the lowest colour's score. A new node is valued by the network as its position's
margin plus value x value_scale (the value head predicts the reward still to come), or
with `lookahead` the value of the position that many policy moves later; a finished
game by its final margin. With a model that observes the projected scores
(``obs_features="aggregate"``, trained on the projected reward: `training.shaping`) the
value head predicts the rise of the projected margin still to come, so the base is the
projected margin (score plus the end-game points pending now) instead of the margin
(`value_base`). A node holds a value for every seat, and each edge sums the values of
the seat that played it (max^n): the seat to move's is the network's, the others' are
minus it with 2 players and, with 3 or more, their own projected margins (or margins) at
the node, the value head speaking for the seat to move only. The move played is the
most visited root edge (`search` gives the visits: the targets of `training.search`).

The network is any model these envs train (`SB3Agent`: `CandidatePolicy` or
`BoardPolicy`); one observation and one forward pass per new node. A candidate model's
search runs whole in numba (`agents.puct_kernel`, its pass `agents.candidate_forward`),
several times faster than the same search in Python, which board models (their pass in
torch) use and the tests compare it with.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from carcassonne_env import Game, Move, Rules
from carcassonne_env.bots.base import (
    MAX_MOVES_AHEAD,
    MAX_SECONDS_PER_MOVE,
    check_weight,
    forced_move,
)
from carcassonne_env.checks import (
    at_most,
    check_choice,
    check_int,
    check_optional_int,
    check_real,
)
from carcassonne_env.core.actions import turn_actions
from carcassonne_env.core.playout import shuffle_undrawn
from carcassonne_env.core.state import copy_into, copy_state, max_legal_rows
from carcassonne_env.core.turn import apply_move_auto
from carcassonne_env.encoding import WindowOverflowError
from carcassonne_env.model_file import read_description

from . import puct_kernel as K
from .candidate_forward import CandidateForward
from .sb3_policy import SB3Agent, model_path, observer_of, shipped_models, torch_threads

VALUE_BASES = ("auto", "projected", "score")
#: How a simulation's values reach the edges it passed (`back_up`): "maxn", each seat's
#: edges sum its own value; "paranoid", every seat's the root seat's, negated for the
#: others (they play against the seat searching). The same with 2 players and solo.
BACKUPS = ("maxn", "paranoid")
#: The most nodes a search adds to its tree (each with its moves' priors and statistics,
#: a few kilobytes: a gigabyte at most). A search on a time budget stops there too.
MAX_TREE_NODES = 100_000


class Node:
    """A decision node: its seat to move, its value estimate for every seat (expected
    final margins, points), its legal move rows, priors, visits and values per edge, and
    the children below each edge per drawn tile."""

    __slots__ = ("rows", "prior", "visits", "value", "children", "estimate", "seat")

    def __init__(
        self, rows: np.ndarray, prior: np.ndarray, estimate: np.ndarray, seat: int
    ) -> None:
        self.rows, self.prior, self.estimate, self.seat = rows, prior, estimate, seat
        self.visits = np.zeros(len(rows), np.int64)
        self.value = np.zeros(len(rows), np.float64)
        self.children: list[dict[Any, Node]] = [{} for _ in range(len(rows))]


class PUCTAgent:
    """PUCT search with a trained network's priors and value (see the module docstring).

    Args:
        model: the network: a saved model's path or shipped name, an SB3 model, or an
            `SB3Agent`; default: the shipped RL-only model of the game's table
            (`default_network`: ``ppo_solo_rl`` in solo, ``puct_duel`` with 2 players:
            ``ppo_duel_rl_640k`` with its value head refitted on its own self-play,
            ``carcassonne train value``; at other tables the model shipped for them),
            loaded on the first move.
        seed: seeds the determinisations.
        simulations: simulations per move (a fixed budget: the same moves on any machine);
            ignored when `time_per_move` is given.
        time_per_move: seconds of search per move (at least one simulation, and no
            more than the tree holds: ``MAX_TREE_NODES // (lookahead + 1)``).
        c: exploration constant (values in units of `value_scale` points). Default
            (None): 1.5 with 2 or more players, 3 in solo (the matches that chose them:
            results/training/puct.md).
        value_scale: points per unit of the value head (the training's reward_scale was
            0.1 for the 2-player models: 10 points per unit).
        value_base: what the value head's prediction is added to: "projected" (the
            projected margin, for models trained on projected rewards), "score" (the
            margin), or "auto" (projected when the model observes the projected scores).
        prior_temperature: the priors are the softmax of the policy's logits divided by
            this; above 1 they are flatter (a PPO policy's are nearly one-hot, so the
            search seldom tries a second move). Default 3.
        lookahead: a new node is valued after this many more moves of the policy's
            choice (highest prior) on the determinisation, one network pass each (the
            nodes met join the tree); 0: by its own value. Default (None): 1 with 2
            or more players, 0 in solo (where it gained nothing for its cost; the matches:
            results/training/puct.md).
        backup: "maxn" (each seat's edges sum its own value) or "paranoid" (every
            seat's the root seat's, negated for the others); the same search with 2
            players and in solo (`BACKUPS`; the two at 3 players:
            results/training/multi_models.md).
    """

    name = "puct"

    def __init__(
        self,
        model: Any = None,
        seed: int | None = None,
        simulations: int = 64,
        time_per_move: float | None = None,
        c: float | None = None,
        value_scale: float = 10.0,
        value_base: str = "auto",
        prior_temperature: float = 3.0,
        lookahead: int | None = None,
        backup: str = "maxn",
    ) -> None:
        self.simulations = check_int("simulations", simulations, 1)
        self.backup = check_choice("backup", backup, BACKUPS)
        self.lookahead = (
            None
            if lookahead is None
            else at_most("lookahead", check_int("lookahead", lookahead, 0), MAX_MOVES_AHEAD)
        )
        ahead = 1 if self.lookahead is None else self.lookahead  # (None: 1 at most)
        at_most(
            "simulations",
            self.simulations,
            MAX_TREE_NODES // (ahead + 1),
            f"with lookahead {ahead}: each simulation adds up to lookahead + 1 nodes to the tree",
        )
        self.time_per_move = (
            None
            if time_per_move is None
            else at_most(
                "time_per_move",
                check_real("time_per_move", time_per_move, 0, strict=True),
                MAX_SECONDS_PER_MOVE,
            )
        )
        self.c = None if c is None else check_weight("c", c, 0)
        self._c = 3.0  # the exploration constant of the game searched
        self.value_scale = check_weight("value_scale", value_scale, 0, strict=True)
        self.value_base = check_choice("value_base", value_base, VALUE_BASES)
        self.prior_temperature = check_weight(
            "prior_temperature", prior_temperature, 0, strict=True
        )
        self._depth = 0  # the lookahead of the game searched
        self.net = model if isinstance(model, SB3Agent) or model is None else SB3Agent(model)
        self._rng = np.random.default_rng(check_optional_int("seed", seed))
        self._mt = np.zeros(1, np.uint64)
        self._buffers: tuple | None = None
        self.last_stats: dict[tuple, tuple[int, float]] = {}
        self.last_simulations = 0
        self.root_prior = np.zeros(0)  # the last search's priors of the legal moves
        self._root: Node | None = None  # the Python search's last tree
        self._kernel: tuple | None = None  # the jitted search's tree and buffers
        self._jitted = True  # a candidate model's search in agents.puct_kernel (tests: False)
        self._forward: CandidateForward | bool | None = None  # False: torch (not known yet: None)
        self._obs: tuple | None = None  # (encoder, its last observation's arrays)
        self._projected: dict = {}  # encoder -> its projected_score_* feature columns

    # ------------------------------------------------------------------ network
    @property
    def _network(self) -> SB3Agent:
        """The policy network a search reads (ValueError for an agent made without one)."""
        if self.net is None:
            raise ValueError("this PUCT agent has no network: give it a model")
        return self.net

    def _evaluate(self, view: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(legal rows, their priors, expected final margin in points for each seat:
        `estimates`) of the position in `view`."""
        rows = view.legal_rows()
        enc = self._network.encoder_for(view)
        forward = self._candidate_forward()
        try:
            obs = self._observe(view, enc) if forward else self._network.observe(view)
        except WindowOverflowError:  # nothing visible: uniform priors, no value
            return rows, np.full(len(rows), 1.0 / len(rows)), _margins(view.state)
        if forward:  # a candidate model: its network jitted, on the present candidates
            actions = obs["candidate_actions"]
            n = int(np.count_nonzero(actions >= 0))  # (present candidates come first)
            scores, value = forward(obs["features"], obs["candidates"], n)
            logits = scores.astype(np.float64)
        else:
            import torch

            policy = self._network.policy
            with torch.no_grad(), torch_threads(self._network.torch_threads):
                tensors, _ = policy.obs_to_tensor(
                    {k: obs[k] for k in self._network.model.observation_space.spaces}
                )
                latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(tensors))
                dist = policy._get_action_dist_from_latent(latent_pi)
                logits = dist.distribution.logits[0].cpu().numpy().astype(np.float64)
                value = float(policy.value_net(latent_vf)[0, 0])
        if forward and n == len(rows):  # every legal move is a candidate, in their order
            z = logits / self.prior_temperature
            prior = np.exp(z - z.max())
            prior /= prior.sum()
        else:
            if forward:  # scattered into the action space
                logits = np.full(int(self._network.model.action_space.n), -np.inf)
                logits[actions[:n]] = scores
            prior = row_probabilities(view, enc, rows, logits / self.prior_temperature)
            if prior is None:  # the policy sees none of them
                prior = np.full(len(rows), 1.0 / len(rows))
        features = obs["features"]
        own = self.base(view, enc, features) + value * self.value_scale
        return rows, prior, self.estimates(view, enc, features, own)

    def _candidate_forward(self) -> CandidateForward | None:
        """The network's jitted pass when the model is a candidate model whose inputs are
        only the observation (no move prior), else None (SB3's torch pass)."""
        if self._forward is None:
            keys = set(self._network.model.observation_space.spaces)
            try:
                if not keys <= {
                    "board",
                    "features",
                    "candidates",
                    "candidate_actions",
                    "action_mask",
                }:
                    raise ValueError("the model takes more than the observation")
                self._forward = CandidateForward(self._network.policy)
            except ValueError:
                self._forward = False
        return self._forward if isinstance(self._forward, CandidateForward) else None

    def _observe(self, view: Game, enc: Any) -> dict[str, np.ndarray]:
        """The model's observation of the seat to move, without the action mask, in
        arrays reused from the last call with the same encoder."""
        observer = observer_of(view)
        out = self._obs if self._obs is not None and self._obs[0] is enc else None
        obs = enc.encode(view, observer, with_mask=False, out=None if out is None else out[1])
        self._obs = (enc, obs)
        return obs

    def _base_columns(self, enc: Any) -> list[int] | None:
        """The observation's ``projected_score_*`` feature columns (seat to move first)
        when the value head adds to the projected margin (`value_base`), else None."""
        columns = self._projected.get(enc)
        if columns is None:  # (the names are built on each call: looked up once)
            columns = self._projected[enc] = [
                i for i, name in enumerate(enc.feature_names) if name.startswith("projected_score_")
            ]
        if self.value_base == "projected" and not columns:
            raise ValueError(
                "value_base='projected' needs a model that observes the "
                "projected scores (obs_features='aggregate')"
            )
        return None if self.value_base == "score" or not columns else columns

    def base(self, view: Game, enc: Any, features: np.ndarray, q: int = 0) -> float:
        """What the value head's prediction adds to, in points for the seat q places
        after the seat to move: its projected margin (from the observation's
        ``projected_score_*``, observer first) or its margin (`value_base`)."""
        columns = self._base_columns(enc)
        st = view.state
        if columns is None:
            return _margin(st, (int(st.seat) + q) % len(st.scores))
        proj = np.asarray(features[columns], np.float64) * 100.0
        if view.rules.variant == "solo":
            return float(proj.min())
        return float(proj[q] - np.delete(proj, q).max())

    def estimates(self, view: Game, enc: Any, features: np.ndarray, own: float) -> np.ndarray:
        """A new node's expected final margin for every seat, from `own`, the seat to
        move's (its base plus the value head's): solo, the same for every colour; 2
        players, minus it for the other seat (one's margin is minus the other's); 3 or
        more, each other seat's `base` (the value head speaks for the seat to move only:
        max^n over these)."""
        st = view.state
        seat, seats = int(st.seat), len(st.scores)
        out = np.empty(seats)
        for q in range(seats):
            s = (seat + q) % seats
            if q == 0 or st.solo:
                out[s] = own
            elif seats == 2:
                out[s] = -own
            else:
                out[s] = self.base(view, enc, features, q)
        return out

    # ------------------------------------------------------------------ search
    def act(self, game: Game) -> Move:
        """The move the PUCT search chooses from `game` (most visited, or sampled by
        temperature)."""
        if (forced := forced_move(game)) is not None:
            return forced
        moves = game.legal_moves()
        visits = self.search(game)
        return moves[int(np.argmax(visits + 1e-6 * self.root_prior))]  # ties: higher prior

    def search(self, game: Game) -> np.ndarray:
        """Search the position and return the root's visit count per legal move (in the
        order of ``game.legal_moves()``)."""
        if game.done:
            raise ValueError("the game is over: no move to search")
        if self.net is None:
            self.net = SB3Agent(default_network(game.rules))
        solo = game.rules.variant == "solo"
        self._depth = (0 if solo else 1) if self.lookahead is None else self.lookahead
        self._c = (3.0 if solo else 1.5) if self.c is None else self.c
        deadline = None if self.time_per_move is None else time.perf_counter() + self.time_per_move
        forward = self._candidate_forward()
        if forward is not None and self._jitted:
            return self._search_jitted(game, deadline, forward)
        root = self._expand(game)
        sim, view = self._scratch(game)
        self._mt[0] = np.uint64(int(self._rng.integers(2**63)))
        n = 0
        while True:
            copy_into(sim, game.state)
            shuffle_undrawn(sim, self._mt)
            self._simulate(root, sim, view)
            n += 1
            if (
                (n >= self.simulations)
                if deadline is None
                else time.perf_counter() >= deadline or n >= self._most_simulations()
            ):
                break
        self.last_simulations = n
        self.last_stats = {
            tuple(r): (int(v), float(w) / max(int(v), 1))
            for r, v, w in zip(root.rows.tolist(), root.visits, root.value, strict=True)
        }
        self._root, self.root_prior = root, root.prior
        return root.visits.copy()  # root.rows are the game's legal rows, in move order

    def _search_jitted(
        self, game: Game, deadline: float | None, forward: CandidateForward
    ) -> np.ndarray:
        """`search` for a candidate model (its pass `forward`): the same search in
        `agents.puct_kernel`, in batches of simulations (a time budget: each batch sized
        to end by the deadline, after the first's single simulation measured the pace)."""
        st = game.state
        enc = self._network.encoder_for(game)
        columns = self._base_columns(enc)
        key = (enc, st.parent.shape, st.frontier.shape, st.deck.shape)
        if self._kernel is None or self._kernel[0] != key:
            scratch, obs = enc.observation_buffers(st)
            rows = max_legal_rows(st)
            work = K.Work(
                sim=copy_state(st),
                rng=self._mt,
                path=np.zeros((8 * st.deck.shape[0] + 16, 2), np.int64),
                columns=np.array(columns or [0], np.int64),
                rows=np.zeros((rows, 5), np.int64),
                logits=np.zeros(rows),
                layout=enc.layout,
                scratch=scratch,
                obs=obs,
                weights=forward.weights,
                forward=forward.buffers(max(enc.candidate_moves, 1)),
            )
            self._kernel = (key, K.make_tree(1024, 1 << 16), work)
        _, tree, work = self._kernel
        settings = K.Settings(
            float(self._c),
            float(self.value_scale),
            float(self.prior_temperature),
            int(columns is not None),
            int(self._depth),
            int(self.backup == "paranoid" and not st.solo),
        )
        per_cell = max_legal_rows(st, 1)
        tree = self._tree(K.grow(tree, 1, per_cell * int(st.nfront)))
        K.clear(tree)  # (the first call adds the root)
        self._mt[0] = np.uint64(int(self._rng.integers(2**63)))
        n, start = 0, time.perf_counter()
        while True:
            if deadline is None:
                batch = self.simulations - n
            else:  # (at least one: a search runs one simulation even past its deadline)
                pace = (time.perf_counter() - start) / n if n else math.inf
                batch = min(
                    max(1, int(0.8 * (deadline - time.perf_counter()) / pace)),
                    self._most_simulations() - n,
                )
            done = K.search(st, game.tables, tree, batch, per_cell, settings, work)
            n += done
            over = (
                (n >= self.simulations)
                if deadline is None
                else n > 0 and (time.perf_counter() >= deadline or n >= self._most_simulations())
            )
            if over:
                break
            if done < batch:  # the tree might not take the next simulation's nodes
                tree = self._tree(
                    K.grow(tree, 2 * tree.node_seat.shape[0], 2 * tree.edge_prior.shape[0])
                )
        first, count = int(tree.node_first[0]), int(tree.node_count[0])
        rows = tree.edge_row[first : first + count]
        visits = tree.edge_visits[first : first + count].copy()
        value = tree.edge_value[first : first + count]
        self.last_simulations = n
        self.last_stats = {
            tuple(r): (int(v), float(w) / max(int(v), 1))
            for r, v, w in zip(rows.tolist(), visits, value, strict=True)
        }
        self.root_prior = tree.edge_prior[first : first + count].copy()
        return visits  # the root's edges are the game's legal rows, in move order

    def _most_simulations(self) -> int:
        """The most simulations of one search, under a time budget too: the tree holds
        at most `MAX_TREE_NODES` nodes (each simulation adds up to lookahead + 1)."""
        return MAX_TREE_NODES // (self._depth + 1)

    def _tree(self, tree: K.Tree) -> K.Tree:
        """Keep `tree` (grown: a new record) in the search's buffers."""
        kernel = self._kernel
        assert kernel is not None  # (made by `_search_jitted`)
        if tree is not kernel[1]:
            self._kernel = (kernel[0], tree, *kernel[2:])
        return tree

    def _scratch(self, game: Game) -> tuple[Any, Game]:
        st = game.state
        if (
            self._buffers is None
            or self._buffers[0].parent.shape != st.parent.shape
            or self._buffers[1].rules != game.rules
        ):
            sim = copy_state(st)
            self._buffers = (sim, Game.over_state(game.rules, game.tileset, sim))
        return self._buffers[0], self._buffers[1]

    def _expand(self, view: Game) -> Node:
        rows, prior, estimate = self._evaluate(view)
        return Node(rows, prior, estimate, int(view.state.seat))

    def _simulate(self, root: Node, sim: Any, view: Game) -> None:
        """One simulation from the root on the determinised state `sim` (changed)."""
        paranoid = root.seat if self.backup == "paranoid" and not sim.solo else None
        path: list[tuple[Node, int]] = []
        node = root
        while True:
            k = self._select(node, paranoid)
            path.append((node, k))
            if not _play(node, k, sim, view):
                leaf = None
                break
            key = _decision_key(sim)
            child = node.children[k].get(key)
            if child is None:
                leaf = self._expand(view)
                node.children[k][key] = leaf
                if self._depth:
                    leaf.estimate = self._look_ahead(leaf, sim, view)
                break
            node = child
        back_up(path, _margins(sim) if leaf is None else leaf.estimate, paranoid)

    def _look_ahead(self, leaf: Node, sim: Any, view: Game) -> np.ndarray:
        """The leaf's values after `_depth` (`lookahead`) moves of the policy's choice
        (highest prior) on `sim` (changed): the final margins if the game ends; the nodes
        met join the tree."""
        node = leaf
        for _ in range(self._depth):
            k = int(np.argmax(node.prior))
            if not _play(node, k, sim, view):
                return _margins(sim)
            key = _decision_key(sim)
            child = node.children[k].get(key)
            if child is None:
                child = node.children[k][key] = self._expand(view)
            node = child
        return node.estimate.copy()

    def _select(self, node: Node, paranoid: int | None = None) -> int:
        """The edge to descend (`paranoid`: the root's seat under the paranoid back-up)."""
        n = node.visits
        total = n.sum()
        seat, sign = played_by(node.seat, paranoid)
        own = sign * node.estimate[seat]  # an unvisited edge's value
        q = np.where(n > 0, node.value / np.maximum(n, 1), own) / self.value_scale
        u = q + self._c * node.prior * math.sqrt(total + 1) / (1 + n)
        return int(np.argmax(u))


def back_up(path: list[tuple[Node, int]], values: np.ndarray, paranoid: int | None = None) -> None:
    """A simulation's back-up: each (node, edge) of `path` gains a visit and the value in
    `values` (final margins expected, per seat) of the seat that played it (max^n), or
    with `paranoid` (the root's seat) that seat's value, negated for the other seats."""
    for node, k in path:
        seat, sign = played_by(node.seat, paranoid)
        node.visits[k] += 1
        node.value[k] += sign * values[seat]


def played_by(seat: int, paranoid: int | None) -> tuple[int, float]:
    """(whose value the edges of a node of `seat` sum, its sign): `seat`'s own (max^n),
    or with `paranoid` (the root's seat) that seat's, negated when `seat` is another."""
    if paranoid is None or seat == paranoid:
        return seat, 1.0
    return paranoid, -1.0


def default_network(rules: Rules) -> str:
    """The shipped network `puct` searches with at a table of `rules` when given none:
    solo, ``ppo_solo_rl``; 2 players without expansions, ``puct_duel``; any other table,
    the shipped model whose file records that table (a ``puct_`` one first). ValueError
    if none is shipped."""
    if rules.variant == "solo":
        return "ppo_solo_rl"
    if rules.players == 2 and not rules.expansions:
        return "puct_duel"
    names = sorted(shipped_models(), key=lambda name: not name.startswith("puct_"))
    for name in names:
        if read_description(model_path(name)).get("rules") == rules.to_dict():
            return name
    raise ValueError(
        f"puct has no shipped network for this table ({rules}): give it one, "
        "puct:model=PATH, a model trained there (carcassonne train multi with the "
        "table's options)"
    )


def row_actions(view: Game, enc: Any, rows: np.ndarray) -> np.ndarray:
    """Turn-mode action index of each legal row in the encoder's window (-1 outside)."""
    B, SL = enc.board_size, enc.slots
    x0, y0 = enc.window_origin(view)
    col, row = rows[:, 1] - x0, rows[:, 2] - y0
    inside = (col >= 0) & (col < B) & (row >= 0) & (row < B)
    index = turn_actions(rows[:, 0], row, col, rows[:, 3], rows[:, 4], B, SL)
    return np.where(inside, index, -1)


def row_probabilities(
    view: Game, enc: Any, rows: np.ndarray, logits: np.ndarray
) -> np.ndarray | None:
    """The policy's probability of each legal row: the softmax of its action `logits`
    (over the encoder's action space) over the rows it sees in its window, 0 for a row
    outside it; None when it sees none."""
    actions = row_actions(view, enc, rows)
    logits = np.where(actions >= 0, logits[np.maximum(actions, 0)], -np.inf)
    finite = np.isfinite(logits)
    if not finite.any():
        return None
    p = np.where(finite, np.exp(logits - logits[finite].max()), 0.0)
    return p / p.sum()


def _play(node: Node, k: int, sim: Any, view: Game) -> bool:
    """Play edge k of `node` on `sim` (the state under `view`); False when the game ended."""
    h, x, y, r, slot = (int(v) for v in node.rows[k])
    apply_move_auto(sim, view.tables, h, x, y, r, slot)
    view.forget_legal_moves()  # they belong to the old state
    return not sim.done


def _decision_key(st: Any) -> tuple:
    """What tells decision nodes below one edge apart: the seat to move and its tile (or
    hand), the decision kind."""
    seat = int(st.seat)
    tile = tuple(st.hands[seat].tolist()) if st.hand_size > 1 else int(st.tile)
    return seat, tile, int(st.phase)


def _margin(st: Any, seat: int) -> float:
    """The seat's standing in points: solo, the lowest colour's score; otherwise its
    score minus the best other seat's."""
    scores = st.scores
    if st.solo:
        return float(scores.min())
    others = np.delete(scores, seat)
    return float(scores[seat] - others.max())


def _margins(st: Any) -> np.ndarray:
    """Every seat's `_margin`."""
    return np.array([_margin(st, s) for s in range(len(st.scores))])
