"""The solo search bot: determinised lookahead with the heuristic as prior and rollout.

For the solo variant (one person, several colours, result = the lowest colour's score).
Per move:

1. The heuristic bot (`carcassonne_env.bots.heuristic`) ranks the legal moves; its `top_k`
   best are the candidates (the prior: the rest are never searched).
2. Determinisations: the tiles nobody has drawn are reshuffled over the positions still
   face down in the colours' stacks (`core.playout.shuffle_undrawn`), so every stack keeps
   its exact remaining size (which decides when end B comes) while the player's ignorance
   of which tile lies where is respected. Every candidate is tried on the same
   determinisations (common random numbers: the comparison is paired).
3. Each candidate is played, then `depth` moves of the heuristic policy for the following
   colours (the game may end inside: then the exact final scores count, so a line that
   runs into end A, a compulsory follower with an empty supply, is seen and avoided), then
   the heuristic's estimate of the final scores values the position; the value is the
   heuristic's solo objective (lowest colour, plus `solo_sum` times the mean).
4. Successive halving: after every round of determinisations the worse half of the
   candidates (by mean value, the heuristic's own value counting as `prior` samples) is
   dropped, so the budget goes to the close calls. The best mean is played.

The budget is `samples` determinisations per move, or wall time (`seconds` > 0: rounds
continue until the time is spent; then the result depends on the machine).

Learned guidance (`guide`): a trained policy (e.g. the RL-only ``ppo_solo_rl``,
one forward pass per move with one torch thread, never inside the rollouts) gives a
probability to every legal move. Its `guide_k` most likely moves join the heuristic's
`top_k` as candidates, and `guide_weight` times a candidate's probability is added to
its mean value (in points) when the halving ranks the candidates and when the move is
chosen. The defaults (guide_k=4, guide_weight=1: the policy's four most likely moves
searched too, and its probability as a small prior) come from paired runs on screening
deals (results/training/solo_guided.md). The rollouts and values stay the jitted
heuristic ones. With a time budget the clock starts before the forward
pass, so the network's time is spent out of the move's `seconds`. Without a guide (the
default) the bot plays exactly as before.
"""

from __future__ import annotations

import random
import time
import warnings

import numpy as np

from carcassonne_env import Game, Move
from carcassonne_env.bots.base import (
    MAX_CANDIDATES,
    MAX_MOVES_AHEAD,
    MAX_SECONDS_PER_MOVE,
    check_weight,
    forced_move,
)
from carcassonne_env.bots.heuristic import HeuristicAgent
from carcassonne_env.checks import at_most, check_int, check_optional_int, check_real

from .search_kernels import SearchBuffers, candidate_values, search_buffers

#: The most determinisations per move (`samples`; each one plays every candidate).
MAX_SAMPLES = 1_000_000


