"""Absurd sizes and budgets end in one line naming the limit, before anything is
allocated: the bots' numeric options (docs/bots.md, "Limits"), random playouts, the
encoder's window and candidates, a vector env's buffers, a policy opponent's actions.
The documented settings stay accepted."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env import Game, Rules, make_bot
from carcassonne_env.cli import main
from carcassonne_env.encoding import Encoder
from carcassonne_env.envs import SoloVectorEnv, VsBotsVectorEnv

BOT_LIMITS = [
    (
        "mcts:iterations=100000000000",
        "iterations must be at most 10,000,000 (a tree node per iteration), got 100000000000",
    ),
    (
        "mcts:iterations=5000000:trees=3",
        "iterations x trees must be at most 10,000,000 (a "
        "tree node per iteration and tree), got 5000000 x 3",
    ),
    ("mcts:trees=257", "trees must be at most 256, got 257"),
    ("mcts:threads=100000", "threads must be at most 256, got 100000"),
    ("mcts:depth=10001", "depth must be at most 10,000, got 10001"),
    ("mcts:top_k=99999999999999999999", "top_k must be at most 10,000, got 99999999999999999999"),
    ("mcts:c=1e300", "c must be within +-1,000,000, got 1e+300"),
    ("heuristic:follower=-2e6", "follower must be within +-1,000,000, got -2000000.0"),
    (
        "puct:simulations=50001",
        "simulations must be at most 50,000 (with lookahead 1: each "
        "simulation adds up to lookahead + 1 nodes to the tree), got 50001",
    ),
    (
        "puct:simulations=20001:lookahead=4",
        "simulations must be at most 20,000 (with "
        "lookahead 4: each simulation adds up to lookahead + 1 nodes to the tree), got 20001",
    ),
    ("puct:lookahead=10001", "lookahead must be at most 10,000, got 10001"),
    ("puct:time_per_move=1e23", "time_per_move must be at most 3,600, got 1e+23"),
    ("solo-search:seconds=3600.5", "seconds must be at most 3,600, got 3600.5"),
    ("solo-search:samples=1000001", "samples must be at most 1,000,000, got 1000001"),
    ("solo-search:guide_k=10001", "guide_k must be at most 10,000, got 10001"),
    (
        "sb3:model=ppo_duel:torch_threads=1025",
        "torch_threads must be an integer in [1, 1024], got 1025",
    ),
]


@pytest.mark.parametrize(("spec", "message"), BOT_LIMITS, ids=[s for s, _ in BOT_LIMITS])
def test_a_bot_option_past_its_limit_is_refused_naming_it(spec, message):
    with pytest.raises(ValueError) as err:
        make_bot(spec, seed=0)
    assert str(err.value) == message


def test_the_limits_themselves_and_the_documented_settings_are_accepted():
    for spec in [
        "mcts:iterations=10000000",
        "mcts:iterations=2000:trees=2",
        "mcts:trees=256:threads=256:depth=10000:top_k=10000",
        "mcts:c=1000000",
        "puct:simulations=50000",
        "puct:simulations=100000:lookahead=0",
        "puct:simulations=256:time_per_move=3600",
        "solo-search:samples=64",
        "solo-search:seconds=3600:samples=1000000",
        "heuristic:follower=-1000000",
    ]:
        assert make_bot(spec, seed=0).name == spec


def test_the_command_line_says_so_in_one_line(capsys):
    assert main(["play", "--bots", "mcts:iterations=100000000000", "--seed", "0"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        "carcassonne: error: iterations must be at most 10,000,000 (a "
        "tree node per iteration), got 100000000000\n",
    )
    assert main(["play", "--bots", "mcts:iterations=1e23", "--seed", "0"]) == 2
    assert capsys.readouterr().err == (
        "carcassonne: error: bad options for bot 'mcts' in 'mcts:iterations=1e23': option "
        "'iterations' takes an integer, got '1e23'\n"
    )


def test_random_playouts_are_bounded():
    game = Game(seed=0)
    with pytest.raises(
        ValueError,
        match=r"^n must be at most 10,000,000 \(playouts per "
        r"call\), got 10000001$",
    ):
        game.random_playouts(10_000_001)
    assert game.random_playouts(np.int64(2), seed=1).shape == (2, 2)


def test_the_encoder_bounds_its_window_and_candidates():
    with pytest.raises(
        ValueError,
        match=r"^board_size must be at most 256 \(a window wider "
        r"than any game's board\), got 257$",
    ):
        Encoder(Rules(), 257)
    with pytest.raises(ValueError, match="^candidate_moves must be at most 4,096, got 4097$"):
        Encoder(Rules(), 8, candidate_moves=4097)
    assert Encoder(Rules(), 256, candidate_moves=4096).board_size == 256


def test_the_encoder_refuses_what_it_cannot_write_into_or_draw():
    game = Game(seed=0)
    enc = Encoder(game.rules, 8, "two_step")
    obs = enc.encode(game, 0)
    obs["board"] = np.zeros((1, 1, 1), np.int8)  # the pass would write past it
    with pytest.raises(
        ValueError,
        match=r"^out\['board'\] must be a writable int8 array of "
        r"shape \(24, 24, \d+\) \(this encoder's layout\), got int8 array of "
        r"shape \(1, 1, 1\)$",
    ):
        enc.encode(game, 0, out=obs)
    for pending, message in [
        (
            (0, 0, 1, 9),
            r"^pending placement \(0, 0, 1, 9\): hand index must be in \[0, "
            r"1\) and rotation in \[0, 4\)$",
        ),
        ((0, 1.5, 1, 0), r"^pending x must be an integer, got 1\.5$"),
        ((0, 1), r"^pending must be a placement \(hand, x, y, rotation\), got \(0, 1\)$"),
    ]:
        with pytest.raises(ValueError, match=message):
            enc.encode(game, 0, pending=pending)
        with pytest.raises(ValueError, match=message):
            enc.action_to_move(game, 0, pending)
    with pytest.raises(ValueError, match=r"^action must be in \[0, \d+\), got 1\.0$"):
        enc.split(1.0)


def test_a_vector_env_whose_buffers_would_not_fit_is_refused_before_allocating():
    with pytest.raises(
        ValueError,
        match=r"^num_envs=1000000 games with board_size=256 need "
        r"about [\d,.]+ GiB of states and observation buffers; at most 32 GiB "
        r"\(fewer games or a smaller board_size\)$",
    ):
        SoloVectorEnv(num_envs=1_000_000, board_size=256)
    with pytest.raises(
        ValueError,
        match=r"^seed\[1\] must be None or a non-negative "
        r"integer, got -1$",
    ):
        SoloVectorEnv(num_envs=2, board_size=8, num_threads=1).reset(seed=[0, -1])


def test_a_policy_opponent_must_return_integer_actions():
    venv = VsBotsVectorEnv(
        num_envs=2,
        board_size=8,
        num_threads=1,
        on_overflow="truncate",
        opponents=[lambda obs, masks, seats: masks.argmax(axis=1) + 0.5],
    )
    with pytest.raises(
        ValueError,
        match=r"^a policy opponent must return \d integer "
        r"actions \(one per game it was asked for\), got an array of \d "
        r"float64$",
    ):
        for seed in range(4):  # (until the policy seat moves before the learner)
            venv.reset(seed=seed)
            venv.step(venv.action_masks().argmax(axis=1))
