"""How the command lines (`carcassonne` and the training scripts) end on a user's mistake
or a Ctrl-C: in one line, never a usage block or a traceback."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An `ArgumentParser` whose errors are one line, ``PROG: error: MESSAGE (see PROG
    --help)``, exit status 2, instead of the usage block and the message. Sub-command
    parsers made with `add_subparsers` are of this class too."""

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    # (one signature for argparse's overloads: the namespace given, or a new one, filled)
    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> Any:
        """`ArgumentParser.parse_args`, whose "unrecognized arguments" error comes from the
        parser of the sub-command they follow (``carcassonne play --rule x``: see
        ``carcassonne play --help``), not from the top-level parser argparse leaves them
        to."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> OneLineParser:
        """The parser of the (innermost) sub-command `parsed` names; itself without one."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                name = getattr(parsed, action.dest, None)
                chosen = action.choices.get(name) if isinstance(name, str) else None
                if isinstance(chosen, OneLineParser):
                    return chosen._chosen(parsed)
        return self


def command_parser(prog: str, doc: str | None, **options: Any) -> OneLineParser:
    """The parser of the command `prog`, whose --help shows `doc` (a module docstring)
    with its line breaks kept; `options`: more `ArgumentParser` keywords (epilog...)."""
    return OneLineParser(
        prog=prog,
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **options,
    )


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
    """`interrupted` for a Ctrl-C or SIGTERM `err`: what it kept (an `Interrupted`), or
    that it stopped the command."""
    by = "SIGTERM" if err.args == ("SIGTERM",) else "Ctrl-C"
    return interrupted(getattr(err, "kept", "") or f"stopped by {by}")


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside the block a SIGTERM (what `kill` and job schedulers send) stops the work as
    a Ctrl-C does: it raises KeyboardInterrupt("SIGTERM") in the main thread, so every
    command keeps its work the same way for both. Outside the main thread (where Python
    runs no signal handler) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate_as_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt("SIGTERM")


def run_script(main: Callable[[], int]) -> int:
    """Run a script's `main` (``python -m training.train_solo`` and the like) as the
    `carcassonne` command runs it: a Ctrl-C or SIGTERM that kept work ends in the one
    line of `interrupted`, exit status 130, not in a traceback."""
    try:
        with sigterm_as_interrupt():
            return main()
    except KeyboardInterrupt as err:
        return stopped(err)
