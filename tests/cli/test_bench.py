"""`carcassonne bench --only` (issue 28 item 9): the benchmark in parts, so that a short
check of one part does not wait minutes for the others."""

from __future__ import annotations

import pytest

from carcassonne_env import speed as bench
from carcassonne_env.cli import main


def test_only_runs_the_named_parts_in_their_order(monkeypatch, capsys):
    """Each part's function runs only when named; the parts run in `PARTS` order and the
    report says how long each took."""
    ran = []
    for name, key in (
        ("bench_start", "start-up"),
        ("bench_playouts", "playouts"),
        ("bench_api", "api"),
        ("bench_clone", "clone"),
        ("bench_envs", "envs"),
        ("bench_vector", "vector"),
        ("bench_vs_bots", "vs-bots"),
        ("bench_expansions", "expansions"),
    ):
        monkeypatch.setattr(
            bench, name, lambda *a, _key=key, **k: ran.append(_key) or {f"{_key} x": 1.0}
        )
    assert main(["bench", "--only", "vs-bots, api", "--repeats", "1"]) == 0
    assert ran == ["api", "vs-bots"]
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:2]] == ["api", "vs-bots"]
    assert out[-1].startswith("time per part: api ") and ", vs-bots " in out[-1]
    ran.clear()
    assert bench.run_benchmarks(repeats=1) == {f"{p} x": 1.0 for p in bench.PARTS}
    assert ran == list(bench.PARTS)


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
