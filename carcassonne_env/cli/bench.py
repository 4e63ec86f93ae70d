"""`carcassonne bench` (the speed of the rules core, the API and the envs), `warmup`
(compile the numba code ahead of time) and `clear-cache` (delete it)."""

from __future__ import annotations

import argparse
import os
import sys

from .args import command, int_at_least


def bench_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne bench`."""
    p.add_argument("--games", type=int_at_least(1), default=20000, help="jitted random playouts")
    p.add_argument(
        "--api-games", type=int_at_least(1), default=30, help="games through the Python API"
    )
    p.add_argument("--repeats", type=int_at_least(1), default=5, help="repeats (medians reported)")
    p.add_argument("--no-cold", action="store_true", help="skip the cold-start measurement")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument(
        "--only",
        type=_bench_parts,
        metavar="PARTS",
        help="run only these parts, comma-separated: start-up, playouts, api, "
        "clone, envs, vector, vs-bots, expansions (default: all; README "
        "gives the time each takes)",
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

    run_benchmarks(
        games=args.games,
        api_games=args.api_games,
        repeats=args.repeats,
        cold=not args.no_cold,
        markdown=args.markdown,
        only=args.only,
    )
    return 0


@command("warmup", warmup_options)
def cmd_warmup(args: argparse.Namespace) -> int:
    """compile the numba code now (a part's first use otherwise waits for it)

    Compile every jitted function (rules core, encoders, vector envs, the bots' and the
    searches' kernels) into numba's on-disk cache, e.g. right after installing or in a
    Docker build (minutes of CPU time; --jobs N spreads it over N processes)."""
    from agents.warmup import warmup

    jobs = args.jobs or os.cpu_count() or 1
    report = (lambda _: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    bar = not args.quiet and sys.stderr.isatty()  # a progress bar on a terminal, else lines
    seconds = warmup(report, jobs=jobs, progress=bar)
    print(f"compiled code ready ({seconds:.1f} s)")
    return 0


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
