"""The tournament arena: statistics, seeding (paired decks, rotated seats), determinism
across workers and backends, records, the CLI. Only the random and greedy bots (greedy
games take about 0.1 s), so every run here is a handful of games."""

from __future__ import annotations

import csv
import json
import sys

import pytest

from agents.arena import (
    ArenaResult,
    GameRow,
    bot_seed,
    copied_spec,
    copies,
    deck_seed,
    mean_interval,
    run_arena,
    wilson_interval,
)
from agents.catalog import BOTS, _build_bot  # internals: the catalog's builder (random2)
from agents.parallel import run_jobs
from carcassonne_env import Game, Rules
from carcassonne_env.bots import factory
from carcassonne_env.cli import main


def outcomes(result) -> list[tuple]:
    """Everything about the games but the timings."""
    return [
        (r.table, r.game, r.deck, r.deck_seed, r.rotation, r.bots, r.scores, r.winners, r.moves)
        for r in result.rows
    ]


def ratings(result) -> list[tuple]:
    return [(s.bot, result.ratings[s.bot]) for s in result.leaderboard]


@pytest.fixture
def random2(monkeypatch):
    """A third distinct bot spec (a random bot under another name) for multi-table runs;
    only in this process, so only with workers=1."""
    monkeypatch.setitem(BOTS, "random2", "carcassonne_env.bots.simple:RandomAgent")
    # internals: registered for this test only (`factory.register_bots` has no undo)
    monkeypatch.setitem(factory._FACTORIES, "random2", _build_bot)
    return "random2"


@pytest.fixture(scope="module")
def duel():
    return run_arena(["random", "greedy"], games=6, seed=3, progress=False)


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(1 - hi) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(5.5, 11) == pytest.approx(wilson_interval(5, 10), abs=0.02)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_mean_interval():
    assert mean_interval([3.0]) is None
    lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0])  # mean 2.5, s = 1.291
    assert lo == pytest.approx(2.5 - 1.959964 * 1.290994 / 2, abs=1e-5)
    assert hi == pytest.approx(2.5 + 1.959964 * 1.290994 / 2, abs=1e-5)


def test_paired_decks_and_rotated_seats(duel):
    assert duel.tables == [("random", "greedy")]
    assert len(duel.rows) == 6
    for deck in range(3):
        a, b = (r for r in duel.rows if r.deck == deck)
        assert a.deck_seed == b.deck_seed == deck_seed(3, deck)
        assert (a.rotation, b.rotation) == (0, 1)
        assert a.bots == ("random", "greedy") and b.bots == ("greedy", "random")
        # The deck is Game(rules, seed=deck_seed): the same tiles in both games.
        assert (
            Game(Rules(players=2), seed=a.deck_seed).tile_order()
            == Game(Rules(players=2), seed=b.deck_seed).tile_order()
        )
    assert len({r.deck_seed for r in duel.rows}) == 3


def test_common_decks_across_tables(random2):
    result = run_arena(["random", random2, "greedy"], games=4, seed=5, progress=False)
    assert result.tables == [("random", "random2"), ("random", "greedy"), ("random2", "greedy")]
    seeds = [[r.deck_seed for r in result.rows if r.table == t] for t in range(3)]
    assert seeds[0] == seeds[1] == seeds[2] == [deck_seed(5, d) for d in (0, 0, 1, 1)]


def test_row_statistics(duel):
    for row in duel.rows:
        assert 0 < sum(row.moves) <= 71  # one act() per turn, at most one per tile
        assert all(t >= 0 for t in row.seconds)
        top = max(row.scores)
        assert row.winners == tuple(s for s in (0, 1) if row.scores[s] == top)
        assert row.margin(0) == -row.margin(1) == row.scores[0] - row.scores[1]
    board = {s.bot: s for s in duel.leaderboard}
    assert board["random"].games == board["greedy"].games == 6
    assert board["random"].wins == board["greedy"].losses
    assert board["random"].mean_margin == pytest.approx(-board["greedy"].mean_margin)
    assert board["greedy"].moves == sum(r.moves[r.bots.index("greedy")] for r in duel.rows)
    assert board["greedy"].seconds_per_move > 0
    pairs = duel.pairwise()
    assert pairs["greedy", "random"] == duel.table_standings[0][1]
    assert pairs["greedy", "random"].win_rate == pytest.approx(
        1 - pairs["random", "greedy"].win_rate
    )


def test_same_seed_same_results_other_seed_differs(duel):
    again = run_arena(["random", "greedy"], games=6, seed=3, progress=False)
    assert outcomes(again) == outcomes(duel) and ratings(again) == ratings(duel)
    other = run_arena(["random", "greedy"], games=6, seed=4, progress=False)
    assert [r.deck_seed for r in other.rows] != [r.deck_seed for r in duel.rows]
    assert [r.scores for r in other.rows] != [r.scores for r in duel.rows]


def test_same_results_whatever_the_workers():
    # 2 workers: spawned processes and a different split into jobs.
    one = run_arena(["random", "greedy"], games=4, seed=11, workers=1, progress=False)
    two = run_arena(["random", "greedy"], games=4, seed=11, workers=2, progress=False)
    assert outcomes(one) == outcomes(two)
    assert ratings(one) == ratings(two)


