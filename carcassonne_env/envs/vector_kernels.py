"""The vector envs' kernels: one parallel numba call steps every game and observes it
(`SoloVectorEnv` in `carcassonne_env.envs.solo`, `VsBotsVectorEnv` in
`carcassonne_env.envs.vs_bots`).

The games' states are the rows of one int64 buffer (`core.state.state_rows`). Each call
takes two tuples besides: `out`, a buffer set of observations indexed by row (planes,
features, masks, dirty rectangles, candidate features and actions), and `scratch`, what
the observe pass needs (`core.observe`; `Encoder.batch_scratch`: the two-step placement
(none), a legal-move buffer per thread, the aggregates' buffers per game and the
candidate moves' per thread, None for a part the env leaves out).

A call does the games (or batch rows) [lo, hi) with thread c's scratch; the envs cut
the games into chunks that the calling thread and helper threads take in turn (the
kernels release the GIL: `carcassonne_env.envs.vector_base.BatchedGamesEnv._in_chunks`).
Not numba's ``parallel=True``: its loop becomes a second compiled function holding the whole
observe pass and rules again, which more than doubled a kernel's compile time.

VsBots: per game i and seat p the tables say who plays: ``kinds[i, p]`` is LEARNER, a
jitted bot (RANDOM, GREEDY, HEURISTIC: `carcassonne_env.bots.jitted_bots`, with weights
``weights[i, p]`` and generator ``mt[i, p]``) or POLICY (moved from Python: the game
stops there, with ``waiting[i] = p``, until a RESUME call of `run_batch` brings the
policy's action). ``base[i]`` holds the scores at the learner's last decision: the
reward is computed from the rise since then, so points scored by bots before the
learner's first move count in its first step, as in `VsBotsEnv`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bots.jitted_bots import HEURISTIC, LEARNER, POLICY, choose, mt_seed, play_bot
from ..compiler.jit import counted, hot, hot_inline, jitted
from ..core import constants as C
from ..core.actions import split_turn_action, turn_action
from ..core.board import origin
from ..core.observe import observe
from ..core.planes import MODE_TURN, window_origin
from ..core.state import as_state
from ..core.turn import apply_move, legal_moves, reset

REWARD_SCORE, REWARD_MARGIN, REWARD_WIN = 0, 1, 2
STEP, START, RESUME, OBSERVE = 0, 1, 2, 3  # phases of `run_batch` (STEP, START: solo)
REWARD_MODES = {"score": REWARD_SCORE, "margin": REWARD_MARGIN, "win": REWARD_WIN}


@counted
def _game_agg(agg, i):
    """Game i's aggregate buffers of the per-env `agg` (None: none)."""
    if agg is None:
        return None
    return agg[0], agg[1], as_state(agg[2][i]), agg[3][i], agg[4][i]


@counted
def _game_cand(cand, c, feats, actions):
    """Thread c's candidate buffers of the per-env `cand` (None: none), writing `feats`,
    `actions`."""
    if cand is None:
        return None
    return (as_state(cand[0][c]), as_state(cand[1][c]), cand[2][c], cand[3][c], cand[4][c],
            feats, actions)


@jitted()
def _observe(states, i, j, c, tb, enc, observer, out, scratch, outside, n_cands):
    """Observe game i for `observer` into row j of `out` (thread c's scratch);
    outside[j], n_cands[j]: its legal moves outside the window, its candidates."""
    sub, n_types, SL = enc
    planes, feats, masks, dirty, cands, cand_actions = out
    pend, rows, agg, cand = scratch
    _, outside[j], n_cands[j] = observe(
        as_state(states[i]), tb, sub, n_types, SL, observer, MODE_TURN, pend, rows[c],
        planes[j], feats[j], masks[j], dirty[j], _game_agg(agg, i),
        _game_cand(cand, c, cands[j], cand_actions[j]))


@hot
def apply_action(st, tb, B, SL, a):
    """Play turn-mode action `a` (`core.actions`) in the B-cell window the state shows
    now, the one its observation was encoded in."""
    h, row, col, r, slot = split_turn_action(a, B, SL)
    x0, y0 = window_origin(st, B)
    o = origin(st)
    apply_move(st, tb, h, x0 + col - o, y0 + row - o, r, slot)


@hot
def _step_allowed(masks, i, a, rewards, dones, illegal):
    """Start game i's step: clear its reward; whether its mask (row i of `masks`) allows
    action `a` (in range and set). A step kernel plays nothing for another action: the
    game is marked illegal and done."""
    ok = 0 <= a < masks.shape[1] and masks[i, a] != 0
    rewards[i] = 0.0
    dones[i] = 0 if ok else 1
    illegal[i] = 0 if ok else 1
    return ok


