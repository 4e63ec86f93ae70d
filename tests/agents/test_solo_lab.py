"""Solo strategy lab: the clairvoyant line (agents/solo_solve.py, `carcassonne
solo-solve`) and the per-move analysis (agents/solo_analyze.py, `carcassonne
solo-analyze`)."""

import json
import re

import pytest

from agents.solo_analyze import analyze_record
from agents.solo_solve import solve_deal
from carcassonne_env import Game, Rules
from carcassonne_env.bots.heuristic import HeuristicAgent
from carcassonne_env.cli import main

SOLO = Rules(variant="solo")
CHEAP = "solo-search:samples=1:top_k=2:depth=0:halving=0"


def test_solve_line_replays_to_its_score_and_beats_its_first_rollout():
    sol = solve_deal(4, seconds=0, top_ks=(2,))
    game = Game.from_record(sol.record)  # every move legal, every score as recorded
    assert game.done and game.result == sol.result
    assert game.tile_order() == Game(SOLO, seed=4).tile_order()  # the deal itself
    assert sol.result >= sol.baseline  # the heuristic's own line is always a candidate
    assert sol.to_dict()["optimal"].startswith("unknown")


def test_solve_top_k_one_is_the_heuristic_line():
    """One candidate per move: the line is the heuristic policy's (first of ties)."""
    sol = solve_deal(6, seconds=0, top_ks=(1,))
    assert sol.result == sol.baseline
    game = Game(SOLO, seed=6)
    bot = HeuristicAgent()
    while not game.done:
        moves, values = bot.move_values(game)
        game.play(moves[int(values.argmax())])
    assert game.result == sol.result


def test_solve_refuses_bad_arguments():
    with pytest.raises(ValueError, match="deal"):
        solve_deal(-1)
    with pytest.raises(ValueError, match="rules"):
        solve_deal(0, rules=Rules())


def _short_solo_record():
    game = Game(SOLO, tile_order="UUUUUAALDE" + "EEE")
    bot = HeuristicAgent(seed=0)
    while not game.done:
        game.play(bot.act(game))
    return game.to_record()


def test_analysis_rows_and_summary():
    record = _short_solo_record()
    a = analyze_record(record, bot=CHEAP)
    assert len(a.moves) == len(record["moves"])
    for m, rec in zip(a.moves, record["moves"], strict=True):
        assert (m.played["x"], m.played["y"], m.played["rotation"]) == (
            rec["x"],
            rec["y"],
            rec["rotation"],
        )
        if m.choices == 1:
            assert m.played_value is None and m.lost == 0
        else:
            assert m.best_value >= m.played_value
            assert m.lost == pytest.approx(m.best_value - m.played_value)
    assert a.result == record["result"]
    line = a.summary()
    assert re.match(r"(lost \d+\.\d points over \d+ moves?; the worst at turn \d+|no move)", line)
    json.dumps(a.to_dict())
    assert a.to_markdown().count("\n|") == len(a.moves) + 1


def test_analysis_refuses_a_standard_game():
    game = Game(seed=0)
    game.play(game.legal_moves()[0])
    with pytest.raises(ValueError, match="solo game"):
        analyze_record(game.to_record(), bot=CHEAP)


def test_cli_solve_and_analyze(tmp_path, capsys):
    out = tmp_path / "sub" / "line.json"
    out.parent.mkdir()  # (no command makes an output's folder)
    assert main(["solo-solve", "--deal", "3", "--seconds", "0", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Not a proof of optimality" in printed
    record = json.loads(out.read_text())
    assert Game.from_record(record).result == record["result"]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(_short_solo_record()))
    assert main(["solo-analyze", str(short), "--bot", CHEAP]) == 0
    assert "| turn |" in capsys.readouterr().out
    assert main(["solo-analyze", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.startswith("carcassonne: error:")
