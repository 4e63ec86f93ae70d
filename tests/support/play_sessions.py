"""Sessions of `carcassonne play --human` (`carcassonne_env.viewer.play.HumanSession`) driven
to a position: the first legal move, a builder's extra turn, a solo scoring decision; and
the command itself served in a subprocess (`serve_human_game`). Shared by
tests/viewer/test_play*.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from carcassonne_env import Move, Rules
from carcassonne_env.viewer.play import HumanSession
from tests.support.paths import ROOT


def first_legal(session: HumanSession) -> tuple:
    legal = session.legal()
    tile = next(iter(legal))
    cell = next(iter(legal[tile]))
    rot = next(iter(legal[tile][cell]))
    x, y = map(int, cell.split(","))
    follower = legal[tile][cell][rot][-1]
    return x, y, int(rot), follower, tile if session.rules.hand_size > 1 else None


def builder_first(session: HumanSession) -> Move:
    """The person's first builder move, else a fixed pick: reaches an extra turn."""
    moves = session.game.legal_moves()
    builders = [m for m in moves if m.figure == "builder"]
    return builders[0] if builders else moves[(session.game.turn * 5) % len(moves)]


def to_first_choice(session: HumanSession) -> None:
    while not session.choices():
        session.move(*first_legal(session))


def solo_until(found, seeds=range(60)) -> HumanSession:
    """The first solo session (``scoring_order="player"``, seeds in order) that reaches a
    position where `found(session)` holds, played by fixed picks: the (7 * turn)-th
    legal placement, the first scoring choice."""
    for seed in seeds:
        session = HumanSession(Rules(variant="solo", scoring_order="player"), [], seed=seed)
        game = session.game
        while not game.done:
            if found(session):
                return session
            choices = session.choices()
            if choices:
                c = choices[0]
                session.move(c["x"], c["y"], c["rotation"], c["follower"])
            else:
                moves = game.legal_moves()
                session.move(*moves[(game.turn * 7) % len(moves)])
    raise AssertionError(f"no position found in the seeds {seeds}")


def a_choice_scores_nothing(session: HumanSession) -> bool:
    """A feature decision where one option scores and another, worth points, scores 0
    (no colour of its majority is lowest)."""
    choices = session.choices() if session.game.decision == "score_feature" else []
    return any(c["points"] and not any(c["gains"]) for c in choices) and any(
        any(c["gains"]) for c in choices
    )


def at_end_bonus(session: HumanSession) -> bool:
    return session.game.decision == "score_follower"


def serve_human_game(record: Path, **popen: Any) -> tuple[subprocess.Popen, str, str]:
    """`carcassonne play --human --against greedy --no-browser --record RECORD --seed 3` in a
    subprocess (text pipes, no compile notice; `popen`: more `Popen` keywords); returns it,
    the address it serves (``http://127.0.0.1:PORT``, no slash) and its token, read from
    the line it prints first."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "carcassonne_env.cli", "play", "--human", "--against"]
        + ["greedy", "--no-browser", "--record", str(record), "--seed", "3"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, CARCASSONNE_NO_COMPILE_NOTICE="1"),
        **popen,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=([\w-]+)", line)
    if found is None:
        proc.kill()
        raise AssertionError(f"no address in the server's first line: {line!r}")
    url, token = found.groups()
    return proc, url, token
