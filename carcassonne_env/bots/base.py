"""The bot protocol (`Agent`), the moves a bot plays without thinking, and the bounds of
the bots' options. Bots are built from specs by `carcassonne_env.bots.factory.make_bot`."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..checks import check_real
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


def check_weight(name: str, value: Any, lo: float | None = None, *, strict: bool = False) -> float:
    """`checks.check_real`, and within +-`MAX_WEIGHT`."""
    value = check_real(name, value, lo, strict=strict)
    if abs(value) > MAX_WEIGHT:
        raise ValueError(f"{name} must be within +-{MAX_WEIGHT:,}, got {value!r}")
    return value
