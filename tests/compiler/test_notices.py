"""The compile notices say only what is true (issue 78 item 5): a compile over in a moment
(a program whose code is cached but for a small function) prints nothing, a long one
prints its part's notice once; the warm-up's figures live in one place, which its --help,
the notices and the README state alike."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest
from numba.core import event

from carcassonne_env.cli import main
from carcassonne_env.compiler import notices
from carcassonne_env.compiler.notices import NOTICE_ENV
from tests.support.paths import ROOT


def _core_function() -> None:
    """A function that claims a module of the rules core (what a compile event names)."""


_core_function.__module__ = "carcassonne_env.core.turn"


def _compile(seconds: float) -> None:
    """A numba compile event of a core function that lasts `seconds`."""
    data = {"dispatcher": SimpleNamespace(py_func=_core_function), "args": ()}
    with event.trigger_event("numba:compile", data=data):
        time.sleep(seconds)


@pytest.fixture
def fresh_notices(monkeypatch):
    # internals: the parts announced so far, emptied as at a program's start
    monkeypatch.setattr(notices, "_announced", set())
    monkeypatch.setattr(notices, "NOTICE_AFTER_S", 0.2)
    monkeypatch.delenv(NOTICE_ENV, raising=False)


def test_a_short_compile_prints_nothing_and_a_long_one_its_notice_once(fresh_notices, capsys):
    _compile(0)
    time.sleep(0.4)  # past NOTICE_AFTER_S: the cancelled notice never comes
    assert capsys.readouterr().err == ""
    _compile(0.6)
    assert capsys.readouterr().err == notices.notice("core") + "\n"
    _compile(0.6)  # the part was announced: once a program
    assert capsys.readouterr().err == ""


def test_the_notice_waits_a_second_by_default():
    assert notices.NOTICE_AFTER_S == 1.0


def test_warmup_help_the_notices_and_the_readme_give_the_same_figures(capsys):
    cpu, wall = notices.WARMUP_CPU_S, notices.WARMUP_WALL_S
    with pytest.raises(SystemExit):
        main(["warmup", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    minutes, seconds = divmod(wall, 60)
    assert notices.warmup_cost() == (
        f"{cpu} CPU s and {minutes} min {seconds} s of wall time with --jobs 2 on a 2-core machine"
    )
    assert f"({notices.warmup_cost()}; --jobs N" in help_text
    assert f"ahead of time ({cpu} CPU s);" in notices.notice("core")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"{cpu} CPU s and {minutes} min {seconds} s of wall time with `--jobs 2`" in readme
    row = re.search(
        r"\| cold `carcassonne warmup --jobs 2` \(CPU s / wall s\) \| (\d+) / (\d+) \|", readme
    )
    assert row is not None and (int(row[1]), int(row[2])) == (cpu, wall)
    assert len(re.findall(r"\d+ CPU s and \d+ min \d+ s of wall time", readme)) == 1
