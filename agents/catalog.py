"""The search and policy bots of this package by name (`BOTS`, with the built-in ones of
`carcassonne_env.bots`), and the factory `carcassonne_env.bots.make_bot` calls for them
(declared as entry points in pyproject.toml, registered again on ``import agents``)."""

from __future__ import annotations

from carcassonne_env import Game, Rules
from carcassonne_env.bots import Agent, make_bot
from carcassonne_env.bots.factory import BUILTIN_BOTS, bot_class, bot_from_table

# Imported on demand: building a random bot should not compile the search bots.
BOTS = {
    **BUILTIN_BOTS,
    "mcts": "agents.mcts:MCTSAgent",
    "sb3": "agents.sb3_policy:SB3Agent",  # needs model=PATH.zip
    "solo-search": "agents.solo_search:SoloSearchAgent",  # solo variant only
    "puct": "agents.puct:PUCTAgent",  # a trained network's priors and value
}


def agent_class(name: str) -> type:
    """The class of the bot called `name` (imported on first use)."""
    return bot_class(name, BOTS)


def registry() -> dict[str, type]:
    """Every bot by name: the built-in bots of `carcassonne_env.bots` and the ones here."""
    return {name: agent_class(name) for name in BOTS}


def _build_bot(spec: str, seed: int | None = None) -> Agent:
    """`make_bot`'s factory for the bots of `BOTS` (not called directly: use `make_bot`)."""
    return bot_from_table(spec, seed, BOTS)


# (spec, rules) pairs whose first act() this process has already paid for.
_WARMED: set[tuple[str, Rules]] = set()


def warm_up(spec: str, rules: Rules) -> None:
    """Let a bot make one untimed move once per process: its first act() loads numba's
    cache (or compiles), which is not thinking time. A separate instance, so the games
    that follow do not depend on which process warmed up."""
    if (spec, rules) not in _WARMED:
        make_bot(spec, seed=0).act(Game(rules, seed=0))
        _WARMED.add((spec, rules))
