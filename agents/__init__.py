"""The search and policy bots (mcts, solo-search, puct, sb3), built on the built-in bots of
`carcassonne_env.bots`, with the arena, the solo bench and the analysis tools. Every bot
follows the `Agent` protocol: `act(game) -> Move`; build any bot by spec with
`carcassonne_env.make_bot("mcts:iterations=400", seed=0)` (no ``import agents`` needed:
the search bots come through entry points). The search bots are imported on first use
(their numba functions load then)."""

from carcassonne_env.bots import Agent, register_bots
from carcassonne_env.bots.factory import BUILTIN_BOTS, split_specs
from carcassonne_env.bots.simple import GreedyAgent, RandomAgent
from carcassonne_env.compiler.notices import notice_modules

from .catalog import BOTS, _build_bot, registry

# make_bot finds these through the entry points; registered too for a source checkout
# that is not installed (no entry points).
register_bots([name for name in BOTS if name not in BUILTIN_BOTS], _build_bot)
notice_modules("agents.")  # the search bots' first compiles are announced too

_LAZY = {"HeuristicAgent": "heuristic", "MCTSAgent": "mcts", "SB3Agent": "sb3"}


def __getattr__(name: str):
    if name in _LAZY:
        from .catalog import agent_class

        return agent_class(_LAZY[name])
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = [
    "BOTS",
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "MCTSAgent",
    "RandomAgent",
    "SB3Agent",
    "registry",
    "split_specs",
]
