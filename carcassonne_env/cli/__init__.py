"""The `carcassonne` command line: `play` (bots play a seeded game), `bench` (speed),
`render` (a game record as a PNG), `view` (a record as an HTML replay), `gif` (a record
as an animation), `arena` (a tournament between bots), `benchmark` (a bot at the
reference tables: the standard protocol), `solo-bench`
(a bot's results on fixed solo deals), `solo-compare` (two bots' saved
solo-bench runs paired by deal), `train` (PPO baselines: the `training` scripts),
`warmup` (compile the numba code ahead of time), `clear-cache` (delete it), `solo-solve`
(a clairvoyant line for a solo deal), `solo-analyze` (a solo game judged move by move).

A mistake on the command line (a missing file, a bad bot spec, a bad option value) ends
in one line, `carcassonne: error: ...`, and exit status 2; `--debug` shows the traceback.
Arguments and output paths are checked before any work starts: no folder is created but
an arena's --out or --records folder or a benchmark's --out, and no file replaced
without --overwrite. Ctrl-C ends in one line, `carcassonne: interrupted: ...`, exit
status 130, and keeps the work done: the arena, benchmark and solo-bench report the
games played, training saves a checkpoint to --resume from, solo-solve writes the best
line found."""

# The text above is `carcassonne --help`'s description. Each command lives in the module
# of its group (play, view, solo, arena, bench, train): a function whose docstring is its
# help, marked (.args.command) with its name and the function that adds its options from
# the shared blocks of .args. Only the command functions import `agents` and `training`,
# so that `--help` stays fast and the rest of carcassonne_env works without them.

from __future__ import annotations

import argparse
import sys

from ..checks import output_file
from ..cli_errors import command_parser, sigterm_as_interrupt, stopped
from ..shadowing import check_package
from .arena import cmd_arena
from .args import Commands
from .bench import cmd_bench, cmd_clear_cache, cmd_warmup
from .benchmark import cmd_benchmark
from .play import cmd_play
from .solo import cmd_solo_analyze, cmd_solo_bench, cmd_solo_compare, cmd_solo_solve
from .train import cmd_train
from .view import cmd_gif, cmd_render, cmd_view

__all__ = ["build_parser", "main", "output_file"]

# Exceptions that report a user's mistake (bad value, missing file, missing extra): one
# line and exit status 2. Anything else is a bug and keeps its traceback.
USER_ERRORS = (ValueError, OSError, ImportError)
# Commands that use neither `agents` nor `training`; the others check first that another
# package of that name does not shadow ours (carcassonne_env.shadowing).
STANDALONE_COMMANDS = {"bench", "render", "view", "gif"}
# The commands (each marked with its name and options by .args.command), in the order
# `carcassonne --help` lists them.
COMMANDS = (
    cmd_play,
    cmd_bench,
    cmd_render,
    cmd_view,
    cmd_gif,
    cmd_solo_bench,
    cmd_arena,
    cmd_benchmark,
    cmd_solo_compare,
    cmd_solo_solve,
    cmd_solo_analyze,
    cmd_warmup,
    cmd_clear_cache,
    cmd_train,
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; a new command is a function marked with
    `.args.command`, listed in COMMANDS."""
    parser = command_parser("carcassonne", __doc__)
    commands = Commands(parser)
    for run in COMMANDS:
        commands.add(run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2: a user mistake, reported in one
    line unless --debug)."""
    args = build_parser().parse_args(argv)
    try:
        if args.command not in STANDALONE_COMMANDS:  # first: a clear error if shadowed
            check_package("agents")
            if args.command == "train":
                check_package("training")
        with sigterm_as_interrupt():
            return args.func(args)
    except KeyboardInterrupt as err:  # Ctrl-C or SIGTERM: one line; commands keep their work
        if args.debug:
            raise
        return stopped(err)
    except USER_ERRORS as err:
        if args.debug:
            raise
        message = " ".join(str(err).split()) or type(err).__name__
        print(f"carcassonne: error: {message}", file=sys.stderr)
        return 2
