"""`carcassonne arena`: a tournament between bots (round-robin or gauntlet, paired decks,
rotated seats); prints the leaderboard and writes its files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..cli_errors import Interrupted, interrupted
from .args import (
    add_no_progress,
    add_rule_options,
    add_seed,
    add_workers,
    command,
    int_at_least,
    rules_of,
)


def arena_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne arena`."""
    add_rule_options(p, solo=False)  # the solo variant is not a tournament
    p.add_argument("--bots", default="random,greedy",
                   help="comma-separated bot specs (random, greedy, heuristic, mcts, with "
                   "options as in mcts:iterations=500); default random,greedy")
    p.add_argument("--games", type=int_at_least(1), default=100,
                   help="games per table, a multiple of --players (default 100)")
    add_seed(p, "decks and bot seeds derive from it")
    p.add_argument("--gauntlet", metavar="BOT",
                   help="only tables of BOT against the others (default: round-robin)")
    add_workers(p, "parallel jobs: processes, or Ray tasks in flight")
    p.add_argument("--out", metavar="DIR",
                   help="write summary.json, games.csv, leaderboard.csv and leaderboard.md")
    p.add_argument("--records", metavar="DIR", help="write every game record (JSON) here")
    p.add_argument("--annotate", action="store_true",
                   help="with --records: keep what each bot thought about its moves")
    add_no_progress(p)
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="run the game batches in local processes or on Ray "
                   "(pip install 'carcassonne-env[ray]')")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="Ray cluster to join (e.g. auto); default: start a local one")


@command("arena", arena_options)
def cmd_arena(args: argparse.Namespace) -> int:
    """a tournament between bots; prints the leaderboard

    Round-robin (or gauntlet) tournament with paired decks and rotated seats; prints
    markdown tables (win rates with Wilson intervals, score margins, OpenSkill ratings,
    time per move). Same seed, same results for any --workers; see docs/arena.md."""
    from agents import split_specs
    from agents.arena import run_arena

    bots = split_specs(args.bots)
    if args.annotate and not args.records:
        raise ValueError("--annotate writes into the game records: give --records DIR")
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    stop = None
    try:
        result = run_arena(bots, games=args.games, seed=args.seed, workers=args.workers,
                           gauntlet=args.gauntlet, rules=rules_of(args),
                           records_dir=args.records, progress=not args.no_progress,
                           backend=args.backend, ray_address=args.ray_address,
                           annotate=args.annotate)
    except Interrupted as err:  # Ctrl-C: the games played so far are reported
        if err.partial is None:
            raise
        result, stop = err.partial, err
    markdown = result.to_markdown()
    print(markdown, end="")
    if out is not None:
        result.to_json(out / "summary.json")
        result.to_csv(out / "games.csv")
        result.leaderboard_csv(out / "leaderboard.csv")
        (out / "leaderboard.md").write_text(markdown, encoding="utf-8")
        print(f"wrote summary.json, games.csv, leaderboard.csv, leaderboard.md to {out}",
              file=sys.stderr)
    if stop is not None:
        return interrupted(f"{stop.kept}; their results are above"
                           + (f" and in {out}" if out is not None else ""))
    return 0
