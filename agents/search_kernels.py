"""Jitted single-observer information-set MCTS (SO-ISMCTS, Cowling et al. 2012).

Every iteration deals a fresh determinisation (the undrawn tiles reshuffled), walks the
tree from the root, choosing among the children whose move is legal in this
determinisation by UCB1 with availability counts, expands one untried legal move, values
the leaf and backs the reward up. A node's statistics are from the view of the seat that
played its move. A leaf is valued by a uniformly random playout to the end (the core's
jitted playout), or (`depth` >= 0) by `depth` moves of the heuristic policy and then the
heuristic estimate of the final scores (carcassonne_env.bots.evaluation).

The tree lives in flat arrays (`Tree`), the moves are keyed by one int64 (tile type,
position, rotation, slot), so a search is one nogil numba call: search trees can run in
parallel threads (root parallelisation).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from carcassonne_env.bots.evaluation import evaluate_moves, objective, position_values, unseen_tiles
from carcassonne_env.bots.jitted_bots import bot_buffers
from carcassonne_env.compiler.jit import hot, hot_entry, hot_inline
from carcassonne_env.core.playout import random_playout, rng_below, shuffle_undrawn
from carcassonne_env.core.state import GameState, copy_into, copy_state
from carcassonne_env.core.turn import apply_move_auto, legal_moves, tile_to_place

Tree = namedtuple("Tree", ["key", "seat", "child", "sibling", "visits", "avail", "value", "row"])

#: A search's scratch for games of one shape (`search_buffers`): `sim` and `det`, states
#: of the game's shape (a determinisation played on, one kept); `bot`, the heuristic
#: policy's `jitted_bots.BotBuffers` (its `values`: the leaf's per-seat values);
#: `reward`, float64[seats]; `path`, int64[moves of a game + 2], the nodes of a descent.
SearchBuffers = namedtuple("SearchBuffers", ["sim", "det", "bot", "reward", "path"])

#: The UCB search's settings (`search`): exploration constant `c`, the scales of
#: `to_rewards` and the leaf policy's `depth` (`leaf_values`).
SearchSettings = namedtuple("SearchSettings", ["c", "margin_scale", "solo_scale", "depth"])


def search_buffers(st: GameState, n_types: int) -> SearchBuffers:
    """Fresh `SearchBuffers` for games shaped like state `st` with `n_types` tile types."""
    return SearchBuffers(
        copy_state(st),
        copy_state(st),
        bot_buffers(st, n_types),
        np.zeros(st.scores.shape[0]),
        np.zeros(st.ptype.shape[0] + 2, np.int64),
    )


_OFF = 512  # coordinates are at most 72 cells from the start tile


def make_tree(capacity: int) -> Tree:
    """Buffers for a tree of up to `capacity` nodes (one per iteration, plus the root)."""
    return Tree(
        key=np.zeros(capacity, np.int64),  # move into the node (see move_key)
        seat=np.zeros(capacity, np.int64),  # seat that played it
        child=np.full(capacity, -1, np.int64),  # first child
        sibling=np.full(capacity, -1, np.int64),  # next child of the same parent
        visits=np.zeros(capacity, np.int64),
        avail=np.zeros(capacity, np.int64),  # iterations in which the move was legal
        value=np.zeros(capacity, np.float64),  # summed rewards of `seat`
        row=np.zeros((capacity, 5), np.int64),  # legal move row when expanded (root: the move)
    )


@hot_inline
def move_key(t, x, y, r, slot):
    return (((t * _OFF * 2 + x + _OFF) * _OFF * 2 + y + _OFF) * 4 + r) * 64 + slot + 1


@hot_inline
def to_rewards(values, solo, margin_scale, solo_scale, out):
    """out[p], in [0, 1] for standard games, from per-seat (estimated) final scores
    `values`: in solo the lowest colour's / solo_scale for every colour (all colours are
    one player);
    otherwise 0.5 + 0.5 tanh(margin / margin_scale), margin = the seat's value minus the
    best other seat's, or win 1 / tie 0.5 / loss 0 when margin_scale is 0."""
    P = values.shape[0]
    if solo:
        lo = values[0]
        for p in range(P):
            lo = min(lo, values[p])
        for p in range(P):
            out[p] = lo / solo_scale
        return
    for p in range(P):
        best_other = -1e18
        for q in range(P):
            if q != p:
                best_other = max(best_other, values[q])
        margin = values[p] - best_other
        if margin_scale > 0:
            out[p] = 0.5 + 0.5 * np.tanh(margin / margin_scale)
        else:
            out[p] = 1.0 if margin > 0 else (0.5 if margin == 0 else 0.0)


