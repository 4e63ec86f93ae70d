"""The solo benchmark (`agents.solo_bench`, `carcassonne solo-bench`)."""

from __future__ import annotations

import csv
import json
import math
import sys
from dataclasses import replace

import pytest
from PIL import Image

from agents.solo_bench import (
    PERCENTILES,
    DealResult,
    SoloBenchResult,
    deal_bot_seed,
    deals_fingerprint,
    file_for_bot,
    markdown_table,
    run_solo_bench,
)
from carcassonne_env import Game, Rules, make_bot
from carcassonne_env.cli import main

SOLO = Rules(variant="solo")


@pytest.fixture(scope="module")
def small() -> SoloBenchResult:
    return run_solo_bench("random", deals=12, first_deal=5, seed=3, progress=False)


def _naive_percentile(values: list[int], q: float) -> float:
    xs = sorted(values)
    h = (len(xs) - 1) * q / 100
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def _outcomes(res: SoloBenchResult) -> list[DealResult]:
    """The rows without their timings, which vary from run to run."""
    return [replace(r, act_seconds=0.0) for r in res.rows]


def _synthetic(rows: list[tuple[int, str]]) -> SoloBenchResult:
    """A result with given (result, end reason) rows: end B never happens to random play."""
    return SoloBenchResult(
        bot="fake",
        rules=SOLO,
        seed=0,
        first_deal=0,
        rows=[
            DealResult(
                deal_seed=i,
                bot_seed=i,
                result=v,
                end_reason=e,
                scores=(v, v + 1, v + 2),
                moves=10,
                act_seconds=0.01 * (i + 1),
                tiles="",
            )
            for i, (v, e) in enumerate(rows)
        ],
    )


def test_statistics_match_a_naive_recomputation(small):
    s = small.summary()
    xs = [r.result for r in small.rows]
    n = len(xs)
    mean = sum(xs) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = 1.959963984540054 * std / math.sqrt(n)
    assert s["deals"] == n == 12
    assert s["mean"] == pytest.approx(mean, rel=1e-12)
    assert s["std"] == pytest.approx(std, rel=1e-12)
    assert s["ci95"] == pytest.approx([mean - half, mean + half], rel=1e-12)
    assert s["median"] == pytest.approx(_naive_percentile(xs, 50), rel=1e-12)
    for q in PERCENTILES:
        assert s[f"p{q}"] == pytest.approx(_naive_percentile(xs, q), rel=1e-12)
    assert (s["min"], s["max"]) == (min(xs), max(xs))
    assert s["distribution"] == {v: xs.count(v) for v in sorted(set(xs))}
    for reason in ("A", "B"):
        sel = [r.result for r in small.rows if r.end_reason == reason]
        e = s["end_reasons"][reason]
        assert e["deals"] == len(sel) and e["share"] == pytest.approx(len(sel) / n)
        assert e["mean_result"] == (pytest.approx(sum(sel) / len(sel)) if sel else None)
    moves = sum(r.moves for r in small.rows)
    assert s["mean_moves"] == pytest.approx(moves / n)
    assert s["seconds_per_move"] == pytest.approx(sum(r.act_seconds for r in small.rows) / moves)
    assert s["seconds_per_move"] > 0
    for r in small.rows:
        assert r.result == min(r.scores) and r.end_reason in ("A", "B") and r.moves > 0


def test_end_reasons_and_single_deal_statistics():
    res = _synthetic([(10, "A"), (20, "B"), (30, "B"), (12, "A")])
    s = res.summary()
    assert s["end_reasons"]["A"] == {"deals": 2, "share": 0.5, "mean_result": 11.0}
    assert s["end_reasons"]["B"] == {"deals": 2, "share": 0.5, "mean_result": 25.0}
    assert s["median"] == 16.0 and s["p25"] == 11.5
    assert s["seconds_per_move"] == pytest.approx(0.1 / 40)
    row = res.to_markdown().splitlines()[2]
    assert "| 50.0% | 11.00 | 50.0% | 25.00 | 2.5 |" in row
    slow = replace(res, rows=[replace(r, act_seconds=12.3456) for r in res.rows])
    assert slow.to_markdown().endswith("| 1235 |")  # ms, no exponent
    one = _synthetic([(7, "A")]).summary()
    assert one["std"] is None and one["ci95"] is None and one["median"] == 7
    assert "7.00 ± -" in _synthetic([(7, "A")]).to_markdown()