class SoloSearchAgent:
    """Determinised lookahead for the solo variant (module docstring: the algorithm).

    Args:
        seed: seeds the determinisations.
        samples: determinisations per move (ignored when `seconds` > 0).
        seconds: wall-time budget per move (0: use `samples`; reproducible on any machine).
        top_k: candidates kept from the heuristic's ranking.
        depth: heuristic moves played after a candidate before the position is valued
            (3 = one more move per colour with 3 colours).
        prior: weight, in samples, of the heuristic's own value of a candidate.
        halving: drop the worse half of the candidates after every round of this many
            determinisations (0: never).
        guide: a trained policy guiding the candidates (module docstring): a saved
            model's path or shipped name (``"ppo_solo_rl"``), loaded with `SB3Agent`
            (one torch thread); None (default): the heuristic alone, as before.
        guide_k: with a guide, the policy's this many most likely legal moves are
            candidates too, beside the heuristic's `top_k` (default 4; 0: none added,
            the policy a prior only).
        guide_weight: with a guide, points added to a candidate's mean value per unit of
            its policy probability (default 1; 0: the policy only picks candidates; 3
            did worse in the screening).
        **weights: the heuristic's weights (see `HeuristicAgent`).

    Only for the solo variant: `act` raises ValueError in a standard game.
    """

    name = "solo-search"

    def __init__(
        self,
        seed: int | None = None,
        samples: int = 16,
        seconds: float = 0.0,
        top_k: int = 8,
        depth: int = 6,
        prior: float = 1.0,
        halving: int = 4,
        guide: str | None = None,
        guide_k: int = 4,
        guide_weight: float = 1.0,
        **weights: float,
    ) -> None:
        self.samples = at_most("samples", check_int("samples", samples, 1), MAX_SAMPLES)
        self.seconds = at_most("seconds", check_real("seconds", seconds, 0), MAX_SECONDS_PER_MOVE)
        self.top_k = at_most("top_k", check_int("top_k", top_k, 1), MAX_CANDIDATES)
        self.depth = at_most("depth", check_int("depth", depth, 0), MAX_MOVES_AHEAD)
        self.prior = check_weight("prior", prior, 0)
        self.halving = at_most("halving", check_int("halving", halving, 0), MAX_SAMPLES)
        self.guide_k = at_most("guide_k", check_int("guide_k", guide_k, 0), MAX_CANDIDATES)
        self.guide_weight = check_weight("guide_weight", guide_weight, 0)
        self._guide = None
        if guide is not None:
            from .sb3_policy import SB3Agent

            self._guide = guide if isinstance(guide, SB3Agent) else SB3Agent(guide)
        self._heuristic = HeuristicAgent(None, **weights)  # seed None: **weights are weights
        self._w = self._heuristic.weight_array
        self._rng = random.Random(check_optional_int("seed", seed))
        self._buffers: dict = {}
        #: After each move: [(move, samples, mean value)] of the candidates, best first.
        self.last_stats: list[tuple[Move, int, float]] = []

    def _scratch(self, game: Game) -> SearchBuffers:
        st, ts = game.state, game.tileset
        key = (st.ptype.shape[0], ts)
        if key not in self._buffers:
            self._buffers = {key: search_buffers(st, len(ts.names))}
        return self._buffers[key]

    def evaluate(
        self, game: Game, moves: list[Move] | None = None
    ) -> list[tuple[Move, int, float]]:
        """Search the position: [(move, determinisations, mean value)] for the candidates
        (the heuristic's top_k, plus `moves` if given: always kept), best first. Values
        are the heuristic's solo objective (about the lowest colour's final score); with a
        guide, its candidates join them and `guide_weight` x probability is added."""
        if game.rules.variant != "solo":
            raise ValueError(
                f"solo-search plays the solo variant only (rules.variant is {game.rules.variant!r})"
            )
        if game.done:
            raise ValueError("the game is over")
        legal, h_values = self._heuristic.move_values(game)
        rows = game.legal_rows()
        order = np.argsort(-h_values, kind="stable")
        keep = list(order[: self.top_k])
        bonus = None
        if self._guide is not None and game.decision == "place":
            start = time.perf_counter()  # the forward pass is spent out of the budget
            probs = self.guide_probs(game, rows)
            for i in np.argsort(-probs, kind="stable")[: self.guide_k]:
                if probs[i] > 0 and i not in keep:
                    keep.append(int(i))
            bonus = self.guide_weight * probs
        forced = set()
        for m in moves or []:
            if m not in legal:
                raise ValueError(f"moves: {m!r} is not a legal move in this position")
            i = legal.index(m)
            forced.add(i)
            if i not in keep:
                keep.append(i)
        alive = list(keep)
        total = {i: self.prior * h_values[i] for i in keep}
        count = {i: 0 for i in keep}
        if len(alive) > 1:
            buffers = self._scratch(game)
            out = np.zeros(len(alive))
            if bonus is None:
                start = time.perf_counter()
            done = 0
            while True:
                cand = np.ascontiguousarray(rows[alive])
                candidate_values(
                    game.state,
                    game.tables,
                    cand,
                    len(alive),
                    self._rng.getrandbits(63),
                    self.depth,
                    self._w,
                    buffers,
                    out,
                )
                for j, i in enumerate(alive):
                    total[i] += out[j]
                    count[i] += 1
                done += 1
                if self.seconds > 0:
                    if time.perf_counter() - start >= self.seconds:
                        break
                elif done >= self.samples:
                    break
                if self.halving and done % self.halving == 0 and len(alive) > 2:
                    ranked = sorted(alive, key=lambda i: -self._mean(total, count, i, bonus))
                    half = ranked[: max(2, (len(ranked) + 1) // 2)]
                    alive = [i for i in alive if i in half or i in forced]
        stats = [(legal[i], count[i], self._mean(total, count, i, bonus)) for i in keep]
        stats.sort(key=lambda s: (-s[1], -s[2]))  # survivors of the halving first
        return stats

    def _mean(self, total: dict, count: dict, i: int, bonus: np.ndarray | None = None) -> float:
        mean = total[i] / (self.prior + count[i]) if self.prior + count[i] > 0 else total[i]
        return mean if bonus is None else mean + float(bonus[i])

    def guide_probs(self, game: Game, rows: np.ndarray) -> np.ndarray:
        """The guide policy's probability of each legal row of `game` (a placement
        decision; softmax over the legal moves it sees: 0 for a move outside its window;
        all 0 when it sees none). One forward pass with the guide's torch threads."""
        import torch

        from carcassonne_env.encoding import WindowOverflowError, WindowOverflowWarning

        from .puct import row_probabilities
        from .sb3_policy import torch_threads

        net = self._guide
        if net is None:
            raise ValueError("guide_probs: this search has no guide policy (guide=...)")
        enc = net.encoder_for(game)
        try:
            with warnings.catch_warnings():  # moves outside the window: probability 0
                warnings.simplefilter("ignore", WindowOverflowWarning)
                obs = net.observe(game)
        except WindowOverflowError:  # no legal move inside the window
            return np.zeros(len(rows))
        policy = net.policy
        tensors, _ = policy.obs_to_tensor({k: obs[k] for k in net.model.observation_space.spaces})
        with torch.no_grad(), torch_threads(net.torch_threads):
            logits = policy.get_distribution(tensors).distribution.logits[0].cpu().numpy()
        probs = row_probabilities(game, enc, rows, logits.astype(np.float64))
        return np.zeros(len(rows)) if probs is None else probs

    def act(self, game: Game) -> Move:
        """The move with the best mean over sampled stack orders (solo variant)."""
        if (forced := forced_move(game)) is not None:
            self.last_stats = [(forced, 0, 0.0)]
            return forced
        stats = self.evaluate(game)
        self.last_stats = stats
        return stats[0][0]  # best mean among the survivors of the halving
