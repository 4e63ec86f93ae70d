"""The bot protocol, and bots built from specs (``"heuristic:follower=3.0"``) out of a
table of bot classes by name: the built-in bots here; `agents.make_agent` adds the
search and policy bots on top."""

from __future__ import annotations

import importlib
import inspect
import types
import typing
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ..checks import check_real, is_int
from ..game import Game, Move


@runtime_checkable
class Agent(Protocol):
    """A bot: `act` returns a legal move for the seat to move; `name` identifies it in
    tables. Bots are seeded at construction (`seed=`) so games are reproducible."""

    name: str

    def act(self, game: Game) -> Move:
        """The move this bot plays in `game` (one of `game.legal_moves()`)."""


def auto_scoring_choice(game: Game) -> Move | None:
    """At a scoring decision (solo, ``scoring_order="player"``: `Game.decision` is
    "score_feature" or "score_follower"), the option the automatic order takes; None at
    a tile placement. The built-in bots but random play it: they do not search the order,
    so they score exactly as under ``scoring_order="auto"``."""
    if game.done or game.decision == "place":
        return None
    return game.auto_scoring_move()


def forced_move(game: Game) -> Move | None:
    """The move a search bot plays without searching: the automatic order's scoring
    choice (`auto_scoring_choice`) or the only legal move; None when there is a choice."""
    if (choice := auto_scoring_choice(game)) is not None:
        return choice
    moves = game.legal_moves()
    return moves[0] if len(moves) == 1 else None


# Bounds of the bots' options (`checks.at_most`), far above any sensible setting (see
# docs/bots.md, "Limits"): a mistyped budget fails at construction in one line instead
# of exhausting memory or thinking for days.
#: Seconds of thinking per move (`seconds`, `time_per_move`): an hour.
MAX_SECONDS_PER_MOVE = 3600
#: Moves played ahead inside a search (`depth`, `lookahead`): more than any game lasts.
MAX_MOVES_AHEAD = 10_000
#: Candidate moves kept (`top_k`, `guide_k`): more than any position's legal moves.
MAX_CANDIDATES = 10_000
#: Magnitude of a real-valued weight, scale or constant (`c`, `margin_scale`, the
#: heuristic's weights...): the search's arithmetic stays finite.
MAX_WEIGHT = 1_000_000


def check_weight(name: str, value: Any, lo: float | None = None, *,
                 strict: bool = False) -> float:
    """`checks.check_real`, and within +-`MAX_WEIGHT`."""
    value = check_real(name, value, lo, strict=strict)
    if abs(value) > MAX_WEIGHT:
        raise ValueError(f"{name} must be within +-{MAX_WEIGHT:,}, got {value!r}")
    return value


#: The bots the environments play by name ("module:class", imported on first use).
BUILTIN_BOTS = {
    "random": "carcassonne_env.bots.simple:RandomAgent",
    "greedy": "carcassonne_env.bots.simple:GreedyAgent",
    "heuristic": "carcassonne_env.bots.heuristic:HeuristicAgent",
}


def bot_class(name: str, bots: Mapping[str, str] = BUILTIN_BOTS) -> type:
    """The class of bot `name` in `bots` (names to "module:class")."""
    module, _, cls = bots[name].partition(":")
    return getattr(importlib.import_module(module), cls)


_TRUE, _FALSE = ("true", "1"), ("false", "0")


def _named_options(cls: type) -> list[str]:
    """The options bot class `cls` names in its constructor (not seed, not **kwargs)."""
    params = inspect.signature(cls.__init__).parameters.values()
    return [p.name for p in params if p.name not in ("self", "seed") and p.kind not in (
        inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]


def option_type(cls: type, key: str) -> Any:
    """The annotated type of constructor option `key` of bot class `cls` (the type of
    its ``**kwargs`` for a name the signature does not list; Optional stripped), or
    None if the class takes no such option."""
    hints = typing.get_type_hints(cls.__init__)
    params = inspect.signature(cls.__init__).parameters
    if key in params and params[key].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                   inspect.Parameter.VAR_KEYWORD):
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
            raise ValueError(f"option {key!r} takes {'an integer' if kind is int else 'a number'}"
                             f", got {text!r}") from None
    return text


def split_specs(text: str) -> list[str]:
    """Comma-separated bot specs (``"random, mcts:iterations=400"``), blanks dropped."""
    return [b.strip() for b in text.split(",") if b.strip()]


def make_bot(spec: str, seed: int | None = None,
             bots: Mapping[str, str] = BUILTIN_BOTS) -> Agent:
    """Build a bot of `bots` (default: the built-in random, greedy and heuristic) from a
    spec: its name, optionally followed by constructor options,
    ``"heuristic:follower=3.0"``, each read as the type the bot's constructor annotates
    (bool: true/false/1/0 in any case; int; float; else text). The bot's `name` is the
    spec, so tables tell budgets apart. Raises ValueError for an unknown name or option,
    a value that does not fit its option's type or a negative seed; TypeError if `spec`
    is not a string."""
    if not isinstance(spec, str):
        raise TypeError("a bot spec is a string such as 'greedy' or 'mcts:iterations=400', "
                        f"got {spec!r}")
    if is_int(seed) and seed < 0:
        raise ValueError(f"seed must be None or a non-negative integer, got {seed}")
    name, *options = spec.split(":")
    if name not in bots:
        raise ValueError(f"unknown bot {name!r}; available: {', '.join(sorted(bots))}")
    cls = bot_class(name, bots)
    kwargs = {}
    for option in options:
        key, eq, value = option.partition("=")
        if not eq or not key:
            raise ValueError(f"bot option {option!r} in {spec!r} is not key=value")
        if key == "seed":
            raise ValueError(f"bot option 'seed' in {spec!r}: bots are seeded by the caller "
                             "(make_agent's seed, --seed)")
        kind = option_type(cls, key)
        if kind is None:
            raise ValueError(f"bad options for bot {name!r} in {spec!r}: unknown option "
                             f"{key!r}")
        try:
            kwargs[key] = _option_value(key, value, kind)
        except ValueError as err:
            raise ValueError(f"bad options for bot {name!r} in {spec!r}: {err}") from None
    try:
        agent = cls(seed=seed, **kwargs)
    except TypeError as err:
        named = _named_options(cls)
        unknown = [k for k in kwargs if k not in named]
        if unknown:  # passed on to its **kwargs (the heuristic's weights), and refused there
            takes = (f"; {name} takes {', '.join(named)} and the heuristic's weights"
                     if named else "")
            raise ValueError(f"bad options for bot {name!r} in {spec!r}: unknown option "
                             f"{unknown[0]!r}{takes} ({err})") from None
        raise ValueError(f"bad options for bot {name!r} in {spec!r}: {err}") from None
    if options:
        agent.name = spec
    return agent
