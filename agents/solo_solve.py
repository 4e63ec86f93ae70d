"""A clairvoyant line per solo deal: search with every stack known.

`solve_deal` plays one solo deal with perfect information (the true order of every
colour's stack, which a fair player never has) and returns the best line it found as an
ordinary game record, which replays to its score in the engine (`Game.from_record`).

Method: the pilot method (nested rollouts). At each move the candidates are the
heuristic's `top_k` best moves; each is played and then followed by the heuristic policy to
the end of the game *with the true tile order*, which gives an exact, achievable final
result; the move whose rollout ends best (lowest colour's score, then the sum) is played.
The heuristic's own continuation is always among the candidates, so the line's result
never falls below the best rollout seen. Passes with growing `top_k` (4, 8, 16, 32, every
move) run while the time budget lasts; the best line of all passes is kept.

It is a heuristic search: the score it reports is a lower bound on what the deal allowed,
**not a proof of optimality**.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from carcassonne_env import Game, Rules
from carcassonne_env.bots.heuristic import HeuristicAgent
from carcassonne_env.checks import check_int, check_real
from carcassonne_env.cli_errors import Interrupted

from .search_kernels import rollout_results, search_buffers

_TOP_KS = (4, 8, 16, 32, 0)  # 0: every legal move


@dataclass
class SoloSolution:
    """The best line found for a deal: `record` (an ordinary game record), its `result`
    (lowest colour's final score), the heuristic's own result on the deal with the same
    knowledge (`baseline`: the first rollout), the passes run (`top_k`, result, seconds)
    and the time spent. Not a proof of optimality."""

    deal: int
    rules: Rules
    result: int
    baseline: int
    record: dict[str, Any]
    passes: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    end_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """This solution as JSON-ready data (the line's moves and its score)."""
        placed = [m for m in self.record["moves"] if "decision" not in m]
        return {
            "deal": self.deal,
            "rules": self.rules.to_dict(),
            "result": self.result,
            "end_reason": self.end_reason,
            "moves": len(placed),
            "heuristic_rollout": self.baseline,
            "passes": self.passes,
            "seconds": round(self.seconds, 3),
            "optimal": "unknown (heuristic search, a lower bound on the deal's best score)",
        }


def _pass(
    deal: int, rules: Rules, top_k: int, heuristic: HeuristicAgent, deadline: float
) -> tuple[Game, int] | None:
    """One pilot pass; None if the deadline came first. Returns (game, best rollout)."""
    game = Game(rules, seed=deal)
    st, ts = game.state, game.tileset
    buf = search_buffers(st, len(ts.names))
    first: int | None = None  # the heuristic's own result: the first rollout of its move
    while not game.done:
        if time.perf_counter() > deadline:
            return None
        legal, values = heuristic.move_values(game)
        rows = game.legal_rows()
        order = np.argsort(-values, kind="stable")  # first of ties: the policy's own move
        keep = order if top_k == 0 else order[:top_k]
        cand = np.ascontiguousarray(rows[keep])
        lo = np.zeros(len(keep), np.int64)
        total = np.zeros(len(keep), np.int64)
        rollout_results(st, ts.tables, cand, len(keep), heuristic.weight_array, buf, lo, total)
        if first is None:
            first = int(lo[0])
        best = max(range(len(keep)), key=lambda j: (lo[j], total[j], -j))
        game.play(legal[int(keep[best])])
    assert first is not None  # a new game has a move to play
    return game, first


def solve_deal(
    deal: int, seconds: float = 60.0, rules: Rules | None = None, top_ks: tuple[int, ...] = _TOP_KS
) -> SoloSolution:
    """Search solo deal `deal` (``Game(rules, seed=deal)``) with every stack known for
    about `seconds` (the first pass always completes) and return the best line found.

    Raises ValueError for a negative deal or seconds, or non-solo rules. On a Ctrl-C after
    the first pass, raises `carcassonne_env.cli_errors.Interrupted` (a KeyboardInterrupt)
    whose `partial` is the solution of the passes completed."""
    deal = check_int("deal", deal, 0)
    seconds = check_real("seconds", seconds, 0)
    rules = Rules(variant="solo") if rules is None else rules
    if not isinstance(rules, Rules) or rules.variant != "solo":
        raise ValueError(f"rules must be solo rules (Rules(variant='solo')), got {rules!r}")
    heuristic = HeuristicAgent()
    start = time.perf_counter()
    best: Game | None = None
    baseline: int | None = None
    passes: list[dict[str, Any]] = []

    def solution(best: Game, baseline: int) -> SoloSolution:
        result = best.result
        assert isinstance(result, int)  # a finished solo game's: its lowest colour's score
        return SoloSolution(
            deal=deal,
            rules=rules,
            result=result,
            baseline=baseline,
            record=best.to_record(),
            passes=passes,
            seconds=time.perf_counter() - start,
            end_reason=best.end_reason,
        )

    try:
        for k, top_k in enumerate(top_ks):
            t0 = time.perf_counter()
            deadline = float("inf") if k == 0 else start + seconds
            out = _pass(deal, rules, top_k, heuristic, deadline)
            if out is None:
                break
            game, first = out
            baseline = first if baseline is None else baseline
            passes.append(
                {
                    "top_k": top_k,
                    "result": game.result,
                    "seconds": round(time.perf_counter() - t0, 3),
                }
            )
            if best is None or (game.result, sum(game.scores)) > (best.result, sum(best.scores)):
                best = game
            if time.perf_counter() - start >= seconds:
                break
    except KeyboardInterrupt:
        if best is None or baseline is None:
            raise
        raise Interrupted(f"after {len(passes)} pass(es)", solution(best, baseline)) from None
    assert best is not None and baseline is not None  # the first pass always completes
    return solution(best, baseline)
