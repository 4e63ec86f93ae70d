"""`carcassonne play`: bots play one seeded game and the board is printed; with `--human`
a person plays against bots, in the browser or the terminal."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from ..atomic import write_text
from ..checks import output_file
from .args import (
    add_no_progress,
    add_overwrite,
    add_rule_options,
    add_seed,
    command,
    int_at_least,
    non_negative_seconds,
    rules_of,
)

# Options of a person's game only, refused without --human.
HUMAN_ONLY = ("against", "tui", "no_browser", "seat", "bot_delay")
# Seconds a bots' game plays before its progress bar shows (a quick game shows none).
PROGRESS_DELAY_S = 1.0
# The record of a person's game without --record; never written over (`new_record_path`).
DEFAULT_RECORD = "human_game.json"


def play_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne play`: the rule options, the bots, the record and its
    annotations, and the "human play" group."""
    add_rule_options(p)
    p.add_argument(
        "--bots",
        default=None,
        help="comma-separated bot spec per seat, or one for every seat (random, "
        "greedy, heuristic, mcts, sb3:model=ppo_duel or sb3:model=FILE.zip; "
        "options as in mcts:iterations=400); default random,greedy; with --solo "
        "one bot, default random",
    )
    add_seed(p)
    p.add_argument("--verbose", "-v", action="store_true", help="print every move")
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write the game record (JSON) here "
        "(with --human default human_game.json, or human_game-2.json... when "
        "that file exists)",
    )
    add_overwrite(p)
    # annotated records
    p.add_argument(
        "--annotate",
        action="store_true",
        help="store what each bot thought about its moves in the record (PPO: "
        "top actions and value; MCTS: visits; heuristic: its estimates)",
    )
    p.add_argument(
        "--coach",
        metavar="BOT",
        help="also store the points each move lost versus BOT's move (implies --annotate)",
    )
    p.add_argument(
        "--top-k", type=int_at_least(1), default=5, help="moves per annotation (default 5)"
    )
    add_no_progress(p)
    _add_human_options(p)


def _add_human_options(p: argparse.ArgumentParser) -> None:
    """The "human play" group of `play` (a person plays)."""
    g = p.add_argument_group("human play")
    g.add_argument(
        "--human",
        action="store_true",
        help="you play against bots in the browser (a local server on "
        "127.0.0.1); with --solo you play the solo variant",
    )
    g.add_argument(
        "--against",
        metavar="BOTS",
        default=None,
        help="with --human: bot spec for every other seat, or one per seat "
        "(default heuristic; sb3:model=ppo_duel works too)",
    )
    g.add_argument(
        "--seat", type=int_at_least(0), default=None, help="with --human: your seat (default 0)"
    )
    g.add_argument(
        "--port",
        type=int_at_least(0),
        default=0,
        help="with --human: the server's port (default: a free one)",
    )
    g.add_argument(
        "--no-browser", action="store_true", help="with --human: print the address, open no browser"
    )
    g.add_argument(
        "--tui",
        action="store_true",
        help="with --human: play in the terminal instead of the browser",
    )
    g.add_argument(
        "--bot-delay",
        type=non_negative_seconds,
        metavar="SECONDS",
        default=None,
        help="with --tui: the pause after each bot reply, shown one by one "
        "(default 0.8, as the page; 0: all at once)",
    )
    g.add_argument(
        "--scoring-order",
        choices=("auto", "player"),
        default=None,
        help="with --human --solo: 'player' lets you choose the order in which "
        "features completed together and the end bonus score (default auto)",
    )


def cmd_play_human(args: argparse.Namespace) -> int:
    """`play --human`: a person against bots, in the browser or the terminal."""
    from ..bots.factory import make_bot, split_specs
    from ..viewer.play import BOT_DELAY, HumanSession, check_port, play_tui, serve

    rules = rules_of(args)
    if args.scoring_order:  # Rules refuses "player" outside the solo variant
        rules = dataclasses.replace(rules, scoring_order=args.scoring_order)
    if args.bots:
        raise ValueError("--human takes its opponents from --against, not --bots")
    if args.annotate or args.coach:
        raise ValueError("--annotate and --coach annotate bots' games, not --human")
    solo = rules.variant == "solo"
    names = [] if solo else split_specs(args.against or "heuristic")
    if not solo and len(names) == 1:
        names = names * (rules.players - 1)
    if not solo and len(names) != rules.players - 1:
        raise ValueError(
            f"--against needs {rules.players - 1} bot specs (one per other "
            f"seat; or one for all), got {len(names)}: {','.join(names)}"
        )
    if solo and args.against:
        raise ValueError("--against: the solo variant has no opponents")
    seat = args.seat or 0
    if not 0 <= seat < rules.players:
        raise ValueError(f"--seat must be in [0, {rules.players - 1}], got {seat}")
    if args.bot_delay is not None and not args.tui:
        raise ValueError("--bot-delay needs --tui (the page has its own speed menu)")
    record = args.record
    if record is None:
        record = new_record_path(DEFAULT_RECORD)
        if record != DEFAULT_RECORD:
            print(
                f"{DEFAULT_RECORD} exists (kept): this game's record goes to {record}", flush=True
            )
    output_file(record, args.overwrite)
    if not args.tui:
        check_port(args.port)  # before the bots play their first moves
    bots = [make_bot(n, seed=args.seed + k) for k, n in enumerate(names)]
    session = HumanSession(rules, bots, human_seat=seat, seed=args.seed, record=record, names=names)
    if args.tui:
        play_tui(session, delay=BOT_DELAY if args.bot_delay is None else args.bot_delay)
    else:
        serve(session, port=args.port, open_browser=not args.no_browser)
    return 0


