"""No public call can corrupt memory: the public API driven with random and extreme
integers (2**63, -2**63, 10**30, -1, huge counts), numpy integers, bools and floats
where integers belong. Every call either does what a legal call does or raises
ValueError / TypeError (IllegalMoveError for moves) with a one-line message, the game's
state unchanged (its live words and move log compared before and after). A row that
`Game.play_row` accepts must be one of the position's legal rows.

The calls run in a child process (this file run as a script), so that a crash inside
numba (a segfault) fails the test instead of killing the pytest worker."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from tests.support.paths import ROOT

# Integers from the edges of every integer type the core or numpy could meet.
EXTREME_INTS = [
    0,
    1,
    -1,
    2,
    3,
    4,
    5,
    9,
    64,
    100_000,
    -5_000_000,
    2**31 - 1,
    2**31,
    -(2**31),
    2**62,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    10**30,
    -(10**30),
]
NUMPY_INTS = [
    np.int64(2**63 - 1),
    np.int64(-(2**63)),
    np.uint64(2**64 - 1),
    np.int8(-1),
    np.int32(3),
    np.uint8(200),
]
NOT_INTS = [
    True,
    False,
    np.bool_(True),
    1.5,
    0.0,
    float("nan"),
    float("inf"),
    None,
    "1",
    np.float64(2.0),
    [1],
    (0,),
]


def _value(rng: random.Random, near: list[int] | None = None) -> object:
    """A hostile value: mostly extreme or numpy integers, sometimes not an integer, or
    (given `near`) a small step from a legal value."""
    roll = rng.random()
    if near is not None and roll < 0.35:
        return rng.choice(near) + rng.choice((-1, 0, 0, 1))
    if roll < 0.75:
        return rng.choice(EXTREME_INTS)
    if roll < 0.88:
        return rng.choice(NUMPY_INTS)
    return rng.choice(NOT_INTS)


def _roots(parent: np.ndarray) -> bytes:
    """The root of every segment's feature (union-find `parent`, whose paths any read
    may compress without changing a feature)."""
    roots = parent.copy()
    while True:
        up = parent[roots]
        if np.array_equal(up, roots):
            return roots.tobytes()
        roots = up


def _snapshot(game) -> tuple:
    """What a refused call must leave as it was: every field of the state but the
    scratch fields (the core's checks write into them), the features (compared by
    their roots) and the move log."""
    from carcassonne_env.core.state import SCRATCH_FIELDS

    fields = game.state.fields()
    return (
        {k: v.tobytes() for k, v in fields.items() if k not in SCRATCH_FIELDS and k != "parent"},
        _roots(fields["parent"]),
        game.moves_played,
    )


class Refused(Exception):
    """A call's error that breaks the contract (a wrong type or message)."""


def _refusal(err: Exception, allowed: tuple[type, ...] = (ValueError, TypeError)) -> str:
    if not isinstance(err, allowed) or not str(err) or "\n" in str(err):
        raise Refused(f"{type(err).__name__}: {err!r}") from err
    return type(err).__name__


# ---------------------------------------------------------------------- the calls
def _games():
    from carcassonne_env import Game, Rules

    return [
        Game(Rules(players=2), seed=1),
        Game(Rules(players=3, hand_size=3), seed=2),
        Game(Rules(variant="solo", scoring_order="player"), seed=3),
        Game(Rules(players=2, expansions=("inns_cathedrals", "traders_builders")), seed=4),
    ]


def _first_of_its_tile(game, row: list) -> list:
    """`row` with its hand index as `legal_rows` gives it: the first index holding the
    same tile (a hand may hold a tile twice: either plays the same move)."""
    h = row[0]
    if (
        game.rules.hand_size > 1
        and game.decision == "place"
        and type(h) is int
        and 0 <= h < game.rules.hand_size
    ):
        hand = game.state.hands[game.current_player].tolist()
        return [hand.index(hand[h]), *row[1:]]
    return row


def _play_row(rng, game) -> str:
    """A legal row with some fields replaced by hostile values: accepted exactly when
    the result is one of the legal rows (a legal row is played as is)."""
    legal = game.legal_rows().tolist()
    row = list(rng.choice(legal)) if legal else [0, 0, 0, 0, -1]
    for k in rng.sample(range(5), rng.randint(0, 3)):
        row[k] = _value(rng, [v[k] for v in legal] or [0])
    ints = all(isinstance(v, (int, np.integer)) for v in row) and not any(
        isinstance(v, (bool, np.bool_)) for v in row
    )
    is_legal = ints and _first_of_its_tile(game, [int(v) for v in row]) in legal
    before = _snapshot(game)
    try:
        game.play_row(*row)
    except Exception as err:  # noqa: BLE001
        outcome = _refusal(err, (ValueError,))
        assert _snapshot(game) == before, ("state changed", row, err)
        assert not is_legal, ("legal row refused", row, err)
        return outcome
    assert is_legal, ("illegal row played", row)
    return "played"


