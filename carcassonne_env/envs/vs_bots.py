"""One learning seat against bots: `VsBotsEnv` (Gymnasium ``Carcassonne/VsBots-v0``) and
`VsBotsVectorEnv`, batched 2-6 player games behind a Gymnasium `VectorEnv` (and, through
`to_sb3`, an SB3 `VecEnv`): ``gymnasium.make_vec("Carcassonne/VsBots-v0", num_envs=N,
vectorization_mode="vector_entry_point", players=P, opponents=[...])``.

In `VsBotsVectorEnv` the built-in bots (random, greedy, heuristic) are jitted
(`carcassonne_env.bots.jitted_bots`, the same moves as the Python bots): one numba call
per step applies the learner's move in every game and plays every bot move up to the
learner's next decision (`carcassonne_env.envs.vector_kernels`). Opponents that are
policies are batched: at each opponent turn, one call for all the games where a policy
seat is to move (see `VsBotsVectorEnv`).

Autoreset: same-step (`AutoresetMode.SAME_STEP`, as SB3 does it): when a game ends, the
returned observation is already the learner's first one of the next game; the last
observation and info of the finished game are in ``infos["final_obs"]`` /
``infos["final_info"]`` (boolean masks ``infos["_final_obs"]`` / ``infos["_final_info"]``).
With ``on_overflow="truncate"`` a game in which the learner, or a policy opponent, has no
legal move inside the observation window is cut short instead (``truncated[i]``,
``final_info["window_overflow"]``; see `VsBotsVectorEnv`).

Sub-env i behaves exactly like ``gymnasium.make("Carcassonne/VsBots-v0", ...)`` with the
same arguments, reset with seed ``seed + i`` (and again without a seed after every
game): same seat, deck, bot moves, observations, masks, rewards and episode ends.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeGuard

import numpy as np
from gymnasium.vector import AutoresetMode

from ..bots.base import Agent
from ..bots.factory import make_bot
from ..bots.jitted_bots import KINDS, LEARNER, MT_WORDS, POLICY, bot_spec
from ..checks import check_choice, check_int
from ..core.observe import Observation
from ..game import shuffled_deck
from ..rules import Rules
from .aec import rules_from
from .driver import REWARDS, check_rule_options, seat_rewards
from .single_base import SingleAgentEnv
from .vector_base import BatchedGamesEnv, ObservationBuffers, turn_encoder
from .vector_kernels import (
    OBSERVE,
    RESUME,
    REWARD_MODES,
    START,
    STEP,
    Batch,
    Seating,
    learner_reward,
    run_batch,
)

#: A `VsBotsEnv` opponent: a bot spec, an agent, or a factory ``factory(seed=...) -> agent``.
Opponent = str | Agent | Callable[..., Agent]


def _is_agent(entry: Any) -> bool:
    """An agent object (a bot class is a factory: ``RandomAgent(seed=...)``)."""
    return not isinstance(entry, type) and callable(getattr(entry, "act", None))


def _is_factory(entry: Opponent) -> TypeGuard[Callable[..., Agent]]:
    """A bot class or factory (called with ``seed=``), not an agent object."""
    return callable(entry) and not _is_agent(entry)


def _opponent_name(entry: Opponent) -> str:
    if isinstance(entry, str):
        return entry
    return str(getattr(entry, "name", getattr(entry, "__name__", type(entry).__name__)))


class VsBotsEnv(SingleAgentEnv):
    """One learning seat against bots.

    Args:
        opponents: one entry per other seat (or a single entry for all of them), each a
            bot spec (a built-in bot: "random", "greedy", "heuristic" with options such
            as "heuristic:follower=3.0"; or one that a package registers,
            `carcassonne_env.bots.factory`: "mcts", "sb3:model=ppo_duel"... of `agents`),
            an agent object (``act(game) -> Move``, played as is every episode) or a
            factory (``factory(seed=...) -> agent``, called every episode with a seed
            drawn from the env's generator). ``players`` defaults to
            ``len(opponents) + 1``.
        seat: the learning seat, or None to draw it per episode.
        reward: "score" (points the learning seat gained since its last action,
            opponents' turns and final scoring included), "margin" (that minus the
            opponents' mean gain) or "win" (+1 / 0 / -1 at the end).
        rules: a `Rules`, or its options as keywords.
        board_size, action_mode, on_overflow, illegal_reward, render_mode: as `SoloEnv`.
        obs_features, candidate_moves, mask_in_obs: as `SoloEnv` (the mask: the learning
            seat's).

    `info` carries what `SoloEnv`'s does ("scores": int64[players]) and "seat", the
    learning seat (an int).
    """

    def __init__(
        self,
        opponents: Sequence[Opponent] | Opponent = ("greedy",),
        seat: int | None = None,
        reward: str = "score",
        rules: Rules | None = None,
        board_size: int = 32,
        action_mode: str = "turn",
        on_overflow: str = "warn",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        obs_features: str = "standard",
        candidate_moves: int = 0,
        mask_in_obs: bool = False,
        **rule_options: Any,
    ) -> None:
        check_rule_options(type(self), rule_options)
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            entries = [opponents]
        else:
            entries = list(opponents)
        if not all(isinstance(e, str) or callable(e) or _is_agent(e) for e in entries):
            raise ValueError(
                "opponents must be a bot spec or a list of bot specs (strings), "
                f"agents (act(game) -> Move) or agent factories, got {opponents!r}"
            )
        if not entries:
            raise ValueError("opponents must name at least one bot")
        if rules is None:
            rule_options.setdefault("players", len(entries) + 1)
        rules = rules_from(rules, rule_options)
        if rules.variant == "solo" or rules.players < 2:
            raise ValueError(
                "VsBots is for 2-6 players; use 'Carcassonne/Solo-v0' for the solo variant"
            )
        if len(entries) == 1:
            entries *= rules.players - 1
        names = [_opponent_name(e) for e in entries]
        if len(entries) != rules.players - 1:
            raise ValueError(
                f"{rules.players} players need {rules.players - 1} opponents, "
                f"got {len(entries)}: {names}"
            )
        for spec in {e for e in entries if isinstance(e, str)}:
            make_bot(spec)  # an unknown bot or bad option fails here, not at reset
        if seat is not None:
            seat = check_int("seat", seat, 0, rules.players - 1)
        check_choice("reward", reward, REWARDS)
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
        self.opponents = entries
        self.opponent_names = names
        self.fixed_seat = seat
        self.reward_mode = reward
        self.seat = 0
        self._bots: dict[int, Any] = {}
        self._gains_before_first_turn: np.ndarray | int = 0

    def _observer(self) -> int:
        return self.seat

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        rng = self.np_random
        self.seat = (
            int(rng.integers(self.rules.players)) if self.fixed_seat is None else self.fixed_seat
        )
        others = [p for p in range(self.rules.players) if p != self.seat]
        self._bots = self._make_bots(others)
        self._gains_before_first_turn = self._play_bots()  # counted in the first step
        obs, info = self._obs_info()
        info["seat"] = self.seat
        return obs, info

    def _make_bots(self, seats: list[int]) -> dict[int, Any]:
        """The opponents of a new episode by seat (a hook: self-play training draws them
        from a pool of past policies instead). Every seat draws a bot seed, whatever its
        entry, so the episode's other draws do not depend on the kind of opponent."""
        rng = self.np_random
        bots: dict[int, Any] = {}
        for p, entry in zip(seats, self.opponents, strict=True):
            seed = int(rng.integers(2**63))
            if isinstance(entry, str):
                bots[p] = make_bot(entry, seed=seed)
            elif _is_factory(entry):
                bots[p] = entry(seed=seed)
            else:
                bots[p] = entry
        return bots

    def _play_bots(self) -> np.ndarray:
        """Let the bots move until the learning seat is to act; their score gains."""
        game = self.driver.live_game
        before = game.state.scores.copy()
        while (seat := game.current_player) is not None and seat != self.seat:
            game.play(self._bots[seat].act(game))
        self.driver.invalidate()
        return game.state.scores - before

    def step(self, action):
        self._check_playing()
        gains, reason = self.driver.step(action)
        if reason is not None:
            return self._illegal(reason)
        gains = gains + self._play_bots() + self._gains_before_first_turn
        self._finish_if_done()
        self._gains_before_first_turn = 0
        game = self.driver.game
        obs, info = self._obs_info()
        reward = float(seat_rewards(self.reward_mode, gains, game)[self.seat])
        info["seat"] = self.seat
        if self.render_mode == "human":
            self.render()
        return obs, reward, game.done, False, info


#: A policy opponent: called with (observations, action masks, seats) of the games where
#: one of its seats is to move (observation arrays batched over those games, as the
#: env's own observations; masks bool[n, n_actions]; seats int64[n]) and returns n legal
#: actions. A policy with a ``games`` parameter also gets the games' indices (int64[n]),
#: e.g. a league that gives each game its own snapshot; a policy with a ``new_episodes``
#: method is told the indices (int64[n]) of the games about to start, before any of
#: their moves. An SB3 model works through `sb3_policy`.
Policy = Callable[[dict[str, np.ndarray], np.ndarray, np.ndarray], np.ndarray]


def sb3_policy(model: Any, deterministic: bool = False) -> Policy:
    """A policy opponent from a Stable-Baselines3 / sb3-contrib model (e.g. a frozen
    snapshot of the learner): one batched ``predict`` per call, masked when the model
    takes masks (MaskablePPO)."""
    import inspect

    masked = "action_masks" in inspect.signature(model.predict).parameters

    def policy(obs: dict[str, np.ndarray], masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        if masked:
            actions, _ = model.predict(obs, action_masks=masks, deterministic=deterministic)
        else:
            actions, _ = model.predict(obs, deterministic=deterministic)
        return np.asarray(actions)

    return policy


class VsBotsVectorEnv(BatchedGamesEnv):
    """`num_envs` games of one learning seat against opponents, stepped together (turn
    action mode; the observation and mask are the learning seat's, laid out as in
    `VsBotsEnv`).

    Args:
        num_envs: number of games (their states and two sets of observation buffers
            may take at most 32 GiB: `vector_base.MAX_BUFFER_BYTES`).
        opponents: one entry per other seat, or one entry for all of them: a bot spec
            played by the jitted bots ("random", "greedy", "heuristic", with heuristic
            weight options such as "heuristic:follower=3.0"), a policy (a callable, see
            `Policy`; wrap an SB3 model with `sb3_policy`), or "self" (the seat is
            driven by the learner too: self-play, see below). ``players`` defaults to
            ``len(opponents) + 1``.
        seat: the learning seat, or None to draw it per episode (as `VsBotsEnv`).
        reward: "score", "margin" or "win" (as `VsBotsEnv`).
        rules: a `Rules`, or its options as keywords (``players=3``...).
        board_size, on_overflow: see `carcassonne_env.encoding.Encoder`. Checked after
            every batch, for the learner and for the policy opponents: with "warn" (the
            default) or "raise", `WindowOverflowError` when the seat to move has legal
            moves but none inside the window. With "truncate" (for long training runs)
            such a game is cut short instead: ``truncated[i]`` True, ``terminated[i]``
            False, the reward since the learner's last decision as usual (nothing for
            the rest of the game), the learner's last observation and info in
            ``final_obs`` / ``final_info`` with ``final_info["window_overflow"]`` True,
            and a new game in its place (a policy seat stuck before the learner's first
            decision: the game is dealt again). Partial overflows warn as with "warn".
        illegal_reward: reward for an action outside the mask; that game ends
            (``final_info["illegal_move"]`` says why) and restarts.
        copy: return copies of the observation arrays (see `SoloVectorEnv`).
        num_threads: threads stepping the games (default: numba's, one per core); with
            other busy processes on the same cores, 1 is about as fast (docs/vector.md).
        render_mode: "ansi" or "rgb_array" (a tuple, one per game) or None.
        self_policy: the policy playing the "self" seats (a `Policy`; may be set later
            as the attribute, e.g. once the model exists; needed before reset / step).
        obs_features: "standard" or "aggregate" (see `carcassonne_env.encoding.Encoder`;
            the aggregate planes and features are added in a second parallel pass, for
            the learner's and the policy opponents' observations alike).
        candidate_moves: K > 0 adds the candidate-move observation (see
            `carcassonne_env.encoding.Encoder`; a parallel pass like the aggregates';
            legal actions in the window per game in `last_candidates`).

    Self-play: with "self" opponents every transition is still the learning seat's
    (``seats[i]``): the env asks for the learner's action only at that seat's
    decisions; the "self" seats are played by the policy given as ``self_policy``
    (normally the learner's current policy), batched like other policies. See
    docs/vector.md.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        num_envs: int = 8,
        opponents: Sequence[Any] | str = ("greedy",),
        seat: int | None = None,
        reward: str = "score",
        rules: Rules | None = None,
        board_size: int = 32,
        on_overflow: str = "warn",
        illegal_reward: float = -1.0,
        copy: bool = False,
        num_threads: int | None = None,
        render_mode: str | None = None,
        self_policy: Policy | None = None,
        obs_features: str = "standard",
        candidate_moves: int = 0,
        **rule_options: Any,
    ) -> None:
        self._check_batch(num_envs, num_threads, render_mode)
        check_rule_options(type(self), rule_options)
        entries = _opponent_list(opponents)
        if rules is None:
            rule_options.setdefault("players", len(entries) + 1)
        self.rules = rules = rules_from(rules, rule_options)
        if rules.variant == "solo" or rules.players < 2:
            raise ValueError(
                "VsBots is for 2-6 players; use 'Carcassonne/Solo-v0' for the solo variant"
            )
        P = rules.players
        if len(entries) == 1:
            entries *= P - 1
        if len(entries) != P - 1:
            raise ValueError(f"{P} players need {P - 1} opponents, got {len(entries)}: {entries}")
        # Per opponent slot: (kind, weights, policy index or -1).
        self._policies: list[Policy] = []
        self._slots: list[tuple[int, np.ndarray, int]] = []
        self.opponent_names: list[str] = []
        zero_w = bot_spec("random")[1]
        for entry in entries:
            if isinstance(entry, str) and entry == "self":
                self._slots.append((POLICY, zero_w, -1))  # -1: the self_policy
                self.opponent_names.append("self")
            elif isinstance(entry, str):
                if entry.split(":")[0] not in KINDS:
                    raise ValueError(
                        f"opponents: {entry!r} has no jitted version (jitted "
                        f"bots: {', '.join(KINDS)}); pass a policy callable "
                        "for other opponents"
                    )
                kind, w = bot_spec(entry)
                self._slots.append((kind, w, -2))
                self.opponent_names.append(entry)
            elif callable(entry):  # one batch per policy object, whatever its seats
                known = [k for k, f in enumerate(self._policies) if f is entry]
                index = known[0] if known else len(self._policies)
                if not known:
                    self._policies.append(entry)
                self._slots.append((POLICY, zero_w, index))
                self.opponent_names.append(getattr(entry, "name", "policy"))
            else:
                raise ValueError(
                    "opponents must be bot specs (strings), 'self' or policy "
                    f"callables, got {entry!r}"
                )
        if self_policy is not None and not callable(self_policy):
            raise ValueError(f"self_policy must be a callable, got {self_policy!r}")
        self.self_policy = self_policy
        if seat is not None:
            seat = check_int("seat", seat, 0, P - 1)
        self.fixed_seat = seat
        self.reward_mode = check_choice("reward", reward, REWARDS)
        encoder = turn_encoder(rules, board_size, on_overflow, obs_features, candidate_moves)
        self._setup(encoder, illegal_reward, copy, render_mode)
        N = self.num_envs
        self._seating = Seating(
            learner=np.zeros(N, np.int64),
            kinds=np.full((N, P), LEARNER, np.int64),
            weights=np.zeros((N, P, zero_w.shape[0])),
            mt=np.zeros((N, P, MT_WORDS), np.int64),
            bot_seeds=np.zeros((N, P), np.int64),  # < 2**63
            base=np.zeros((N, P), np.int64),
            reward_mode=REWARD_MODES[reward],
        )
        self._policy_of = np.full((N, P), -2, np.int64)
        self._has_policies = any(k == POLICY for k, _, _ in self._slots)
        self._self_play = any(i == -1 for _, _, i in self._slots)
        self._pbuf: ObservationBuffers | None = None  # the policies' observation batch
        self._no_actions = np.zeros(0, np.int64)
        # what a policy's observation batch reports (rows of the batch, not games)
        self._batch_outside = np.zeros(N, np.int64)
        self._batch_candidates = np.zeros(N, np.int64)

    # ------------------------------------------------------------------ api
    @property
    def seats(self) -> np.ndarray:
        """int64[num_envs]: the learning seat of each game (its current episode)."""
        return self._seating.learner.copy()

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start a new game everywhere; seed i is ``seed + i`` (or ``seed[i]``). The info
        holds "seat" (the learning seat of every game)."""
        self._seed_decks(seed)
        self._check_self_policy()
        self._stalled[:] = False
        self._restart(self._all)
        return self._obs(), {"seat": self.seats, "_seat": np.ones(self.num_envs, bool)}

    def step(self, actions):
        actions = self._checked_actions(actions)
        self._check_self_policy()
        src, dst = self._sets[self._cur], self._sets[1 - self._cur]
        self._cur = 1 - self._cur
        self._run(STEP, self._all, actions, src.masks)
        if self._has_policies:
            self._play_policies(started=False)
        return self._finish_step(actions, src, dst)

    # ------------------------------------------------------------------ internals
    def _run(
        self,
        phase: int,
        which: np.ndarray,
        actions: np.ndarray,
        masks_in: np.ndarray,
        started: np.ndarray | None = None,
        out: Observation | None = None,
        outside: np.ndarray | None = None,
        n_cands: np.ndarray | None = None,
    ) -> None:
        """`run_batch` (phase STEP, START, RESUME, or OBSERVE: observers in `actions`) over
        the games `which`, writing into `out` (default: the current buffer set) and
        `outside`, `n_cands` (default: the env's)."""
        results = self._results
        if outside is not None:
            results = results._replace(outside=outside, n_cands=n_cands)
        batch = Batch(
            phase, which, actions, masks_in, self._no_started if started is None else started
        )
        self._in_chunks(
            run_batch,
            len(which),
            self._games,
            batch,
            self._seating,
            self._bot_buffers(),
            self._sets[self._cur].out if out is None else out,
            self._scratch,
            results,
        )

    def _check_self_policy(self) -> None:
        if self._self_play and self.self_policy is None:
            raise ValueError(
                "opponents include 'self' seats: set self_policy (the policy "
                "that plays them, e.g. the learner's) before reset() / step()"
            )
        if self.self_policy is not None and not callable(self.self_policy):
            raise ValueError(f"self_policy must be a callable, got {self.self_policy!r}")

    def _deal(self, i: int) -> None:
        """Draw game i's next deck, learning seat and bot seeds from its generator, in
        the order `VsBotsEnv.reset` draws them (`_start` begins the game)."""
        rng = self._rngs[i]
        seed = int(rng.integers(2**63))
        self._state_list[i].deck[: self._games.deck_len] = shuffled_deck(self.encoder.tileset, seed)
        self._seeds[i] = seed
        P = self.rules.players
        seat = int(rng.integers(P)) if self.fixed_seat is None else self.fixed_seat
        seating = self._seating
        seating.learner[i] = seat
        seating.kinds[i, seat] = LEARNER
        self._policy_of[i, seat] = -2
        others = [p for p in range(P) if p != seat]
        for p, (kind, w, policy) in zip(others, self._slots, strict=True):
            seating.kinds[i, p] = kind
            seating.weights[i, p] = w
            self._policy_of[i, p] = policy
            seating.bot_seeds[i, p] = int(rng.integers(2**63))

    def _start(self, which: np.ndarray) -> None:
        """Start the dealt games `which`: bots move up to the learner's first decision,
        which is encoded into the current buffer set."""
        which = np.asarray(which, np.int64)
        for policy in {
            id(p): p for p in [*self._policies, self.self_policy] if p is not None
        }.values():
            if hasattr(policy, "new_episodes"):
                policy.new_episodes(which)
        self._run(START, which, self._no_actions, self._sets[self._cur].masks)
        if self._has_policies:
            self._play_policies(started=True)

    def _play_policies(self, started: bool) -> None:
        """While some games wait for a policy seat: per policy, encode the waiting games'
        observations for their seats in one batch, call the policy once, play the
        actions (and the bots after them) in one jitted call."""
        out, waits = self._sets[self._cur], self._results.waiting
        while True:
            waiting = np.flatnonzero(waits >= 0)
            if waiting.size == 0:
                return
            seats = waits[waiting]
            owners = self._policy_of[waiting, seats]
            for owner in np.unique(owners):
                which = waiting[owners == owner]
                observers = waits[which]
                policy = self.self_policy if owner == -1 else self._policies[owner]
                assert policy is not None  # (`_check_self_policy`)
                buf = self._policy_buffers(len(which))
                n = len(which)
                self._run(
                    OBSERVE,
                    which,
                    observers,
                    out.masks,
                    out=buf.out,
                    outside=self._batch_outside,
                    n_cands=self._batch_candidates,
                )
                obs = buf.obs(slice(0, n))
                masks = buf.masks[:n].view(np.bool_)
                stuck = ~masks.any(axis=1)
                if stuck.any():  # no legal move of that seat inside the window
                    self._stall(which[stuck], started)
                    keep = ~stuck
                    if not keep.any():
                        continue
                    which, observers, masks = which[keep], observers[keep], masks[keep]
                    obs = {k: v[keep] for k, v in obs.items()}
                    n = len(which)
                if _takes_games(policy):
                    actions = policy(obs, masks, observers, games=which)
                else:
                    actions = policy(obs, masks, observers)
                actions = _policy_actions(actions, n)
                bad = (
                    ~masks[np.arange(n), np.clip(actions, 0, masks.shape[1] - 1)]
                    | (actions < 0)
                    | (actions >= masks.shape[1])
                )
                if bad.any():
                    j = int(np.flatnonzero(bad)[0])
                    raise ValueError(
                        f"policy opponent returned illegal action {actions[j]} "
                        f"for seat {observers[j]} in game {which[j]}"
                    )
                self._run(RESUME, which, actions, out.masks, np.full(n, started, np.bool_))

    def _stall(self, games: np.ndarray, started: bool) -> None:
        """Games `games` wait for a policy seat none of whose legal moves lies inside
        the window. With on_overflow="truncate" they stop there (`_finish_step` cuts
        them short; `_restart` deals again where they had not reached the learner's
        first decision, `started`): the learner's reward since its last decision and its
        observation are written as `run_batch` would; else WindowOverflowError."""
        if self.encoder.on_overflow != "truncate":
            game = self.game(int(games[0]))
            n = len(game.legal_rows())
            self.encoder.report_overflow(game, n, n)  # raises: nothing fits
        results, seating = self._results, self._seating
        results.waiting[games] = -1
        self._stalled[games] = True
        results.outside[games] = 0
        if started:
            return
        out = self._sets[self._cur]
        for i in games:
            i = int(i)
            results.rewards[i] = learner_reward(
                self._state_list[i], seating.learner[i], seating.base[i], seating.reward_mode
            )
            results.dones[i] = 0
            rows = slice(i, i + 1)  # views: the learner's row of the current set
            self._run(
                OBSERVE,
                self._all[rows],
                seating.learner[rows],
                out.masks,
                out=Observation(*(a[rows] for a in out.out)),
                outside=self._batch_outside,
                n_cands=self.last_candidates[rows],
            )

    def _policy_buffers(self, n: int) -> ObservationBuffers:
        if self._pbuf is None:
            self._pbuf = ObservationBuffers(self.num_envs, self.encoder)
        buf = self._pbuf
        # rows are reused for other games: clear what they hold (the whole region)
        buf.dirty[:n] = (0, buf.planes.shape[1], 0, buf.planes.shape[2], 0, buf.masks.shape[1])
        return buf

    def _final_extras(
        self, done: np.ndarray, ended: np.ndarray, illegal: np.ndarray, cut: np.ndarray
    ) -> dict[str, Any]:
        """The learner's "seat" in each ended game."""
        seats = np.zeros(self.num_envs, np.int64)
        seats[done] = self._seating.learner[done]
        return {"seat": seats, "_seat": ended}


def _policy_actions(actions: Any, n: int) -> np.ndarray:
    """A policy opponent's `actions` for `n` games as int64[n] (values still unchecked);
    ValueError unless they are n integers."""
    actions = np.asarray(actions)
    if actions.dtype.kind not in "iu" or actions.size != n:
        raise ValueError(
            f"a policy opponent must return {n} integer actions (one per game "
            f"it was asked for), got an array of {actions.size} {actions.dtype}"
        )
    return actions.astype(np.int64).reshape(n)  # (uint64 past int64: negative, refused)


def _takes_games(policy: Callable) -> TypeGuard[Callable[..., np.ndarray]]:
    """Whether `policy` has a ``games`` parameter (see `Policy`)."""
    import inspect

    try:
        return "games" in inspect.signature(policy).parameters
    except (TypeError, ValueError):  # no signature (some builtins)
        return False


def _opponent_list(opponents: Any) -> list[Any]:
    if isinstance(opponents, str) or callable(opponents):
        entries = [opponents]
    elif isinstance(opponents, Sequence):
        entries = list(opponents)
    else:
        raise ValueError(
            f"opponents must be a bot spec, a policy or a list of them, got {opponents!r}"
        )
    if not entries:
        raise ValueError("opponents must name at least one opponent")
    return entries
