"""`puct`'s search for a candidate model, simulations and all, inside numba.

The same search as `agents.puct` (read its docstring first): the tree, the selection, the
observation of a new node (`core.planes` / `core.aggregates`, `core.candidates`), the
network's pass (`agents.candidate_forward`), the priors, the value and its lookahead, the
back-up. In Python a simulation spent about half its time between the jitted calls;
here a batch of simulations is one call. `PUCTAgent` uses it for every candidate model
(its Python search stays for board models, run by torch), and the tests check that both
searches give the same visits.

The tree lives in flat arrays (`Tree`). A node holds its seat, its decision key (seat to
move, tile or hand, decision kind: what tells apart the nodes below one edge), its value
estimate for every seat and its edges, a contiguous range of the edge arrays: the legal move rows in
`legal_moves`' order, their priors, visits and summed values, and each edge's first
child (the others follow through `node_sibling`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from carcassonne_env.compiler.jit import jitted
from carcassonne_env.core.actions import turn_action
from carcassonne_env.core.constants import MAX_SEATS
from carcassonne_env.core.observe import observe
from carcassonne_env.core.planes import MODE_TURN, window_origin
from carcassonne_env.core.playout import shuffle_undrawn
from carcassonne_env.core.state import copy_into
from carcassonne_env.core.turn import apply_move_auto, legal_moves

from .candidate_forward import forward

# The helpers are inlined into the two functions compiled, `search` and `_expand` (one
# copy of the observation code): each compiled function links the core's code it calls,
# and compiling that again per function cost minutes.
_inline = njit(cache=True, nogil=True, inline="always")

Tree = namedtuple(
    "Tree",
    [
        "node_seat",
        "node_key",
        "node_estimate",
        "node_first",
        "node_count",
        "node_sibling",
        "edge_row",
        "edge_prior",
        "edge_visits",
        "edge_value",
        "edge_child",
        "used",
    ],
)

#: The search's settings (`PUCTAgent`'s): the exploration constant `c`, `value_scale`,
#: the priors' `temperature`, `base_kind` (1: the value's base is the projected margin
#: the model observes, the features `Work.columns`; 0: the banked margin) and the
#: look-ahead `depth` and `paranoid` (1: every seat's edges sum the root seat's value,
#: negated for the others; 0: each seat's own, max^n).
Settings = namedtuple(
    "Settings", ["c", "value_scale", "temperature", "base_kind", "depth", "paranoid"]
)

#: A search's buffers for games of one shape (`PUCTAgent._search_jitted` keeps them):
#: `sim`, a state of the game's shape; `rng`, `shuffle_undrawn`'s generator; `path`,
#: int64[moves, 2], a descent's (node, edge) pairs; `columns`, the features holding the
#: projected scores (observer first); `rows` int64[R, 5] and `logits` float64[R], a new
#: node's legal moves and their logits; `layout`, `scratch` and `obs`, the observation's
#: (`Encoder.layout`, `Encoder.observation_buffers`); `weights` and `forward`, the
#: network's (`candidate_forward.Weights`, `ForwardBuffers`).
Work = namedtuple(
    "Work",
    [
        "sim",
        "rng",
        "path",
        "columns",
        "rows",
        "logits",
        "layout",
        "scratch",
        "obs",
        "weights",
        "forward",
    ],
)


def make_tree(nodes: int, edges: int) -> Tree:
    """Room for `nodes` nodes and `edges` edges (`grow` makes more)."""
    return Tree(
        np.zeros(nodes, np.int64),
        np.zeros(nodes, np.int64),
        np.zeros((nodes, MAX_SEATS)),
        np.zeros(nodes, np.int64),
        np.zeros(nodes, np.int64),
        np.full(nodes, -1, np.int64),
        np.zeros((edges, 5), np.int64),
        np.zeros(edges),
        np.zeros(edges, np.int64),
        np.zeros(edges),
        np.full(edges, -1, np.int64),
        np.zeros(2, np.int64),
    )


def grow(tree: Tree, nodes: int, edges: int) -> Tree:
    """A tree with room for at least `nodes` nodes and `edges` edges holding `tree`."""
    n, e = tree.node_seat.shape[0], tree.edge_prior.shape[0]
    if nodes <= n and edges <= e:
        return tree
    bigger = make_tree(max(nodes, 2 * n), max(edges, 2 * e))
    for old, new in zip(tree, bigger, strict=True):
        new[: old.shape[0]] = old
    return bigger


def clear(tree: Tree) -> None:
    """Empty the tree (its arrays kept)."""
    tree.used[:] = 0


@_inline
def margin(st, seat):
    """The seat's standing in points: solo, the lowest colour's score; otherwise its score
    minus the best other seat's (`agents.puct._margin`)."""
    scores = st.scores
    if st.solo:
        return float(scores.min())
    best = -1e18
    for p in range(scores.shape[0]):
        if p != seat:
            best = max(best, float(scores[p]))
    return float(scores[seat]) - best


