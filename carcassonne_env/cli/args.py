"""What the `carcassonne` commands share, each written once: how a command is declared
(`command`: its name, options and docstring help; `Commands`: its parser, with `--debug`),
the rule options and the `Rules` they name, the solo-deal options, and the single options
(`--seed`, `--workers`, `--json`, `-o`, ...) whose type and default must not drift apart
between commands.

A command module builds its parser from these, in the order its `--help` lists them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Protocol, cast

from ..rules import EXPANSION_MODES, EXPANSIONS, FARM_SCORING, Rules

DEBUG_HELP = "show the full traceback of an error"


def int_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= `low` (argparse names the option on failure)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    return parse


def non_negative_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be >= 0 seconds, got {text}")
    return value


# A command's function: the parsed arguments in, the exit status out.
Run = Callable[[argparse.Namespace], int]


class Command(Protocol):
    """A command's function marked by `command`: its name and options ride on it."""

    command_name: str
    add_options: Callable[[argparse.ArgumentParser], None]

    def __call__(self, args: argparse.Namespace, /) -> int: ...


def command(
    name: str, add_options: Callable[[argparse.ArgumentParser], None]
) -> Callable[[Run], Command]:
    """Mark a function as the command `name`, whose options `add_options(parser)` adds;
    `Commands.add` reads the mark. The command's line in the list of commands is the first
    paragraph of the function's docstring, its own --help description the rest (if any),
    so that a command's help text stands next to its code."""

    def mark(run: Run) -> Command:
        marked = cast(Command, run)  # the same function, its attributes set just below
        marked.command_name, marked.add_options = name, add_options
        return marked

    return mark


class Commands:
    """The sub-commands of a parser and the --debug option of each: `add(run)` makes the
    one a `command` function runs."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
        # The same option after the command name; SUPPRESS keeps the top-level value.
        self._common = argparse.ArgumentParser(add_help=False)
        self._common.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
        )
        self._sub = parser.add_subparsers(dest="command", required=True)

    def add(self, run: Command) -> None:
        """Add the parser of the command `run` (marked by `command`): its help, its options
        and --debug after its name too."""
        # argparse folds the docstring's line breaks and indentation into single spaces
        summary, _, description = (run.__doc__ or "").partition("\n\n")
        parser = self._sub.add_parser(
            run.command_name,
            parents=[self._common],
            help=summary or None,
            description=description or None,
        )
        run.add_options(parser)
        parser.set_defaults(func=run)


# --- the rules ---------------------------------------------------------------------------
def add_rule_options(p: argparse.ArgumentParser, solo: bool = True) -> None:
    """The "rules" group: seats, followers, scoring options, the hand size, the solo
    variant (unless `solo` is False) and the expansions; `rules_of` reads them."""
    g = p.add_argument_group("rules")
    g.add_argument("--players", type=int, default=None, help="seats, 1-6 (default 2)")
    g.add_argument("--followers", type=int, default=None, help="followers per seat")
    g.add_argument("--small-city", action="store_true", help="2-tile city scores 2")
    g.add_argument("--farm-scoring", choices=FARM_SCORING, default="field")
    g.add_argument("--farm-city-points", type=int, default=3)
    g.add_argument("--hand-size", type=int, choices=(1, 3), default=1, help="3 = strategic variant")
    if solo:
        g.add_argument("--solo", action="store_true", help="2020 solo variant (3 colours)")
        g.add_argument(
            "--solo-colours",
            type=int,
            choices=(3, 4),
            default=None,
            help="colours in the solo variant (default 3; needs --solo)",
        )
    add_expansion_options(g)


def add_expansion_options(g: argparse._ActionsContainer) -> None:
    """--expansions and --expansion-mode; `expansion_options` reads them."""
    g.add_argument(
        "--expansions",
        default=None,
        metavar="LIST",
        help=f"comma-separated expansions: {', '.join(EXPANSIONS)}",
    )
    g.add_argument(
        "--expansion-mode",
        choices=EXPANSION_MODES,
        default=None,
        help="with --expansions: full (default): the expansions' rules and "
        "figures (Inns & Cathedrals: inns, cathedrals, the large follower; "
        "Traders & Builders: trade goods, the builder, the pig); tiles_only: "
        "their tiles as ordinary tiles",
    )


def add_solo_deal_options(p: argparse.ArgumentParser, followers_help: str) -> None:
    """--solo-colours and --followers of the commands that play only the solo variant;
    `solo_rules` reads them."""
    p.add_argument("--solo-colours", type=int, choices=(3, 4), default=3)
    p.add_argument("--followers", type=int_at_least(1), default=None, help=followers_help)


def expansion_options(args: argparse.Namespace) -> dict:
    """The `Rules` keywords of --expansions and --expansion-mode (none on a command
    without them); an option that would change nothing is refused."""
    expansions = getattr(args, "expansions", None)
    mode = getattr(args, "expansion_mode", None)
    if expansions is None:
        if mode is not None:
            raise ValueError(f"--expansion-mode {mode} needs --expansions")
        return {}
    names = [e.strip() for e in expansions.split(",") if e.strip()]
    if not names:
        raise ValueError(
            f"--expansions {expansions!r} names no expansion (known: {', '.join(EXPANSIONS)})"
        )
    return {"expansions": tuple(names), "expansion_mode": mode or "full"}


def rules_of(args: argparse.Namespace) -> Rules:
    """The rules `add_rule_options`'s options name; contradictory options are refused."""
    solo = getattr(args, "solo", False)
    if solo and args.players not in (None, 1):
        raise ValueError(
            f"--players {args.players} contradicts --solo (the solo variant "
            "has one player; --solo-colours sets its colours)"
        )
    if not solo and getattr(args, "solo_colours", None) is not None:
        raise ValueError("--solo-colours needs --solo")
    return Rules(
        players=1 if solo else args.players,
        followers=args.followers,
        small_city=args.small_city,
        farm_scoring=args.farm_scoring,
        farm_city_points=args.farm_city_points,
        hand_size=args.hand_size,
        variant="solo" if solo else "standard",
        solo_colours=(args.solo_colours or 3) if solo else 3,
        **expansion_options(args),
    )


