"""The vector envs' kernels: one parallel numba call steps every game and observes it
(`SoloVectorEnv` in `carcassonne_env.envs.solo`, `VsBotsVectorEnv` in
`carcassonne_env.envs.vs_bots`).

A kernel takes a few named records, which the env builds once and keeps: `Games` (the
games' states, the rows of one int64 buffer: `core.state.state_rows`; the tile tables;
the encoder's layout), the call's `Batch` (phase, games, actions), an `Observation`
whose arrays have a row per game (planes, features, masks, dirty rectangles, candidate
features and actions), the observe pass's `ObservationScratch` (`Encoder.batch_scratch`:
a legal-move buffer and the candidate moves' buffers per thread, the aggregates' per
game, None for a part the env leaves out), the `Results` it writes and, for the jitted
bots, their `BotBuffers` (one row per thread) and the VsBots `Seating`.

A call does the games (or batch rows) [lo, hi) with thread c's scratch; the envs cut
the games into chunks that the calling thread and helper threads take in turn (the
kernels release the GIL: `carcassonne_env.envs.vector_base.BatchedGamesEnv._in_chunks`).
Not numba's ``parallel=True``: its loop becomes a second compiled function holding the whole
observe pass and rules again, which more than doubled a kernel's compile time.

VsBots: per game i and seat p the `Seating` says who plays: ``kinds[i, p]`` is LEARNER, a
jitted bot (RANDOM, GREEDY, HEURISTIC: `carcassonne_env.bots.jitted_bots`, with weights
``weights[i, p]`` and generator ``mt[i, p]``) or POLICY (moved from Python: the game
stops there, with ``waiting[i] = p``, until a RESUME call of `run_batch` brings the
policy's action). ``base[i]`` holds the scores at the learner's last decision: the
reward is computed from the rise since then, so points scored by bots before the
learner's first move count in its first step, as in `VsBotsEnv`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..bots.jitted_bots import HEURISTIC, LEARNER, POLICY, BotBuffers, choose, mt_seed, play_bot
from ..compiler.jit import counted, hot, hot_inline, jitted
from ..core.actions import split_turn_action, turn_action
from ..core.aggregates import AggregateBuffers
from ..core.board import origin
from ..core.candidates import CandidateBuffers
from ..core.observe import Observation, observe
from ..core.planes import MODE_TURN, window_origin
from ..core.state import as_state
from ..core.turn import apply_move, legal_moves, reset

REWARD_SCORE, REWARD_MARGIN, REWARD_WIN = 0, 1, 2
STEP, START, RESUME, OBSERVE = 0, 1, 2, 3  # phases of `run_batch` (STEP, START: solo)
REWARD_MODES = {"score": REWARD_SCORE, "margin": REWARD_MARGIN, "win": REWARD_WIN}

#: A vector env's games: their `states` (rows of one int64 buffer), the tile `tables`,
#: the encoder's `layout` (`core.observe.ObsLayout`) and the tiles a deck deals
#: (`deck_len`).
Games = namedtuple("Games", ["states", "tables", "layout", "deck_len"])

#: One kernel call: its `phase` (STEP, START, RESUME, OBSERVE), the games `which`
#: (indices into the states), their `actions` (OBSERVE: the observers), the masks the
#: actions were chosen from (`masks_in`, a row per game) and, for RESUME, whether each
#: game had reached the learner's first decision (`started`).
Batch = namedtuple("Batch", ["phase", "which", "actions", "masks_in", "started"])

#: What a call writes besides the observations, per game: the learner's reward, whether
#: the game ended (`dones`) by an illegal action (`illegal`) and the POLICY seat it waits
#: for (`waiting`, -1: none); per row of the observations: the legal moves outside the
#: window (`outside`) and the candidate actions inside it (`n_cands`).
Results = namedtuple("Results", ["rewards", "dones", "illegal", "waiting", "outside", "n_cands"])

#: Who plays each seat of each VsBots game (module docstring): the `learner`'s seat;
#: per seat the bot's kind, weights, generator `mt` and its seed (`bot_seeds`); the
#: scores at the learner's last decision (`base`); the reward mode (REWARD_MODES).
Seating = namedtuple(
    "Seating", ["learner", "kinds", "weights", "mt", "bot_seeds", "base", "reward_mode"]
)

#: A teacher bot (`teacher_batch`): its kind and heuristic weights, a generator per game
#: and the softmax temperature.
TeacherBot = namedtuple("TeacherBot", ["kind", "weights", "mt", "temperature"])


@counted
def _game_agg(agg, i):
    """Game i's `AggregateBuffers` of the per-env `agg` (None: none)."""
    if agg is None:
        return None
    return AggregateBuffers(
        agg.base, agg.fbase, as_state(agg.scratch[i]), agg.counts[i], agg.pending[i]
    )


