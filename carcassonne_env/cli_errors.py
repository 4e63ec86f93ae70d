"""How the command lines (`carcassonne` and the training scripts) end on a user's mistake
or a Ctrl-C: in one line, never a usage block or a traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An `ArgumentParser` whose errors are one line, ``PROG: error: MESSAGE (see PROG
    --help)``, exit status 2, instead of the usage block and the message. Sub-command
    parsers made with `add_subparsers` are of this class too."""

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class Interrupted(KeyboardInterrupt):
    """A Ctrl-C that kept the work done so far. `kept` says what was kept and where (for
    the one line the command line prints); `partial` is the partial result of a function
    that returns one (an `ArenaResult` of the games played, ...), or None.

    It is a KeyboardInterrupt: code that stops on a Ctrl-C still stops."""

    def __init__(self, kept: str = "", partial: Any = None) -> None:
        super().__init__(kept)
        self.kept = kept
        self.partial = partial


def interrupted(what: str) -> int:
    """Report a Ctrl-C in one stderr line, ``carcassonne: interrupted: WHAT``; returns the
    exit status of a process ended by SIGINT (130). Progress bars left open by the
    interrupted work are closed first, so the line starts a line of its own."""
    from tqdm import tqdm

    for bar in list(getattr(tqdm, "_instances", ())):
        bar.close()
    print(f"carcassonne: interrupted: {what}", file=sys.stderr)
    return 130


def stopped(err: KeyboardInterrupt) -> int:
    """`interrupted` for a Ctrl-C `err`: what it kept (an `Interrupted`), or that it
    stopped the command."""
    return interrupted(getattr(err, "kept", "") or "stopped by Ctrl-C")


def run_script(main: Callable[[], int]) -> int:
    """Run a script's `main` (``python -m training.train_solo`` and the like) as the
    `carcassonne` command runs it: a Ctrl-C or SIGTERM that kept work ends in the one
    line of `interrupted`, exit status 130, not in a traceback."""
    try:
        return main()
    except KeyboardInterrupt as err:
        return stopped(err)