def _play_move(rng, game) -> str:
    from carcassonne_env import Move

    legal = game.legal_moves()
    base = rng.choice(legal) if legal else Move(0, 0, 0)
    fields = list(base)
    for k in rng.sample(range(3), rng.randint(1, 3)):  # x, y, rotation
        fields[k] = _value(rng, [m[k] for m in legal] or [0])
    if rng.random() < 0.2:
        fields[3] = rng.choice([None, "city:N", "road", 5, "nowhere"])
    move = Move(*fields)
    before = _snapshot(game)
    try:
        game.play(move)
    except Exception as err:  # noqa: BLE001
        outcome = _refusal(err, (ValueError, TypeError))
        assert _snapshot(game) == before, ("state changed", move, err)
        return outcome
    entry = game.moves_played[-1]
    assert (entry["x"], entry["y"], entry["rotation"]) == tuple(int(v) for v in fields[:3])
    return "played"


# `random_playouts`' n: a few playouts, or out of [0, 10_000_000] (a valid n in the
# hundreds of thousands would only take seconds).
PLAYOUT_COUNTS = [
    0,
    1,
    2,
    np.int32(3),
    10_000_001,
    np.int8(-1),
    np.int64(2**63 - 1),
    np.uint64(2**64 - 1),
    *NOT_INTS,
    *(v for v in EXTREME_INTS if not 0 <= v <= 10_000_000),
]


def _playouts(rng, game) -> str:
    n = rng.choice(PLAYOUT_COUNTS)
    seed = _value(rng)
    before = _snapshot(game)
    try:
        scores = game.random_playouts(n, seed=seed)
    except Exception as err:  # noqa: BLE001
        outcome = _refusal(err)
        assert _snapshot(game) == before
        return outcome
    assert _snapshot(game) == before
    assert scores.shape == (int(n), game.rules.seats) and int(n) <= 10_000_000
    return "played"


def _encoder_calls(rng, game) -> str:
    from carcassonne_env.encoding import Encoder

    mode = rng.choice(["turn", "two_step"])
    enc = Encoder(game.rules, 8, mode, "truncate")
    before = _snapshot(game)
    which = rng.randrange(4)
    try:
        if which == 0:
            enc.split(_value(rng, [0, enc.n_actions - 1]))
        elif which == 1:
            pending = [_value(rng, [0, 1, 2, 3]) for _ in range(4)]
            enc.encode(game, game.current_player or 0, pending=pending)
        elif which == 2:
            pending = [_value(rng, [0, 1, 2, 3]) for _ in range(4)]
            enc.action_to_move(game, _value(rng, [0, enc.slots - 1]), pending)
        else:
            enc.encode(game, _value(rng, [0, 1]))
    except Exception as err:  # noqa: BLE001
        from carcassonne_env.encoding import WindowOverflowError

        if isinstance(err, WindowOverflowError):  # (a legal call on a tiny window)
            return "overflow"
        outcome = _refusal(err)
        assert _snapshot(game) == before
        return outcome
    assert _snapshot(game) == before
    return "encoded"


def _constructors(rng, game) -> str:
    from carcassonne_env import Game, Rules
    from carcassonne_env.bots import make_bot

    which = rng.randrange(4)
    try:
        if which == 0:
            Rules(players=_value(rng, [2]), followers=_value(rng, [7]))
        elif which == 1:
            Game(seed=_value(rng, [0]))
        elif which == 2:
            make_bot(f"heuristic:follower={rng.choice(['1e30', '-1e7', 'nan', '2.5'])}")
        else:
            from carcassonne_env.encoding import Encoder

            Encoder(game.rules, _value(rng, [8]), candidate_moves=_value(rng, [0, 4]))
    except Exception as err:  # noqa: BLE001
        return _refusal(err)
    return "built"


def _env_steps(rng, envs) -> str:
    """Gymnasium, PettingZoo and vector env steps with hostile actions: out of the action
    space is a ValueError with the game unchanged; inside it is an ordinary step."""
    which = rng.randrange(3)
    if which < 2:
        env = envs[which]
        game = env.unwrapped.game if which == 0 else env.game
        # internals: whether the Gymnasium env refuses step() until reset() (`_over`)
        over = env.unwrapped._over is not None if which == 0 else any(env.terminations.values())
        if game.done or over:
            env.reset(seed=rng.randrange(100))
            game = env.unwrapped.game if which == 0 else env.game
        before = _snapshot(game)
        action = _value(rng, [0, 1])
        try:
            env.step(action)
        except Exception as err:  # noqa: BLE001
            outcome = _refusal(err)
            assert _snapshot(game) == before
            return outcome
        return "stepped"
    venv = envs[2]
    actions = np.array([_value(rng, [0]) for _ in range(venv.num_envs)], dtype=object)
    try:  # as numpy arrays of each kind hold them, where they can
        actions = actions.astype(rng.choice([np.int64, np.uint64, np.float64]))
    except (TypeError, ValueError, OverflowError):
        pass
    try:
        venv.step(actions)
    except Exception as err:  # noqa: BLE001
        return _refusal(err)
    return "stepped"