def test_deal_seeds_are_published_and_replay(small):
    assert [r.deal_seed for r in small.rows] == list(range(5, 17))
    assert small.first_deal == 5 and small.summary()["last_deal"] == 16
    assert [r.bot_seed for r in small.rows] == [deal_bot_seed(3, d) for d in range(5, 17)]
    assert len({r.bot_seed for r in small.rows}) == 12
    assert deal_bot_seed(3, 5) != deal_bot_seed(4, 5) != 5
    for r in small.rows[:4]:
        game, bot, moves = Game(SOLO, seed=r.deal_seed), make_bot("random", r.bot_seed), 0
        assert "".join(game.tile_order()) == r.tiles
        while not game.done:
            game.play(bot.act(game))
            moves += 1
        assert (game.result, game.end_reason, tuple(game.scores), moves) == (
            r.result,
            r.end_reason,
            r.scores,
            r.moves,
        )
        saved, bot = Game(SOLO, tile_order=r.tiles), make_bot("random", r.bot_seed)
        while not saved.done:  # the stored tile order replays without the seed
            saved.play(bot.act(saved))
        assert saved.scores == game.scores
    again = run_solo_bench("random", deals=3, first_deal=5, seed=3, progress=False)
    assert _outcomes(again) == _outcomes(small)[:3]
    other = run_solo_bench("random", deals=12, first_deal=5, seed=4, progress=False)
    assert [r.bot_seed for r in other.rows] != [r.bot_seed for r in small.rows]


def test_the_published_deals_have_not_changed(small):
    # docs/solo_bench.md publishes this fingerprint of deals 0..999: if numpy's shuffle
    # ever changes, the deal seeds name other deals and this fails.
    assert deals_fingerprint(0, 1000) == "85f0e0815ba63567"
    assert small.summary()["deals_fingerprint"] == deals_fingerprint(5, 12)
    assert len(small.rows[0].tiles) == 71


