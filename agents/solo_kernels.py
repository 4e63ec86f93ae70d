"""Jitted kernels of the solo lab's bots (agents/solo_search.py, agents/solo_solve.py).

Kept apart from the bots so that the compiled code depends only on the core and the
heuristic's evaluation (the numba cache key), not on the bots' Python code.
"""

import numpy as np
from numba import njit

from carcassonne_env.core import config as C
from carcassonne_env.core.playout import shuffle_undrawn
from carcassonne_env.core.state import copy_into
from carcassonne_env.core.turn import apply_move

from .evaluation import objective
from .search import heuristic_move, leaf_values


@njit(cache=True, nogil=True)
def candidate_values(root, tb, cand, n_cand, seed, depth, w, det, sim, after, scratch, rows,
                     move_values, values, unseen, out):
    """out[i] = solo objective reached by candidate move cand[i] (legal rows of `root`,
    left unchanged) in one determinisation: the undrawn tiles reshuffled by the generator
    seeded with `seed` (the same order for every candidate), the move, `depth` heuristic
    moves, then the heuristic estimate (exact final scores if the game ended). `det`,
    `sim`, `after`, `scratch` are same-shaped scratch states; the rest scratch buffers."""
    rng = np.empty(1, np.uint64)
    rng[0] = seed
    copy_into(det, root)
    shuffle_undrawn(det, rng)
    for i in range(n_cand):
        copy_into(sim, det)
        apply_move(sim, tb, cand[i, 0], cand[i, 1], cand[i, 2], cand[i, 3], cand[i, 4])
        leaf_values(sim, tb, depth, w, after, scratch, rows, move_values, unseen, rng,
                    values)
        out[i] = objective(values, 0, True, w)


@njit(cache=True, nogil=True)
def rollout_results(root, tb, cand, n_cand, w, sim, after, scratch, rows, move_values,
                    values, unseen, out_min, out_sum):
    """For each candidate cand[i] (legal rows of `root`, left unchanged): play it, then
    the heuristic policy to the end with the state's own (true) tile order; out_min[i],
    out_sum[i] = the lowest colour's final score and the sum of the final scores."""
    for i in range(n_cand):
        copy_into(sim, root)
        apply_move(sim, tb, cand[i, 0], cand[i, 1], cand[i, 2], cand[i, 3], cand[i, 4])
        while not sim.sc[C.SC_DONE]:
            heuristic_move(sim, tb, w, after, scratch, rows, move_values, values, unseen)
        lo = sim.scores[0]
        total = 0
        for p in range(sim.scores.shape[0]):
            lo = min(lo, sim.scores[p])
            total += sim.scores[p]
        out_min[i] = lo
        out_sum[i] = total