@hot
def heuristic_move(sim, tb, w, bot):
    """Play the heuristic bot's choice (best `evaluate_moves` objective, first of ties;
    `bot`: its `BotBuffers`)."""
    rows, move_values, unseen = bot.rows, bot.evals, bot.unseen
    n = legal_moves(sim, tb, rows)
    unseen_tiles(sim, unseen.shape[0], unseen)
    evaluate_moves(sim, tb, rows, n, w, unseen, bot.after, bot.scratch, bot.values, move_values)
    best = 0
    for i in range(1, n):
        if move_values[i] > move_values[best]:
            best = i
    apply_move_auto(
        sim, tb, rows[best, 0], rows[best, 1], rows[best, 2], rows[best, 3], rows[best, 4]
    )


@hot
def leaf_values(sim, tb, depth, w, bot, rng):
    """bot.values[p] = final scores after a random playout (depth < 0), or the heuristic
    estimate of `carcassonne_env.bots.evaluation` (weights w) after `depth` moves of the
    heuristic policy (`bot`: its `BotBuffers`; `rng`: the playout's generator)."""
    values, unseen = bot.values, bot.unseen
    if depth < 0:
        random_playout(sim, tb, rng)
    else:
        for _ in range(depth):
            if sim.done:
                break
            heuristic_move(sim, tb, w, bot)
    if sim.done:
        for p in range(values.shape[0]):
            values[p] = sim.scores[p]
        return
    unseen_tiles(sim, unseen.shape[0], unseen)
    position_values(sim, tb, bot.scratch, unseen, w, values)


