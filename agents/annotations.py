"""The per-move annotations of game records: what an agent thought about a move
(`carcassonne play --annotate`; the block's format and check: docs/records.md and
`carcassonne_env.records`): the top-k moves it considered with its own numbers, its
value estimate, and (with a coach) the points the played move gave away against a
reference bot's choice.

- heuristic (`HeuristicAgent`, and the MCTS bot's heuristic): the estimated objective of
  every legal move (its estimate of the mover's final score margin; solo: of the lowest
  colour); heat-map weights are a softmax of it at a temperature of one point.
- MCTS (`MCTSAgent`): visit counts and mean rewards of the searched root moves; weights
  are visit shares; value = the most visited move's mean reward.
- SB3 policies (`SB3Agent`): the masked policy's probabilities (weights) and the value
  head's estimate; in "two_step" mode the placement probabilities.
- Other bots expose nothing: their moves get no annotation (null).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_env import Game, Move
from carcassonne_env.bots import Agent
from carcassonne_env.rendering.text import move_text


def _move_dict(move: Move) -> dict[str, Any]:
    out = {
        "x": int(move.x),
        "y": int(move.y),
        "rotation": int(move.rotation),
        "follower": move.follower,
    }
    if move.follower is not None:  # which figure stands there (large follower, builder...)
        out["figure"] = move.figure
    if move.tile is not None:
        out["tile"] = move.tile
    return out


def _top(
    moves: list[Move], weights: np.ndarray, labels: list[str], k: int, extra: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    order = np.argsort(-weights, kind="stable")[:k]
    return [
        {
            **_move_dict(moves[i]),
            "weight": round(float(weights[i]), 5),
            "label": labels[i],
            **extra[i],
        }
        for i in order.tolist()
    ]


def _heuristic(agent: Any, game: Game, k: int) -> dict[str, Any]:
    moves, values = agent.move_values(game)
    w = np.exp(values - values.max())
    w /= w.sum()
    labels = [f"estimate {v:.2f}" for v in values]
    extra = [{"score": round(float(v), 3)} for v in values]
    return {
        "agent": agent.name,
        "kind": "scores",
        "value": round(float(values.max()), 3),
        "top": _top(moves, w, labels, k, extra),
    }


def _mcts(agent: Any, game: Game, k: int) -> dict[str, Any]:
    moves = game.legal_moves()
    if len(moves) == 1 or not agent.last_stats:
        return {
            "agent": agent.name,
            "kind": "visits",
            "value": None,
            "top": [{**_move_dict(moves[0]), "weight": 1.0, "label": "only move"}],
        }
    rows = {tuple(r): i for i, r in enumerate(game.legal_rows().tolist())}
    picked, visits, means = [], [], []
    for row, (v, mean) in agent.last_stats.items():
        if row in rows:
            picked.append(moves[rows[row]])
            visits.append(v)
            means.append(mean)
    visits_a = np.array(visits, np.float64)
    w = visits_a / max(visits_a.sum(), 1.0)
    labels = [f"visits {v}, mean {m:.3f}" for v, m in zip(visits, means, strict=True)]
    extra = [
        {"visits": int(v), "mean": round(float(m), 4)} for v, m in zip(visits, means, strict=True)
    ]
    best = int(np.argmax(visits_a))
    return {
        "agent": agent.name,
        "kind": "visits",
        "value": round(float(means[best]), 4),
        "top": _top(picked, w, labels, k, extra),
    }


def _sb3(agent: Any, game: Game, k: int) -> dict[str, Any] | None:
    import torch

    from carcassonne_env.encoding import WindowOverflowError

    from .sb3_policy import torch_threads

    enc = agent.encoder_for(game)
    try:
        obs = agent.observe(game)
    except WindowOverflowError:
        return None
    policy = agent.policy
    tensors, _ = policy.obs_to_tensor(
        {key: obs[key] for key in agent.model.observation_space.spaces}
    )
    with torch.no_grad(), torch_threads(getattr(agent, "torch_threads", 1)):
        logits = policy.get_distribution(tensors).distribution.logits[0].cpu().numpy()
        value = float(policy.predict_values(tensors)[0, 0])
    logits = logits.astype(np.float64)
    legal = np.flatnonzero(obs["action_mask"])
    p = np.exp(logits[legal] - logits[legal].max())
    p /= p.sum()
    if enc.action_mode == "turn":
        moves = [enc.action_to_move(game, int(a)) for a in legal]
    else:  # two_step: the placements (no follower chosen yet)
        moves = []
        for a in legal:
            h, x, y, r = enc.placement(game, int(a))
            tile = game.hand[h] if game.rules.hand_size > 1 else None
            moves.append(Move(x, y, r, None, tile))
    labels = [f"p {q:.3f}" for q in p]
    extra = [{"p": round(float(q), 5)} for q in p]
    return {
        "agent": agent.name,
        "kind": "policy",
        "value": round(value, 4),
        "top": _top(moves, p, labels, k, extra),
    }


def explain(agent: Agent, game: Game, top_k: int = 5) -> dict[str, Any] | None:
    """The annotation of the move `agent` just chose in `game` (call it after
    `agent.act(game)` and before playing the move: MCTS reads its last search), or None
    for a bot that exposes nothing. An agent may define its own
    ``explain(game, top_k) -> dict``."""
    own = getattr(agent, "explain", None)
    if callable(own):
        return own(game, top_k)
    from carcassonne_env.bots.heuristic import HeuristicAgent

    if isinstance(agent, HeuristicAgent):
        return _heuristic(agent, game, top_k)
    cls = type(agent).__name__
    if cls == "MCTSAgent":
        return _mcts(agent, game, top_k)
    if cls == "SB3Agent":
        return _sb3(agent, game, top_k)
    return None


def annotate(
    agent: Agent, game: Game, move: Move, top_k: int = 5, coach: Coach | None = None
) -> dict[str, Any] | None:
    """The record annotation of `move`, which `agent` just chose in `game` (not played
    yet): `explain`, plus the coach's review when a `coach` is given (a bot that
    exposes nothing then gets ``kind: "none"`` and an empty top list)."""
    note = explain(agent, game, top_k)
    if coach is not None:
        if note is None:
            note = {
                "agent": getattr(agent, "name", type(agent).__name__),
                "kind": "none",
                "value": None,
                "top": [],
            }
        note["coach"] = coach.review(game, move)
    return note


class Coach:
    """Scores moves against a reference bot: the points a move gives away versus the
    coach's own choice, both measured with the heuristic's estimate of the final score
    margin (the heuristic bot's objective; solo: the lowest colour's estimate).

    Args:
        spec: the reference bot's spec (e.g. "heuristic", "mcts:iterations=400").
        seed: its seed.
    """

    def __init__(self, spec: str, seed: int | None = 0) -> None:
        from carcassonne_env.bots import make_bot
        from carcassonne_env.bots.heuristic import HeuristicAgent

        self.spec = spec
        self.bot = make_bot(spec, seed=seed)
        self.yardstick = self.bot if isinstance(self.bot, HeuristicAgent) else HeuristicAgent()

    def review(self, game: Game, played: Move) -> dict[str, Any]:
        """{"bot", "best" (the coach's move, with its `figure` when it places one),
        "text" (the best move in words, `carcassonne_env.rendering.text.move_text`: "(0, -1) rot 3,
        follower on the city (city:S)"), "points_lost"} for `played` in `game` (before it
        is played)."""
        best = self.bot.act(game)
        moves, values = self.yardstick.move_values(game)
        index = {m: i for i, m in enumerate(moves)}
        lost = float(values[index[best]] - values[index[played]]) if played in index else 0.0
        return {
            "bot": self.spec,
            "best": _move_dict(best),
            "text": move_text(*best),
            "points_lost": round(lost, 3),
        }


__all__ = ["Coach", "annotate", "explain"]