def test_a_game_does_not_depend_on_the_other_bots(random2):
    """Bot seeds depend on (seed, deck, seat, spec) only: the random-vs-greedy games of a
    gauntlet are those of a plain duel."""
    gauntlet = run_arena(["random", random2], gauntlet="greedy", games=4, seed=2, progress=False)
    assert gauntlet.bots == ["greedy", "random", "random2"]
    assert gauntlet.tables == [("greedy", "random"), ("greedy", "random2")]
    assert all("greedy" in r.bots for r in gauntlet.rows)
    duel = run_arena(["random", "greedy"], games=4, seed=2, progress=False)
    in_gauntlet = {(r.deck, r.bots): r.scores for r in gauntlet.rows if r.table == 0}
    assert in_gauntlet == {(r.deck, r.bots): r.scores for r in duel.rows}
    assert "greedy vs random2" in gauntlet.to_markdown()


def test_three_players(random2):
    result = run_arena(["random", random2, "greedy"], players=3, games=3, seed=1, progress=False)
    assert result.tables == [("random", "random2", "greedy")]
    assert [r.bots for r in result.rows] == [
        ("random", "random2", "greedy"),
        ("random2", "greedy", "random"),
        ("greedy", "random", "random2"),
    ]
    assert len({r.deck_seed for r in result.rows}) == 1
    for row in result.rows:
        assert len(row.scores) == len(row.moves) == len(row.seconds) == 3
        assert row.margin(row.winners[0]) >= 0
        assert all(
            row.margin(s) == row.scores[s] - max(row.scores[k] for k in range(3) if k != s)
            for s in range(3)
        )
    assert result.pairwise() == {}
    assert all(s.games == 3 for s in result.leaderboard)
    text = result.to_markdown()
    assert "against the column" not in text and "random vs random2 vs greedy" in text


def test_a_spec_given_twice_fills_two_seats_as_labelled_copies():
    """ "greedy" twice at 3 players: one table, random against two greedy bots, each copy
    with its own seat, seed and results; a copy plays as the bot it copies."""
    assert copies(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"]
    assert copied_spec("mcts:iterations=5#2") == "mcts:iterations=5"
    result = run_arena(["random", "greedy", "greedy"], players=3, games=6, seed=5, progress=False)
    assert result.tables == [("random", "greedy", "greedy#2")]
    assert bot_seed(5, 0, 1, "greedy") != bot_seed(5, 0, 1, "greedy#2")
    board = {s.bot: s for s in result.leaderboard}
    assert sorted(board) == ["greedy", "greedy#2", "random"]
    assert all(s.games == 6 and s.moves > 0 for s in board.values())
    assert sorted(r.bots.index("greedy#2") for r in result.rows) == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ValueError, match="give those labels once"):
        run_arena(["random", "greedy", "greedy", "greedy#2"], players=3, progress=False)


def test_a_top_score_shared_by_three_seats_is_a_third_of_a_win_each():
    rows = [
        GameRow(0, g, 0, 0, g, ("a", "b", "c"), scores, winners, (1, 1, 1), (0.0, 0.0, 0.0))
        for g, (scores, winners) in enumerate(
            [((5, 5, 5), (0, 1, 2)), ((6, 6, 1), (0, 1)), ((9, 2, 1), (0,))]
        )
    ]
    result = ArenaResult(
        bots=["a", "b", "c"],
        players=3,
        games=3,
        seed=0,
        rules=Rules(players=3),
        gauntlet=None,
        tables=[("a", "b", "c")],
        rows=rows,
    )
    board = {s.bot: s for s in result.leaderboard}
    assert board["a"].win_rate == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert board["b"].win_rate == pytest.approx((1 / 3 + 1 / 2) / 3)
    assert board["c"].win_rate == pytest.approx(1 / 9)
    assert sum(s.win_rate for s in board.values()) == pytest.approx(1)
    assert (board["a"].wins, board["a"].draws, board["c"].draws) == (1, 2, 1)


