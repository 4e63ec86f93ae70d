"""The heuristic's move prior (carcassonne_env.bots.move_prior): the batched and the single-game
computations agree; a policy given it starts as the heuristic; the `sb3` bot feeds it;
`train multi --move-prior` trains with it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from agents.sb3_policy import SB3Agent  # noqa: E402
from carcassonne_env import Game, Rules  # noqa: E402
from carcassonne_env.bots.heuristic import HeuristicAgent  # noqa: E402
from carcassonne_env.bots.move_prior import PRIOR_FLOOR, PRIOR_KEY, game_prior  # noqa: E402
from carcassonne_env.encoding import Encoder, WindowOverflowWarning  # noqa: E402
from carcassonne_env.envs import VsBotsVectorEnv  # noqa: E402
from carcassonne_env.model_file import save_model  # noqa: E402
from training import train_multi  # noqa: E402
from training.league import JoinedVecEnv  # noqa: E402
from training.policy import BoardPolicy  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("one_torch_thread"),
    pytest.mark.filterwarnings("ignore::carcassonne_env.encoding.WindowOverflowWarning"),
]


def _joined(n: int = 3, board_size: int = 12) -> tuple[VsBotsVectorEnv, JoinedVecEnv]:
    venv = VsBotsVectorEnv(n, opponents="greedy", players=2, board_size=board_size, num_threads=1)
    return venv, JoinedVecEnv([("greedy", venv)], prior=True)


def test_batched_prior_equals_the_single_game_prior():
    venv, env = _joined()
    env.seed(5)
    obs = env.reset()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        for i in range(env.num_envs):
            game = venv.game(i)
            expected = game_prior(game, venv.encoder)
            np.testing.assert_allclose(obs[PRIOR_KEY][i], expected, atol=1e-4)
            mask = env.action_masks()[i]
            # the prior is above the floor exactly on legal actions the heuristic rates
            # within 30 points of its best move, and its best move is legal
            assert mask[obs[PRIOR_KEY][i] > PRIOR_FLOOR].all()
            assert mask[np.argmax(obs[PRIOR_KEY][i])]
            checked += 1
        masks = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, _, _, _ = env.step_wait()
    assert checked == 120


def test_prior_is_the_heuristics_evaluation_as_log_softmax():
    game = Game(Rules(players=2), seed=3)
    for _ in range(6):
        game.play(game.legal_moves()[0])
    enc = Encoder(game.rules, 20)
    prior = game_prior(game, enc)
    moves, values = HeuristicAgent().move_values(game)
    actions = [enc.move_to_action(game, m) for m in moves]
    logp = values - values.max()
    logp -= np.log(np.exp(logp).sum())
    np.testing.assert_allclose(prior[actions], np.maximum(logp, PRIOR_FLOOR), atol=1e-5)
    assert np.isclose(np.exp(prior[actions]).sum(), 1.0, atol=1e-4)
    others = np.ones(enc.n_actions, bool)
    others[actions] = False
    assert (prior[others] == PRIOR_FLOOR).all()
    with pytest.raises(ValueError, match="turn"):
        game_prior(game, Encoder(game.rules, 20, "two_step"))


def _zero_head(policy: BoardPolicy) -> None:
    with torch.no_grad():
        policy.action_net.linear.weight.zero_()
        policy.action_net.linear.bias.zero_()


def test_a_prior_policy_starts_as_the_heuristic_and_the_bot_feeds_it(tmp_path):
    venv, env = _joined(board_size=20)
    model = MaskablePPO(
        BoardPolicy,
        env,
        n_steps=8,
        batch_size=16,
        n_epochs=1,
        policy_kwargs={"channels": 8, "blocks": 1, "prior_weight": 3.0},
    )
    policy = model.policy
    assert policy.action_net.prior_weight.item() == 3.0
    _zero_head(policy)
    obs = env.reset()
    tensors, _ = policy.obs_to_tensor(obs)
    with torch.no_grad():
        dist = policy.get_distribution(tensors, action_masks=env.action_masks())
    logits = dist.distribution.logits.numpy()
    expected = 3.0 * obs[PRIOR_KEY]
    expected = (
        expected
        - np.log(np.exp(expected - expected.max(1, keepdims=True)).sum(1, keepdims=True))
        - expected.max(1, keepdims=True)
    )
    legal = env.action_masks()
    np.testing.assert_allclose(logits[legal], expected[legal], atol=1e-4)
    # saved and loaded, the `sb3` bot computes the prior itself and plays the heuristic's
    # best move (head zeroed: its logits are 3 x prior)
    save_model(model, tmp_path / "prior.zip")  # (with the description it loads by)
    bot = SB3Agent(tmp_path / "prior.zip")
    assert bot.policy.action_net.prior_weight.item() == 3.0
    _zero_head(bot.policy)
    game = Game(Rules(players=2), seed=11)
    heuristic = HeuristicAgent()
    for _ in range(12):
        moves, values = heuristic.move_values(game)
        move = bot.act(game)
        assert values[moves.index(move)] == values.max()
        game.play(move)
    from agents.annotations import explain

    insight = explain(bot, game)  # the viewer's agent insight reads the prior too
    assert insight["top"] and insight["kind"]


def test_train_multi_with_the_move_prior(tmp_path):
    tiny = {
        "n_envs": 2,
        "n_steps": 16,
        "batch_size": 32,
        "n_epochs": 1,
        "channels": 8,
        "blocks": 1,
        "checkpoint_every": 64,
        "torch_threads": 1,
        "board_size": 12,
    }
    with pytest.raises(ValueError, match="--move-prior needs --env batched and --bot-share 1"):
        train_multi.train(
            train_multi.MultiSettings(**tiny, move_prior=2.0), tmp_path / "refused", progress=False
        )
    assert not (tmp_path / "refused").exists()
    settings = train_multi.MultiSettings(
        **tiny, total_timesteps=64, env="batched", bots="greedy", bot_share=1.0, move_prior=2.0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        model = train_multi.train(settings, tmp_path / "run", progress=False)
    assert model.num_timesteps == 64
    assert PRIOR_KEY in model.observation_space.spaces
    loaded = MaskablePPO.load(tmp_path / "run" / "model.zip", device="cpu")
    assert PRIOR_KEY in loaded.observation_space.spaces
    bot = SB3Agent(tmp_path / "run" / "model.zip")
    game = Game(Rules(players=2), seed=0)
    assert bot.act(game) in game.legal_moves()


def test_make_env_for_model_adds_the_prior(tmp_path):
    from sb3_contrib.common.maskable.utils import get_action_masks

    from carcassonne_env.envs import make_env_for_model

    _, env = _joined(board_size=20)
    model = MaskablePPO(
        BoardPolicy,
        env,
        n_steps=8,
        batch_size=16,
        n_epochs=1,
        policy_kwargs={"channels": 8, "blocks": 1},
    )
    save_model(model, tmp_path / "prior.zip")
    single = make_env_for_model(tmp_path / "prior.zip")
    obs, _ = single.reset(seed=3)
    np.testing.assert_allclose(
        obs[PRIOR_KEY], game_prior(single.unwrapped.game, single.unwrapped.driver.encoder)
    )
    for _ in range(5):
        action, _ = model.predict(obs, action_masks=get_action_masks(single), deterministic=True)
        obs, _, terminated, _, _ = single.step(action)
        assert not terminated