def hostile_calls(seed: int, rounds: int) -> dict[str, int]:
    """`rounds` random hostile calls; the count of each outcome."""
    import warnings

    import gymnasium

    from carcassonne_env import carcassonne_v0
    from carcassonne_env.envs import SoloVectorEnv

    warnings.simplefilter("ignore")  # (window overflow warnings of the tiny windows)
    rng = random.Random(seed)
    games = _games()
    envs = [
        gymnasium.make("Carcassonne/Solo-v0", board_size=8, on_overflow="truncate"),
        carcassonne_v0.env(players=2, board_size=8, on_overflow="truncate"),
        SoloVectorEnv(num_envs=2, board_size=8, num_threads=1, on_overflow="truncate"),
    ]
    envs[0].reset(seed=0)
    envs[1].reset(seed=0)
    envs[2].reset(seed=0)
    calls = [_play_row, _play_row, _play_row, _play_move, _playouts, _encoder_calls, _constructors]
    counts: dict[str, int] = {}
    for _ in range(rounds):
        k = rng.randrange(len(games))
        if games[k].done:
            games[k] = _games()[k]
        call = _env_steps if rng.random() < 0.15 else rng.choice(calls)
        outcome = call(rng, envs if call is _env_steps else games[k])
        counts[outcome] = counts.get(outcome, 0) + 1
        if os.environ.get("HOSTILE_VERBOSE"):
            key = f"{call.__name__}: {outcome}"
            counts[key] = counts.get(key, 0) + 1
    return counts


# ---------------------------------------------------------------------- the review's cases
def review_cases() -> list[str]:
    """The calls of the security review (issue 75), each error as `Type: message`."""
    from carcassonne_env import Game, Move

    out = []
    for call in [
        lambda g: g.play_row(0, 100000, 100000, 0, -1),
        lambda g: g.play_row(0, -5000000, 7, 0, -1),
        lambda g: g.play_row(0, 1, 0, 9, -1),
        lambda g: g.play_row(0, 0, 0, 0, -1),
        lambda g: g.play_row(0, 10**30, 0, 0, -1),
        lambda g: g.play(Move(10**30, 0, 0)),
        lambda g: g.play(Move(0, -1, 2**63)),
        lambda g: g.random_playouts(10**30),
    ]:
        game = Game(seed=1)
        before = _snapshot(game)
        try:
            call(game)
            out.append("no error")
        except Exception as err:  # noqa: BLE001
            out.append(f"{type(err).__name__}: {err}")
        assert _snapshot(game) == before
    return out


def _child(args: list[str]) -> subprocess.CompletedProcess:
    """This file run as a module (`__name__`: its dotted path from the repository root)."""
    env = {**os.environ, "CARCASSONNE_NO_COMPILE_NOTICE": "1"}
    return subprocess.run(
        [sys.executable, "-m", __name__, *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )


def test_the_reviews_hostile_calls_are_refused_with_the_state_unchanged():
    done = _child(["review"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        "IllegalMoveError: core row (0, 100000, 100000, 0, -1) is not a legal move: cell "
        "(100000, 100000) is beyond the reach of any tile",
        "IllegalMoveError: core row (0, -5000000, 7, 0, -1) is not a legal move: cell "
        "(-5000000, 7) is beyond the reach of any tile",
        "IllegalMoveError: core row (0, 1, 0, 9, -1) is not a legal move: rotation must be "
        "0, 1, 2 or 3, got 9",
        "IllegalMoveError: core row (0, 0, 0, 0, -1) is not a legal move: cell (0, 0) "
        "already holds a tile",
        "IllegalMoveError: core row (0, 1000000000000000000000000000000, 0, 0, -1) is not "
        "a legal move: cell (1000000000000000000000000000000, 0) is beyond the reach of "
        "any tile",
        "IllegalMoveError: cell (1000000000000000000000000000000, 0) is beyond the reach "
        "of any tile",
        "IllegalMoveError: rotation must be 0, 1, 2 or 3, got 9223372036854775808",
        "ValueError: n must be at most 10,000,000 (playouts per call), got "
        "1000000000000000000000000000000",
    ]


def test_random_hostile_calls_never_crash_nor_change_a_refusing_state():
    """About 1,500 calls (a few seconds in the child, most of it imports)."""
    done = _child(["fuzz", "75", "1500"])
    assert done.returncode == 0, done.stderr[-3000:]
    counts = json.loads(done.stdout)
    # every kind of outcome came up: legal rows played, refusals, steps, encodings
    assert {"played", "IllegalMoveError", "ValueError", "encoded", "stepped"} <= set(counts)


@pytest.mark.slow
def test_random_hostile_calls_long():
    for seed in range(5):
        done = _child(["fuzz", str(seed), "20000"])
        assert done.returncode == 0, done.stderr[-3000:]


if __name__ == "__main__":
    if sys.argv[1] == "review":
        print(json.dumps(review_cases()))
    else:
        print(json.dumps(hostile_calls(int(sys.argv[2]), int(sys.argv[3]))))