@hot_entry
def search(root, tb, root_rows, tree, iterations, settings, w, buf, rng):
    """Run `iterations` iterations from the (unchanged) state `root`, whose moves to
    consider are `root_rows` (legal rows; a subset prunes the search), with the
    `SearchSettings`: leaves are valued by `leaf_values(settings.depth, w)` and turned
    into rewards by `to_rewards`. `buf`: the `SearchBuffers`; `rng`: the one-element
    splitmix state. Returns the number of root children (tree.child[0], then
    tree.sibling: their tree.row, visits and value)."""
    c, depth = settings.c, settings.depth
    sim, bot, path, reward = buf.sim, buf.bot, buf.path, buf.reward
    rows, values = bot.rows, bot.values
    tree.child[0] = -1
    tree.visits[0] = 0
    n_nodes = 1
    for _ in range(iterations):
        copy_into(sim, root)
        shuffle_undrawn(sim, rng)
        node = 0
        level = 0
        path[0] = 0
        while not sim.done:
            if level == 0:  # the root's moves are known: no determinisation changes them
                n = root_rows.shape[0]
                for i in range(n):  # (slice copies need reference counting: not in `hot`)
                    for j in range(5):
                        rows[i, j] = root_rows[i, j]
            else:
                n = legal_moves(sim, tb, rows)
            # Match legal moves to children; count availability; find untried moves.
            best, best_i, best_ucb, untried = -1, -1, -1.0, 0
            for i in range(n):
                t = tile_to_place(sim, rows[i, 0])
                k = move_key(t, rows[i, 1], rows[i, 2], rows[i, 3], rows[i, 4])
                ch = tree.child[node]
                while ch >= 0 and tree.key[ch] != k:
                    ch = tree.sibling[ch]
                if ch < 0:
                    for j in range(5):  # compact untried rows to the front
                        rows[untried, j] = rows[i, j]
                    untried += 1
                    continue
                tree.avail[ch] += 1
                v = tree.visits[ch]
                ucb = tree.value[ch] / v + c * np.sqrt(np.log(tree.avail[ch]) / v)
                if ucb > best_ucb:
                    best, best_i, best_ucb = ch, i, ucb
            seat = sim.seat
            if untried > 0:  # expand one untried move, then play out
                i = rng_below(rng, untried)
                ch = n_nodes
                n_nodes += 1
                t = tile_to_place(sim, rows[i, 0])
                tree.key[ch] = move_key(t, rows[i, 1], rows[i, 2], rows[i, 3], rows[i, 4])
                tree.seat[ch] = seat
                tree.child[ch] = -1
                tree.visits[ch] = 0
                tree.avail[ch] = 1
                tree.value[ch] = 0.0
                for j in range(5):
                    tree.row[ch, j] = rows[i, j]
                tree.sibling[ch] = tree.child[node]
                tree.child[node] = ch
                apply_move_auto(sim, tb, rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], rows[i, 4])
                level += 1
                path[level] = ch
                break
            # No untried move means no row was moved: rows[best_i] is the chosen move.
            apply_move_auto(
                sim,
                tb,
                rows[best_i, 0],
                rows[best_i, 1],
                rows[best_i, 2],
                rows[best_i, 3],
                rows[best_i, 4],
            )
            node = best
            level += 1
            path[level] = node
        leaf_values(sim, tb, depth, w, bot, rng)
        to_rewards(values, sim.solo != 0, settings.margin_scale, settings.solo_scale, reward)
        tree.visits[0] += 1
        for d in range(1, level + 1):
            nd = path[d]
            tree.visits[nd] += 1
            tree.value[nd] += reward[tree.seat[nd]]
    n_root = 0
    ch = tree.child[0]
    while ch >= 0:
        n_root += 1
        ch = tree.sibling[ch]
    return n_root


# --------------------------------------------------------------------------- solo lab
# Kernels of the solo lab's bots (agents/solo_search.py, agents/solo_solve.py).


@njit(cache=True, nogil=True)
def candidate_values(root, tb, cand, n_cand, seed, depth, w, buf, out):
    """out[i] = solo objective reached by candidate move cand[i] (legal rows of `root`,
    left unchanged) in one determinisation: the undrawn tiles reshuffled by the generator
    seeded with `seed` (the same order for every candidate), the move, `depth` heuristic
    moves, then the heuristic estimate (exact final scores if the game ended). `buf`:
    the `SearchBuffers`."""
    sim, det, bot = buf.sim, buf.det, buf.bot
    rng = np.empty(1, np.uint64)
    rng[0] = seed
    copy_into(det, root)
    shuffle_undrawn(det, rng)
    for i in range(n_cand):
        copy_into(sim, det)
        apply_move_auto(sim, tb, cand[i, 0], cand[i, 1], cand[i, 2], cand[i, 3], cand[i, 4])
        leaf_values(sim, tb, depth, w, bot, rng)
        out[i] = objective(bot.values, 0, True, w)


@hot_entry
def rollout_results(root, tb, cand, n_cand, w, buf, out_min, out_sum):
    """For each candidate cand[i] (legal rows of `root`, left unchanged): play it, then
    the heuristic policy to the end with the state's own (true) tile order; out_min[i],
    out_sum[i] = the lowest colour's final score and the sum of the final scores. `buf`:
    the `SearchBuffers`."""
    sim = buf.sim
    for i in range(n_cand):
        copy_into(sim, root)
        apply_move_auto(sim, tb, cand[i, 0], cand[i, 1], cand[i, 2], cand[i, 3], cand[i, 4])
        while not sim.done:
            heuristic_move(sim, tb, w, buf.bot)
        lo = sim.scores[0]
        total = 0
        for p in range(sim.scores.shape[0]):
            lo = min(lo, sim.scores[p])
            total += sim.scores[p]
        out_min[i] = lo
        out_sum[i] = total
