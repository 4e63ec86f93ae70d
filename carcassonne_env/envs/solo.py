"""The solo variant's envs: `SoloEnv` (Gymnasium ``Carcassonne/Solo-v0``: one agent
places every colour's tiles and followers) and `SoloVectorEnv`, batched solo games behind
a Gymnasium `VectorEnv` (and, through `to_sb3`, an SB3 `VecEnv`): one jitted call steps
all games and writes observations and masks in place; autoreset and window overflow as in
`carcassonne_env.envs.vector_base`.

Sub-env i of `SoloVectorEnv` behaves exactly like ``gymnasium.make("Carcassonne/Solo-v0")``
reset with seed ``seed + i`` (and reset again without a seed after every game).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from ..checks import check_int
from ..game import shuffled_deck
from ..rules import Rules
from .driver import check_rule_options
from .single_base import SingleAgentEnv
from .vector_base import BatchedGamesEnv, ObservationBuffers, turn_encoder
from .vector_kernels import START, STEP, Batch, solo_batch


def _deal_option(options: dict | None) -> int | None:
    """The "deal" of `SoloEnv.reset`'s options (None: none); ValueError for another
    option or a deal that is not a non-negative integer."""
    if not options:
        return None
    if not isinstance(options, dict) or set(options) - {"deal"}:
        raise ValueError(f"SoloEnv.reset takes options={{'deal': d}} only, got {options!r}")
    return check_int("deal", options["deal"], 0)


class SoloEnv(SingleAgentEnv):
    """The 2020 solo variant: one agent places every colour's tiles and followers.

    Reward: the increase of the lowest colour's score, so an episode's return is the
    result minus the starting 1. `info` carries "scores" (int64[colours]), "end_reason"
    ("A" / "B" / "tiles" once over, else None), "action_mask" (int8[n_actions]) and
    "moves_outside_window" (an int).

    Args:
        colours: 3 or 4 solo colours.
        board_size, action_mode, on_overflow, obs_features: see
            `carcassonne_env.encoding.Encoder` (obs_features="aggregate" adds per-feature
            planes and projected scores, docs/observations.md).
        candidate_moves: K > 0 adds the candidate-move observation: "candidates"
            float32[K, F], what the rules give for the position after each of up to K
            legal actions, and "candidate_actions" int64[K], their action indices (-1:
            absent); needs action_mode="turn" (`carcassonne_env.encoding.Encoder`,
            docs/observations.md "Candidate moves").
        illegal_reward: reward for an illegal action, which ends the episode
            (``info["illegal_move"]`` says why).
        render_mode: "ansi", "rgb_array" or "human".
        scoring_order: "auto" (default) or "player": the agent also chooses the order in
            which simultaneous completions and the end bonus are scored; such a step's
            action names a follower on the board (docs/observations.md, "Scoring
            decisions").
        mask_in_obs: True adds the action mask to the observation: "action_mask"
            int8[n_actions] (Box 0..1, 1: legal; the key and space of the PettingZoo env
            `carcassonne_v0`), for libraries that read the mask from the observation
            (TorchRL, Tianshou, RLlib; docs/clients.md). It equals
            ``info["action_mask"]`` and ``action_masks()``; all zero once the episode is
            over. Default False: the observation the shipped models were trained on.
        rule_options: further `Rules` options of the solo variant: ``followers`` (the
            solo rules' harder 3 or easier 5), ``expansions`` and ``expansion_mode``.
    """

    def __init__(
        self,
        colours: int = 3,
        board_size: int = 32,
        action_mode: str = "turn",
        on_overflow: str = "warn",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        obs_features: str = "standard",
        scoring_order: str = "auto",
        candidate_moves: int = 0,
        mask_in_obs: bool = False,
        **rule_options: Any,
    ) -> None:
        check_rule_options(type(self), rule_options)
        check_int("colours", colours, 3, 4)
        rules = Rules(
            variant="solo", solo_colours=colours, scoring_order=scoring_order, **rule_options
        )
        super().__init__(
            rules,
            board_size,
            action_mode,
            on_overflow,
            illegal_reward,
            render_mode,
            obs_features,
            candidate_moves,
            mask_in_obs,
        )

    def _observer(self) -> int:
        return 0  # colours are absolute in solo

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new game. ``options={"deal": d}`` deals ``Game(rules, seed=d)``, deal
        d of `carcassonne solo-bench` (so results compare deal for deal); otherwise the
        deck comes from the env's generator (seeded by `seed`)."""
        deal = _deal_option(options)
        self._new_game(seed)
        if deal is not None:
            self.driver.new_game(deal)
        return self._obs_info()

    def step(self, action):
        self._check_playing()
        low = min(self.driver.game.scores)
        _, reason = self.driver.step(action)
        if reason is not None:
            return self._illegal(reason)
        self._finish_if_done()
        obs, info = self._obs_info()
        reward = float(min(self.driver.game.scores) - low)
        if self.render_mode == "human":
            self.render()
        return obs, reward, self.driver.game.done, False, info


class SoloVectorEnv(BatchedGamesEnv):
    """`num_envs` solo games stepped together (turn action mode).

    Args:
        num_envs: number of games (their states and two sets of observation buffers
            may take at most 32 GiB: `vector_base.MAX_BUFFER_BYTES`).
        colours: 3 or 4 solo colours.
        board_size, on_overflow, obs_features: see `carcassonne_env.encoding.Encoder`
            (an overflow is checked after every batch; obs_features="aggregate" adds
            the per-feature planes and projected scores in a second parallel pass).
            on_overflow="truncate" (for long training runs) warns like "warn" when some
            legal moves lie outside the window, and cuts short a game in which none
            lies inside: ``truncated[i]`` True, ``final_info["window_overflow"]`` True
            (and no "result"), a new game in its place; "warn" and "raise" raise
            `WindowOverflowError` there.
        candidate_moves: K > 0 adds the candidate-move observation (see
            `carcassonne_env.encoding.Encoder`; one more parallel pass; the legal actions
            in the window of each game's last observation are in `last_candidates`).
        illegal_reward: reward for an action outside the mask; that game ends (its
            ``final_info["illegal_move"]`` is True) and restarts.
        copy: return copies of the observation arrays. By default two preallocated sets
            of arrays take turns: what a step returns stays valid until the step after
            next overwrites it (enough for SB3, which stores an observation after the
            following step); copy them to keep them longer.
        num_threads: threads stepping the games (default: numba's, one per core; they
            take chunks of games in turn). With a learner busy on the same cores (e.g.
            PyTorch), 1 is about as fast and leaves the other cores to it
            (docs/vector.md).
        render_mode: "ansi" or "rgb_array" (a tuple, one per game) or None.
        scoring_order, rule_options: as in `SoloEnv` (e.g. ``followers=5``).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        num_envs: int = 8,
        colours: int = 3,
        board_size: int = 32,
        on_overflow: str = "warn",
        illegal_reward: float = -1.0,
        copy: bool = False,
        num_threads: int | None = None,
        render_mode: str | None = None,
        obs_features: str = "standard",
        scoring_order: str = "auto",
        candidate_moves: int = 0,
        **rule_options: Any,
    ) -> None:
        check_rule_options(type(self), rule_options)
        self._check_batch(num_envs, num_threads, render_mode)
        rules = Rules(
            variant="solo",
            solo_colours=check_int("colours", colours, 3, 4),
            scoring_order=scoring_order,
            **rule_options,
        )
        encoder = turn_encoder(rules, board_size, on_overflow, obs_features, candidate_moves)
        self._setup(encoder, illegal_reward, copy, render_mode)

    # ------------------------------------------------------------------ api
    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start a new game everywhere; seed i is ``seed + i`` (or ``seed[i]``)."""
        self._seed_decks(seed)
        self._restart(self._all)
        return self._obs(), {}

    def step(self, actions):
        actions = self._checked_actions(actions)
        src, dst = self._sets[self._cur], self._sets[1 - self._cur]
        self._cur = 1 - self._cur
        self._run(Batch(STEP, self._all, actions, src.masks, self._no_started), dst)
        return self._finish_step(actions, src, dst)

    # ------------------------------------------------------------------ internals
    def _deal(self, i: int) -> None:
        """Shuffle the next deck of game i as `SoloEnv.reset` does (`_start` begins it)."""
        seed = int(self._rngs[i].integers(2**63))
        self._state_list[i].deck[: self._games.deck_len] = shuffled_deck(self.encoder.tileset, seed)
        self._seeds[i] = seed

    def _start(self, which: np.ndarray) -> None:
        """Start the dealt games `which` and encode them into the current buffer set."""
        out = self._sets[self._cur]
        which = np.asarray(which, np.int64)
        self._run(Batch(START, which, which, out.masks, self._no_started), out)

    def _run(self, batch: Batch, out: ObservationBuffers) -> None:
        """`solo_batch` over the games `batch.which`, observing into `out`."""
        self._in_chunks(
            solo_batch, len(batch.which), self._games, batch, out.out, self._scratch, self._results
        )

    def _final_extras(
        self, done: np.ndarray, ended: np.ndarray, illegal: np.ndarray, cut: np.ndarray
    ) -> dict[str, Any]:
        """The solo env's own final info: "result" (the lowest colour's score) of the
        games that finished."""
        finished = ended & ~illegal & ~cut
        if not finished.any():
            return {}
        results = np.zeros(self.num_envs, np.int64)
        for i in done:
            results[i] = self._state_list[i].scores.min()
        return {"result": results, "_result": finished}
