"""Model cards: how a shipped model was made, inside its own .zip (``card.json``).

    carcassonne train card ppo_duel_rl                  # print the card
    carcassonne train reproduce ppo_duel_rl --out runs/again [--dry-run] [--from-step K]

A card holds the commands that make the model (the run folder written ``{out}``), the
commit and date it shipped with, its steps and wall-clock time, and its evaluation
(the command and the figures). `reproduce` runs the commands one after another with
``{out}`` replaced by `--out`; the last one exports the model to ``{out}/NAME.zip``.
Runs that shipped a checkpoint stop at that checkpoint's step count: every schedule of
these recipes is constant, so the steps before it are the ones the full run took.

`reproduce` runs training only: every command must be ``carcassonne train`` with one of
the training subcommands, every output it names (``--out``, ``-o``) must lie inside
`--out`, ``--init`` must name a shipped model or a file inside `--out`, and no command
may ``--trust-pickle``; anything else is refused before the first command runs. The
card of a model that is not a shipped one (another file, or a card that differs from
the shipped model's of that name) is printed and run only with `--yes`.
"""

from __future__ import annotations

import json
import shlex
import zipfile
from pathlib import Path
from typing import Any

from carcassonne_env.cli_errors import command_parser
from carcassonne_env.model_file import rewrite_zip

CARD_FILE = "card.json"  # SB3 loads only its own entries of the zip and ignores this one
CARD_KEYS = (
    "name",
    "players",
    "made",
    "commands",
    "commit",
    "date",
    "steps",
    "wall_clock",
    "evaluation",
)


def read_card(model: str | Path) -> dict[str, Any]:
    """The card of `model` (a shipped model's name or a .zip); ValueError if it has none
    or an incomplete one, or is not a zip."""
    from agents.sb3_policy import model_path

    path = model_path(model)
    try:
        with zipfile.ZipFile(path) as archive:
            if CARD_FILE not in archive.namelist():
                raise ValueError(f"{path} carries no model card ({CARD_FILE})")
            card = json.loads(archive.read(CARD_FILE))
    except zipfile.BadZipFile as err:
        raise ValueError(f"{path} is not a saved model ({err})") from None
    check_card(card)
    return card


def check_card(card: Any) -> None:
    """ValueError unless `card` is a dict with every key of a card."""
    missing = [k for k in CARD_KEYS if k not in card] if isinstance(card, dict) else CARD_KEYS
    if missing:
        raise ValueError(f"a model card needs {', '.join(missing)}")


def write_card(path: str | Path, card: dict[str, Any]) -> None:
    """Put `card` into the model file `path` (replacing its card, if any; the file is
    rewritten whole)."""
    check_card(card)
    rewrite_zip(path, {CARD_FILE: json.dumps(card, indent=1) + "\n"})


def card_commands(card: dict[str, Any], out: Path) -> list[list[str]]:
    """The card's commands as argument lists of `carcassonne`, ``{out}`` filled in;
    ValueError for a command that is not ``carcassonne ...``."""
    commands = []
    for line in card["commands"]:
        words = shlex.split(line) if isinstance(line, str) else []
        if not words or words[0] != "carcassonne":
            raise ValueError(f"the card's command {line!r} is not a carcassonne command")
        commands.append([arg.replace("{out}", str(out)) for arg in words[1:]])
    return commands


# The `carcassonne train` subcommands a card may run, each with the option naming what it
# writes where it must give one (None: it writes nothing, or only where --out says).
REPRODUCIBLE = {
    "solo": "--out",
    "multi": "--out",
    "bc": "--out",
    "search": "--out",
    "value": "--out",
    "export": "--output",
    "plot": "--output",
    "evaluate": None,
    "card": None,
}


def check_commands(commands: list[list[str]], out: Path) -> None:
    """ValueError unless every command is a training subcommand (`REPRODUCIBLE`) whose
    outputs lie inside `out`, whose --init names a shipped model or a file there, and
    which trusts no file (--trust-pickle)."""
    for command in commands:
        if len(command) < 2 or command[0] != "train" or command[1] not in REPRODUCIBLE:
            raise ValueError(
                f"the card's command 'carcassonne {shlex.join(command)}' is not "
                f"one of carcassonne train {', '.join(REPRODUCIBLE)}"
            )
        problem = _command_problem(command, out)
        if problem:
            raise ValueError(f"the card's command 'carcassonne {shlex.join(command)}' {problem}")


def _command_problem(command: list[str], out: Path) -> str:
    """What keeps the training `command` from running under `out` ("": nothing)."""
    given = _option_values(command[2:])
    needed = REPRODUCIBLE[command[1]]
    if needed and not given[needed]:
        return f"does not name its output ({needed}): it would write outside --out {out}"
    for value in given["--out"] + given["--output"]:
        if not _inside(value, out):
            return f"writes to {value}, outside --out {out}"
    for value in given["--init"]:
        if not _inside(value, out) and not _shipped_name(value):
            return (
                f"starts from {value}: --init must name a shipped model or a file inside "
                f"--out {out}"
            )
    if any(
        len(name) > 2 and "--trust-pickle".startswith(name)
        for name in (arg.partition("=")[0] for arg in command[2:])
    ):
        return "would unpickle a model file (--trust-pickle): a card may not trust files"
    return ""


