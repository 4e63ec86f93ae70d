"""`carcassonne solo-compare`: two bots' saved solo-bench runs paired by deal."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.solo_bench import DealResult, SoloBenchResult
from agents.solo_compare import compare_runs
from agents.stats import Z95
from carcassonne_env import Rules
from carcassonne_env.cli import main

SOLO = Rules(variant="solo")


def _run(
    bot: str,
    seed: int,
    results: list[int],
    first_deal: int = 0,
    rules: Rules = SOLO,
    tiles: str = "AB",
) -> SoloBenchResult:
    """A saved run with the given results, one per deal from `first_deal` (10 moves of
    0.02 s each)."""
    rows = [
        DealResult(
            deal_seed=first_deal + i,
            bot_seed=seed,
            result=r,
            end_reason="A",
            scores=(r, r + 1, r + 2),
            moves=10,
            act_seconds=0.2,
            tiles=f"{tiles}{first_deal + i}",
        )
        for i, r in enumerate(results)
    ]
    return SoloBenchResult(bot=bot, rules=rules, seed=seed, first_deal=first_deal, rows=rows)


def test_the_difference_is_of_the_deal_means_over_the_runs():
    base = [_run("a", 1, [10, 20, 30, 40]), _run("a", 2, [12, 18, 30, 44])]
    other = [
        _run("b", 1, [15, 19, 33, 40]),
        _run("b", 2, [13, 21, 31, 50]),
        _run("b", 3, [14, 20, 29, 45]),
    ]
    c = compare_runs(base, other)
    mean_a = np.array([11, 19, 30, 42])
    mean_b = np.array([14, 20, 31, 45])
    diff = mean_b - mean_a  # 3, 1, 1, 3
    half = Z95 * diff.std(ddof=1) / 2  # sqrt(4 deals)
    assert c.deals == 4 and c.difference == pytest.approx(2.0)
    assert c.ci95 == pytest.approx((2.0 - half, 2.0 + half))
    assert (c.better, c.equal, c.worse) == (4, 0, 0)
    assert c.base.mean == pytest.approx(mean_a.mean()) and c.base.seeds == (1, 2)
    assert c.other.mean == pytest.approx(mean_b.mean()) and c.other.seeds == (1, 2, 3)
    assert c.other.seconds_per_move == pytest.approx(0.02)
    half_a = Z95 * mean_a.std(ddof=1) / 2
    assert c.base.ci95 == pytest.approx((mean_a.mean() - half_a, mean_a.mean() + half_a))
    swapped = compare_runs(other, base)
    assert swapped.difference == pytest.approx(-2.0) and swapped.worse == 4


def test_runs_that_do_not_fit_together_are_refused():
    a1, a2 = _run("a", 1, [1, 2]), _run("a", 2, [3, 4])
    b = _run("b", 1, [2, 2])
    with pytest.raises(ValueError, match="base: the runs are of different bots"):
        compare_runs([a1, _run("c", 2, [1, 2])], [b])
    with pytest.raises(ValueError, match="other: two runs with the same bot seed"):
        compare_runs([a1], [b, _run("b", 1, [5, 5])])
    with pytest.raises(ValueError, match="base: the runs are not of the same deals"):
        compare_runs([a1, _run("a", 2, [3, 4], first_deal=5)], [b])
    with pytest.raises(ValueError, match="the two sides played different deals"):
        compare_runs([a1, a2], [_run("b", 1, [2, 2], first_deal=1)])
    with pytest.raises(ValueError, match="different tile orders"):
        compare_runs([a1], [_run("b", 1, [2, 2], tiles="CD")])
    with pytest.raises(ValueError, match="different rules"):
        compare_runs([a1], [_run("b", 1, [2, 2], rules=Rules(variant="solo", followers=5))])
    with pytest.raises(ValueError, match="base: no solo-bench result"):
        compare_runs([], [b])


def test_the_command_reads_saved_runs_and_writes_json(tmp_path, capsys):
    files = {}
    for bot, seed, results in (
        ("a", 1, [10, 20, 30]),
        ("a", 2, [12, 22, 30]),
        ("b", 7, [15, 21, 30]),
    ):
        files[bot, seed] = tmp_path / f"{bot}_{seed}.json"
        _run(bot, seed, results).to_json(files[bot, seed])
    out = tmp_path / "sub" / "cmp.json"
    out.parent.mkdir()  # (no command makes an output's folder)
    code = main(
        [
            "solo-compare",
            str(files["a", 1]),
            str(files["a", 2]),
            "--against",
            str(files["b", 7]),
            "--json",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "| a | 2 (1, 2) | 20.67 " in text and "| b | 1 (7) | 22.00 " in text
    assert "paired difference (b) - (a) over 3 deals: +1.33 " in text
    assert "better / equal / worse on 1 / 2 / 0 deals" in text  # diffs 4, 0, 0
    saved = json.loads(out.read_text())
    assert saved["difference"] == pytest.approx(4 / 3) and saved["base"]["seeds"] == [1, 2]


def test_solo_bench_files_compare_and_a_run_with_itself_is_level(tmp_path, capsys):
    """Two bots on the same deals through solo-bench's own files."""
    paths = []
    for bot in ("random", "greedy"):
        path = tmp_path / f"{bot}.json"
        assert (
            main(["solo-bench", "--bot", bot, "--deals", "3", "--no-progress", "--json", str(path)])
            == 0
        )
        paths.append(str(path))
    capsys.readouterr()
    assert main(["solo-compare", paths[0], "--against", paths[0]]) == 0
    assert "+0.00 [+0.00, +0.00]; better / equal / worse on 0 / 3 / 0" in (capsys.readouterr().out)
    assert main(["solo-compare", paths[0], "--against", paths[1]]) == 0
    assert "paired difference (greedy) - (random) over 3 deals:" in capsys.readouterr().out
