"""Bots beyond the built-in ones, by name, for the environments (``VsBots-v0``'s
``opponents=["mcts"]``) without `carcassonne_env` importing the packages that define them.

A factory ``factory(spec, seed=...) -> Agent`` (as `agents.make_agent`) serves the names
it is registered for: by `register_bots` (`agents` registers its mcts, sb3 and
solo-search bots when imported) or by an entry point of the ``carcassonne_env.bots``
group (name: the bot name, value: the factory), found on first use, so the bots of an
installed package work by name without importing it first. This distribution's
``pyproject.toml`` declares the `agents` bots there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import entry_points

from ..shadowing import SIBLINGS, check_package
from .base import BUILTIN_BOTS, Agent, make_bot

#: The entry-point group of bot factories.
ENTRY_POINT_GROUP = "carcassonne_env.bots"

BotFactory = Callable[..., Agent]  # factory(spec, seed=None) -> Agent

_FACTORIES: dict[str, BotFactory] = {}


def register_bots(names: Iterable[str], factory: BotFactory) -> None:
    """Let `factory` (``factory(spec, seed=...) -> Agent``) build the bots `names` wherever
    the environments take a bot spec. The built-in names cannot be taken."""
    for name in names:
        if name in BUILTIN_BOTS:
            raise ValueError(f"{name!r} is a built-in bot")
        _FACTORIES[name] = factory


def _entry_point_factory(name: str) -> BotFactory | None:
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        top = ep.module.split(".")[0]
        if top in SIBLINGS:  # ours: a user's package of that name would answer instead
            check_package(top)
        factory = ep.load()
        _FACTORIES[name] = factory
        return factory
    return None


def plugin_names() -> list[str]:
    """Names of the bots other than the built-in ones that `make_opponent` knows."""
    return sorted(set(_FACTORIES) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def make_opponent(spec: str, seed: int | None = None) -> Agent:
    """A bot from a spec (``"heuristic:follower=3.0"``, ``"mcts:iterations=200"``): a
    built-in bot (`make_bot`), else one of a registered factory or entry point. Raises
    ValueError for an unknown name or bad options."""
    name = spec.split(":")[0]
    if name in BUILTIN_BOTS:
        return make_bot(spec, seed)
    factory = _FACTORIES.get(name) or _entry_point_factory(name)
    if factory is None:
        known = sorted(BUILTIN_BOTS) + plugin_names()
        raise ValueError(f"unknown bot {name!r}; available: {', '.join(known)} (the search "
                         "and policy bots register on `import agents`; any other bot: pass "
                         "the agent object or a factory)")
    return factory(spec, seed=seed)