@_inline
def decision_key(st):
    """One int64 for `agents.puct._decision_key`'s (seat, tile or hand, phase)."""
    seat = st.seat
    key = seat * 8 + st.phase
    if st.hand_size > 1:
        hand = st.hands[seat]
        for i in range(hand.shape[0]):
            key = key * 1024 + hand[i] + 1
    else:
        key = key * 1024 + st.tile + 1
    return key


@_inline
def _observe(st, tb, work):
    """The model's observation of the seat to move (solo: seat 0) into work.obs, as
    `Encoder.encode` without a mask gives it; returns the candidates present."""
    observer = 0 if st.solo else st.seat
    scratch = work.scratch
    observe(
        st,
        tb,
        work.layout,
        observer,
        MODE_TURN,
        scratch.pend,
        scratch.rows,
        work.obs,
        scratch.agg,
        scratch.cand,
    )
    cand_actions = work.obs.cand_actions
    present = 0
    while present < cand_actions.shape[0] and cand_actions[present] >= 0:
        present += 1
    return present


@jitted()
def _expand(st, tb, tree, settings, work):
    """Add the node of the position `st` (not over) to the tree, valued by the network;
    returns its index. The caller leaves room (`search`)."""
    value_scale, temperature = settings.value_scale, settings.temperature
    projected, rows, logits = work.columns, work.rows, work.logits
    scores = work.forward.scores
    seat = st.seat
    node = tree.used[0]
    first = tree.used[1]
    n = legal_moves(st, tb, rows)
    tree.used[0] += 1
    tree.used[1] += n
    tree.node_seat[node] = seat
    tree.node_key[node] = decision_key(st)
    tree.node_first[node] = first
    tree.node_count[node] = n
    tree.node_sibling[node] = -1
    for k in range(n):
        tree.edge_row[first + k] = rows[k]
        tree.edge_visits[first + k] = 0
        tree.edge_value[first + k] = 0.0
        tree.edge_child[first + k] = -1
    present = _observe(st, tb, work)
    prior = tree.edge_prior[first : first + n]
    obs = work.obs
    feats, cand_actions = obs.feats, obs.cand_actions
    value = forward(feats, obs.cand_feats, present, work.weights, work.forward)
    if present == n:  # every legal move a candidate, in their order
        for k in range(n):
            logits[k] = scores[k] / temperature
    else:  # each row's action in the window (`agents.puct.row_actions`), its candidate's
        # score (-inf: none)
        B, SL = work.layout.board_size, work.layout.slots
        x0, y0 = window_origin(st, B)  # board indices; rows are relative to the start
        o = st.ptype.shape[0]  # tile, at board index o (`core.board.origin`)
        for k in range(n):
            logits[k] = -np.inf
            h, x, y, r, slot = rows[k]
            col, row = x - x0 + o, y - y0 + o
            if 0 <= col < B and 0 <= row < B:
                action = turn_action(h, row, col, r, slot, B, SL)
                for i in range(present):
                    if cand_actions[i] == action:
                        logits[k] = scores[i] / temperature
                        break
    top = -np.inf
    for k in range(n):
        top = max(top, logits[k])
    if top == -np.inf:  # the policy sees none of them
        prior[:] = 1.0 / n
    else:
        total = 0.0
        for k in range(n):
            prior[k] = np.exp(logits[k] - top) if logits[k] > -np.inf else 0.0
            total += prior[k]
        prior /= total
    base_kind = settings.base_kind
    est = _base(st, seat, 0, base_kind, projected, feats) + float(value) * value_scale
    _estimates(st, tree.node_estimate[node], est, base_kind, projected, feats)
    return node


@_inline
def _base(st, seat, q, base_kind, projected, feats):
    """What the value head's prediction adds to, for `seat`, q places after the seat to
    move (`PUCTAgent.base`): its projected margin (`base_kind` 1: the projected scores the
    model observes, observer first; solo, the lowest colour's) or its margin."""
    if base_kind == 0:
        return margin(st, seat)
    if st.solo:
        low = 1e18
        for i in range(projected.shape[0]):
            low = min(low, float(feats[projected[i]]) * 100.0)
        return low
    best = -1e18
    for i in range(projected.shape[0]):
        if i != q:
            best = max(best, float(feats[projected[i]]) * 100.0)
    return float(feats[projected[q]]) * 100.0 - best


@_inline
def _estimates(st, out, est, base_kind, projected, feats):
    """A new node's value for every seat into `out` (`agents.puct.estimates`): `est`,
    the seat to move's; solo, the same for every colour; 2 players, minus it for the
    other seat; 3 or more, each other seat's base (`_base`)."""
    seat = st.seat
    seats = st.scores.shape[0]
    for q in range(seats):
        s = (seat + q) % seats
        if q == 0 or st.solo:
            out[s] = est
        elif seats == 2:
            out[s] = -est
        else:
            out[s] = _base(st, s, q, base_kind, projected, feats)


