"""`carcassonne bench` (the speed of the rules core, the API and the envs), `warmup`
(compile the numba code ahead of time) and `clear-cache` (delete it)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..compiler.notices import warmup_cost
from .args import command, int_at_least


def bench_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne bench`; a budget left out takes its default, or with
    --quick the quick one (`speed.DEFAULTS`, `speed.QUICK`)."""
    from ..speed import DEFAULTS, QUICK

    # the table of parts keeps its lines (the other commands' help is folded prose)
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.description = _bench_description()

    def budget(option: str, key: str, what: str) -> None:
        p.add_argument(
            option,
            type=int_at_least(1),
            default=None,
            help=f"{what} (default {DEFAULTS[key]:,}; --quick {QUICK[key]:,})",
        )

    budget("--games", "games", "jitted random playouts per repeat (playouts, expansions)")
    budget("--api-games", "api_games", "games through the Python API per repeat (api)")
    budget("--steps", "env_steps", "env steps per repeat (envs, vector, vs-bots, expansions)")
    budget("--repeats", "repeats", "repeats of each measure, medians reported")
    p.add_argument(
        "--no-cold", action="store_true", help="skip the cold start (start-up; --quick skips it)"
    )
    p.add_argument(
        "--quick", action="store_true", help="the small budgets above: a rough check in seconds"
    )
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument(
        "--only",
        type=_bench_parts,
        metavar="PARTS",
        help="run only these parts, comma-separated (default: all; the parts are listed above)",
    )


def bench_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of `speed.run_benchmarks` that `carcassonne bench`'s options name."""
    from ..speed import DEFAULTS, QUICK

    base = QUICK if args.quick else DEFAULTS
    given = {"games": args.games, "api_games": args.api_games, "env_steps": args.steps}
    settings = {k: base[k] if v is None else v for k, v in given.items()}
    return {
        **settings,
        "repeats": base["repeats"] if args.repeats is None else args.repeats,
        "cold": base["cold"] and not args.no_cold,
        "markdown": args.markdown,
        "only": args.only,
    }


def _bench_description() -> str:
    """`carcassonne bench --help`'s description: each part, what it measures and its time."""
    from ..speed import PART_HELP

    width = max(len(what) for what, _, _ in PART_HELP.values())
    lines = [f"  {'part':<10}  {'measures':<{width}}  default  --quick"]
    lines += [
        f"  {part:<10}  {what:<{width}}  {default:>5} s  {quick:>5} s"
        for part, (what, default, quick) in PART_HELP.items()
    ]
    return (
        "Measure the speed of the rules core, the Python API and the envs and print a\n"
        "table: measure, value, unit, and which way is better. The parts (--only), in the\n"
        "order they run, each measure --repeats times, and the seconds each took on a\n"
        "busy 2-core machine (a training beside it; idle, faster) with the default budgets\n"
        f"and with --quick ({sum(q for _, _, q in PART_HELP.values())} s in all):\n\n"
        + "\n".join(lines)
    )


def warmup_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne warmup`."""
    p.add_argument("--quiet", "-q", action="store_true", help="print only the total time")
    p.add_argument(
        "--jobs",
        "-j",
        type=int_at_least(1),
        default=None,
        help="compile in this many processes at once (default: every core)",
    )


def clear_cache_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne clear-cache`."""
    p.add_argument("--dry-run", action="store_true", help="list the files, delete nothing")
    p.add_argument("--verbose", "-v", action="store_true", help="list the deleted files")


def _bench_parts(text: str) -> tuple[str, ...]:
    """An argparse type: `bench --only`'s comma-separated benchmark parts."""
    from ..speed import check_parts

    try:
        return check_parts([p.strip() for p in text.split(",") if p.strip()])
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("only ")) from None


@command("bench", bench_options)
def cmd_bench(args: argparse.Namespace) -> int:
    """speed of the rules core, the Python API and the envs"""
    from ..speed import run_benchmarks

    run_benchmarks(**bench_settings(args))
    return 0


@command("warmup", warmup_options)
def cmd_warmup(args: argparse.Namespace) -> int:
    """compile the numba code now (a part's first use otherwise waits for it)

    Compile every jitted function (rules core, encoders, vector envs, the bots' and the
    searches' kernels) into numba's on-disk cache, e.g. right after installing or in a
    Docker build ({cost}; --jobs N spreads it over N processes)."""
    from agents.warmup import warmup

    jobs = args.jobs or os.cpu_count() or 1
    report = (lambda _: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    bar = not args.quiet and sys.stderr.isatty()  # a progress bar on a terminal, else lines
    seconds = warmup(report, jobs=jobs, progress=bar)
    print(f"compiled code ready ({seconds:.1f} s)")
    return 0


# (the figures live in one place, beside the compile notices that cite them)
cmd_warmup.__doc__ = (cmd_warmup.__doc__ or "").replace("{cost}", warmup_cost())


@command("clear-cache", clear_cache_options)
def cmd_clear_cache(args: argparse.Namespace) -> int:
    """delete numba's compiled code of this package

    Delete the numba cache files of every module with jitted code. numba recompiles a
    function when its own file changes, but not when a function it calls in another file
    does: after editing the core, clear the cache (see CONTRIBUTING.md)."""
    from agents.warmup import cache_files, clear_cache

    files = cache_files() if args.dry_run else clear_cache()
    for path in files if args.verbose or args.dry_run else ():
        print(path)
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {len(files)} numba cache files; the next run compiles afresh", file=sys.stderr)
    return 0
