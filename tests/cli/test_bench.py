"""`carcassonne bench --only` (issue 28 item 9): the benchmark in parts, so that a short
check of one part does not wait minutes for the others."""

from __future__ import annotations

import re

import pytest

from carcassonne_env import speed as bench
from carcassonne_env.cli import main

PART_FUNCTIONS = (
    ("bench_start", "start-up"),
    ("bench_playouts", "playouts"),
    ("bench_api", "api"),
    ("bench_clone", "clone"),
    ("bench_envs", "envs"),
    ("bench_vector", "vector"),
    ("bench_vs_bots", "vs-bots"),
    ("bench_expansions", "expansions"),
)


@pytest.fixture
def calls(monkeypatch) -> list[tuple[str, tuple]]:
    """Each part's function replaced by one that records its part and arguments and
    returns one measure, "PART games/s" = 1.0."""
    ran: list[tuple[str, tuple]] = []
    for name, key in PART_FUNCTIONS:
        monkeypatch.setattr(
            bench,
            name,
            lambda *a, _key=key, **k: ran.append((_key, a)) or {f"{_key} games/s": 1.0},
        )
    return ran


def test_only_runs_the_named_parts_in_their_order(calls, capsys):
    """Each part's function runs only when named; the parts run in `PARTS` order and the
    report says how long each took."""
    assert main(["bench", "--only", "vs-bots, api", "--repeats", "1"]) == 0
    assert [part for part, _ in calls] == ["api", "vs-bots"]
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:3]] == ["measure", "api", "vs-bots"]
    assert out[-1].startswith("time per part: api ") and ", vs-bots " in out[-1]
    calls.clear()
    assert bench.run_benchmarks(repeats=1) == {f"{p} games/s": 1.0 for p in bench.PARTS}
    assert [part for part, _ in calls] == list(bench.PARTS)


def test_every_option_changes_what_runs(calls):
    """The budgets reach every part that takes them: the defaults, --quick's, each option
    given (alone or over --quick's)."""
    d, q = bench.DEFAULTS, bench.QUICK
    assert main(["bench"]) == 0
    assert dict(calls) == {
        "start-up": (True,),
        "playouts": (d["games"], d["repeats"]),
        "api": (d["api_games"], d["repeats"]),
        "clone": (d["repeats"],),
        "envs": (d["env_steps"], d["repeats"]),
        "vector": (d["env_steps"], d["repeats"]),
        "vs-bots": (d["env_steps"], d["repeats"]),
        "expansions": (d["games"], d["env_steps"], d["repeats"]),
    }
    calls.clear()
    argv = ["bench", "--games", "7", "--api-games", "2", "--steps", "9", "--repeats", "3"]
    assert main([*argv, "--no-cold"]) == 0
    assert dict(calls) == {
        "start-up": (False,),
        "playouts": (7, 3),
        "api": (2, 3),
        "clone": (3,),
        "envs": (9, 3),
        "vector": (9, 3),
        "vs-bots": (9, 3),
        "expansions": (7, 9, 3),
    }
    calls.clear()
    assert main(["bench", "--quick", "--steps", "64"]) == 0
    assert dict(calls) == {
        "start-up": (False,),
        "playouts": (q["games"], q["repeats"]),
        "api": (q["api_games"], q["repeats"]),
        "clone": (q["repeats"],),
        "envs": (64, q["repeats"]),
        "vector": (64, q["repeats"]),
        "vs-bots": (64, q["repeats"]),
        "expansions": (q["games"], 64, q["repeats"]),
    }
    assert q["cold"] is False and q["repeats"] == 1 and q["games"] < d["games"]


