"""solo-search guided by a learned policy (`guide=`, issue 25): legal play with the
RL-only ``ppo_solo_rl``, and no change at all without a guide."""

import numpy as np
import pytest

from agents.solo_search import SoloSearchAgent
from carcassonne_env import Game, Rules, make_bot

pytest.importorskip("sb3_contrib")

SOLO = Rules(variant="solo")

# The first 8 moves of deal 7 by SoloSearchAgent(seed=3, samples=2, top_k=3, depth=2)
# without a guide: the guide must leave the unguided bot bit-for-bit the same. (Checked
# against the code before `guide` existed; re-recorded when `core.playout.rng_below`
# changed how it draws, which changes every determinisation.)
UNGUIDED_DEAL7 = [
    ("K", 0, -1, 2, "city:S"),
    ("S", -1, 0, 3, "road:E"),
    ("E", -1, -1, 2, "city:S"),
    ("F", -2, 0, 0, None),
    ("P", 1, 0, 1, "city:N"),
    ("B", -2, -1, 0, "monastery"),
    ("A", -1, -2, 1, "road:W"),
    ("E", 2, 0, 3, None),
]


def _moves(record: dict) -> list[tuple]:
    return [(m["tile"], m["x"], m["y"], m["rotation"], m["follower"]) for m in record["moves"]]


def test_guided_spec_plays_legal_moves():
    bot = make_bot("solo-search:guide=ppo_solo_rl:samples=2:top_k=3:depth=2", seed=0)
    # internals: the guide's policy bot, built from the spec, runs torch on one thread
    assert bot._guide is not None and bot._guide.torch_threads == 1
    game = Game(SOLO, seed=4)
    for _ in range(6):
        legal = game.legal_moves()
        move = bot.act(game)
        assert move in legal
        game.play(move)
    Game.from_record(game.to_record())  # the moves replay


def test_guide_probabilities_and_candidates():
    bot = SoloSearchAgent(
        seed=0, samples=2, top_k=1, depth=1, guide="ppo_solo_rl", guide_k=3, guide_weight=2.0
    )
    game = Game(SOLO, seed=9)
    rows = game.legal_rows()
    probs = bot.guide_probs(game, rows)
    assert probs.shape == (len(rows),) and np.isclose(probs.sum(), 1.0) and (probs >= 0).all()
    stats = bot.evaluate(game)
    legal = game.legal_moves()
    top = {legal[i] for i in np.argsort(-probs, kind="stable")[:3] if probs[i] > 0}
    assert top <= {m for m, _, _ in stats}  # the policy's top moves are searched
    assert 2 <= len(stats) <= 4  # the heuristic's best one, plus up to 3


def test_without_guide_the_moves_are_unchanged():
    for kwargs in ({}, {"guide": None, "guide_k": 7, "guide_weight": 5.0}):
        bot = SoloSearchAgent(seed=3, samples=2, top_k=3, depth=2, **kwargs)
        game = Game(SOLO, seed=7)
        for _ in range(len(UNGUIDED_DEAL7)):
            game.play(bot.act(game))
        assert _moves(game.to_record()) == UNGUIDED_DEAL7


def test_bad_guide_options():
    with pytest.raises(ValueError, match="guide_k"):
        make_bot("solo-search:guide_k=-1")
    with pytest.raises(ValueError, match="guide_weight"):
        make_bot("solo-search:guide_weight=-1")
    with pytest.raises(FileNotFoundError):
        SoloSearchAgent(guide="no_such_model")


def test_a_guide_adds_its_four_most_likely_moves_by_default():
    """The default (`guide_k=4`): the policy's four most likely legal moves are searched
    beside the heuristic's `top_k` (here 1)."""
    bot = SoloSearchAgent(seed=0, samples=2, top_k=1, depth=1, guide="ppo_solo_rl")
    assert bot.guide_k == 4
    game = Game(SOLO, seed=9)
    probs = bot.guide_probs(game, game.legal_rows())
    legal = game.legal_moves()
    top = {legal[i] for i in np.argsort(-probs, kind="stable")[:4] if probs[i] > 0}
    searched = {m for m, _, _ in bot.evaluate(game)}
    assert len(top) == 4 and top <= searched and len(searched) <= 5
