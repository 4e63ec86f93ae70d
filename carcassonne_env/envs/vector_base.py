"""What the jitted vector envs share (`SoloVectorEnv`, `VsBotsVectorEnv`): a Gymnasium
`VectorEnv` over N games whose states are rows of one buffer, stepped by one jitted call
per chunk of games, observations and masks written in place into double-buffered arrays.

Autoreset: same-step (`AutoresetMode.SAME_STEP`, as SB3 does it): when a game ends, the
returned observation is already the first one of the next game; the last observation and
info of the finished game are in ``infos["final_obs"]`` / ``infos["final_info"]`` (with
the boolean masks ``infos["_final_obs"]`` / ``infos["_final_info"]``).

Window overflow: with ``on_overflow="truncate"``, a game in which no legal move of the
learner lies inside the observation window is cut short after the step that led there:
``truncated[i]`` True (``terminated[i]`` False), the step's reward as usual (nothing for
the rest of the game), its last observation and info in ``final_obs`` / ``final_info``
with ``final_info["window_overflow"]`` True, and a new game in its place. With "warn" (the
default) or "raise" such a game raises `WindowOverflowError`.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space
from numba import config as numba_config

from ..bots.jitted_bots import MT_WORDS, BotBuffers, bot_spec, mt_seed
from ..checks import check_bool, check_choice, check_int, check_real, check_seed
from ..core import constants as C
from ..core.observe import Observation
from ..core.state import state_rows
from ..encoding import Encoder, WindowOverflowError
from ..game import Game
from ..rendering.modes import render_game
from ..rules import Rules
from .vector_kernels import Games, Results, TeacherBot, teacher_batch

#: With on_overflow="truncate": how many times in a row a place may deal a game that
#: cannot start inside the window before WindowOverflowError.
_REDEALS = 100

#: The fewest games a thread takes at a time (`BatchedGamesEnv._in_chunks`).
_MIN_CHUNK = 4

#: The most memory the games' states and observation buffers of one vector env may
#: take (num_envs x board_size: `_check_buffers`).
MAX_BUFFER_BYTES = 32 * 2**30


def turn_encoder(
    rules: Rules, board_size: int, on_overflow: str, obs_features: str, candidate_moves: int
) -> Encoder:
    """The encoder of a batched env's games (one action a turn: action_mode "turn")."""
    return Encoder(
        rules,
        board_size,
        "turn",
        on_overflow,
        obs_features=obs_features,
        candidate_moves=candidate_moves,
    )


def _check_buffers(num_envs: int, encoder: Encoder, state_bytes: int) -> None:
    """ValueError if `num_envs` games of `encoder`'s observations would need more than
    `MAX_BUFFER_BYTES`: their states (and the aggregate observation's scratch copies),
    two sets of observation buffers (`ObservationBuffers`) and the batched observation
    space's bounds (its low and high arrays)."""
    per_game = (2 + encoder.aggregate) * state_bytes + 4 * ObservationBuffers.game_bytes(encoder)
    if num_envs * per_game > MAX_BUFFER_BYTES:
        raise ValueError(
            f"num_envs={num_envs} games with board_size={encoder.board_size} "
            f"need about {num_envs * per_game / 2**30:,.1f} GiB of states and "
            f"observation buffers; at most {MAX_BUFFER_BYTES // 2**30} GiB "
            "(fewer games or a smaller board_size)"
        )


class Teacher(NamedTuple):
    """A teacher bot's targets for every game (see `VsBotsVectorEnv.teacher`)."""

    action: np.ndarray
    probs: np.ndarray
    margin: np.ndarray


