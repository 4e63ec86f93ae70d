"""The bot protocol and a registry of built-in bots by name."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from carcassonne_env import Game, Move


@runtime_checkable
class Agent(Protocol):
    """A bot: `act` returns a legal move for the seat to move; `name` identifies it in
    tables. Bots are seeded at construction (`seed=`) so games are reproducible."""

    name: str

    def act(self, game: Game) -> Move: ...


def registry() -> dict[str, type]:
    """Built-in bots by name."""
    from .simple import GreedyAgent, RandomAgent

    return {"random": RandomAgent, "greedy": GreedyAgent}


def make_agent(name: str, seed: int | None = None) -> Agent:
    """Build a built-in bot by name; raises ValueError for an unknown name."""
    bots = registry()
    if name not in bots:
        raise ValueError(f"unknown bot {name!r}; available: {', '.join(sorted(bots))}")
    return bots[name](seed=seed)
