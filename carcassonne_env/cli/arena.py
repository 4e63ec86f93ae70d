"""`carcassonne arena`: a tournament between bots (round-robin or gauntlet, paired decks,
rotated seats); prints the leaderboard and writes its files; `--resume` finishes a stopped
run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import held_signals, write_text
from ..checks import output_folder
from ..cli_errors import Interrupted, interrupted
from .args import (
    add_no_progress,
    add_resume,
    add_rule_options,
    add_seed,
    add_workers,
    command,
    int_at_least,
    rules_of,
)

if TYPE_CHECKING:
    from agents.arena import ArenaResult, ArenaSettings, GameRow


def arena_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne arena`."""
    add_rule_options(p, solo=False)  # the solo variant is not a tournament
    p.add_argument(
        "--bots",
        default="random,greedy",
        help="comma-separated bot specs (random, greedy, heuristic, mcts, with "
        "options as in mcts:iterations=500); a spec given twice fills two seats "
        "(the second named SPEC#2); default random,greedy",
    )
    p.add_argument(
        "--games",
        type=int_at_least(1),
        default=100,
        help="games per table, a multiple of --players (default 100)",
    )
    add_seed(p, "decks and bot seeds derive from it")
    p.add_argument(
        "--gauntlet",
        metavar="BOT",
        help="only tables of BOT against the others (default: round-robin)",
    )
    add_workers(p, "parallel jobs: processes, or Ray tasks in flight")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write summary.json, games.csv, leaderboard.csv and leaderboard.md into this "
        "folder (made if missing, in a folder that exists; a complete run there is replaced)",
    )
    add_resume(p, "--out DIR", "games")
    p.add_argument(
        "--records",
        metavar="DIR",
        help="write every game record (JSON) into this folder (made if missing, in a "
        "folder that exists)",
    )
    p.add_argument(
        "--annotate",
        action="store_true",
        help="with --records: keep what each bot thought about its moves",
    )
    add_no_progress(p)
    p.add_argument(
        "--backend",
        choices=("process", "ray"),
        default="process",
        help="run the game batches in local processes or on Ray "
        "(pip install 'carcassonne-env[ray]')",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="Ray cluster to join (e.g. auto); default: start a local one",
    )


@command("arena", arena_options)
def cmd_arena(args: argparse.Namespace) -> int:
    """a tournament between bots; prints the leaderboard

    Round-robin (or gauntlet) tournament with paired decks and rotated seats; prints
    markdown tables (win rates with Wilson intervals, score margins, OpenSkill ratings,
    time per move). Same seed, same results for any --workers; a run stopped by Ctrl-C or
    SIGTERM keeps its games in --out, and --resume plays the rest; see docs/arena.md."""
    from agents.arena import arena_settings, run_arena

    from ..bots.factory import split_specs

    if args.annotate and not args.records:
        raise ValueError("--annotate writes into the game records: give --records DIR")
    settings = arena_settings(
        split_specs(args.bots),
        games=args.games,
        seed=args.seed,
        gauntlet=args.gauntlet,
        rules=rules_of(args),
    )
    output_folder(args.out, "--out")
    output_folder(args.records, "--records")
    out = Path(args.out) if args.out else None
    if args.resume:
        played, replaced = _saved_games(out, settings), False
    else:
        played, replaced = [], out is not None and _replaces_a_run(out)
    if out is not None:
        out.mkdir(exist_ok=True)  # (its parent exists: output_folder)
    stop = None
    try:
        result = run_arena(
            list(settings.bots),
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            gauntlet=args.gauntlet,
            rules=settings.rules,
            records_dir=args.records,
            progress=not args.no_progress,
            backend=args.backend,
            ray_address=args.ray_address,
            annotate=args.annotate,
            played=played,
        )
    except Interrupted as err:  # Ctrl-C or SIGTERM: the games played so far are reported
        if err.partial is None:
            raise
        result, stop = err.partial, err
    try:
        with held_signals():  # a second Ctrl-C or SIGTERM waits: the files go together
            _report(result, out, replaced)
    except KeyboardInterrupt:
        if stop is None:
            raise
    if stop is not None:
        return interrupted(
            f"{stop.kept}; their results are above"
            + (f" and in {out}; add --resume to play the rest" if out is not None else "")
        )
    return 0


def _report(result: ArenaResult, out: Path | None, replaced: bool) -> None:
    """Print the tables of `result` and write its files to `out` (if given); summary.json
    last, so that it never describes games that games.csv lacks."""
    markdown = result.to_markdown()
    print(markdown, end="")
    if out is None:
        return
    result.to_csv(out / "games.csv")
    result.leaderboard_csv(out / "leaderboard.csv")
    write_text(out / "leaderboard.md", markdown)
    result.to_json(out / "summary.json")
    print(
        f"wrote summary.json, games.csv, leaderboard.csv, leaderboard.md to {out}"
        + (" (replacing the complete run there)" if replaced else ""),
        file=sys.stderr,
    )


def _saved_games(out: Path | None, settings: ArenaSettings) -> list[GameRow]:
    """The games played by the stopped run in `out` that `--resume` finishes; ValueError
    if there is none to finish, or it has other settings than `settings`."""
    from agents.arena import read_games_csv, read_saved_run

    if out is None:
        raise ValueError("--resume finishes the run saved in --out DIR: give --out")
    saved = read_saved_run(out)
    if saved is None:
        raise ValueError(f"nothing to resume: no summary.json in {out}")
    if saved.complete:
        raise ValueError(
            f"nothing to resume: {out} holds a complete run ({saved.games_played} games)"
        )
    differences = saved.settings.differences(settings)
    if differences:
        raise ValueError(
            f"{out} holds a run with other settings ({'; '.join(differences)})"
            "; --resume needs the options of that run"
        )
    games = read_games_csv(out / "games.csv", settings.players)
    if len(games) != saved.games_played:
        raise ValueError(
            f"{out / 'games.csv'} has {len(games)} games but summary.json says "
            f"{saved.games_played} were played"
        )
    return games


def _replaces_a_run(out: Path) -> bool:
    """Whether `out` holds a complete run that a new run there replaces (as it replaces
    any other files of the same names). A stopped run is kept: ValueError."""
    from agents.arena import read_saved_run

    try:
        saved = read_saved_run(out)
    except (ValueError, OSError):  # not an arena run's summary: replaced as any file
        return False
    if saved is not None and not saved.complete:
        raise ValueError(
            f"{out} holds a stopped run ({saved.games_played} of "
            f"{saved.settings.total} games played): add --resume to play the "
            "rest, or give another --out"
        )
    return saved is not None