@_inline
def _child(tree, edge, key):
    """The node below `edge` with decision key `key`, or -1."""
    node = tree.edge_child[edge]
    while node >= 0 and tree.node_key[node] != key:
        node = tree.node_sibling[node]
    return node


@_inline
def _add_child(tree, edge, node):
    tree.node_sibling[node] = tree.edge_child[edge]
    tree.edge_child[edge] = node


@_inline
def _played_by(tree, node, paranoid):
    """(the seat whose values the edges of `node` sum, their sign) (`agents.puct.played_by`):
    its seat to move's own (max^n), or paranoid the root seat's, negated for the others."""
    seat, root = tree.node_seat[node], tree.node_seat[0]
    if paranoid == 0 or seat == root:
        return seat, 1.0
    return root, -1.0


@_inline
def _select(tree, node, c, value_scale, paranoid):
    """The edge maximising Q + c P sqrt(N_parent + 1) / (1 + N) (`PUCTAgent._select`)."""
    first, n = tree.node_first[node], tree.node_count[node]
    seat, sign = _played_by(tree, node, paranoid)
    own = sign * tree.node_estimate[node, seat]  # an unvisited edge's value
    total = 0
    for k in range(first, first + n):
        total += tree.edge_visits[k]
    root = np.sqrt(total + 1.0)
    best, best_u = first, -np.inf
    for k in range(first, first + n):
        v = tree.edge_visits[k]
        q = (tree.edge_value[k] / v if v > 0 else own) / value_scale
        u = q + c * tree.edge_prior[k] * root / (1 + v)
        if u > best_u:
            best, best_u = k, u
    return best


@_inline
def _play(sim, tb, tree, edge):
    """Play `edge` on `sim`; False when the game ended."""
    row = tree.edge_row[edge]
    apply_move_auto(sim, tb, row[0], row[1], row[2], row[3], row[4])
    return not sim.done


@_inline
def _argmax_prior(tree, node):
    first = tree.node_first[node]
    best = first
    for k in range(first + 1, first + tree.node_count[node]):
        if tree.edge_prior[k] > tree.edge_prior[best]:
            best = k
    return best


@_inline
def _look_ahead(sim, tb, tree, leaf, settings, work):
    """`PUCTAgent._look_ahead`: the leaf's values become those after `depth` moves of the
    policy's choice (the final margins if the game ends); the nodes met join the tree."""
    out = tree.node_estimate[leaf]
    node = leaf
    for _ in range(settings.depth):
        edge = _argmax_prior(tree, node)
        if not _play(sim, tb, tree, edge):
            for s in range(sim.scores.shape[0]):
                out[s] = margin(sim, s)
            return
        key = decision_key(sim)
        child = _child(tree, edge, key)
        if child < 0:
            child = _expand(sim, tb, tree, settings, work)
            _add_child(tree, edge, child)
        node = child
    out[:] = tree.node_estimate[node]


@njit(cache=True, nogil=True)
def search(root, tb, tree, simulations, per_cell, settings, work):
    """Up to `simulations` simulations from the root (node 0; added first when the tree
    is empty: `clear`) on fresh determinisations of `root` (played on work.sim, drawn
    from work.rng; the root's node also needs room: `grow`), with the `Settings`. Stops
    early, before a simulation changes anything, when the tree might not take its new
    nodes (depth + 1 of them, each at most `per_cell` edges per open cell; the open
    cells grow by at most 2 a move). Returns the simulations run."""
    c, value_scale, depth = settings.c, settings.value_scale, settings.depth
    sim, rng, path = work.sim, work.rng, work.path
    if tree.used[0] == 0:
        _expand(root, tb, tree, settings, work)
    done = 0
    while done < simulations and tree.used[0] + depth + 1 <= tree.node_seat.shape[0]:
        saved = rng[0]
        copy_into(sim, root)
        shuffle_undrawn(sim, rng)
        node = 0
        length = 0
        leaf = -1
        while True:
            edge = _select(tree, node, c, value_scale, settings.paranoid)
            path[length, 0] = node
            path[length, 1] = edge
            length += 1
            if not _play(sim, tb, tree, edge):
                break
            key = decision_key(sim)
            child = _child(tree, edge, key)
            if child < 0:
                cells = sim.nfront + 2 * depth
                if tree.used[1] + (depth + 1) * per_cell * cells > tree.edge_prior.shape[0]:
                    rng[0] = saved  # (the caller grows the tree and runs it again)
                    return done
                leaf = _expand(sim, tb, tree, settings, work)
                _add_child(tree, edge, leaf)
                if depth:
                    _look_ahead(sim, tb, tree, leaf, settings, work)
                break
            node = child
        for i in range(length):  # the final margin expected by the seat that played it
            node, edge = path[i, 0], path[i, 1]
            seat, sign = _played_by(tree, node, settings.paranoid)
            value = margin(sim, seat) if leaf < 0 else tree.node_estimate[leaf, seat]
            tree.edge_visits[edge] += 1
            tree.edge_value[edge] += sign * value
        done += 1
    return done
