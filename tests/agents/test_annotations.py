"""Annotated records (`carcassonne play --annotate / --coach`, agents.annotations)."""

from __future__ import annotations

import json

import pytest

from agents.annotations import Coach, annotate, explain
from carcassonne_env import Game, Move, Rules, make_bot
from carcassonne_env.cli import main
from carcassonne_env.records import annotations_block, check_annotations
from carcassonne_env.rendering.text import move_text
from carcassonne_env.viewer import view_data


def test_heuristic_explains_its_choice():
    game = Game(seed=4)
    bot = make_bot("heuristic", seed=0)
    move = bot.act(game)
    note = explain(bot, game, top_k=3)
    assert note["kind"] == "scores" and len(note["top"]) == 3
    top = note["top"][0]
    assert note["value"] == pytest.approx(top["score"], abs=1e-3)
    chosen = [
        t
        for t in note["top"]
        if (t["x"], t["y"], t["rotation"], t["follower"])
        == (move.x, move.y, move.rotation, move.follower)
    ]
    assert chosen and chosen[0]["score"] == pytest.approx(note["value"], abs=1e-3)
    weights = [t["weight"] for t in note["top"]]
    assert weights == sorted(weights, reverse=True) and 0 < sum(weights) <= 1 + 1e-6


def test_mcts_visits_and_random_bot_exposes_nothing():
    game = Game(seed=4)
    bot = make_bot("mcts:iterations=60", seed=0)
    move = bot.act(game)
    note = explain(bot, game, top_k=4)
    assert note["kind"] == "visits"
    assert sum(t["visits"] for t in note["top"]) <= 60
    assert (note["top"][0]["x"], note["top"][0]["y"]) == (move.x, move.y) or note["top"][0][
        "visits"
    ] == max(t["visits"] for t in note["top"])
    assert explain(make_bot("random", seed=0), game) is None


def test_coach_points_lost():
    game = Game(seed=5)
    coach = Coach("heuristic")
    moves, values = coach.yardstick.move_values(game)
    worst = moves[int(values.argmin())]
    note = annotate(make_bot("random", seed=0), game, worst, coach=coach)
    assert note["kind"] == "none" and note["top"] == []
    assert note["coach"]["points_lost"] == pytest.approx(values.max() - values.min(), abs=1e-2)
    best = moves[int(values.argmax())]
    assert annotate(make_bot("random"), game, best, coach=coach)["coach"][
        "points_lost"
    ] == pytest.approx(0, abs=1e-6)


def test_coach_best_names_its_figure_and_feature():
    """Issue 28: the coach's best move carries its figure, and its text names the figure
    and the feature: here the heuristic's best puts a follower on a city that scores at
    once (`play --bots heuristic,greedy --seed 5`, move 2), then a builder on a city."""
    game = Game(seed=5)
    for move in (Move(-1, 0, 2, "road:E"), Move(-2, 0, 3, "city:S")):
        game.play(move)
    coach = Coach("heuristic")
    review = coach.review(game, Move(0, -1, 3, "city:S"))
    assert review == {
        "bot": "heuristic",
        "points_lost": 0.0,
        "best": {"x": 0, "y": -1, "rotation": 3, "follower": "city:S", "figure": "follower"},
        "text": "(0, -1) rot 3, follower on the city (city:S)",
    }
    game = Game(Rules(expansions=("traders_builders", "inns_cathedrals")), seed=3)
    for _ in range(4):
        legal = game.legal_moves()
        game.play(legal[(game.turn * 7) % len(legal)])
    review = coach.review(game, game.legal_moves()[0])
    assert review["best"] == {
        "x": 1,
        "y": -1,
        "rotation": 0,
        "follower": "city:W",
        "figure": "builder",
    }
    assert review["text"] == "(1, -1) rot 0, builder on the city (city:W)"
    assert review["points_lost"] == pytest.approx(2.5, abs=1e-3)
    # a move without a figure says nothing of one; the heuristic's top moves carry theirs
    assert move_text(*Move(2, 0, 1)) == "(2, 0) rot 1"
    assert move_text(*Move(0, 1, 0, "field:S_w", "D", "pig")) == (
        "(0, 1) rot 0 [D], pig on the field (field:S_w)"
    )
    top = explain(coach.bot, game, top_k=40)["top"]
    assert all(("figure" in t) == (t["follower"] is not None) for t in top)
    assert {t.get("figure") for t in top} >= {None, "follower", "builder"}


