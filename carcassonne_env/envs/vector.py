"""Batched solo games behind a Gymnasium `VectorEnv` (and, through `to_sb3`, an SB3
`VecEnv`): one jitted call steps all games and writes observations and masks in place.

Autoreset: same-step (`AutoresetMode.SAME_STEP`, as SB3 does it): when a game ends, the
returned observation is already the first one of the next game; the last observation and
info of the finished game are in ``infos["final_obs"]`` / ``infos["final_info"]`` (with
the boolean masks ``infos["_final_obs"]`` / ``infos["_final_info"]``).

Sub-env i behaves exactly like ``gymnasium.make("Carcassonne/Solo-v0")`` reset with
seed ``seed + i`` (and reset again without a seed after every game).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import config as numba_config
from numba import typed

from ..core.turn import reset as core_reset
from ..core.vector import encode_batch, step_batch
from ..encoding import Encoder
from ..game import Game, shuffled_deck
from ..rules import Rules
from .rendering import render_game


class SoloVectorEnv(VectorEnv):
    """`num_envs` solo games stepped together (turn action mode).

    Args:
        num_envs: number of games.
        colours: 3 or 4 solo colours.
        board_size, on_overflow: see `carcassonne_env.encoding.Encoder` (an overflow is
            checked after every batch).
        illegal_reward: reward for an action outside the mask; that game ends (its
            ``final_info["illegal_move"]`` is True) and restarts.
        copy: return copies of the observation arrays; by default the same preallocated
            arrays are returned every step and overwritten by the next one (SB3 copies
            them into its rollout buffer anyway).
        render_mode: "ansi" or "rgb_array" (a tuple, one per game) or None.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"]}

    def __init__(self, num_envs: int = 8, colours: int = 3, board_size: int = 32,
                 on_overflow: str = "warn", illegal_reward: float = -1.0, copy: bool = False,
                 render_mode: str | None = None) -> None:
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi', 'rgb_array' or None, "
                             f"got {render_mode!r}")
        self.num_envs = int(num_envs)
        self.rules = Rules(variant="solo", solo_colours=colours)
        self.encoder = enc = Encoder(self.rules, board_size, "turn", on_overflow)
        self.illegal_reward = float(illegal_reward)
        self.copy = copy
        self.render_mode = render_mode
        self.single_observation_space = enc.observation_space()
        self.single_action_space = enc.action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        N = self.num_envs
        self._games = [Game(self.rules, seed=0) for _ in range(N)]
        self._states = typed.List([g._st for g in self._games])
        self._planes = np.zeros((N, *enc.board_shape), np.int8)
        self._feats = np.zeros((N, enc.n_features), np.float32)
        self._masks = np.zeros((N, enc.n_actions), np.int8)
        self._dirty = np.zeros((N, 6), np.int64)
        frontier = self._games[0]._st.frontier.shape[0]
        self._rows = np.empty((numba_config.NUMBA_NUM_THREADS, 4 * frontier * enc.slots, 5),
                              np.int64)
        self._pend = np.full(5, -1, np.int64)
        self._rewards = np.zeros(N, np.float64)
        self._dones = np.zeros(N, np.uint8)
        self._illegal = np.zeros(N, np.uint8)
        self._outside = np.zeros(N, np.int64)
        self._rngs = [seeding.np_random(None)[0] for _ in range(N)]
        self._all = np.arange(N, dtype=np.int64)

    # ------------------------------------------------------------------ api
    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start a new game everywhere; seed i is ``seed + i`` (or ``seed[i]``)."""
        if seed is not None:
            seeds = list(seed) if isinstance(seed, (list, tuple)) else [
                int(seed) + i for i in range(self.num_envs)]
            if len(seeds) != self.num_envs:
                raise ValueError(f"need {self.num_envs} seeds, got {len(seeds)}")
            self._rngs = [seeding.np_random(s)[0] for s in seeds]
        for i in range(self.num_envs):
            self._deal(i)
        self._encode(self._all)
        return self._obs(), {}

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        enc = self.encoder
        step_batch(self._states, enc.tileset.tables, enc.subtiles, enc.n_types, enc.slots,
                   actions, self._rows, self._planes, self._feats, self._masks, self._dirty,
                   self._pend, self._rewards, self._dones, self._illegal, self._outside)
        rewards = self._rewards.copy()
        terminated = self._dones.astype(bool)
        infos: dict[str, Any] = {}
        done = np.flatnonzero(terminated)
        if done.size:
            rewards[self._illegal.astype(bool)] = self.illegal_reward
            for i in done:
                game = self._games[i]
                final_info = {"scores": game.scores, "end_reason": game.end_reason,
                              "result": game.result}
                if self._illegal[i]:
                    final_info["illegal_move"] = True
                final_obs = {"board": self._planes[i].copy(), "features": self._feats[i].copy()}
                infos = self._add_info(infos, {"final_obs": final_obs,
                                               "final_info": final_info}, i)
                self._deal(i)
            self._encode(done)
        self._check_overflow()
        truncated = np.zeros(self.num_envs, bool)
        return self._obs(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, n_actions]: legal actions of every game."""
        return self._masks.astype(bool)

    def game(self, i: int) -> Game:
        """Game i as a read-only `Game` view (shares the state; no move log)."""
        return self._games[i]

    def render(self):
        if self.render_mode is None:
            return None
        return tuple(render_game(g, self.render_mode) for g in self._games)

    def close_extras(self, **kwargs: Any) -> None:
        pass

    def to_sb3(self):
        """This env as a Stable-Baselines3 `VecEnv` with ``action_masks()``."""
        from .sb3 import SB3VecEnv

        return SB3VecEnv(self)

    # ------------------------------------------------------------------ internals
    def _deal(self, i: int) -> None:
        """New game in slot i, drawn like `SoloEnv.reset` draws it."""
        seed = int(self._rngs[i].integers(2**63))
        st = self._games[i]._st
        deck = shuffled_deck(self.encoder.tileset, seed)
        st.deck[: len(deck)] = deck
        core_reset(st, self.encoder.tileset.tables, len(deck))
        self._games[i] = Game._over_state(self.rules, self.encoder.tileset, st, seed)

    def _encode(self, which: np.ndarray) -> None:
        enc = self.encoder
        encode_batch(self._states, enc.tileset.tables, enc.subtiles, enc.n_types, enc.slots,
                     np.asarray(which, np.int64), self._rows, self._planes, self._feats,
                     self._masks, self._dirty, self._pend, self._outside)

    def _check_overflow(self) -> None:
        if self._outside.any():
            i = int(np.argmax(self._outside))
            game = self._games[i]
            n = len(game._legal_rows())
            self.encoder._overflow(game, n, int(self._outside[i]))

    def _obs(self) -> dict[str, np.ndarray]:
        if self.copy:
            return {"board": self._planes.copy(), "features": self._feats.copy()}
        return {"board": self._planes, "features": self._feats}
