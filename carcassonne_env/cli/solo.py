"""The solo commands: `carcassonne solo-bench` (a bot's results on fixed solo deals),
`solo-compare` (two bots' saved runs paired by deal) and the solo strategy lab:
`solo-solve` (a clairvoyant line for a deal) and `solo-analyze` (a solo game judged move
by move)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import held_signals
from ..checks import install_hint, output_file
from ..cli_errors import Interrupted, interrupted
from .args import (
    add_expansion_options,
    add_json,
    add_no_progress,
    add_output,
    add_overwrite,
    add_record,
    add_resume,
    add_seed,
    add_solo_deal_options,
    add_workers,
    command,
    int_at_least,
    solo_rules,
)
from .files import read_record, write_json

if TYPE_CHECKING:
    from agents.solo_bench import SoloBenchResult
    from carcassonne_env import Rules


def solo_bench_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne solo-bench`."""
    p.add_argument(
        "--bot",
        default="random",
        help="bot spec, or several comma-separated for one stacked table "
        "(random, greedy, heuristic, mcts, solo-search, sb3:model=ppo_solo or "
        "sb3:model=FILE.zip, with options as in mcts:iterations=500); default "
        "random",
    )
    p.add_argument(
        "--deals", type=int_at_least(1), default=1000, help="deals to play (default 1000)"
    )
    p.add_argument(
        "--first-deal",
        type=int_at_least(0),
        default=0,
        metavar="FIRST",
        help="seed of the first deal (default 0: deal seeds 0..DEALS-1)",
    )
    add_seed(p, "bot seed, hashed with each deal seed")
    add_workers(p, "processes")
    add_solo_deal_options(
        p, "followers per colour (default 4; the solo rules' options: 3 harder, 5 easier)"
    )
    add_expansion_options(p)
    p.add_argument("--hist", metavar="FILE.png", help="write a histogram of the result")
    add_json(p, "write the summary and per-deal rows")
    p.add_argument("--csv", metavar="FILE", help="write the per-deal rows")
    add_resume(p, "--json FILE", "deals")
    add_overwrite(p)  # --hist and --csv (the --json file's run, and --resume's: theirs)
    add_no_progress(p)


def solo_compare_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne solo-compare`."""
    p.add_argument(
        "base",
        nargs="+",
        metavar="BASE.json",
        help="solo-bench --json files of the base bot (one per run)",
    )
    p.add_argument(
        "--against",
        nargs="+",
        required=True,
        metavar="OTHER.json",
        help="solo-bench --json files of the bot compared with it (one per run)",
    )
    add_json(p, "write the comparison as JSON")
    add_overwrite(p)


def solo_solve_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne solo-solve` (solo strategy lab)."""
    p.add_argument("--deal", type=int_at_least(0), required=True, help="deal seed")
    p.add_argument(
        "--seconds",
        type=float,
        default=60.0,
        help="time budget (default 60; the first pass always completes)",
    )
    add_solo_deal_options(p, "followers per colour (default 4)")
    add_output(p, None, "game record to write (default solo_solve_N.json)", metavar="FILE")
    add_json(p, "also write the search summary")
    add_overwrite(p)


def solo_analyze_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne solo-analyze` (solo strategy lab)."""
    add_record(p, "solo game record (JSON)")
    p.add_argument(
        "--bot", default="solo-search", help="the judging bot's spec (default solo-search)"
    )
    add_seed(p)
    add_json(p, "write the analysis as JSON")
    add_overwrite(p)
    add_no_progress(p)