def test_three_players_csv(random2, tmp_path):
    result = run_arena(["random", random2, "greedy"], players=3, games=3, seed=1, progress=False)
    result.to_csv(tmp_path / "games.csv")
    with open(tmp_path / "games.csv", newline="") as f:
        lines = list(csv.DictReader(f))
    assert len(lines) == 3
    assert [lines[0][f"bot_{s}"] for s in range(3)] == ["random", "random2", "greedy"]
    assert [int(lines[1][f"score_{s}"]) for s in range(3)] == list(result.rows[1].scores)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"bots": ["random", "greedy"], "games": 3}, "multiple of players=2"),
        ({"bots": ["random", "greedy"], "games": 0}, "multiple"),
        ({"bots": ["random", "nobody"]}, "unknown bot 'nobody'"),
        ({"bots": ["random", "random#2", "random"]}, "distinct"),
        ({"bots": ["random"]}, "at least 2 bots"),
        ({"bots": ["random", "greedy"], "players": 3, "games": 3}, "at least 3 bots"),
        ({"bots": ["random", "greedy"], "rules": Rules(variant="solo")}, "solo"),
        ({"bots": ["random", "greedy"], "players": 3, "rules": Rules(players=2)}, "players=3"),
        ({"bots": ["random", "greedy"], "seed": -1}, "seed"),
        ({"bots": ["random", "greedy"], "workers": 0}, "workers"),
        ({"bots": ["random", "greedy"], "backend": "mpi"}, "unknown backend"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_arena(progress=False, **kwargs)


def test_records_replay(tmp_path):
    result = run_arena(
        ["random", "greedy"], games=2, seed=7, records_dir=tmp_path / "rec", progress=False
    )
    files = sorted((tmp_path / "rec").iterdir())
    assert [f.name for f in files] == ["t00_g00000.json", "t00_g00001.json"]
    for path, row in zip(files, result.rows, strict=True):
        record = json.loads(path.read_text())
        assert record["bots"] == list(row.bots)
        assert record["arena"]["deck_seed"] == row.deck_seed
        game = Game.from_record(record)
        assert game.done and tuple(game.scores) == row.scores
        assert game.tile_order() == Game(Rules(players=2), seed=row.deck_seed).tile_order()


def test_ratings_rank_greedy_above_random():
    result = run_arena(["random", "greedy"], games=20, seed=0, progress=False)
    first, second = result.leaderboard
    assert (first.bot, second.bot) == ("greedy", "random")
    assert first.win_rate >= 0.9 and first.mean_margin > 10
    assert result.ratings["greedy"].ordinal > result.ratings["random"].ordinal
    assert first.win_lo > 0.5


def test_outputs(duel, tmp_path):
    text = duel.to_markdown()
    assert "| rank | bot | rating |" in text and "| greedy | - |" in text
    duel.to_json(tmp_path / "s.json", games=True)
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["games_per_table"] == 6 and data["rules"] == Rules(players=2).to_dict()
    assert [e["bot"] for e in data["leaderboard"]] == [s.bot for s in duel.leaderboard]
    assert {"mu", "sigma", "ordinal", "seconds_per_move", "win_lo"} <= set(data["leaderboard"][0])
    assert [
        GameRow(**{k: tuple(v) if isinstance(v, list) else v for k, v in g.items()})
        for g in data["games"]
    ] == duel.rows
    duel.to_csv(tmp_path / "g.csv")
    with open(tmp_path / "g.csv", newline="") as f:
        lines = list(csv.DictReader(f))
    assert len(lines) == 6 and lines[1]["bot_0"] == "greedy"
    assert lines[0]["winners"] == " ".join(map(str, duel.rows[0].winners))


def test_bot_seed_depends_on_spec_and_seat():
    seeds = {bot_seed(0, 0, seat, spec) for seat in (0, 1) for spec in ("a", "b")}
    assert len(seeds) == 4
    assert bot_seed(0, 0, 0, "a") != bot_seed(1, 0, 0, "a") != bot_seed(0, 1, 0, "a")


def test_cli(tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(
            [
                "arena",
                "--bots",
                "random,greedy",
                "--games",
                "2",
                "--seed",
                "1",
                "--no-progress",
                "--out",
                str(out),
                "--records",
                str(tmp_path / "r"),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "| 1 | greedy |" in printed or "| 1 | random |" in printed
    assert sorted(p.name for p in out.iterdir()) == [
        "games.csv",
        "leaderboard.csv",
        "leaderboard.md",
        "summary.json",
    ]
    assert json.loads((out / "summary.json").read_text())["seed"] == 1
    assert (out / "leaderboard.md").read_text() == printed
    assert len(list((tmp_path / "r").iterdir())) == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--games", "3"], "multiple of players=2"),
        (["--bots", "random,nobody"], "unknown bot"),
        (["--ray-address", "auto"], "needs backend='ray'"),
    ],
)
def test_cli_errors(argv, message, capsys):
    assert main(["arena", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("carcassonne: error: ") and message in err


def test_cli_has_no_solo_options(capsys):
    with pytest.raises(SystemExit) as exit_:  # the solo variant is not a tournament
        main(["arena", "--solo"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --solo" in capsys.readouterr().err


def test_ray_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(ImportError, match=r'the Ray backend needs Ray: pip install -e ".*\[ray\]"'):
        list(run_jobs(abs, [1], backend="ray", progress=False))


def test_ray_backend_same_results():
    ray = pytest.importorskip("ray")
    process = run_arena(["random", "greedy"], games=4, seed=9, progress=False)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = run_arena(
            ["random", "greedy"], games=4, seed=9, workers=2, backend="ray", progress=False
        )
        jobs = [3, [1, 2], "a", None]  # more jobs than workers: results in job order
        assert list(run_jobs(json.dumps, jobs, workers=2, backend="ray", progress=False)) == [
            json.dumps(j) for j in jobs
        ]
    finally:
        ray.shutdown()
    assert outcomes(on_ray) == outcomes(process)
    assert ratings(on_ray) == ratings(process)
