"""`carcassonne benchmark BOT --out DIR`: the standard protocol in one command (the
tables, budgets and seeds live in `agents.benchmark`); prints one table and writes
summary.json and summary.md."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import held_signals
from ..checks import output_folder
from ..cli_errors import Interrupted, interrupted
from .args import add_no_progress, add_overwrite, add_seed, add_workers, command, int_at_least

if TYPE_CHECKING:
    from agents.benchmark import BenchmarkResult, Budget


def benchmark_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne benchmark`."""
    p.add_argument(
        "bot",
        metavar="BOT",
        help="the bot to benchmark: any bot spec (heuristic, mcts:iterations=500, "
        "sb3:model=FILE.zip, or your own module:function, e.g. mybot:make for "
        "def make(seed=None) in mybot.py of the current folder)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        required=True,
        help="write summary.json and summary.md into this folder (made if missing, in a "
        "folder that exists; one that holds a summary is refused without --overwrite)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="the quick budget: 20 decks per lineup (40 games at 2 players, 60 at 3, 80 "
        "at 4), 100 solo deals, the reference mcts at 200 iterations: under 7 minutes "
        "for the heuristic on 2 cores with one worker. Default, the full run: 100 decks "
        "per lineup (200, 300, 400 games), 1000 deals, mcts at 200 iterations: about "
        "five times as long",
    )
    budget = p.add_argument_group(
        "budget", "each replaces the budget's value: the run is then not the standard one"
    )
    budget.add_argument(
        "--decks", type=int_at_least(1), help="decks per lineup at each multi-player table"
    )
    budget.add_argument("--deals", type=int_at_least(1), help="solo deals per bot")
    budget.add_argument(
        "--mcts-iterations",
        type=int_at_least(1),
        metavar="N",
        help="iterations per move of the reference mcts",
    )
    add_seed(p, "decks, deals and bot seeds derive from it (default 0: the standard run)")
    add_workers(p, "worker processes")
    add_overwrite(p)
    add_no_progress(p)


@command("benchmark", benchmark_options)
def cmd_benchmark(args: argparse.Namespace) -> int:
    """BOT at the reference tables, the standard protocol; prints one table

    BOT plays 2 players, 3 players, 4 players, 2 players with both expansions (against
    the heuristic, mcts and the table's shipped model, seats rotated, fixed decks) and
    solo (fixed deals, beside the heuristic and the shipped solo model). Prints one
    table (win share with its Wilson interval beside the fair share, or the mean solo
    score beside the references'; ms per move; rating) and writes summary.json and
    summary.md into --out. Same seed, same results for any --workers; Ctrl-C or SIGTERM
    keeps the tables played; see docs/benchmark.md."""
    from agents.benchmark import STOPPED, run_benchmark

    out = Path(args.out)
    output_folder(out, "--out")
    _check_no_summary(out, args.overwrite)
    stop = None
    try:
        result = run_benchmark(
            args.bot,
            budget=_budget(args),
            seed=args.seed,
            workers=args.workers,
            progress=not args.no_progress,
        )
    except Interrupted as err:  # Ctrl-C or SIGTERM: the tables played so far are reported
        if err.partial is None:
            raise
        result, stop = err.partial, err
    try:
        with held_signals():  # a second Ctrl-C or SIGTERM waits: the files go together
            _report(result, out)
    except KeyboardInterrupt:
        if stop is None:
            raise
    if stop is not None:
        return interrupted(f"{stop.kept}; their results are above and in {out}")
    stopped = [t.table.name for t in result.tables if (t.refused or "").startswith(STOPPED)]
    if stopped:  # the bot failed there; the other tables' results are kept
        print(
            f"carcassonne benchmark: error: {args.bot} was {STOPPED} at "
            f"{', '.join(stopped)} (see the table); the other tables' results are above "
            f"and in {out}",
            file=sys.stderr,
        )
        return 1
    return 0


def _budget(args: argparse.Namespace) -> Budget:
    """The budget --quick names (else the full one), with --decks, --deals and
    --mcts-iterations in place of its values."""
    from agents.benchmark import FULL, QUICK

    given = {
        "decks": args.decks,
        "deals": args.deals,
        "mcts_iterations": args.mcts_iterations,
    }
    return dataclasses.replace(
        QUICK if args.quick else FULL, **{k: v for k, v in given.items() if v is not None}
    )


def _check_no_summary(out: Path, overwrite: bool) -> None:
    """ValueError if `out` holds a summary already, unless `overwrite`."""
    from agents.benchmark import SUMMARY_FILES

    held = [name for name in SUMMARY_FILES if (out / name).exists()]
    if held and not overwrite:
        raise ValueError(
            f"{out} holds a benchmark summary already ({held[0]}); pass --overwrite to "
            "replace it, or give another --out"
        )


def _report(result: BenchmarkResult, out: Path) -> None:
    """Print the summary table and write the summary files into `out`."""
    print(result.to_markdown(), end="")
    out.mkdir(exist_ok=True)  # (its parent exists: output_folder)
    result.write(out)
    print(f"wrote summary.json and summary.md to {out}", file=sys.stderr)
