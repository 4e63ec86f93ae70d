"""Bots: the protocol (`Agent`), the one factory (`make_bot`: any bot from a spec, the
built-in random, greedy and heuristic, the search and policy bots of `agents`, a plugin's;
`register_bots` adds a package's bots), the built-in bots' jitted versions (`jitted_bots`,
with `JittedBot` to play one as an `Agent`; the VsBots vector env's kernel plays them:
`carcassonne_env.envs.vector_kernels`) and the heuristic's move prior (`move_prior`)."""

from .base import Agent
from .factory import BUILTIN_BOTS, make_bot, register_bots

__all__ = ["BUILTIN_BOTS", "Agent", "make_bot", "register_bots"]