def _option_values(args: list[str]) -> dict[str, list[str]]:
    """The values given to --out, --output (-o) and --init in `args`, as argparse would
    read them (``--opt V``, ``--opt=V``, ``-oV``, and abbreviations such as ``--ou``)."""
    found: dict[str, list[str]] = {"--out": [], "--output": [], "--init": []}
    for k, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if arg.startswith("-o") or (
            len(name) > 2
            and name.startswith("--")
            and any(option.startswith(name) for option in found)
        ):
            if arg.startswith("-o"):
                names, value = ["--output"], arg[2:]
            else:
                names = [option for option in found if option.startswith(name)]
            if not eq and not value:
                value = args[k + 1] if k + 1 < len(args) else ""
            for option in names:  # (an abbreviation of both --out and --output: each)
                found[option].append(value)
    return found


def _inside(path: str, out: Path) -> bool:
    """Whether `path` is `out` or lies inside it (links and .. resolved)."""
    root = out.resolve()
    target = Path(path).resolve()
    return target == root or target.is_relative_to(root)


def _shipped_name(value: str) -> bool:
    """Whether `value` is a shipped model's name ("ppo_duel" or "ppo_duel.zip")."""
    from agents.sb3_policy import shipped_models

    return Path(value).name == value and value.removesuffix(".zip") in shipped_models()


def is_shipped_card(model: str | Path, card: dict[str, Any]) -> bool:
    """Whether `card` (read from `model`) is a shipped model's: `model` is a shipped
    model's file, or `card` equals the card of the shipped model of its name."""
    from agents.sb3_policy import MODELS_DIR, model_path, shipped_models

    path = model_path(model).resolve()
    if path.parent == MODELS_DIR.resolve() and path.stem in shipped_models():
        return True
    name = card.get("name")
    return name in shipped_models() and read_card(name) == card


def describe(card: dict[str, Any]) -> str:
    """The card as text."""
    ev = card["evaluation"]
    lines = [
        f"{card['name']} ({card['players']}): {card['made']}",
        f"shipped with commit {card['commit']} ({card['date']}); {card['steps']:,} steps, "
        f"{card['wall_clock']}",
        "made by:",
    ]
    lines += [f"  {line}" for line in card["commands"]]
    lines += [f"evaluation ({ev['command']}):"]
    lines += [f"  {k}: {v}" for k, v in ev["results"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`carcassonne train card NAME`: print a model's card (``--json``: as JSON)."""
    parser = command_parser("carcassonne train card", __doc__)
    parser.add_argument("model", help="a shipped model's name or a model .zip")
    parser.add_argument("--json", action="store_true", help="print the card as JSON")
    args = parser.parse_args(argv)
    card = read_card(args.model)
    print(json.dumps(card, indent=1) if args.json else describe(card))
    return 0


def reproduce_main(argv: list[str] | None = None) -> int:
    """`carcassonne train reproduce NAME --out DIR`: run the card's commands."""
    from carcassonne_env.cli import main as carcassonne

    parser = command_parser("carcassonne train reproduce", __doc__)
    parser.add_argument("model", help="a shipped model's name or a model .zip")
    parser.add_argument("--out", type=Path, required=True, help="folder of the new run")
    parser.add_argument(
        "--from-step",
        type=int,
        default=1,
        help="start at the card's command K (1: the first), e.g. after an "
        "interrupted run (default: %(default)s)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument(
        "--yes",
        action="store_true",
        help="run the commands of a card that is not a shipped model's "
        "(without it they are only printed)",
    )
    args = parser.parse_args(argv)
    card = read_card(args.model)
    try:
        commands = card_commands(card, args.out)
        check_commands(commands, args.out)
    except ValueError as err:
        parser.error(str(err))
    if not 1 <= args.from_step <= len(commands):
        parser.error(f"--from-step must be 1 to {len(commands)}, got {args.from_step}")
    trusted = args.yes or is_shipped_card(args.model, card)
    for k, command in enumerate(commands[args.from_step - 1 :], args.from_step):
        print(f"[{k}/{len(commands)}] carcassonne {shlex.join(command)}", flush=True)
        if not args.dry_run and trusted and (status := carcassonne(command)) != 0:
            return status
    if not args.dry_run and not trusted:
        parser.error(
            f"{args.model} is not a shipped model and its card differs from every "
            "shipped one: its commands are printed above, not run; check them and "
            "add --yes to run them"
        )
    return 0