@command("solo-bench", solo_bench_options)
def cmd_solo_bench(args: argparse.Namespace) -> int:
    """a bot plays fixed solo deals; prints the statistics

    A bot plays the solo variant on deal seeds FIRST .. FIRST+DEALS-1 and prints a
    markdown table of the result (lowest colour's score). A run stopped by Ctrl-C or
    SIGTERM keeps its deals in the files, and --resume plays the rest; see
    docs/solo_bench.md."""
    # Several bots: one stacked table, and one file of each kind per bot.
    from agents.catalog import warm_up
    from agents.solo_bench import histogram_format, markdown_table, run_solo_bench

    from ..bots.factory import split_specs

    rules = solo_rules(args)
    bots = split_specs(args.bot)
    if not bots:
        raise ValueError("--bot needs at least one bot spec")
    if args.resume and not args.json:
        raise ValueError("--resume finishes the run saved in --json FILE: give --json")
    if args.hist:
        histogram_format(args.hist)
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError(f"--hist needs matplotlib: {install_hint('plot')}") from None
    output_file(args.json, overwrite=True)  # its run: _saved_runs (finished or --resume)
    for path in (args.hist, args.csv):  # a resumed run's own files are written again
        for bot in bots if path else ():
            output_file(_bot_file(path, bot, bots), args.overwrite or args.resume)
    for bot in bots:  # a bad spec (or a model of other rules) fails before the progress bar
        warm_up(bot, rules)
    files = {bot: _bot_file(args.json, bot, bots) for bot in bots} if args.json else {}
    saved = _saved_runs(args, rules, files)
    results, stop = [], None
    try:
        for bot in bots:
            run = saved.get(bot)
            if run is not None and run.complete:  # resumed: this bot had finished
                results.append(run)
                continue
            results.append(
                run_solo_bench(
                    bot,
                    deals=args.deals,
                    first_deal=args.first_deal,
                    seed=args.seed,
                    workers=args.workers,
                    rules=rules,
                    progress=not args.no_progress,
                    played=run.rows if run is not None else (),
                )
            )
    except Interrupted as err:  # Ctrl-C or SIGTERM: the deals played so far are reported
        results += [err.partial] if err.partial is not None else []
        if not results:
            raise
        stop = err
    try:
        with held_signals():  # a second Ctrl-C or SIGTERM waits: the files go together
            print(markdown_table(results))
            _write_files(args, results, bots, set(saved) if not args.resume else set())
    except KeyboardInterrupt:
        if stop is None:
            raise
    if stop is not None:
        return interrupted(
            f"{stop.kept}; the results of the deals played are above"
            + (" and in the files written" if args.hist or args.json or args.csv else "")
            + ("; add --resume to play the rest" if args.json else "")
        )
    return 0


def _bot_file(path: str, bot: str, bots: list[str]) -> Path:
    """The file of kind `path` (--hist, --json, --csv) of `bot`: with several bots, one
    file per bot (`file_for_bot`)."""
    from agents.solo_bench import file_for_bot

    return Path(path) if len(bots) == 1 else file_for_bot(path, bot)


def _write_files(
    args: argparse.Namespace, results: list[SoloBenchResult], bots: list[str], replaced: set[str]
) -> None:
    """Write the --hist, --json and --csv files of each result, and say so (and that the
    --json file of a bot in `replaced` held a complete run, now replaced)."""
    for res in results:
        for path, write in (
            (args.hist, res.histogram_png),
            (args.json, res.to_json),
            (args.csv, res.to_csv),
        ):
            if path:
                file = _bot_file(path, res.bot, bots)
                write(file)
                note = (
                    " (replacing the complete run there)"
                    if path == args.json and res.bot in replaced
                    else ""
                )
                print(f"{res.bot}: wrote {file}{note}", file=sys.stderr)