class BatchedGamesEnv(VectorEnv, ABC):
    """What the jitted vector envs share: N games whose states are rows of one buffer,
    observations in double-buffered preallocated arrays (`_sets[_cur]`), views of single
    games, the kernels' records (`carcassonne_env.envs.vector_kernels`). A subclass
    calls `_check_batch` and `_setup` (which set every attribute this class reads) and
    implements the abstract methods: `reset`, `step`, `_deal`, `_start` and
    `_final_extras`."""

    _pool: ThreadPoolExecutor | None  # the helper threads of `_in_chunks` (once needed)
    _bots: BotBuffers | None  # `_bot_buffers` (once needed)
    _teacher: Teacher | None  # `teacher`'s targets (once asked for)

    @abstractmethod
    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start a new game everywhere (`_seed_decks`, `_restart`)."""

    @abstractmethod
    def step(self, actions):
        """Play one action per game (`_checked_actions`) and return `_finish_step`'s
        tuple."""

    @abstractmethod
    def _deal(self, i: int) -> None:
        """Draw game i's next deck (and whatever else a new game of the env draws) from
        its generator `_rngs[i]` into its state; `_start` begins the game."""

    @abstractmethod
    def _start(self, which: np.ndarray) -> None:
        """Start the dealt games `which` and encode their first decisions into the
        current buffer set."""

    @abstractmethod
    def _final_extras(
        self, done: np.ndarray, ended: np.ndarray, illegal: np.ndarray, cut: np.ndarray
    ) -> dict[str, Any]:
        """The env's own entries of the final info of the ended games `done` (`ended`
        its mask; `illegal`, `cut`: those ended by an illegal action, cut short), each
        with its boolean mask entry (`_final_infos`)."""

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, n_actions]: the learner's legal actions in every game (a view of
        the current buffer set, valid as long as the observations are)."""
        return self._sets[self._cur].masks.view(np.bool_)

    def _checked_actions(self, actions) -> np.ndarray:
        """int64[num_envs] of `actions`; ValueError unless they are `num_envs` integers of
        the action space (an action outside the mask is legal here: it ends its game)."""
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu" or actions.size != self.num_envs:
            raise ValueError(
                f"actions must be {self.num_envs} integers (one per game), got "
                f"an array of {actions.size} {actions.dtype}"
            )
        actions = actions.astype(np.int64, copy=False).reshape(self.num_envs)
        n = self.encoder.n_actions
        bad = np.flatnonzero((actions < 0) | (actions >= n))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"action {actions[i]} of game {i} is outside the action space [0, {n})"
            )
        return actions

    def game(self, i: int) -> Game:
        """Game i as a `Game` view sharing its state (read it, don't play on it; no move
        log). Take a new view after a step."""
        return Game.over_state(
            self.rules, self.encoder.tileset, self._state_list[i], self._seeds[i]
        )

    def render(self):
        if self.render_mode is None:
            return None
        return tuple(render_game(self.game(i), self.render_mode) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        pool, self._pool = getattr(self, "_pool", None), None
        if pool is not None:
            pool.shutdown()

    def _in_chunks(self, kernel: Any, n: int, *args: Any) -> None:
        """kernel(*args, lo, hi, c) over [0, n): the calling thread and num_threads - 1
        pool threads (the kernels release the GIL; c: the thread's scratch) take chunks
        in turn, each a 1 / (2 * threads) share of the games left (at least
        `_MIN_CHUNK`), until none is left. Taking chunks rather than being handed one
        half each: a pool thread that wakes late (an idle core of a virtual machine can
        take milliseconds) leaves its share to the others instead of making them wait."""
        T = min(self.num_threads, -(-n // _MIN_CHUNK))
        if T <= 1:
            kernel(*args, 0, n, 0)
            return
        pool = self._pool
        if pool is None:
            pool = self._pool = ThreadPoolExecutor(self.num_threads - 1, "carcassonne-vector")
        lock, nxt = threading.Lock(), [0]

        def work(c: int) -> None:
            while True:
                with lock:
                    lo = nxt[0]
                    hi = min(n, lo + max(_MIN_CHUNK, (n - lo) // (2 * T)))
                    nxt[0] = hi
                if lo >= n:
                    return
                kernel(*args, lo, hi, c)

        helpers = [pool.submit(work, c) for c in range(1, T)]
        try:
            work(0)
        finally:  # (the helpers use the scratch: never return while one runs)
            for helper in helpers:
                helper.result()

    def teacher(self, spec: str = "heuristic", temperature: float = 1.0) -> Teacher:
        """What jitted bot `spec` ("random", "greedy", "heuristic[:weights]") would play
        for the learner (the seat to move) in every game now: targets for imitation
        learning (behaviour cloning, DAgger; `training.imitation`), computed in one
        parallel call. Each game's teacher has its own tie-break generator, seeded on
        the first call from the game's deck seed (the env's own draws are untouched).

        Returns a `Teacher` whose arrays are reused by the next call (copy to keep):
        ``action`` int64[num_envs] (the bot's move; -1 where it lies outside the window),
        ``probs`` float32[num_envs, n_actions] (the heuristic's softmax over its
        evaluation of every legal action, divided by `temperature`; one-hot on its move
        for the other bots or temperature 0), ``margin`` float64[num_envs] (the
        heuristic's estimate of the points still to come: its best evaluation minus the
        banked margin over the best other seat, or in solo minus the lowest colour's
        score; 0 for the other bots)."""
        kind, w = bot_spec(spec)
        temperature = check_real("temperature", temperature)
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        if self._teacher is None:
            N = self.num_envs
            mt = np.zeros((N, MT_WORDS), np.int64)
            for i in range(N):
                mt_seed(mt[i], np.int64(self._seeds[i] or 0))
            self._teacher = Teacher(
                np.zeros(N, np.int64),
                np.zeros((N, self.encoder.n_actions), np.float32),
                np.zeros(N, np.float64),
            )
            self._teacher_mt = mt
        t = self._teacher
        self._in_chunks(
            teacher_batch,
            self.num_envs,
            self._games,
            TeacherBot(kind, w, self._teacher_mt, float(temperature)),
            self._bot_buffers(),
            t,
        )
        return t

    def to_sb3(self):
        """This env as a Stable-Baselines3 `VecEnv` with ``action_masks()``."""
        from .sb3 import SB3VecEnv

        return SB3VecEnv(self)

    # ------------------------------------------------------------------ internals
    def _bot_buffers(self) -> BotBuffers:
        """The jitted bots' `BotBuffers`, a row per thread (made on first use; the legal
        moves' rows are the observe pass's)."""
        if self._bots is None:
            rows = self._scratch.rows
            T, R = rows.shape[:2]
            proto = self._state_list[0]
            self._bots = BotBuffers(
                rows,
                state_rows(proto, T)[0],
                state_rows(proto, T)[0],
                np.zeros((T, self.rules.seats)),
                np.zeros((T, R)),
                np.zeros((T, self.encoder.n_types), np.int64),
                np.zeros((T, R, 3), np.int64),
            )
        return self._bots

    def _seed_decks(self, seed: int | list[int] | None) -> None:
        """Seed game i's deck generator with ``seed + i`` (or ``seed[i]``); None keeps
        the generators as they are."""
        if seed is not None:
            seeds = (
                [check_seed(f"seed[{i}]", s) for i, s in enumerate(seed)]
                if isinstance(seed, (list, tuple))
                else [check_int("seed", seed, 0) + i for i in range(self.num_envs)]
            )
            if len(seeds) != self.num_envs:
                raise ValueError(f"need {self.num_envs} seeds, got {len(seeds)}")
            self._rngs = [seeding.np_random(s)[0] for s in seeds]

    def _check_batch(self, num_envs: int, num_threads: int | None, render_mode: str | None) -> None:
        """Check and set the batch size, the threads (default: numba's) and the render
        mode, the arguments every batched env takes."""
        self.num_envs = check_int("num_envs", num_envs, 1)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        # numba sets its config's attributes at import (undeclared in its type hints)
        most = numba_config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
        num_threads = check_int("num_threads", most if num_threads is None else num_threads, 1)
        self.num_threads = min(num_threads, most)

    def _setup(
        self, encoder: Encoder, illegal_reward: float, copy: bool, render_mode: str | None
    ) -> None:
        """What every batched env builds from its encoder (after `_check_batch`): the
        rules, the spaces, the games (`Games`: their states, rows of one buffer for
        numba, and a view of each for Python), the two observation buffer sets (a step
        reads the masks of one and writes the other), the observe pass's scratch
        (`Encoder.batch_scratch`), the `Results` of the kernels and the decks'
        generators."""
        N = self.num_envs
        proto = Game(encoder.rules, seed=0).state
        _check_buffers(N, encoder, proto.words.nbytes)
        self.rules = encoder.rules
        self.encoder = encoder
        self.illegal_reward = check_real("illegal_reward", illegal_reward)
        self.copy = check_bool("copy", copy)
        self.render_mode = render_mode
        self.single_observation_space = encoder.observation_space()
        self.single_action_space = encoder.action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        states, self._state_list = state_rows(proto, N)
        self._games = Games(
            states, encoder.tileset.tables, encoder.layout, len(encoder.tileset.full_deck())
        )
        self._seeds: list[int | None] = [None] * N
        self._sets = [ObservationBuffers(N, encoder) for _ in range(2)]
        self._cur = 0
        self._scratch = encoder.batch_scratch(states, self.num_threads)
        self.last_candidates = np.zeros(N, np.int64)
        self._results = Results(
            np.zeros(N, np.float64),
            np.zeros(N, np.uint8),
            np.zeros(N, np.uint8),
            np.full(N, -1, np.int64),
            np.zeros(N, np.int64),
            self.last_candidates,
        )
        self._stalled = np.zeros(N, bool)  # stuck at a policy seat (VsBots, "truncate")
        self._rngs = [seeding.np_random(None)[0] for _ in range(N)]
        self._all = np.arange(N, dtype=np.int64)
        self._no_started = np.zeros(0, np.bool_)  # a `Batch`'s `started` but RESUME's (unread)
        self._bots = None
        self._teacher = None
        self._pool = None

    def _finish_step(self, actions: np.ndarray, src: ObservationBuffers, dst: ObservationBuffers):
        """The step's return once the batch ran (observations in `dst`, the masks the
        actions were chosen from in `src`): illegal rewards, with on_overflow="truncate"
        the games cut short for want of a visible move, same-step autoreset of the
        finished games with their final observations and infos, the overflow check.
        Subclasses provide `_final_extras`, `_deal` and `_start`."""
        results = self._results
        rewards = results.rewards.copy()
        terminated = results.dones.astype(bool)
        truncated = np.zeros(self.num_envs, bool)
        if self.encoder.on_overflow == "truncate":
            truncated[self._blocked(~terminated)] = True
            self._stalled[:] = False
        infos: dict[str, Any] = {}
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            illegal = results.illegal.astype(bool) & terminated
            rewards[illegal] = self.illegal_reward
            infos = self._final_infos(ended, illegal, truncated, actions, src, dst)
            self._restart(ended)
        self._check_overflow()
        return self._obs(), rewards, terminated, truncated, infos

    def _blocked(self, among: np.ndarray) -> np.ndarray:
        """Indices of the games marked in `among` (bool[num_envs]) whose learner has
        legal moves but none inside the window (its mask in the current buffer set is
        empty), or (`VsBotsVectorEnv`) that stalled at a policy seat in the same way."""
        blocked = self._stalled & among
        over = np.flatnonzero((self._results.outside > 0) & among)
        if over.size:
            masks = self._sets[self._cur].masks
            blocked[over[~masks[over].any(axis=1)]] = True
        return np.flatnonzero(blocked)

    def _restart(self, which: np.ndarray) -> None:
        """Deal and start new games in the places `which`. With on_overflow="truncate"
        a new game whose first decision already shows no legal move (possible only with
        tiny windows, after the opponents' first moves) is dealt again."""
        for i in which:
            self._deal(i)
        self._start(which)
        if self.encoder.on_overflow != "truncate":
            return
        places = np.zeros(self.num_envs, bool)
        places[which] = True
        for _ in range(_REDEALS):
            again = self._blocked(places)
            if not again.size:
                return
            self._stalled[again] = False
            for i in again:
                self._deal(i)
            self._start(again)
        raise WindowOverflowError(
            f"{_REDEALS} new games in a row showed no legal move in "
            f"the {self.encoder.board_size}-cell window; use a "
            "larger board_size"
        )

    def _check_overflow(self) -> None:
        """Apply the encoder's overflow policy to the current decisions: warn (once)
        when some legal moves lie outside the window, raise when none lies inside."""
        outside = self._results.outside
        if not outside.any():
            return
        blocked = self._blocked(np.ones(self.num_envs, bool))
        if not blocked.size and self.encoder.overflow_warned:
            return  # warned once already, nothing to raise
        i = int(blocked[0]) if blocked.size else int(np.argmax(outside))
        game = self.game(i)
        n = len(game.legal_rows())
        self.encoder.report_overflow(game, n, int(outside[i]))

    def _obs(self) -> dict[str, np.ndarray]:
        return self._sets[self._cur].obs(copy=self.copy)

    def _final_infos(
        self,
        done: np.ndarray,
        illegal: np.ndarray,
        cut: np.ndarray,
        actions: np.ndarray,
        src: ObservationBuffers,
        dst: ObservationBuffers,
    ) -> dict[str, Any]:
        """Gymnasium's same-step autoreset infos (the layout `_add_info` builds, written
        directly: it is on the hot path) of the ended games `done`: "scores" (int64[N,
        seats]), "end_reason", "illegal_move" (the reason, where `illegal`),
        "window_overflow" (the games `cut` short, bool[num_envs]) and the subclass's
        `_final_extras`."""
        N = self.num_envs
        ended = np.zeros(N, bool)
        ended[done] = True
        final_obs = np.full(N, None, object)
        scores = np.zeros((N, self._state_list[0].scores.shape[0]), np.int64)
        reasons, reasons_why = np.full(N, None, object), np.full(N, None, object)
        for i in done:
            st = self._state_list[i]
            last = src if illegal[i] else dst  # an illegal action played nothing
            final_obs[i] = last.obs(i, copy=True)
            scores[i] = st.scores
            reasons[i] = C.END_NAMES[st.end_reason]
            if illegal[i]:
                reasons_why[i] = f"action {actions[i]} is not in the mask"
        final_info: dict[str, Any] = {
            "scores": scores,
            "_scores": ended,
            "end_reason": reasons,
            "_end_reason": ended,
        }
        final_info |= self._final_extras(done, ended, illegal, cut)
        if illegal.any():
            final_info |= {"illegal_move": reasons_why, "_illegal_move": illegal}
        if cut.any():
            final_info |= {"window_overflow": cut.copy(), "_window_overflow": cut.copy()}
        return {
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": final_info,
            "_final_info": ended,
        }


class ObservationBuffers:
    """One set of preallocated observation arrays with their painted regions."""

    def __init__(self, n: int, enc: Encoder) -> None:
        self.planes = np.zeros((n, *enc.board_shape), np.int8)
        self.feats = np.zeros((n, enc.n_features), np.float32)
        self.masks = np.zeros((n, enc.n_actions), np.int8)
        self.dirty = np.zeros((n, 6), np.int64)  # see core.planes.encode
        K = enc.candidate_moves  # the candidate moves (zero-sized without them)
        self.cands = np.zeros((n, K, enc.n_candidate_columns), np.float32)
        self.cand_actions = np.full((n, K), -1, np.int64)
        self.with_candidates = K > 0
        # as the kernels take them (`carcassonne_env.envs.vector_kernels`)
        self.out = Observation(
            self.planes, self.feats, self.masks, self.dirty, self.cands, self.cand_actions
        )

    @staticmethod
    def game_bytes(enc: Encoder) -> int:
        """The bytes of one game's row of the arrays `ObservationBuffers` holds."""
        return (
            int(np.prod(enc.board_shape))
            + 4 * enc.n_features
            + enc.n_actions
            + 6 * 8
            + enc.candidate_moves * (4 * enc.n_candidate_columns + 8)
        )

    def obs(self, rows: Any = None, copy: bool = False) -> dict[str, np.ndarray]:
        """The observation dict of games `rows` (a slice or an index; None: all games,
        the buffers themselves, so that a step hands out the same arrays every other
        step)."""
        out: dict[str, np.ndarray] = {"board": self.planes, "features": self.feats}
        if self.with_candidates:
            out["candidates"] = self.cands
            out["candidate_actions"] = self.cand_actions
        if rows is not None:
            out = {k: v[rows] for k, v in out.items()}
        return {k: v.copy() for k, v in out.items()} if copy else out
