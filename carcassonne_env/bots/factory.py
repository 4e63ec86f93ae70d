"""`make_bot`: any bot from a spec (``"heuristic:follower=3.0"``, ``"mcts:iterations=200"``).

The spec grammar: a bot name, optionally followed by constructor options
``name:key=value:key=value``, each read as the type the bot's constructor annotates.
Names: the built-in bots (`BUILTIN_BOTS`: random, greedy, heuristic), then the bots of
other packages, served by a factory ``factory(spec, seed=...) -> Agent`` registered for
their names by `register_bots` or declared as an entry point of the
``carcassonne_env.bots`` group (name: the bot name, value: the factory), found on first
use, so the bots of an installed package work by name without importing it first. This
distribution's ``pyproject.toml`` declares the search and policy bots of `agents` (mcts,
solo-search, puct, sb3) there; `carcassonne_env` does not import `agents` itself.
The spec family ``openspiel:NAME[:key=value...]`` (``openspiel:mcts:simulations=200``)
plays OpenSpiel's bots on the OpenSpiel game (`carcassonne_env.openspiel`, the
openspiel extra). A spec ``module:function`` that names no bot (``mybot:make``) is a
user's own bot: ``function(seed=...)`` of that module (installed, or a file of the
current folder).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any

from ..checks import is_int
from ..shadowing import SIBLINGS, check_package
from .base import Agent

#: The entry-point group of bot factories.
ENTRY_POINT_GROUP = "carcassonne_env.bots"

#: The bots the environments play by name ("module:class", imported on first use).
BUILTIN_BOTS = {
    "random": "carcassonne_env.bots.simple:RandomAgent",
    "greedy": "carcassonne_env.bots.simple:GreedyAgent",
    "heuristic": "carcassonne_env.bots.heuristic:HeuristicAgent",
}

#: The OpenSpiel bots, the spec family ``openspiel:NAME[:key=value...]`` (the openspiel
#: extra; `carcassonne_env.openspiel`).
OPENSPIEL_BOTS = {"mcts": "carcassonne_env.openspiel:OpenSpielMCTSAgent"}

BotFactory = Callable[..., Agent]  # factory(spec, seed=None) -> Agent

_FACTORIES: dict[str, BotFactory] = {}


def make_bot(spec: str, seed: int | None = None) -> Agent:
    """Build any bot from a spec: its name (a built-in bot, a search or policy bot of
    `agents`, a plugin's), optionally followed by constructor options,
    ``"mcts:iterations=2000:trees=2"``, each read as the type the bot's constructor
    annotates (bool: true/false/1/0 in any case; int; float; else text); or
    ``"module:function"``, a user's own bot (`_function_bot`). The bot's `name`
    is the spec, so tables tell budgets apart. Raises ValueError for an unknown name or
    option, a value that does not fit its option's type or a negative seed; TypeError if
    `spec` is not a string."""
    if not isinstance(spec, str):
        raise TypeError(
            f"a bot spec is a string such as 'greedy' or 'mcts:iterations=400', got {spec!r}"
        )
    if is_int(seed) and seed < 0:
        raise ValueError(f"seed must be None or a non-negative integer, got {seed}")
    name = spec.split(":")[0]
    if name in BUILTIN_BOTS:
        return bot_from_table(spec, seed, BUILTIN_BOTS)
    if name == "openspiel":
        return _openspiel_bot(spec, seed)
    factory = _FACTORIES.get(name) or _entry_point_factory(name)
    if factory is None:
        known = sorted([*BUILTIN_BOTS, *plugin_names()])
        unknown = f"unknown bot {name!r}; available: {', '.join(known)}"
        if _FUNCTION_SPEC.fullmatch(spec):
            return _function_bot(spec, seed, unknown)
        raise ValueError(unknown)
    return factory(spec, seed=seed)


# A user's own bot: ``module:function`` (dotted module, no options).
_FUNCTION_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def _function_bot(spec: str, seed: int | None, unknown: str) -> Agent:
    """The bot of a ``module:function`` spec: ``function(seed=seed)`` of `module` (an
    installed module, else a file of the current folder), an object with
    ``act(game) -> Move``, named by the spec. ValueError if the module is found nowhere
    (`unknown`: the unknown-name message), has no such function, the function takes no
    ``seed=`` or what it returns has no `act`."""
    module_name, _, function_name = spec.partition(":")
    module = _user_module(module_name, unknown)
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ValueError(f"bot {spec!r}: module {module_name!r} has no function {function_name!r}")
    try:
        inspect.signature(function).bind(seed=seed)
    except (TypeError, ValueError):
        raise ValueError(
            f"bot {spec!r}: {function_name} must take the seed, as in "
            f"def {function_name}(seed=None)"
        ) from None
    agent = function(seed=seed)
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"bot {spec!r}: {function_name}(seed=...) returned {type(agent).__name__!r}, "
            "not a bot (an object with act(game) -> Move)"
        )
    with contextlib.suppress(AttributeError):  # tables name bots by their spec
        agent.name = spec
    return agent


def _user_module(name: str, unknown: str) -> types.ModuleType:
    """Module `name` of a ``module:function`` spec: an installed one, else a file or
    package of the current folder (which then stays on `sys.path`, as `python -m` puts
    it there, so that the module's own imports and worker processes find it too)."""
    with _unless_missing(name):
        return importlib.import_module(name)
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)
        importlib.invalidate_caches()  # the folder may have changed since it was read
        with _unless_missing(name):
            return importlib.import_module(name)
    file = name.replace(".", "/") + ".py"
    raise ValueError(
        f"{unknown}; nor is {name!r} a module (installed, or a file {file} of the current "
        "folder) for a bot spec module:function"
    )


@contextlib.contextmanager
def _unless_missing(name: str) -> Iterator[None]:
    """Swallow the ModuleNotFoundError of module `name` itself; one raised by the
    module's own imports (a package it needs) goes on."""
    try:
        yield
    except ModuleNotFoundError as err:
        if err.name != name and not name.startswith(f"{err.name}."):
            raise


def _openspiel_bot(spec: str, seed: int | None) -> Agent:
    """A bot of the ``openspiel:`` family: the rest of the spec read as a spec of
    `OPENSPIEL_BOTS` (ImportError naming the extra when open-spiel is missing)."""
    rest = spec.partition(":")[2]
    if rest.split(":")[0] not in OPENSPIEL_BOTS:
        known = ", ".join(f"openspiel:{n}" for n in sorted(OPENSPIEL_BOTS))
        raise ValueError(f"unknown OpenSpiel bot in {spec!r}; available: {known}")
    try:
        agent = bot_from_table(rest, seed, OPENSPIEL_BOTS)
    except ValueError as err:
        raise ValueError(f"{spec!r}: {err}") from None
    agent.name = spec
    return agent


def register_bots(names: Iterable[str], factory: BotFactory) -> None:
    """Let `factory` (``factory(spec, seed=...) -> Agent``) build the bots `names` in
    `make_bot` (and so wherever a bot spec is taken). The built-in names cannot be taken."""
    for name in names:
        if name in BUILTIN_BOTS:
            raise ValueError(f"{name!r} is a built-in bot")
        _FACTORIES[name] = factory


def plugin_names() -> list[str]:
    """Names of the bots other than the built-in ones that `make_bot` knows."""
    return sorted(set(_FACTORIES) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _entry_point_factory(name: str) -> BotFactory | None:
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        top = ep.module.split(".")[0]
        if top in SIBLINGS:  # ours: a user's package of that name would answer instead
            check_package(top)
        factory = ep.load()
        _FACTORIES[name] = factory
        return factory
    return None


def split_specs(text: str) -> list[str]:
    """Comma-separated bot specs (``"random, mcts:iterations=400"``), blanks dropped."""
    return [b.strip() for b in text.split(",") if b.strip()]


def bot_class(name: str, bots: Mapping[str, str] = BUILTIN_BOTS) -> type:
    """The class of bot `name` in `bots` (names to "module:class")."""
    module, _, cls = bots[name].partition(":")
    return getattr(importlib.import_module(module), cls)


_TRUE, _FALSE = ("true", "1"), ("false", "0")


def _named_options(cls: type) -> list[str]:
    """The options bot class `cls` names in its constructor (not seed, not **kwargs)."""
    params = inspect.signature(cls).parameters.values()  # the constructor's, without self
    return [
        p.name
        for p in params
        if p.name not in ("self", "seed")
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def option_type(cls: type, key: str) -> Any:
    """The annotated type of constructor option `key` of bot class `cls` (the type of
    its ``**kwargs`` for a name the signature does not list; Optional stripped), or
    None if the class takes no such option."""
    hints = typing.get_type_hints(cls.__init__)  # type: ignore[misc]  # read, not called
    params = inspect.signature(cls).parameters
    if key in params and params[key].kind not in (
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.VAR_KEYWORD,
    ):
        kind = hints.get(key, Any)
    else:
        extra = [p.name for p in params.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
        if not extra:
            return None
        kind = hints.get(extra[0], Any)
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        kinds = [k for k in typing.get_args(kind) if k is not type(None)]
        kind = kinds[0] if len(kinds) == 1 else Any
    return kind


def _option_value(key: str, text: str, kind: Any) -> Any:
    """`text` as the option's type: bool (true/false/1/0, any case), int, float; the
    text itself for a str or untyped option. ValueError naming `key` if it does not fit."""
    if kind is bool:
        if text.lower() in _TRUE + _FALSE:
            return text.lower() in _TRUE
        raise ValueError(f"option {key!r} is a boolean (true/false/1/0), got {text!r}")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise ValueError(
                f"option {key!r} takes {'an integer' if kind is int else 'a number'}, got {text!r}"
            ) from None
    return text


def _spec_options(spec: str, cls: type) -> dict[str, Any]:
    """The constructor options `spec` ("name:key=value:...") gives bot class `cls`."""
    name, *options = spec.split(":")
    kwargs = {}
    for option in options:
        key, eq, value = option.partition("=")
        if not eq or not key:
            raise ValueError(f"bot option {option!r} in {spec!r} is not key=value")
        if key == "seed":
            raise ValueError(
                f"bot option 'seed' in {spec!r}: bots are seeded by the caller "
                "(make_bot's seed, --seed)"
            )
        kind = option_type(cls, key)
        if kind is None:
            raise ValueError(f"bad options for bot {name!r} in {spec!r}: unknown option {key!r}")
        try:
            kwargs[key] = _option_value(key, value, kind)
        except ValueError as err:
            raise ValueError(f"bad options for bot {name!r} in {spec!r}: {err}") from None
    return kwargs


def bot_from_table(spec: str, seed: int | None, bots: Mapping[str, str]) -> Agent:
    """`make_bot`'s work for a bot of table `bots` (names to "module:class"): the
    class's constructor called with the spec's options; the bot named by the spec when
    it has options. A package's factory for `register_bots` or an entry point calls this
    with its own table (`agents`: its search and policy bots)."""
    name = spec.split(":")[0]
    if name not in bots:
        raise ValueError(f"unknown bot {name!r}; available: {', '.join(sorted(bots))}")
    cls = bot_class(name, bots)
    kwargs = _spec_options(spec, cls)
    try:
        agent = cls(seed=seed, **kwargs)
    except TypeError as err:
        named = _named_options(cls)
        unknown = [k for k in kwargs if k not in named]
        if unknown:  # passed on to its **kwargs (the heuristic's weights), and refused there
            takes = (
                f"; {name} takes {', '.join(named)} and the heuristic's weights" if named else ""
            )
            raise ValueError(
                f"bad options for bot {name!r} in {spec!r}: unknown option "
                f"{unknown[0]!r}{takes} ({err})"
            ) from None
        raise ValueError(f"bad options for bot {name!r} in {spec!r}: {err}") from None
    if ":" in spec:
        agent.name = spec
    return agent