# ------------------------------------------------------------------------------- solo


@hot_inline
def _lowest(scores):
    low = scores[0]
    for p in range(1, scores.shape[0]):
        low = min(low, scores[p])
    return low


@njit(cache=True, nogil=True)
def solo_batch(states, tb, enc, phase, which, actions, masks_in, deck_len, out, scratch,
               rewards, dones, illegal, outside, n_cands, lo, hi, c):
    """Games which[lo:hi], each observed into its row of `out`:

    - phase STEP: play actions[i] (turn mode) in game i (an action outside masks_in[i],
      the masks of the other buffer set, plays nothing and sets illegal[i]);
      rewards[i] = rise of the lowest colour's score; dones[i] = game over (or illegal).
    - phase START: start a new game from the deck already in its `deck` array."""
    B = out[0].shape[1] // 3
    for k in range(lo, hi):
        i = which[k]
        st = as_state(states[i])
        if phase == START:
            reset(st, tb, deck_len)
        else:
            a = actions[i]
            if not _step_allowed(masks_in, i, a, rewards, dones, illegal):
                continue
            low = _lowest(st.scores)
            apply_action(st, tb, B, enc[2], a)
            rewards[i] = _lowest(st.scores) - low
            dones[i] = st.sc[C.SC_DONE]
        _observe(states, i, i, c, tb, enc, 0, out, scratch, outside, n_cands)


# ----------------------------------------------------------------- against jitted bots


@jitted()
def _run_bots(st, tb, learner, kinds, weights, mt, rows, after, scratch, values, evals,
              unseen, keys):
    """Let the jitted bots move until the learner is to act or the game is over
    (returns -1), or a POLICY seat is to act (returns that seat)."""
    while st.sc[C.SC_DONE] == 0:
        p = st.sc[C.SC_SEAT]
        if p == learner:
            return -1
        kind = kinds[p]
        if kind == POLICY:
            return p
        play_bot(st, tb, kind, weights[p], mt[p], rows, after, scratch, values, evals,
                 unseen, keys)
    return -1


@njit(cache=True, nogil=True)
def learner_reward(st, learner, base, mode):
    """Reward of the learner for the score rise since `base` (then base = scores), as
    `carcassonne_env.envs.driver.seat_rewards`."""
    scores = st.scores
    P = scores.shape[0]
    mine = float(scores[learner] - base[learner])
    total = 0.0
    for p in range(P):
        total += float(scores[p] - base[p])
        base[p] = scores[p]
    if mode == REWARD_SCORE:
        return mine
    if mode == REWARD_MARGIN:
        return mine - (total - mine) / (P - 1)
    if st.sc[C.SC_DONE] == 0:
        return 0.0
    top = scores[0]
    for p in range(1, P):
        top = max(top, scores[p])
    n_top = 0
    for p in range(P):
        n_top += scores[p] == top
    if scores[learner] != top:
        return -1.0
    return 1.0 if n_top == 1 else 0.0