@counted
def _thread_cand(cand, c):
    """Thread c's `CandidateBuffers` of the per-env `cand` (None: none)."""
    if cand is None:
        return None
    return CandidateBuffers(
        as_state(cand.after[c]),
        as_state(cand.scratch[c]),
        cand.unseen[c],
        cand.before[c],
        cand.memo[c],
    )


@counted
def _thread_bots(bots, c):
    """Thread c's `BotBuffers` of the per-env `bots`."""
    return BotBuffers(
        bots.rows[c],
        as_state(bots.after[c]),
        as_state(bots.scratch[c]),
        bots.values[c],
        bots.evals[c],
        bots.unseen[c],
        bots.keys[c],
    )


@jitted()
def _observe(games, i, j, c, observer, out, scratch, results):
    """Observe game i for `observer` into row j of `out` (thread c's scratch);
    results.outside[j], results.n_cands[j]: its legal moves outside the window, its
    candidates."""
    obs = Observation(
        out.planes[j],
        out.feats[j],
        out.mask[j],
        out.dirty[j],
        out.cand_feats[j],
        out.cand_actions[j],
    )
    _, results.outside[j], results.n_cands[j] = observe(
        as_state(games.states[i]),
        games.tables,
        games.layout,
        observer,
        MODE_TURN,
        scratch.pend,
        scratch.rows[c],
        obs,
        _game_agg(scratch.agg, i),
        _thread_cand(scratch.cand, c),
    )


@hot
def apply_action(st, tb, B, SL, a):
    """Play turn-mode action `a` (`core.actions`) in the B-cell window the state shows
    now, the one its observation was encoded in."""
    h, row, col, r, slot = split_turn_action(a, B, SL)
    x0, y0 = window_origin(st, B)
    o = origin(st)
    apply_move(st, tb, h, x0 + col - o, y0 + row - o, r, slot)


@hot
def _step_allowed(masks, i, a, results):
    """Start game i's step: clear its reward; whether its mask (row i of `masks`) allows
    action `a` (in range and set). A step kernel plays nothing for another action: the
    game is marked illegal and done (`Results`)."""
    ok = 0 <= a < masks.shape[1] and masks[i, a] != 0
    results.rewards[i] = 0.0
    results.dones[i] = 0 if ok else 1
    results.illegal[i] = 0 if ok else 1
    return ok


# ------------------------------------------------------------------------------- solo


@hot_inline
def _lowest(scores):
    low = scores[0]
    for p in range(1, scores.shape[0]):
        low = min(low, scores[p])
    return low


@njit(cache=True, nogil=True)
def solo_batch(games, batch, out, scratch, results, lo, hi, c):
    """Games batch.which[lo:hi], each observed into its row of `out`:

    - phase STEP: play batch.actions[i] (turn mode) in game i (an action outside
      batch.masks_in[i], the masks of the other buffer set, plays nothing and sets
      illegal[i]); rewards[i] = rise of the lowest colour's score; dones[i] = game over
      (or illegal).
    - phase START: start a new game from the deck already in its `deck` array."""
    tb, B, SL = games.tables, games.layout.board_size, games.layout.slots
    for k in range(lo, hi):
        i = batch.which[k]
        st = as_state(games.states[i])
        if batch.phase == START:
            reset(st, tb, games.deck_len)
        else:
            a = batch.actions[i]
            if not _step_allowed(batch.masks_in, i, a, results):
                continue
            low = _lowest(st.scores)
            apply_action(st, tb, B, SL, a)
            results.rewards[i] = _lowest(st.scores) - low
            results.dones[i] = st.done
        _observe(games, i, i, c, 0, out, scratch, results)


# ----------------------------------------------------------------- against jitted bots


