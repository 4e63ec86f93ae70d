"""Rule options of a game (`Rules`), validated once and packed for the jitted core."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .checks import check_bool, check_choice, check_int
from .core import constants as C
from .core.state import rule_config
from .tiles import EXPANSION_TILES

FARM_SCORING = ("field", "city")
VARIANTS = ("standard", "solo")
SCORING_ORDERS = ("auto", "player")
EXPANSIONS = tuple(EXPANSION_TILES)  # "inns_cathedrals", "traders_builders"
EXPANSION_MODES = ("full", "tiles_only")
# Options added after the first record format: left out of `to_dict` at their defaults,
# so that records of games without them stay as they were.
_LATER_DEFAULTS = {
    "scoring_order": "auto",
    "expansions": (),
    "expansion_mode": "full",
    "goods_from_unowned_city": True,
}


@dataclass(frozen=True)
class Rules:
    """Rule options. Every combination is validated on construction.

    Args:
        players: seats at the table, 1-6. Default 2; in the solo variant it must be 1
            (one person plays all colours).
        followers: followers per seat. Default 7; in the solo variant 4 per colour.
        small_city: old rule: a completed 2-tile city scores 1 per tile and 1 per pennant.
        farm_scoring: ``"field"`` (3rd edition, default: each field's owners score
            ``farm_city_points`` per completed city it touches) or ``"city"`` (1st edition:
            each completed city scores ``farm_city_points`` once, to the players with most
            farmers in all fields touching it).
        farm_city_points: points per completed city in farm scoring (3; 1983 rule: 4).
        hand_size: 1 (draw and place) or 3 (strategic variant: hold 3 tiles, place one,
            draw a replacement; the game ends when every tile is placed).
        variant: ``"standard"`` or ``"solo"`` (Hans im Glück 2020 solo variant).
        solo_colours: colours played in the solo variant (3 or 4); outside it, 3.
        scoring_order: solo variant: who orders the scoring of several features completed
            by one move and of the end bonus. ``"auto"`` (default): the engine takes the
            best order (docs/rules.md 6.4); ``"player"``: each choice is a decision of the
            game (`Game.decision`, legal moves naming a follower; docs/rules.md 6.5).
        expansions: the expansions whose tiles join the deck: any of
            ``"inns_cathedrals"`` (18 tiles, ids EA..EQ) and ``"traders_builders"``
            (24 tiles, ids TA..TX); default none (docs/rules.md 7).
        expansion_mode: ``"full"`` (default): the expansions with their rules and
            figures: inns and cathedrals score and each player has a large follower
            (Inns & Cathedrals); trade goods score and each player has a builder and a
            pig (Traders & Builders). In the solo variant there are no new figures and
            no goods (docs/rules.md 7.10). ``"tiles_only"``: the expansion tiles play as
            ordinary tiles (inns are roads, cathedrals cities, goods ignored; no new
            figures), as BGA offers.
        goods_from_unowned_city: Traders & Builders (full mode): whether the player who
            completes a city with trade goods takes them when no follower stands on it.
            ``True`` (default): the rulebook (the completer takes them unconditionally);
            ``False``: Board Game Arena's behaviour (a city completed without an owner
            gives no goods; docs/rules.md 7.7).
    """

    # None: the variant's default, resolved by __post_init__ (after which both are ints; the
    # checker cannot see a field's type change there)
    players: int = None  # type: ignore[assignment]
    followers: int = None  # type: ignore[assignment]
    small_city: bool = False
    farm_scoring: str = "field"
    farm_city_points: int = 3
    hand_size: int = 1
    variant: str = "standard"
    solo_colours: int = 3
    scoring_order: str = "auto"
    expansions: tuple[str, ...] = ()
    expansion_mode: str = "full"
    goods_from_unowned_city: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", check_choice("variant", self.variant, VARIANTS))
        solo = self.variant == "solo"
        players = self.players if self.players is not None else (1 if solo else 2)
        followers = self.followers if self.followers is not None else (4 if solo else 7)
        # Stored as plain Python values (numpy scalars are accepted): records stay JSON.
        for name, value in (
            ("players", check_int("players", players, 1, C.MAX_SEATS)),
            ("followers", check_int("followers", followers, 0, 99)),
            ("farm_city_points", check_int("farm_city_points", self.farm_city_points, 0, 99)),
            ("solo_colours", check_int("solo_colours", self.solo_colours, 3, 4)),
            ("small_city", check_bool("small_city", self.small_city)),
            ("farm_scoring", check_choice("farm_scoring", self.farm_scoring, FARM_SCORING)),
            ("hand_size", check_int("hand_size", self.hand_size)),
            ("scoring_order", check_choice("scoring_order", self.scoring_order, SCORING_ORDERS)),
            ("expansions", _check_expansions(self.expansions)),
            (
                "expansion_mode",
                check_choice("expansion_mode", self.expansion_mode, EXPANSION_MODES),
            ),
            (
                "goods_from_unowned_city",
                check_bool("goods_from_unowned_city", self.goods_from_unowned_city),
            ),
        ):
            object.__setattr__(self, name, value)
        if self.hand_size not in (1, 3):
            raise ValueError(f"hand_size must be 1 or 3, got {self.hand_size!r}")
        if self.expansion_mode != "full" and not self.expansions:
            raise ValueError(
                f"expansion_mode={self.expansion_mode!r} says how to play the "
                "tiles of expansions, but expansions names none"
            )
        if solo:
            if players != 1:
                raise ValueError(f"the solo variant is played by players=1, got {players}")
            if self.hand_size != 1:
                raise ValueError("the solo variant draws from stacks: hand_size must be 1")
        elif self.solo_colours != 3:  # what the CLI's --solo-colours without --solo refuses
            raise ValueError(
                f"solo_colours={self.solo_colours} is a solo-variant option "
                "(variant='solo'): the standard game has one colour per player"
            )
        elif self.scoring_order != "auto":
            raise ValueError(
                "scoring_order='player' is a solo-variant option "
                "(variant='solo'): in the standard game the order of scoring "
                "never changes the scores"
            )
        if not self.goods_from_unowned_city and (
            solo or "traders_builders" not in self.full_expansions
        ):
            raise ValueError(
                "goods_from_unowned_city=False changes only the trade goods of "
                "Traders & Builders: it needs expansions=('traders_builders',) "
                "with expansion_mode='full', outside the solo variant"
            )

    @property
    def seats(self) -> int:
        """Scoring seats: players, or colours in the solo variant."""
        return self.solo_colours if self.variant == "solo" else self.players

    @property
    def full_expansions(self) -> tuple[str, ...]:
        """The expansions played with their own rules and figures (not tiles only)."""
        return self.expansions if self.expansion_mode == "full" else ()

    @property
    def figures(self) -> tuple[str, ...]:
        """The figure kinds a move may place (`Move.figure`), in `config.FIGURES` order:
        "follower"; outside the solo variant "large" with Inns & Cathedrals, "builder"
        and "pig" with Traders & Builders (in full mode)."""
        if self.variant == "solo":
            return C.FIGURES[:1]
        full = self.full_expansions
        return tuple(
            f
            for f in C.FIGURES
            if f == "follower"
            or (f == "large" and "inns_cathedrals" in full)
            or (f in ("builder", "pig") and "traders_builders" in full)
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable options (used in game records). The options added after the
        first record format (scoring_order, expansions, expansion_mode,
        goods_from_unowned_city) appear only when they differ from their defaults."""
        d = asdict(self)
        for key, default in _LATER_DEFAULTS.items():
            if d[key] == default:
                del d[key]
        if "expansions" in d:
            d["expansions"] = list(d["expansions"])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rules:
        """Inverse of `to_dict`; unknown keys raise `ValueError`."""
        known = set(cls.__dataclass_fields__)
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rule options: {sorted(unknown)}")
        return cls(**d)

    def to_config(self) -> np.ndarray:
        """Pack the options into the int32 config vector read by the jitted core."""
        return rule_config(
            seats=self.seats,
            followers=self.followers,
            small_city=self.small_city,
            farm_mode=FARM_SCORING.index(self.farm_scoring),
            farm_points=self.farm_city_points,
            hand_size=self.hand_size,
            solo=self.variant == "solo",
            player_order=self.scoring_order == "player",
            expansions=(
                C.EXP_INNS_CATHEDRALS * ("inns_cathedrals" in self.full_expansions)
                | C.EXP_TRADERS_BUILDERS * ("traders_builders" in self.full_expansions)
            ),
            goods_unowned=self.goods_from_unowned_city,
        )


def _check_expansions(value: Any) -> tuple[str, ...]:
    """`value` (a sequence of expansion names) as a tuple in `EXPANSIONS` order."""
    if isinstance(value, str) or not isinstance(value, (tuple, list)):
        raise ValueError(
            f"expansions must be a list or tuple of names from {EXPANSIONS}, got {value!r}"
        )
    for name in value:
        check_choice("expansions", name, EXPANSIONS)
    if len(set(value)) != len(value):
        raise ValueError(f"expansions lists a name twice: {list(value)}")
    return tuple(e for e in EXPANSIONS if e in value)