def new_record_path(default: str) -> str:
    """`default` if no file has that name yet, else the first free numbered name beside
    it (human_game-2.json, human_game-3.json, ...): a default record is never written
    over."""
    path = Path(default)
    number = 1
    while path.exists():
        number += 1
        path = path.with_name(f"{Path(default).stem}-{number}{path.suffix}")
    return str(path)


def _bot_names(args: argparse.Namespace, solo: bool, players: int) -> list[str]:
    """The bot spec of each seat (solo: the one bot) from --bots; a wrong count is refused."""
    from ..bots.factory import split_specs

    # default: random, greedy, random... one per seat (solo: one random bot)
    names = (
        split_specs(args.bots)
        if args.bots
        else (["random"] if solo else (["random", "greedy"] * players)[:players])
    )
    if solo and len(names) != 1:
        raise ValueError(
            f"--solo is played by one bot (all colours), got {len(names)} specs: {','.join(names)}"
        )
    if args.scoring_order:
        raise ValueError("--scoring-order needs --human --solo (bots score in the engine's order)")
    if not solo and len(names) == 1:
        names = names * players
    if not solo and len(names) != players:
        raise ValueError(
            f"--bots needs {players} specs (one per seat; or one for "
            f"every seat), got {len(names)}: {','.join(names)}"
        )
    return names


@command("play", play_options)
def cmd_play(args: argparse.Namespace) -> int:
    """built-in bots play one seeded game; prints the board"""
    # Also prints the scores, and writes the record (with the bots' annotations if asked).
    from tqdm import tqdm

    from ..bots.factory import make_bot
    from ..game import Game

    if args.human:
        return cmd_play_human(args)
    for flag in HUMAN_ONLY:
        if getattr(args, flag) not in (None, False):
            raise ValueError(f"--{flag.replace('_', '-')} needs --human")
    rules = rules_of(args)
    solo = rules.variant == "solo"
    names = _bot_names(args, solo, rules.players)
    annotate = args.annotate or args.coach is not None
    if annotate and not args.record:
        raise ValueError("--annotate and --coach write into the record: give --record FILE")
    output_file(args.record, args.overwrite)
    bots = [make_bot(n, seed=args.seed + k) for k, n in enumerate(names)]
    coach = None
    notes: list[dict[str, Any] | None] | None = None  # a note per move when annotating
    if annotate:  # per-move agent insight in the record
        from agents.annotations import Coach
        from agents.annotations import annotate as note_for

        coach = Coach(args.coach, seed=args.seed) if args.coach else None
        notes = []
    game = Game(rules, seed=args.seed)
    # (on stderr, so that stdout holds the board and scores alone; at most one move per
    # tile, fewer when tiles are discarded)
    bar = tqdm(
        total=game.tiles_left + 1,
        desc="play",
        unit="move",
        file=sys.stderr,
        delay=PROGRESS_DELAY_S,
        disable=args.no_progress or args.verbose,
        leave=False,
    )
    with bar:
        while (seat := game.current_player) is not None:  # None once the game is over
            bot = bots[0] if solo else bots[seat]
            move = bot.act(game)
            if notes is not None:
                notes.append(note_for(bot, game, move, args.top_k, coach))
            if args.verbose:
                print(f"turn {game.turn:2d} seat {seat} {game.hand} -> {tuple(move)}")
            game.play(move)
            bar.update()
    print(game)
    print()
    if solo:
        print(
            f"solo result (lowest colour): {game.result}; end {game.end_reason}; "
            f"colour scores {game.scores}"
        )
    else:
        for seat, (name, score) in enumerate(zip(names, game.scores, strict=True)):
            print(f"seat {seat} ({name}): {score}")
    if args.record:
        record = game.to_record()
        if notes is not None:
            from ..records import annotations_block

            record["annotations"] = annotations_block(notes)
        write_text(args.record, json.dumps(record))
        print(f"record written to {args.record}")
    return 0