def _saved_runs(
    args: argparse.Namespace, rules: Rules, files: dict[str, Path]
) -> dict[str, SoloBenchResult]:
    """The runs saved in the --json `files` (bot -> file) that this run resumes, or with
    no --resume replaces: bot -> run, for the files that hold one. ValueError if --resume
    has nothing to finish or a saved run's settings differ; without --resume, if a file
    holds a stopped run (kept for --resume)."""
    from agents.parallel import setting_differences
    from agents.solo_bench import SoloBenchResult

    runs = {}
    for bot, path in files.items():
        if not path.exists():
            continue
        try:
            runs[bot] = SoloBenchResult.from_json(path)
        except (ValueError, OSError):
            if args.resume:
                raise
            continue  # not a solo-bench result: replaced as any file
        if not args.resume and not runs[bot].complete:
            raise ValueError(
                f"{path} holds a stopped run ({runs[bot].deals} of "
                f"{runs[bot].deals_planned} deals played): add --resume to play "
                "the rest, or give another --json"
            )
    if not args.resume:
        return runs
    if not runs:
        raise ValueError(f"nothing to resume: {' or '.join(map(str, files.values()))} not found")
    if all(run.complete for run in runs.values()):
        raise ValueError(
            f"nothing to resume: {', '.join(str(files[b]) for b in runs)} "
            f"{'holds a complete run' if len(runs) == 1 else 'hold complete runs'}"
        )
    for bot, run in runs.items():
        differences = setting_differences(
            dict(
                bot=run.bot,
                rules=run.rules,
                seed=run.seed,
                first_deal=run.first_deal,
                deals=run.deals_planned,
            ),
            dict(
                bot=bot, rules=rules, seed=args.seed, first_deal=args.first_deal, deals=args.deals
            ),
        )
        if differences:
            raise ValueError(
                f"{files[bot]} holds a run with other settings "
                f"({'; '.join(differences)}); --resume needs "
                "the options of that run"
            )
    return runs


@command("solo-compare", solo_compare_options)
def cmd_solo_compare(args: argparse.Namespace) -> int:
    """two solo bots' saved solo-bench runs, paired by deal

    Compare two bots from solo-bench --json files on the same deals: several runs of a
    bot (each with its own --seed) count as the mean of each deal's results, and the
    difference of the two bots' deal means is given with its 95% interval. A deal's
    result varies with the bot's seed by more than with the deal, so a few runs of each
    narrow the interval; see docs/solo_bench.md."""
    from agents.solo_bench import SoloBenchResult
    from agents.solo_compare import compare_runs

    output_file(args.json, args.overwrite)
    comparison = compare_runs(
        [SoloBenchResult.from_json(f) for f in args.base],
        [SoloBenchResult.from_json(f) for f in args.against],
    )
    print(comparison.to_markdown())
    if args.json:
        write_json(args.json, comparison.to_dict())
    return 0


@command("solo-solve", solo_solve_options)
def cmd_solo_solve(args: argparse.Namespace) -> int:
    """the best line found for a solo deal with every stack known

    Search solo deal N with perfect information (the true order of every stack) for
    about S seconds and write the best line as a game record that replays to its score.
    A heuristic search: the score is a lower bound, not a proof of optimality. See
    docs/solo_lab.md."""
    from agents.solo_solve import solve_deal

    out = Path(args.output or f"solo_solve_{args.deal}.json")
    output_file(out, args.overwrite)
    output_file(args.json, args.overwrite)
    rules = solo_rules(args)
    stop = None
    try:
        sol = solve_deal(args.deal, seconds=args.seconds, rules=rules)
    except Interrupted as err:  # Ctrl-C after the first pass: its best line is kept
        sol, stop = err.partial, err
    write_json(out, sol.record)
    if args.json:
        write_json(args.json, sol.to_dict())
    passes = ", ".join(f"top_k={p['top_k'] or 'all'}: {p['result']}" for p in sol.passes)
    print(
        f"deal {sol.deal}: best line found {sol.result} (heuristic rollout "
        f"{sol.baseline}; passes {passes}; {sol.seconds:.1f} s). Not a proof of "
        f"optimality: a lower bound on what the deal allowed."
    )
    print(f"wrote {out} (replays with Game.from_record)", file=sys.stderr)
    if stop is not None:
        return interrupted(f"{stop.kept}; the best line found so far is in {out}")
    return 0


@command("solo-analyze", solo_analyze_options)
def cmd_solo_analyze(args: argparse.Namespace) -> int:
    """per-move analysis of a solo game record by the search bot

    For every move of a solo game record: the search bot's value of the move played and
    of its best move, and the points given away; a table and a summary line. See
    docs/solo_lab.md."""
    from agents.solo_analyze import analyze_record

    record = read_record(args.record)
    output_file(args.json, args.overwrite)
    analysis = analyze_record(record, bot=args.bot, seed=args.seed, progress=not args.no_progress)
    print(analysis.to_markdown())
    if args.json:
        write_json(args.json, analysis.to_dict())
    return 0
