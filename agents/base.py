"""The bot protocol and a registry of built-in bots by name."""

from __future__ import annotations

import importlib
from typing import Protocol, runtime_checkable

from carcassonne_env import Game, Move, Rules


@runtime_checkable
class Agent(Protocol):
    """A bot: `act` returns a legal move for the seat to move; `name` identifies it in
    tables. Bots are seeded at construction (`seed=`) so games are reproducible."""

    name: str

    def act(self, game: Game) -> Move: ...


# Imported on demand: building a random bot should not compile the search bots.
BOTS = {
    "random": "agents.simple:RandomAgent",
    "greedy": "agents.simple:GreedyAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "mcts": "agents.mcts:MCTSAgent",
    "sb3": "agents.sb3_policy:SB3Agent",  # needs model=PATH.zip
}


def _bot_class(name: str) -> type:
    module, _, cls = BOTS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def registry() -> dict[str, type]:
    """Built-in bots by name."""
    return {name: _bot_class(name) for name in BOTS}


def _option_value(text: str) -> int | float | str:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def split_specs(text: str) -> list[str]:
    """Comma-separated bot specs (``"random, mcts:iterations=400"``), blanks dropped."""
    return [b.strip() for b in text.split(",") if b.strip()]


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build a built-in bot from a spec: its name, optionally followed by constructor
    options, ``"mcts:iterations=2000:trees=2"``. The bot's `name` is the spec, so tables
    tell budgets apart. Raises ValueError for an unknown name or option."""
    name, *options = spec.split(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}")
    kwargs = {}
    for option in options:
        key, eq, value = option.partition("=")
        if not eq or not key:
            raise ValueError(f"bot option {option!r} in {spec!r} is not key=value")
        kwargs[key] = _option_value(value)
    try:
        agent = _bot_class(name)(seed=seed, **kwargs)
    except TypeError as err:
        raise ValueError(f"bad options for bot {name!r} in {spec!r}: {err}") from None
    if options:
        agent.name = spec
    return agent


# (spec, rules) pairs whose first act() this process has already paid for.
_WARMED: set[tuple[str, Rules]] = set()


def warm_up(spec: str, rules: Rules) -> None:
    """Let a bot make one untimed move once per process: its first act() loads numba's
    cache (or compiles), which is not thinking time. A separate instance, so the games
    that follow do not depend on which process warmed up."""
    if (spec, rules) not in _WARMED:
        make_agent(spec, seed=0).act(Game(rules, seed=0))
        _WARMED.add((spec, rules))
