"""Start a CLI subprocess that takes Ctrl-C as it would in a terminal."""

from __future__ import annotations

import signal


def ctrl_c_as_in_a_terminal() -> None:
    """`subprocess.Popen(preexec_fn=...)`: SIGINT back to its default action. A shell
    without job control starts background commands with SIGINT ignored; children inherit
    that, and Python then never raises KeyboardInterrupt, so a test run from such a shell
    would wait for a Ctrl-C that cannot arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
