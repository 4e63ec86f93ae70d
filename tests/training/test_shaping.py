"""Projected-score reward shaping (training.shaping): a game's shaped rewards sum to its
real result minus the potential of its first position, solo (lowest colour) and 2
players (the margin: the "best" potential)."""

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from carcassonne_env.envs import SoloVectorEnv, VsBotsVectorEnv  # noqa: E402
from training.shaping import ProjectedReward, ScaledReward  # noqa: E402


def _play(shaped: ProjectedReward, games: int, seed: int = 0):
    """Random legal moves until `games` games finished: per game, the sum of its shaped
    rewards, the potential of its first position and its last info. Internals: the
    potential is the wrapper's own (`_value`)."""
    rng = np.random.default_rng(seed)
    shaped.seed(seed)
    start = shaped._value(shaped.reset()["features"])
    totals = np.zeros(shaped.num_envs)
    played = []
    while len(played) < games:
        masks = np.stack(shaped.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = shaped.step(actions)
        totals += rewards
        for i in np.flatnonzero(dones):
            played.append((totals[i], start[i], infos[i]))
            totals[i] = 0.0
        start = np.where(dones, shaped._value(obs["features"]), start)
    return played


def test_solo_projected_rewards_sum_to_the_lowest_colours_score():
    env = SoloVectorEnv(3, obs_features="aggregate", num_threads=1)
    shaped = ProjectedReward(env.to_sb3(), env.encoder.feature_names, 3, "lowest", 0.5)
    played = _play(shaped, 4)
    # a solo game starts with 1 projected point for the lowest colour (the follower bonus
    # of a full supply)
    assert [start for _, start, _ in played] == [1.0] * 4
    assert [total for total, _, _ in played] == pytest.approx(
        [0.5 * (info["result"] - 1) for _, _, info in played]
    )
    assert len({info["result"] for _, _, info in played}) > 1


def test_two_player_projected_rewards_sum_to_the_final_margin():
    env = VsBotsVectorEnv(
        3, opponents="random", players=2, reward="margin", obs_features="aggregate", num_threads=1
    )
    shaped = ProjectedReward(env.to_sb3(), env.encoder.feature_names, 2, "best")
    played = _play(shaped, 6)
    margins = []
    for _, _, info in played:
        scores = list(info["scores"])
        mine = scores.pop(int(info["seat"]))
        margins.append(mine - max(scores))
    # the learner's first position follows the opponent's first move when it sits second
    assert [total for total, _, _ in played] == pytest.approx(
        [m - start for m, (_, start, _) in zip(margins, played, strict=True)]
    )
    assert len(set(margins)) > 1


def test_a_win_bonus_rewards_the_win_at_the_games_end():
    env = VsBotsVectorEnv(
        3, opponents="random", players=2, reward="margin", obs_features="aggregate", num_threads=1
    )
    shaped = ProjectedReward(
        env.to_sb3(), env.encoder.feature_names, 2, "best", scale=0.5, win_bonus=10
    )
    played = _play(shaped, 8, seed=1)
    outcomes = []
    for total, start, info in played:
        scores = list(info["scores"])
        mine = scores.pop(int(info["seat"]))
        outcomes.append(np.sign(mine - max(scores)))
        assert total == pytest.approx(0.5 * (mine - max(scores) - start + 10 * outcomes[-1]))
    assert {1, -1} <= set(outcomes)  # random against random: both a win and a loss
    with pytest.raises(ValueError, match="margin"):
        solo = SoloVectorEnv(1, obs_features="aggregate", num_threads=1)
        ProjectedReward(solo.to_sb3(), solo.encoder.feature_names, 3, "lowest", win_bonus=1)


def test_scaled_reward_multiplies():
    env = SoloVectorEnv(2, num_threads=1)
    plain, scaled = env.to_sb3(), ScaledReward(SoloVectorEnv(2, num_threads=1).to_sb3(), 0.1)
    for venv in (plain, scaled):
        venv.seed(3)
        venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = np.stack(plain.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, r_plain, _, _ = plain.step(actions)
        _, r_scaled, _, _ = scaled.step(actions)
        assert r_scaled == pytest.approx(0.1 * r_plain)


def test_projected_rewards_need_the_aggregate_observation():
    env = SoloVectorEnv(1, num_threads=1)
    with pytest.raises(ValueError, match="aggregate"):
        ProjectedReward(env.to_sb3(), env.encoder.feature_names, 3, "lowest")
    env = SoloVectorEnv(1, obs_features="aggregate", num_threads=1)
    with pytest.raises(ValueError, match="potential"):
        ProjectedReward(env.to_sb3(), env.encoder.feature_names, 3, "median")
