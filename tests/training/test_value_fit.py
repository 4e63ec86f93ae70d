"""The value refit (`carcassonne train value`, training.value_fit): self-play samples, a
tiny run that leaves the policy as it was, refusals."""

import csv

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from agents.sb3_policy import SB3Agent, load_model  # noqa: E402
from carcassonne_env import Game, Rules  # noqa: E402
from training import value_fit  # noqa: E402


def test_self_play_gives_one_sample_per_decision_of_each_game():
    model = load_model("ppo_duel_rl", cached=False)
    settings = value_fit.ValueSettings(games=6, envs=3, seed=1, threads=1)
    x, y, games = value_fit.self_play(model, settings, progress=False)
    assert x.shape == (len(y), 3 * model.policy.features_extractor.net.hidden)
    assert np.isfinite(y).all() and y.std() > 0
    numbers, counts = np.unique(games, return_counts=True)
    assert len(numbers) >= 6 and (numbers == np.arange(len(numbers))).all()
    # 71 tiles are placed in a 2-player base game (fewer if some are discarded), both
    # seats' decisions counted once each
    assert ((counts >= 60) & (counts <= 71)).all()


def test_train_value_refits_the_value_head_only(tmp_path):
    out = tmp_path / "value"
    args = [
        "--out",
        str(out),
        "--games",
        "4",
        "--envs",
        "2",
        "--epochs",
        "2",
        "--threads",
        "1",
        "--no-progress",
    ]
    assert value_fit.main(args) == 0
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["0", "1", "2"]
    assert float(rows[2]["train_mse"]) < float(rows[0]["train_mse"])
    before, after = SB3Agent("ppo_duel_rl"), SB3Agent(str(out / "model.zip"))
    game = Game(Rules(players=2), seed=3)
    for _ in range(6):
        game.play(game.legal_moves()[0])
    obs = before.observe(game)
    outputs = []
    for agent in (before, after):
        policy = agent.model.policy
        tensors, _ = policy.obs_to_tensor({k: obs[k] for k in agent.model.observation_space.spaces})
        with torch.no_grad():
            outputs.append(
                (
                    policy.get_distribution(tensors).distribution.logits,
                    policy.predict_values(tensors),
                )
            )
    assert torch.equal(outputs[0][0], outputs[1][0])  # the same policy
    assert not torch.equal(outputs[0][1], outputs[1][1])  # another value
    with pytest.raises(SystemExit):  # a folder holding a run
        value_fit.main(args)


@pytest.mark.parametrize("init", ["ppo_duel_bc", "ppo_solo_rl"])
def test_train_value_refuses_other_models(tmp_path, init):
    with pytest.raises(SystemExit):
        value_fit.main(
            ["--out", str(tmp_path / "x"), "--init", init, "--games", "2", "--no-progress"]
        )
    assert not (tmp_path / "x").exists()  # refused before the folder was made