def test_vs_bots_and_expansions_take_their_budgets(monkeypatch):
    """The vs-bots part steps each env --steps / N times (a tenth for the bots that search
    and the candidate observation), every one --repeats times; the expansions part plays
    --games playouts and --steps env steps per rule set, --repeats times. (internals: the
    parts' inner rate functions are replaced, so nothing runs but the budgets.)"""
    rates: list[tuple[int, int]] = []
    monkeypatch.setattr(
        bench,
        "_vector_rate",
        lambda venv, batches, repeats, learner="first": rates.append((batches, repeats)) or 1.0,
    )
    bench.bench_vs_bots(steps=40, repeats=3, num_envs=2)
    # solo, random, greedy, heuristic; 1 thread: solo, random; first legal: solo, random;
    # aggregate; candidate_moves (40 steps / 2 games = 20 batches; a tenth: 2)
    assert rates == [(20, 3), (20, 3), (2, 3), (2, 3), *[(20, 3)] * 5, (2, 3)]
    rates.clear()
    bench.bench_vs_bots(steps=8, repeats=2, num_envs=4)  # fewer steps than a tenth: one
    assert {b for b, _ in rates} == {2, 1} and {r for _, r in rates} == {2}

    played: list[int] = []
    stepped: list[int] = []
    monkeypatch.setattr(
        bench,
        "bench_playouts",
        lambda games, repeats, rules=None: (
            played.append(games) or {"playout games/s": 1.0, "playout decisions/s": 1.0}
        ),
    )
    monkeypatch.setattr(
        bench, "_env_rate", lambda reset, step, legal, steps: stepped.append(steps) or 1.0
    )
    results = bench.bench_expansions(games=5, steps=11, repeats=2)
    sets = 1 + len(bench.EXPANSION_RULES)  # the base game beside each
    assert played == [5] * sets * 2 and stepped == [11] * sets * 2
    assert results["playout decisions ratio to base (Inns & Cathedrals)"] == 1.0


def test_the_table_has_a_measure_value_unit_and_direction_per_row():
    results = {
        "playout games/s": 12345.67,
        "Game.clone() us": 2.5,
        "warm start s": 1.5,
        "state size KiB": 75.2,
        "VsBots/solo ratio (random)": 0.456,
        "mean final score (random play)": 19.3,
    }
    assert bench.result_table(results).splitlines() == [
        "measure                            value  unit     better",
        "playout games                   12,345.7  games/s  higher is better",
        "Game.clone()                         2.5  us       lower is better",
        "warm start                           1.5  s        lower is better",
        "state size                          75.2  KiB      lower is better",
        "VsBots/solo ratio (random)          0.46  ratio    higher is better",
        "mean final score (random play)      19.3  points   neither: a check of the rules",
    ]
    markdown = bench.result_table(results, markdown=True).splitlines()
    assert markdown[:3] == [
        "| measure | value | unit | better |",
        "|---|---:|---|---|",
        "| playout games | 12,345.7 | games/s | higher is better |",
    ]
    assert len(markdown) == 2 + len(results)


def test_help_gives_each_part_its_budgets_and_times(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    for part, (what, default, quick) in bench.PART_HELP.items():
        assert re.search(rf"^  {part} +{re.escape(what)} +{default} s +{quick} s$", out, re.M)
    assert list(bench.PART_HELP) == list(bench.PARTS)
    assert "(default 20,000; --quick 2,000)" in " ".join(out.split())
    assert "target" not in out


def test_a_real_part_runs_alone(capsys):
    results = bench.run_benchmarks(api_games=1, repeats=1, only=["api"])
    assert list(results) == ["API decisions/s"] and results["API decisions/s"] > 0
    assert "time per part: api " in capsys.readouterr().out


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("foo,api,bar", "got 'foo', 'bar'"),
        ("", "got none"),
        (" , ", "got none"),
    ],
)
def test_only_refuses_unknown_parts(value, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--only", value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert (
        "argument --only: must name parts from start-up, playouts, api, clone, envs, "
        f"vector, vs-bots, expansions, {message}"
    ) in err


@pytest.mark.parametrize(("only", "message"), [(["api", ""], "got ''"), ([], "got none")])
def test_run_benchmarks_checks_its_parts_first(only, message):
    with pytest.raises(ValueError, match=f"only must name parts from start-up, .*, {message}$"):
        bench.run_benchmarks(only=only)