@njit(cache=True, nogil=True)
def run_batch(states, tb, enc, phase, which, actions, masks_in, started, deck_len, bot_seeds,
              seats, kinds, weights, mt, base, mode, bots, out, scratch, rewards, dones,
              illegal, waiting, outside, n_cands, lo, hi, c):
    """One kernel for the games which[lo:hi] (one, not four: every kernel links the whole
    observe pass and rules, which dominates compile time):

    - phase STEP: play the learner's action actions[j] (turn mode; one outside
      masks_in[i] plays nothing and sets illegal[i] and dones[i]), then the bots up to
      the learner's next decision; write rewards[i], dones[i] and the learner's
      observation into row i of `out` (another buffer set than masks_in's).
    - phase START: start a new game from the deck already in the state's `deck` array
      (deck_len tiles), seed the bots' generators from bot_seeds[i, p], let the bots
      move up to the learner's first decision and observe it.
    - phase RESUME: play the POLICY seat's action actions[j] (assumed legal: the caller
      masks its policy), then the bots again; where the learner is to act now (or the
      game ended) write as STEP does, only the observation if started[j] (the game is
      still before the learner's first decision).
    - phase OBSERVE: observe seat actions[j] of game which[j] into row j of `out` (a
      policy opponent's batch; outside[j], n_cands[j] as in `_observe`), nothing else.

    A game that stops at a POLICY seat gets waiting[i] = that seat and no observation
    yet. `bots` = (afters, scratches, values, evals, unseen, keys): the jitted bots'
    buffers, one per thread."""
    afters, scratches, values, evals, unseen, keys = bots
    rows = scratch[1]
    B = out[0].shape[1] // 3
    SL = enc[2]
    after, bot_scratch = as_state(afters[c]), as_state(scratches[c])
    if phase == OBSERVE:
        for j in range(lo, hi):
            _observe(states, which[j], j, c, tb, enc, actions[j], out, scratch, outside,
                     n_cands)
        return
    for j in range(lo, hi):
        k = which[j]
        st = as_state(states[k])
        waiting[k] = -1
        first = phase == START
        if phase == START:
            reset(st, tb, deck_len)
            for p in range(kinds.shape[1]):
                if kinds[k, p] != LEARNER and kinds[k, p] != POLICY:
                    mt_seed(mt[k, p], bot_seeds[k, p])
                base[k, p] = st.scores[p]
        elif phase == STEP:
            a = actions[j]
            if not _step_allowed(masks_in, k, a, rewards, dones, illegal):
                continue
            apply_action(st, tb, B, SL, a)
        else:
            first = started[j]
            apply_action(st, tb, B, SL, actions[j])
        w = _run_bots(st, tb, seats[k], kinds[k], weights[k], mt[k], rows[c], after,
                      bot_scratch, values[c], evals[c], unseen[c], keys[c])
        if w >= 0:
            waiting[k] = w
            continue
        if not first:
            rewards[k] = learner_reward(st, seats[k], base[k], mode)
            dones[k] = st.sc[C.SC_DONE]
        _observe(states, k, k, c, tb, enc, seats[k], out, scratch, outside, n_cands)


@njit(cache=True, nogil=True)
def teacher_batch(states, tb, kind, w, mt, B, SL, temperature, rows, afters, scratches,
                  values, evals, unseen, keys, best, probs, margin, lo, hi, c):
    """What jitted bot `kind` (weights `w`, generator mt[i] per game) would play for the
    seat to move in every game i, as targets for imitation learning:

    - best[i]: the action index (turn mode, the window the state shows) of its move, -1
      if that move lies outside the window or the game is over;
    - probs[i]: a distribution over the legal actions in the window: for the heuristic
      softmax(evaluation / temperature) (temperature 0: its move only), for the other
      bots its move only;
    - margin[i]: for the heuristic, its estimate of the final margin still to come for
      the seat to move (best evaluation minus the banked margin over the best other
      seat, or, in solo, the lowest colour's rise); 0 for the other bots."""
    for i in range(lo, hi):
        st = as_state(states[i])
        probs[i, :] = 0.0
        best[i] = -1
        margin[i] = 0.0
        k = choose(st, tb, kind, w, mt[i], rows[c], as_state(afters[c]),
                   as_state(scratches[c]), values[c], evals[c], unseen[c], keys[c])
        if k < 0:
            continue
        n = legal_moves(st, tb, rows[c])  # the rows choose filled; it returns no count
        x0, y0 = window_origin(st, B)
        o = origin(st)
        top = -1e18
        for m in range(n):
            top = max(top, evals[c, m])
        total = 0.0
        for m in range(n):
            col, row = rows[c, m, 1] + o - x0, rows[c, m, 2] + o - y0
            if not (0 <= col < B and 0 <= row < B):
                continue
            a = turn_action(rows[c, m, 0], row, col, rows[c, m, 3], rows[c, m, 4], B, SL)
            if m == k:
                best[i] = a
            if kind == HEURISTIC and temperature > 0:
                p = np.exp((evals[c, m] - top) / temperature)
                probs[i, a] = p
                total += p
        if kind != HEURISTIC or temperature <= 0:
            if best[i] >= 0:
                probs[i, best[i]] = 1.0
        elif total > 0:
            for a in range(probs.shape[1]):
                probs[i, a] /= total
        if kind == HEURISTIC:
            seat = st.sc[C.SC_SEAT]
            if st.cfg[C.CFG_SOLO] != 0:
                low = st.scores[0]
                for p in range(st.scores.shape[0]):
                    low = min(low, st.scores[p])
                margin[i] = top - low
            else:
                other = -1e18
                for p in range(st.scores.shape[0]):
                    if p != seat:
                        other = max(other, st.scores[p])
                margin[i] = top - (st.scores[seat] - other)
