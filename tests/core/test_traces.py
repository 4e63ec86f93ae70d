"""The core replays the golden traces (tests/support/traces.py) exactly: every legal move, score,
scoring event and final state of random games in every rule set, the jitted random
playouts and every encoder's output, as recorded from the core before the packed state.
CI replays a sample; ``-m slow`` all 10,000 games per rule set."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.support.traces import (
    DETAILED,
    GAMES,
    OBSERVED,
    PLAYOUTS,
    RULE_SETS,
    TRACE_FILE,
    observation_digests,
    play,
    playout_digest,
)

pytestmark = pytest.mark.skipif(not TRACE_FILE.exists(), reason="no trace file")


@pytest.fixture(scope="module")
def traces():
    return dict(np.load(TRACE_FILE))


def _check_games(traces, name: str, games: range) -> None:
    rules = RULE_SETS[name]
    digests = traces[f"{name}/digests"]
    for k in games:
        detailed = k < DETAILED
        digest, turns, scores = play(rules, k, detailed=detailed)
        if digest == digests[k]:
            continue
        where = ""
        if detailed:
            want = traces[f"{name}/turns/{k}"]
            n = min(len(turns), len(want))
            split = next((t for t in range(n) if turns[t] != want[t]), n)
            where = f", first differing turn {split} (of {len(want)} recorded)"
        pytest.fail(
            f"{name} game {k}: differs from the trace{where}; final scores {scores}, "
            f"recorded {traces[f'{name}/scores'][k].tolist()}"
        )


def _check_playouts_and_observations(traces, name: str, n_playouts: int, n_obs: int) -> None:
    rules = RULE_SETS[name]
    want = traces[f"{name}/playouts"]
    for k in range(n_playouts):
        assert playout_digest(rules, k) == want[k], f"{name} game {k}: playouts differ"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(n_obs):
            got = observation_digests(rules, k)
            want = traces[f"{name}/observations/{k}"]
            bad = np.flatnonzero(got != want) if got.shape == want.shape else [-1]
            assert len(bad) == 0, (
                f"{name} game {k}: observations differ at sample {bad[0]} (every 5th turn)"
            )


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_a_sample_of_games_replays_exactly(traces, name):
    _check_games(traces, name, range(60))
    _check_playouts_and_observations(traces, name, 10, 4)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_every_traced_game_replays_exactly(traces, name):
    _check_games(traces, name, range(GAMES))
    _check_playouts_and_observations(traces, name, PLAYOUTS, OBSERVED)
