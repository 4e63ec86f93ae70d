"""Every bot: the built-in random, greedy and heuristic (`carcassonne_env.bots`, which the
environments play) and the search and policy bots built on them here. Every bot follows
the `Agent` protocol: `act(game) -> Move`; build one by spec with
`make_agent("mcts:iterations=400", seed=0)`. The search bots are imported on first use
(their numba functions load then)."""

from carcassonne_env.bots.base import BUILTIN_BOTS, split_specs
from carcassonne_env.bots.plugins import register_bots
from carcassonne_env.bots.simple import GreedyAgent, RandomAgent
from carcassonne_env.core.notices import notice_modules

from .base import BOTS, Agent, make_agent, registry

# The environments play these by name too (``VsBots-v0``'s opponents=["mcts"]).
register_bots([name for name in BOTS if name not in BUILTIN_BOTS], make_agent)
notice_modules("agents.")  # the search bots' first compiles are announced too

_LAZY = {"HeuristicAgent": "heuristic", "MCTSAgent": "mcts", "SB3Agent": "sb3"}


def __getattr__(name: str):
    if name in _LAZY:
        from .base import agent_class

        return agent_class(_LAZY[name])
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = ["BOTS", "Agent", "GreedyAgent", "HeuristicAgent", "MCTSAgent", "RandomAgent",
           "SB3Agent", "make_agent", "registry", "split_specs"]
