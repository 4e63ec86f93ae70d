"""Model cards: how a shipped model was made, inside its own .zip (``card.json``).

    carcassonne train card ppo_duel_rl                  # print the card
    carcassonne train reproduce ppo_duel_rl --out runs/again [--dry-run] [--from-step K]

A card holds the commands that make the model (the run folder written ``{out}``), the
commit and date it shipped with, its steps and wall-clock time, and its evaluation
(the command and the figures). `reproduce` runs the commands one after another with
``{out}`` replaced by `--out`; the last one exports the model to ``{out}/NAME.zip``.
Runs that shipped a checkpoint stop at that checkpoint's step count: every schedule of
these recipes is constant, so the steps before it are the ones the full run took.
"""

from __future__ import annotations

import argparse
import json
import shlex
import zipfile
from pathlib import Path
from typing import Any

from carcassonne_env.cli_errors import OneLineParser

CARD_FILE = "card.json"  # SB3 loads only its own entries of the zip and ignores this one
CARD_KEYS = ("name", "players", "made", "commands", "commit", "date", "steps", "wall_clock",
             "evaluation")


def read_card(model: str | Path) -> dict[str, Any]:
    """The card of `model` (a shipped model's name or a .zip); ValueError if it has none."""
    from agents.sb3_policy import model_path

    path = model_path(model)
    with zipfile.ZipFile(path) as archive:
        if CARD_FILE not in archive.namelist():
            raise ValueError(f"{path} carries no model card ({CARD_FILE})")
        return json.loads(archive.read(CARD_FILE))


def check_card(card: Any) -> None:
    """ValueError unless `card` is a dict with every key of a card."""
    missing = [k for k in CARD_KEYS if k not in card] if isinstance(card, dict) else CARD_KEYS
    if missing:
        raise ValueError(f"a model card needs {', '.join(missing)}")


def write_card(path: str | Path, card: dict[str, Any]) -> None:
    """Put `card` into the model file `path` (replacing its card, if any)."""
    check_card(card)
    rewrite_zip(path, {CARD_FILE: json.dumps(card, indent=1) + "\n"})


def rewrite_zip(path: str | Path, add: dict[str, str] | None = None,
                compression: int | None = None) -> None:
    """Rewrite the zip at `path`: its entries but those `add` names, compressed with
    `compression` (None: each as it was stored), then `add`'s entries, deflated."""
    add = add or {}
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()
                   if info.filename not in add]
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in entries:
            archive.writestr(info, data, compress_type=compression)
        for name, text in add.items():
            archive.writestr(name, text, compress_type=zipfile.ZIP_DEFLATED)


def card_commands(card: dict[str, Any], out: Path) -> list[list[str]]:
    """The card's commands as argument lists of `carcassonne`, ``{out}`` filled in."""
    return [[arg.replace("{out}", str(out)) for arg in shlex.split(line)][1:]
            for line in card["commands"]]


def describe(card: dict[str, Any]) -> str:
    """The card as text."""
    ev = card["evaluation"]
    lines = [f"{card['name']} ({card['players']}): {card['made']}",
             f"shipped with commit {card['commit']} ({card['date']}); {card['steps']:,} steps, "
             f"{card['wall_clock']}", "made by:"]
    lines += [f"  {line}" for line in card["commands"]]
    lines += [f"evaluation ({ev['command']}):"]
    lines += [f"  {k}: {v}" for k, v in ev["results"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`carcassonne train card NAME`: print a model's card (``--json``: as JSON)."""
    parser = OneLineParser(prog="carcassonne train card", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a shipped model's name or a model .zip")
    parser.add_argument("--json", action="store_true", help="print the card as JSON")
    args = parser.parse_args(argv)
    card = read_card(args.model)
    print(json.dumps(card, indent=1) if args.json else describe(card))
    return 0


def reproduce_main(argv: list[str] | None = None) -> int:
    """`carcassonne train reproduce NAME --out DIR`: run the card's commands."""
    from carcassonne_env.cli import main as carcassonne

    parser = OneLineParser(prog="carcassonne train reproduce", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a shipped model's name or a model .zip")
    parser.add_argument("--out", type=Path, required=True, help="folder of the new run")
    parser.add_argument("--from-step", type=int, default=1,
                        help="start at the card's command K (1: the first), e.g. after an "
                             "interrupted run")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = parser.parse_args(argv)
    commands = card_commands(read_card(args.model), args.out)
    if not 1 <= args.from_step <= len(commands):
        parser.error(f"--from-step must be 1 to {len(commands)}, got {args.from_step}")
    for k, command in enumerate(commands[args.from_step - 1:], args.from_step):
        print(f"[{k}/{len(commands)}] carcassonne {shlex.join(command)}", flush=True)
        if not args.dry_run and (status := carcassonne(command)) != 0:
            return status
    return 0
