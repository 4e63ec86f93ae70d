"""Every bot by name (`make_agent`): the built-in ones of `carcassonne_env.bots.base`, whose
protocol and spec parsing this builds on, and the search and policy bots here."""

from __future__ import annotations

from carcassonne_env import Game, Rules
from carcassonne_env.bots.base import BUILTIN_BOTS, Agent, bot_class, make_bot

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


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from a spec: its name, optionally followed by constructor
    options, ``"mcts:iterations=2000:trees=2"``, each read as the type the bot's
    constructor annotates (bool: true/false/1/0 in any case; int; float; else text). The
    bot's `name` is the spec, so tables tell budgets apart. Raises ValueError for an
    unknown name or option, or a value that does not fit its option's type."""
    return make_bot(spec, seed, BOTS)


# (spec, rules) pairs whose first act() this process has already paid for.
_WARMED: set[tuple[str, Rules]] = set()


def warm_up(spec: str, rules: Rules) -> None:
    """Let a bot make one untimed move once per process: its first act() loads numba's
    cache (or compiles), which is not thinking time. A separate instance, so the games
    that follow do not depend on which process warmed up."""
    if (spec, rules) not in _WARMED:
        make_agent(spec, seed=0).act(Game(rules, seed=0))
        _WARMED.add((spec, rules))