def test_sb3_policy_probabilities():
    pytest.importorskip("sb3_contrib")
    game = Game(seed=2)
    bot = make_bot("sb3:model=ppo_duel", seed=0)
    move = bot.act(game)
    note = explain(bot, game, top_k=5)
    assert note["kind"] == "policy" and isinstance(note["value"], float)
    top = note["top"][0]
    assert (top["x"], top["y"], top["rotation"], top["follower"]) == tuple(move[:4])
    assert 0 < sum(t["p"] for t in note["top"]) <= 1 + 1e-6


def test_cli_annotate_record_loads_and_views(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert (
        main(
            [
                "play",
                "--bots",
                "heuristic,random",
                "--seed",
                "1",
                "--record",
                str(out),
                "--coach",
                "heuristic",
                "--top-k",
                "3",
            ]
        )
        == 0
    )
    record = json.loads(out.read_text())
    notes = record["annotations"]["moves"]
    assert record["annotations"]["version"] == 1 and len(notes) == len(record["moves"])
    assert all("coach" in n for n in notes)
    for note in notes:  # the coach's best in words, its figure in the move
        best = note["coach"]["best"]
        assert note["coach"]["text"] == move_text(
            best["x"],
            best["y"],
            best["rotation"],
            best["follower"],
            figure=best.get("figure", "follower"),
        )
        assert ("figure" in best) == (best["follower"] is not None)
    assert notes[0]["kind"] == "scores" and notes[1]["kind"] == "none"
    Game.from_record(record)  # the schema accepts it
    data = view_data(record)
    assert data["annotated"] and data["turns"][0]["annotation"] == notes[0]
    # An older record (no annotations) still loads; a newer annotations version is named.
    Game.from_record({k: v for k, v in record.items() if k != "annotations"})
    newer = dict(record, annotations={"version": 2, "moves": []})
    Game.from_record(newer)  # informative: the game itself replays
    with pytest.raises(ValueError, match="unsupported annotations version 2"):
        check_annotations(newer)
    with pytest.raises(ValueError, match="annotations.moves"):
        check_annotations(dict(record, annotations=annotations_block(notes[:3])))
    bad = json.loads(out.read_text())
    bad["annotations"]["moves"][2]["top"][0]["rotation"] = 7
    with pytest.raises(ValueError, match=r"annotations\.moves\[2\]"):
        Game.from_record(bad)
    capsys.readouterr()
    assert main(["play", "--annotate"]) == 2
    assert "--record" in capsys.readouterr().err


def test_arena_records_annotated(tmp_path, capsys):
    from agents.arena import run_arena

    run_arena(["heuristic", "greedy"], games=2, records_dir=tmp_path, annotate=True, progress=False)
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*.json"))]
    assert len(records) == 2
    for record in records:
        notes = record["annotations"]["moves"]
        assert len(notes) == len(record["moves"])
        seat = record["bots"].index("heuristic")
        assert all(
            (n is not None) == (m["player"] == seat)
            for n, m in zip(notes, record["moves"], strict=True)
        )
        Game.from_record(record)
    with pytest.raises(ValueError, match="records_dir"):
        run_arena(["heuristic", "greedy"], games=2, annotate=True, progress=False)
    assert main(["arena", "--annotate", "--games", "2"]) == 2
    assert "--records" in capsys.readouterr().err
