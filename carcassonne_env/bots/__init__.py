"""The built-in bots the environments play: random, greedy and heuristic (`make_bot`), their
jitted versions (`jitted_bots`, with `JittedBot` to play one as an `Agent`; the VsBots
vector env's kernel plays them: `carcassonne_env.envs.kernels`) and the heuristic's move
prior (`move_prior`). The search and policy bots build on these in the `agents` package."""

from .base import BUILTIN_BOTS, Agent, make_bot
from .plugins import make_opponent, register_bots

__all__ = ["BUILTIN_BOTS", "Agent", "make_bot", "make_opponent", "register_bots"]
