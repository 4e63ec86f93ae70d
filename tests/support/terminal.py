"""Ctrl-C in tests: a CLI subprocess that takes it as it would in a terminal, and a
Ctrl-C raised at a chosen call."""

from __future__ import annotations

import signal


def ctrl_c_as_in_a_terminal() -> None:
    """`subprocess.Popen(preexec_fn=...)`: SIGINT back to its default action. A shell
    without job control starts background commands with SIGINT ignored; children inherit
    that, and Python then never raises KeyboardInterrupt, so a test run from such a shell
    would wait for a Ctrl-C that cannot arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_on_call(monkeypatch, module, name: str, call: int) -> None:
    """Make module.name raise KeyboardInterrupt (a Ctrl-C) on its `call`-th call."""
    original, calls = getattr(module, name), []

    def patched(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, patched)