def solo_rules(args: argparse.Namespace) -> Rules:
    """The solo rules `add_solo_deal_options` (and the expansion options, where the command
    has them) name."""
    return Rules(
        variant="solo",
        solo_colours=args.solo_colours,
        followers=args.followers,
        **expansion_options(args),
    )


# --- single options ------------------------------------------------------------------------
def add_seed(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """--seed: an integer >= 0, default 0."""
    p.add_argument("--seed", type=int_at_least(0), default=0, help=help)


def add_workers(p: argparse.ArgumentParser, what: str) -> None:
    """--workers: how many `what` run at once, which changes the time, not the results."""
    p.add_argument(
        "--workers",
        type=int_at_least(1),
        default=1,
        help=f"{what} (same results for any count; time per move is only "
        "comparable at the same count)",
    )


def add_resume(p: argparse.ArgumentParser, saved_in: str, what: str) -> None:
    """--resume: finish the stopped run saved in `saved_in` (an option naming its files),
    playing only its missing `what` (games, deals)."""
    p.add_argument(
        "--resume",
        action="store_true",
        help=f"finish the stopped run saved in {saved_in} (same options): play "
        f"only its missing {what}",
    )


def add_no_progress(p: argparse.ArgumentParser) -> None:
    """--no-progress: no progress bar."""
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_json(p: argparse.ArgumentParser, help: str) -> None:
    """--json FILE: an optional JSON output file."""
    p.add_argument("--json", metavar="FILE", help=help)


def add_record(p: argparse.ArgumentParser, help: str) -> None:
    """The game record (JSON) a command reads, the first positional argument."""
    p.add_argument("record", help=help)


def add_output(
    p: argparse.ArgumentParser, default: str | None, help: str, metavar: str | None = None
) -> None:
    """-o/--output: the file a command writes."""
    p.add_argument("-o", "--output", default=default, metavar=metavar, help=help)


def add_overwrite(p: argparse.ArgumentParser) -> None:
    """--overwrite: replace output files that exist (`files.output_file` refuses them)."""
    p.add_argument(
        "--overwrite", action="store_true", help="replace output files that exist (default: refuse)"
    )


def add_cell(p: argparse.ArgumentParser, default: int) -> None:
    """--cell: pixels per tile of a drawn board."""
    p.add_argument(
        "--cell",
        type=int_at_least(8),
        default=default,
        help=f"pixels per tile, >= 8 (default {default})",
    )


def add_moves(p: argparse.ArgumentParser, help: str) -> None:
    """--moves K: only the first K moves of a record."""
    p.add_argument("--moves", type=int_at_least(0), metavar="K", default=None, help=help)
