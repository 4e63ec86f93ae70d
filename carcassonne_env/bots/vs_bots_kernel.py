"""Batched games of one learning seat against jitted bots: one numba call applies the
learner's move in every game, plays every bot move up to the learner's next decision,
and writes the learner's reward, episode end, observation and mask
(`carcassonne_env.envs.vector_multi.VsBotsVectorEnv` drives it).

Per game i and seat p the tables say who plays: ``kinds[i, p]`` is LEARNER, a jitted bot
(RANDOM, GREEDY, HEURISTIC: `carcassonne_env.bots.jitted_bots`, with weights ``weights[i, p]`` and
generator ``mt[i, p]``) or POLICY (moved from Python: the game stops there, with
``waiting[i] = p``, until a RESUME call of `run_batch` brings the policy's action).
``base[i]`` holds the scores at the learner's last decision: the reward is computed
from the rise since then, so points scored by bots before the learner's first move
count in its first step, as in `VsBotsEnv`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from carcassonne_env.core import config as C
from carcassonne_env.core.board import origin
from carcassonne_env.core.encode import MODE_TURN, encode, window_origin
from carcassonne_env.core.turn import legal_moves, reset
from carcassonne_env.core.vector import apply_action

from .jitted_bots import HEURISTIC, LEARNER, POLICY, choose, mt_seed, play_bot

REWARD_SCORE, REWARD_MARGIN, REWARD_WIN = 0, 1, 2
STEP, START, RESUME = 0, 1, 2  # phases of `run_batch`
REWARD_MODES = {"score": REWARD_SCORE, "margin": REWARD_MARGIN, "win": REWARD_WIN}


@njit(cache=True, nogil=True)
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
def _finish(k, st, tb, sub, n_types, SL, learner, base, mode, pend, rows, planes, feats,
            mask, dirty, rewards, dones, outside):
    rewards[k] = learner_reward(st, learner, base, mode)
    dones[k] = st.sc[C.SC_DONE]
    _, outside[k] = encode(st, tb, sub, n_types, SL, learner, MODE_TURN, pend, rows, planes,
                           feats, mask, dirty)


@njit(cache=True, parallel=True)
def run_batch(states, tb, sub, n_types, SL, phase, which, actions, masks_in, started,
              deck_len, bot_seeds, seats, kinds, weights, mt, base, mode, rows, afters,
              scratches, values, evals, unseen, keys, planes, feats, masks, dirty, pend,
              rewards, dones, illegal, waiting, outside):
    """One call for the games which[j] (one kernel, not three: every kernel that plays
    bots links the whole bot and evaluation code, which dominates compile time):

    - phase STEP: play the learner's action actions[j] (turn mode; one outside
      masks_in[i] plays nothing and sets illegal[i] and dones[i]), then the bots up to
      the learner's next decision; write rewards[i], dones[i] and the learner's
      observation and mask into planes / feats / masks / dirty (another buffer set than
      masks_in's).
    - phase START: start a new game from the deck already in the state's `deck` array
      (deck_len tiles), seed the bots' generators from bot_seeds[i, p], let the bots
      move up to the learner's first decision and encode it.
    - phase RESUME: play the POLICY seat's action actions[j] (assumed legal: the caller
      masks its policy), then the bots again; where the learner is to act now (or the
      game ended) write as STEP does, only the observation if started[j] (the game is
      still before the learner's first decision).

    A game that stops at a POLICY seat gets waiting[i] = that seat and no observation
    yet. Games are split into one chunk per thread; rows, afters, scratches, values,
    evals, unseen and keys hold one scratch buffer per thread."""
    n = which.shape[0]
    chunks = min(rows.shape[0], n)
    B = planes.shape[1] // 3
    for cc in prange(chunks):
        c = np.int64(cc)  # prange's index is unsigned; typed lists want a signed one
        after, scratch = afters[c], scratches[c]
        for j in range(c * n // chunks, (c + 1) * n // chunks):
            k = which[j]
            st = states[k]
            waiting[k] = -1
            first = phase == START
            if phase == START:
                reset(st, tb, deck_len)
                for p in range(kinds.shape[1]):
                    if kinds[k, p] != LEARNER and kinds[k, p] != POLICY:
                        mt_seed(mt[k, p], bot_seeds[k, p])
                    base[k, p] = st.scores[p]
            elif phase == STEP:
                rewards[k] = 0.0
                dones[k] = 0
                illegal[k] = 0
                a = actions[j]
                if a < 0 or a >= masks_in.shape[1] or masks_in[k, a] == 0:
                    illegal[k] = 1
                    dones[k] = 1
                    continue
                apply_action(st, tb, B, SL, a)
            else:
                first = started[j]
                apply_action(st, tb, B, SL, actions[j])
            w = _run_bots(st, tb, seats[k], kinds[k], weights[k], mt[k], rows[c], after,
                          scratch, values[c], evals[c], unseen[c], keys[c])
            if w >= 0:
                waiting[k] = w
            elif first:
                _, outside[k] = encode(st, tb, sub, n_types, SL, seats[k], MODE_TURN, pend,
                                       rows[c], planes[k], feats[k], masks[k], dirty[k])
            else:
                _finish(k, st, tb, sub, n_types, SL, seats[k], base[k], mode, pend, rows[c],
                        planes[k], feats[k], masks[k], dirty[k], rewards, dones, outside)


@njit(cache=True)
def observe_batch(states, tb, sub, n_types, SL, which, observers, rows, planes, feats, masks,
                  dirty, pend):
    """Encode the observation and mask of seat observers[j] in game which[j] into row j
    of planes / feats / masks (a policy's batch; dirty[j] as in `encode`). Serial: a
    policy's forward pass costs far more."""
    n = which.shape[0]
    chunks = min(rows.shape[0], n)
    for c in prange(chunks):
        for j in range(c * n // chunks, (c + 1) * n // chunks):
            encode(states[which[j]], tb, sub, n_types, SL, observers[j], MODE_TURN, pend,
                   rows[c], planes[j], feats[j], masks[j], dirty[j])


@njit(cache=True, parallel=True)
def teacher_batch(states, tb, kind, w, mt, B, SL, temperature, rows, afters, scratches,
                  values, evals, unseen, keys, best, probs, margin):
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
    n_games = len(states)
    chunks = min(rows.shape[0], n_games)
    for cc in prange(chunks):
        c = np.int64(cc)
        for i in range(c * n_games // chunks, (c + 1) * n_games // chunks):
            st = states[i]
            probs[i, :] = 0.0
            best[i] = -1
            margin[i] = 0.0
            k = choose(st, tb, kind, w, mt[i], rows[c], afters[c], scratches[c], values[c],
                       evals[c], unseen[c], keys[c])
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
                a = ((((rows[c, m, 0] * B + row) * B + col) * 4 + rows[c, m, 3]) * SL
                     + rows[c, m, 4] + 1)
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