@jitted()
def _run_bots(st, tb, learner, kinds, weights, mt, bots):
    """Let the jitted bots move (`kinds`, `weights`, `mt`: the game's rows of the
    `Seating`; `bots`: the thread's `BotBuffers`) until the learner is to act or the
    game is over (returns -1), or a POLICY seat is to act (returns that seat)."""
    while st.done == 0:
        p = st.seat
        if p == learner:
            return -1
        kind = kinds[p]
        if kind == POLICY:
            return p
        play_bot(st, tb, kind, weights[p], mt[p], bots)
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
    if st.done == 0:
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
def run_batch(games, batch, seating, bots, out, scratch, results, lo, hi, c):
    """One kernel for the games batch.which[lo:hi] (one, not four: every kernel links
    the whole observe pass and rules, which dominates compile time); j indexes `batch`,
    k = which[j] the games:

    - phase STEP: play the learner's action actions[j] (turn mode; one outside
      masks_in[k] plays nothing and sets illegal[k] and dones[k]), then the bots up to
      the learner's next decision; write rewards[k], dones[k] and the learner's
      observation into row k of `out` (another buffer set than masks_in's).
    - phase START: start a new game from the deck already in the state's `deck` array,
      seed the bots' generators from seating.bot_seeds[k, p], let the bots move up to
      the learner's first decision and observe it.
    - phase RESUME: play the POLICY seat's action actions[j] (assumed legal: the caller
      masks its policy), then the bots again; where the learner is to act now (or the
      game ended) write as STEP does, only the observation if started[j] (the game is
      still before the learner's first decision).
    - phase OBSERVE: observe seat actions[j] of game k into row j of `out` (a policy
      opponent's batch; results.outside[j], n_cands[j] as in `_observe`), nothing else.

    A game that stops at a POLICY seat gets waiting[k] = that seat and no observation
    yet. `bots`: the jitted bots' `BotBuffers`, a row per thread."""
    tb, B, SL = games.tables, games.layout.board_size, games.layout.slots
    phase, which, actions = batch.phase, batch.which, batch.actions
    learner, kinds, base = seating.learner, seating.kinds, seating.base
    mine = _thread_bots(bots, c)
    if phase == OBSERVE:
        for j in range(lo, hi):
            _observe(games, which[j], j, c, actions[j], out, scratch, results)
        return
    for j in range(lo, hi):
        k = which[j]
        st = as_state(games.states[k])
        results.waiting[k] = -1
        first = phase == START
        if phase == START:
            reset(st, tb, games.deck_len)
            for p in range(kinds.shape[1]):
                if kinds[k, p] != LEARNER and kinds[k, p] != POLICY:
                    mt_seed(seating.mt[k, p], seating.bot_seeds[k, p])
                base[k, p] = st.scores[p]
        elif phase == STEP:
            a = actions[j]
            if not _step_allowed(batch.masks_in, k, a, results):
                continue
            apply_action(st, tb, B, SL, a)
        else:
            first = batch.started[j]
            apply_action(st, tb, B, SL, actions[j])
        w = _run_bots(st, tb, learner[k], kinds[k], seating.weights[k], seating.mt[k], mine)
        if w >= 0:
            results.waiting[k] = w
            continue
        if not first:
            results.rewards[k] = learner_reward(st, learner[k], base[k], seating.reward_mode)
            results.dones[k] = st.done
        _observe(games, k, k, c, learner[k], out, scratch, results)


@njit(cache=True, nogil=True)
def teacher_batch(games, teacher, bots, targets, lo, hi, c):
    """What the jitted bot `teacher` (`TeacherBot`: its kind, weights, generator mt[i]
    per game, temperature) would play for the seat to move in every game i, as targets
    for imitation learning (`targets`: a `vector_base.Teacher`):

    - action[i]: the action index (turn mode, the window the state shows) of its move, -1
      if that move lies outside the window or the game is over;
    - probs[i]: a distribution over the legal actions in the window: for the heuristic
      softmax(evaluation / temperature) (temperature 0: its move only), for the other
      bots its move only;
    - margin[i]: for the heuristic, its estimate of the final margin still to come for
      the seat to move (best evaluation minus the banked margin over the best other
      seat, or, in solo, the lowest colour's rise); 0 for the other bots."""
    tb, B, SL = games.tables, games.layout.board_size, games.layout.slots
    kind, temperature = teacher.kind, teacher.temperature
    best, probs, margin = targets.action, targets.probs, targets.margin
    mine = _thread_bots(bots, c)
    rows, evals = mine.rows, mine.evals
    for i in range(lo, hi):
        st = as_state(games.states[i])
        probs[i, :] = 0.0
        best[i] = -1
        margin[i] = 0.0
        k = choose(st, tb, kind, teacher.weights, teacher.mt[i], mine)
        if k < 0:
            continue
        n = legal_moves(st, tb, rows)  # the rows choose filled; it returns no count
        x0, y0 = window_origin(st, B)
        o = origin(st)
        top = -1e18
        for m in range(n):
            top = max(top, evals[m])
        total = 0.0
        for m in range(n):
            col, row = rows[m, 1] + o - x0, rows[m, 2] + o - y0
            if not (0 <= col < B and 0 <= row < B):
                continue
            a = turn_action(rows[m, 0], row, col, rows[m, 3], rows[m, 4], B, SL)
            if m == k:
                best[i] = a
            if kind == HEURISTIC and temperature > 0:
                p = np.exp((evals[m] - top) / temperature)
                probs[i, a] = p
                total += p
        if kind != HEURISTIC or temperature <= 0:
            if best[i] >= 0:
                probs[i, best[i]] = 1.0
        elif total > 0:
            for a in range(probs.shape[1]):
                probs[i, a] /= total
        if kind == HEURISTIC:
            seat = st.seat
            if st.solo != 0:
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