def test_same_results_whatever_the_worker_count():
    one = run_solo_bench("greedy", deals=6, first_deal=40, workers=1, progress=False)
    two = run_solo_bench("greedy", deals=6, first_deal=40, workers=2, progress=False)
    assert _outcomes(one) == _outcomes(two)
    assert two.workers == 2 and two.metadata["python"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rules": Rules(players=2)}, "solo rules"),
        ({"rules": "solo"}, "solo rules"),
        ({"deals": 0}, "deals must be"),
        ({"deals": -3}, "deals must be"),
        ({"deals": 2.5}, "deals must be"),
        ({"deals": True}, "deals must be"),
        ({"first_deal": -1}, "first_deal must be"),
        ({"seed": -1}, "seed must be"),
        ({"workers": 0}, "workers must be"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_solo_bench("random", progress=False, **kwargs)


def test_unknown_bot_raises_value_error():
    with pytest.raises(ValueError, match="unknown bot"):
        run_solo_bench("alphago", deals=1, progress=False)


def test_histogram_png(small, tmp_path):
    for res, name in ((small, "small.png"), (_synthetic([(10, "A"), (20, "B")]), "ab.png")):
        path = tmp_path / name
        res.histogram_png(path)
        with Image.open(path) as img:
            assert img.format == "PNG" and img.size == (800, 450)
            colours = img.convert("RGB").getcolors(1 << 16)
            assert colours is not None and len(colours) > 5  # something was drawn


def test_histogram_without_matplotlib(small, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.raises(ImportError, match=r'needs matplotlib: pip install -e ".*\[plot\]"'):
        small.histogram_png(tmp_path / "h.png")


def test_json_and_csv(small, tmp_path):
    small.to_json(tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["summary"]["mean"] == pytest.approx(small.summary()["mean"])
    assert data["rules"]["variant"] == "solo" and len(data["rows"]) == 12
    back = SoloBenchResult.from_json(tmp_path / "r.json")
    assert back.rows == small.rows and back.summary() == small.summary()
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="not a solo benchmark"):
        SoloBenchResult.from_json(tmp_path / "bad.json")
    small.to_csv(tmp_path / "r.csv")
    with open(tmp_path / "r.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [
        "deal_seed",
        "bot_seed",
        "result",
        "end_reason",
        "score_0",
        "score_1",
        "score_2",
        "moves",
        "act_seconds",
        "tiles",
    ]
    assert [int(r["deal_seed"]) for r in rows] == list(range(5, 17))
    assert [int(r["result"]) for r in rows] == [r.result for r in small.rows]
    assert float(rows[0]["act_seconds"]) == small.rows[0].act_seconds
    assert [r["tiles"] for r in rows] == [r.tiles for r in small.rows]


def test_markdown_table_stacks_bots(small):
    table = markdown_table([small, _synthetic([(10, "A"), (20, "B")])]).splitlines()
    assert len(table) == 4 and table[0].startswith("| bot | colours | deals | mean")
    assert table[2].startswith("| random | 3 | 12 (seeds 5-16) |")
    assert table[3].startswith("| fake | 3 | 2 (seeds 0-1) |")
    assert all(line.count("|") == table[0].count("|") for line in table)


def test_four_colours():
    res = run_solo_bench(
        "random", deals=3, rules=Rules(variant="solo", solo_colours=4), progress=False
    )
    assert all(len(r.scores) == 4 and r.result == min(r.scores) for r in res.rows)
    assert res.summary()["colours"] == 4 and "| random | 4 | 3 (seeds 0-2) |" in res.to_markdown()


def test_cli(tmp_path, capsys):
    hist, js, cs = tmp_path / "h.png", tmp_path / "r.json", tmp_path / "r.csv"
    assert (
        main(
            [
                "solo-bench",
                "--bot",
                "random",
                "--deals",
                "4",
                "--first-deal",
                "2",
                "--seed",
                "1",
                "--hist",
                str(hist),
                "--json",
                str(js),
                "--csv",
                str(cs),
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "| random | 3 | 4 (seeds 2-5) |" in out
    with Image.open(hist) as img:
        assert img.format == "PNG"
    res = SoloBenchResult.from_json(js)
    assert res.seed == 1 and [r.deal_seed for r in res.rows] == [2, 3, 4, 5]
    assert len(cs.read_text().splitlines()) == 5
    expected = _outcomes(run_solo_bench("random", deals=4, first_deal=2, seed=1, progress=False))
    assert _outcomes(res) == expected


def test_cli_several_bots_and_errors(tmp_path, capsys):
    assert (
        main(
            [
                "solo-bench",
                "--bot",
                "random, greedy",
                "--deals",
                "2",
                "--solo-colours",
                "4",
                "--json",
                str(tmp_path / "r.json"),
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("| random | 4 |") and out[3].startswith("| greedy | 4 |")
    assert (tmp_path / "r-random.json").exists() and (tmp_path / "r-greedy.json").exists()
    assert file_for_bot("h.png", "mcts:iterations=500").name == "h-mcts_iterations_500.png"
    for argv, message in (
        (["--bot", "alphago"], "unknown bot 'alphago'"),
        (["--bot", " , "], "at least one bot"),
        (["--deals", "0"], "argument --deals: must be >= 1, got 0"),
    ):
        try:  # argparse's own checks exit with status 2, the command's return it
            code = main(["solo-bench", "--no-progress", *argv])
        except SystemExit as exit_:
            code = exit_.code
        assert code == 2
        assert message in capsys.readouterr().err
    # a missing output folder: one line before any work, nothing created
    csv = tmp_path / "no" / "r.csv"
    assert main(["solo-bench", "--no-progress", "--deals", "2", "--csv", str(csv)]) == 2
    assert f"{csv.parent} does not exist (create the folder first)" in capsys.readouterr().err
    assert not csv.parent.exists()
    csv.parent.mkdir()
    assert main(["solo-bench", "--no-progress", "--deals", "2", "--csv", str(csv)]) == 0
    assert len(csv.read_text().splitlines()) == 3


def test_solo_env_reset_deals_a_solo_bench_deal_on_request():
    """``reset(options={"deal": d})`` gives the deck of solo-bench deal d, so a user's own
    loop compares deal for deal with `carcassonne solo-bench`."""
    import gymnasium as gym

    import carcassonne_env  # noqa: F401 - registers the envs

    env = gym.make("Carcassonne/Solo-v0", board_size=16)
    for d in (0, 7):
        env.reset(seed=123, options={"deal": d})
        assert env.unwrapped.game.tile_order() == Game(Rules(variant="solo"), seed=d).tile_order()
    env.reset(seed=123)  # without the option: the env's own draw
    assert env.unwrapped.game.tile_order() != Game(Rules(variant="solo"), seed=7).tile_order()
    with pytest.raises(ValueError, match="deal"):
        env.reset(options={"deal": -1})
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"seed": 3})
