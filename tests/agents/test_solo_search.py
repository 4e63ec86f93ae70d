"""The solo search bot (agents/solo_search.py)."""

import pytest

from agents import registry
from agents.solo_search import SoloSearchAgent
from carcassonne_env import Game, Move, Rules, make_bot

SOLO = Rules(variant="solo")


def _play(agent, deal):
    game = Game(SOLO, seed=deal)
    while not game.done:
        game.play(agent.act(game))
    return game


def test_registered_and_plays_legal_reproducible_games():
    assert registry()["solo-search"] is SoloSearchAgent
    spec = "solo-search:samples=2:top_k=3:depth=2"
    a = _play(make_bot(spec, seed=1), 3)
    b = _play(make_bot(spec, seed=1), 3)
    assert a.to_record()["moves"] == b.to_record()["moves"]
    assert a.result == min(a.scores)
    Game.from_record(a.to_record())  # every move legal, scores replay


def test_evaluate_ranks_candidates_and_keeps_asked_moves():
    game = Game(SOLO, seed=5)
    bot = SoloSearchAgent(seed=0, samples=4, top_k=2, depth=1, halving=0)
    worst = game.legal_moves()[-1]
    stats = bot.evaluate(game, [worst])
    moves = [m for m, _, _ in stats]
    assert worst in moves and len(moves) in (2, 3)
    assert [v for _, _, v in stats] == sorted((v for _, _, v in stats), reverse=True)
    assert all(n == 4 for _, n, _ in stats)


def test_refuses_a_standard_game_and_bad_options():
    with pytest.raises(ValueError, match="solo variant only"):
        SoloSearchAgent(samples=1).evaluate(Game(seed=0))
    with pytest.raises(ValueError, match="not a legal move"):
        SoloSearchAgent(samples=1).evaluate(Game(SOLO, seed=0), [Move(5, 5, 0)])
    with pytest.raises(ValueError, match="samples"):
        SoloSearchAgent(samples=0)
    with pytest.raises(ValueError, match="top_k"):
        make_bot("solo-search:top_k=0")
