"""`agents.benchmark`: the standard protocol (the reference tables, their opponents, the
budgets, the summary) played on a tiny budget by bots of a test file
(tests/support/user_bots.py), built from their ``module:function`` specs as a user's own
bot is."""

from __future__ import annotations

import json

import pytest

import agents.benchmark as benchmark
from agents.benchmark import (
    FULL,
    QUICK,
    TABLES,
    Budget,
    budget_name,
    opponents,
    run_benchmark,
)
from carcassonne_env.cli_errors import Interrupted
from tests.support import user_bots
from tests.support.user_bots import SHIPPED

TINY = Budget(decks=1, deals=2, mcts_iterations=4)
MINE = f"{user_bots.__name__}:make_random_mover"


@pytest.fixture
def shipped(monkeypatch):
    """The learned references of `SHIPPED` only."""
    monkeypatch.setattr(benchmark, "shipped_models", lambda: list(SHIPPED))


@pytest.fixture(scope="module")
def tiny_run():
    """One tiny run of the test bot (the shipped models of `SHIPPED`)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(benchmark, "shipped_models", lambda: list(SHIPPED))
        return run_benchmark(MINE, budget=TINY, seed=3, progress=False)


def _outcomes(result) -> list:
    """What a run's results are, all but the timings: each table's line without its ms
    per move, and every game's and deal's scores."""
    lines = [{k: v for k, v in t.line().items() if k != "ms_per_move"} for t in result.tables]
    games = [
        [(row.bots, row.scores) for row in t.arena.rows] if t.arena else [] for t in result.tables
    ]
    deals = [[[r.scores for r in run.rows] for run in t.solo] for t in result.tables]
    return [lines, games, deals]


def test_the_budgets():
    assert (FULL.decks, FULL.deals, FULL.mcts_iterations) == (100, 1000, 200)
    assert (QUICK.decks, QUICK.deals, QUICK.mcts_iterations) == (20, 100, 200)
    assert [budget_name(b) for b in (FULL, QUICK, TINY)] == ["full", "quick", "custom"]
    with pytest.raises(ValueError, match="decks must be an integer >= 1, got 0"):
        Budget(decks=0, deals=1)


def test_the_opponents_of_each_table(monkeypatch):
    """The references, the table's model once it ships, fillers up to a game's seats;
    never the bot itself."""
    monkeypatch.setattr(benchmark, "shipped_models", lambda: list(SHIPPED))
    by_name = {t.name: t for t in TABLES}
    assert list(by_name) == ["2p", "3p", "4p", "2p-expansions", "solo"]

    def of(bot, budget=FULL):
        return {name: opponents(t, bot, budget) for name, t in by_name.items()}

    assert of("mybot:make", TINY) == {
        "2p": ("heuristic", "mcts:iterations=4", "sb3:model=ppo_duel_rl"),
        "3p": ("heuristic", "mcts:iterations=4"),
        "4p": ("heuristic", "mcts:iterations=4", "greedy"),
        "2p-expansions": ("heuristic", "mcts:iterations=4"),
        "solo": ("heuristic", "sb3:model=ppo_solo_rl"),
    }
    assert of("heuristic") == {
        "2p": ("mcts:iterations=200", "sb3:model=ppo_duel_rl"),
        "3p": ("mcts:iterations=200", "greedy"),
        "4p": ("mcts:iterations=200", "greedy", "random"),
        "2p-expansions": ("mcts:iterations=200",),
        "solo": ("sb3:model=ppo_solo_rl",),
    }
    assert of("greedy")["4p"] == ("heuristic", "mcts:iterations=200", "random")
    monkeypatch.setattr(benchmark, "shipped_models", lambda: ["ppo_3p_rl", "ppo_4p_rl"])
    assert of("mybot:make") == {
        "2p": ("heuristic", "mcts:iterations=200"),
        "3p": ("heuristic", "mcts:iterations=200", "sb3:model=ppo_3p_rl"),
        "4p": ("heuristic", "mcts:iterations=200", "sb3:model=ppo_4p_rl"),
        "2p-expansions": ("heuristic", "mcts:iterations=200"),
        "solo": ("heuristic",),
    }


def test_the_summary_has_every_table(tiny_run, tmp_path):
    """Every table with its games (decks x seat rotations per lineup) or deals, the win
    share beside the fair share, the solo references on the same deals; written as
    summary.json and summary.md."""
    assert tiny_run.complete and tiny_run.budget_name == "custom"
    tiny_run.write(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["format"] == "carcassonne-env/benchmark"
    assert (summary["bot"], summary["seed"], summary["complete"]) == (MINE, 3, True)
    assert (summary["decks"], summary["deals"], summary["mcts_iterations"]) == (1, 2, 4)
    tables = {t["table"]: t for t in summary["tables"]}
    assert list(tables) == summary["tables_planned"] == [t.name for t in TABLES]
    # games of the bot: lineups x players x decks
    games = {name: tables[name].get("games") for name in tables}
    assert games == {"2p": 3 * 2, "3p": 3, "4p": 4, "2p-expansions": 2 * 2, "solo": None}
    fair = {name: tables[name].get("fair_share") for name in tables}
    assert fair == {"2p": 0.5, "3p": 1 / 3, "4p": 0.25, "2p-expansions": 0.5, "solo": None}
    for name in ("2p", "3p", "4p", "2p-expansions"):
        line = tables[name]
        assert line["ci95"][0] <= line["win_share"] <= line["ci95"][1]
        assert line["arena"]["gauntlet"] == MINE
        assert line["arena"]["games_played"] == line["games"]  # every game is the bot's
        assert line["rules"]["players"] == {"2p": 2, "3p": 3, "4p": 4}.get(name, 2)
        assert line["ms_per_move"] > 0 and "ordinal" in line["rating"]
    assert tables["2p-expansions"]["rules"]["expansions"] == [
        "inns_cathedrals",
        "traders_builders",
    ]
    solo = tables["solo"]
    assert solo["deals"] == 2 and solo["rules"]["variant"] == "solo"
    assert [r["bot"] for r in solo["references"]] == ["heuristic", "sb3:model=ppo_solo_rl"]
    assert [s["deals"] for s in solo["solo"]] == [2, 2, 2]
    assert len({s["deals_fingerprint"] for s in solo["solo"]}) == 1  # the same deals
    assert [d["reference"] for d in solo["paired_differences"]] == [
        "heuristic",
        "sb3:model=ppo_solo_rl",
    ]
    markdown = (tmp_path / "summary.md").read_text()
    table = tiny_run.to_markdown()
    assert markdown.startswith(table)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split(" | ")[0] for r in rows[1:]] == [f"| {t.title}" for t in TABLES]
    assert "fair share 0.250" in rows[3] and "mean score" in rows[5]
    for t in TABLES:
        assert f"## {t.title}" in markdown


def test_the_same_seed_gives_the_same_table(tiny_run, shipped):
    again = run_benchmark(MINE, budget=TINY, seed=3, progress=False)
    assert _outcomes(again) == _outcomes(tiny_run)
    other = run_benchmark(MINE, budget=TINY, seed=4, progress=False)
    assert _outcomes(other) != _outcomes(tiny_run)  # the seed picks the decks and deals


def test_a_table_the_bot_cannot_play_is_reported(shipped):
    """A bot for the 2-player base game only (as a shipped 2-player model): the other
    tables say why they were not played; a bot that plays no table is refused."""
    spec = f"{user_bots.__name__}:make_two_players_only"
    result = run_benchmark(spec, budget=TINY, progress=False)
    lines = [t.line() for t in result.tables]
    assert [line.get("refused") for line in lines] == [None] + [
        "this bot plays the 2-player base game only"
    ] * 4
    assert result.complete and lines[0]["games"] == 6
    assert "not played: this bot plays the 2-player base game only" in result.to_markdown()
    with pytest.raises(ValueError, match=r"cannot play any benchmark table \(2p: this bot"):
        run_benchmark(f"{user_bots.__name__}:make_refuser", budget=TINY, progress=False)


def test_a_bot_that_fails_in_a_game_is_reported_there_and_the_other_tables_play(
    shipped, tmp_path, capsys
):
    """A bot whose third move of a 3-player game raises: that table says so, the others
    are played and written, and the command fails in one line."""
    from carcassonne_env.cli import main

    spec = f"{user_bots.__name__}:make_fails_at_three_players"
    argv = ["benchmark", spec, "--out", str(tmp_path / "run"), "--decks", "1", "--deals", "2"]
    assert main([*argv, "--mcts-iterations", "4", "--no-progress"]) == 1
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    lines = {t["table"]: t for t in summary["tables"]}
    assert lines["3p"]["refused"] == "stopped by an error: RuntimeError: a bug at 3 players"
    assert [lines[name]["games"] for name in ("2p", "4p", "2p-expansions")] == [6, 4, 4]
    assert lines["solo"]["deals"] == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (
        f"carcassonne benchmark: error: {spec} was stopped by an error at 3p (see the "
        f"table); the other tables' results are above and in {tmp_path / 'run'}"
    )


def test_ctrl_c_keeps_the_games_played(shipped):
    """Stopped in the second lineup of the first table (its warm-up move, then two games
    of about 36 moves each against the heuristic): the games of the first lineup are
    kept (the arena keeps the games of its finished jobs)."""
    user_bots.stop_at(players=2, move=80)
    spec = f"{user_bots.__name__}:make_stopped"
    with pytest.raises(Interrupted, match=r"make_stopped: 0 of 5 tables played") as caught:
        run_benchmark(spec, budget=TINY, progress=False)
    partial = caught.value.partial
    assert not partial.complete and partial.to_dict()["complete"] is False
    [two] = partial.tables
    assert two.table.name == "2p" and not two.complete
    assert [row.bots for row in two.arena.rows] == [(spec, "heuristic"), ("heuristic", spec)]
    assert two.line()["games"] == 2
    assert "Interrupted: the results of what was played." in partial.to_markdown()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"workers": 0}, "workers must be an integer >= 1"),
        ({"budget": 3}, "budget must be a Budget"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_benchmark("greedy", **kwargs)


def test_a_bad_spec_fails_before_anything_is_played():
    with pytest.raises(ValueError, match="unknown bot 'alphago'"):
        run_benchmark("alphago", budget=TINY, progress=False)
