"""Gymnasium envs `Carcassonne/Solo-v0` and `Carcassonne/VsBots-v0`: API checks, rewards,
masks, illegal actions, seats, and MaskablePPO training without glue code."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents  # noqa: F401 - registers the search bots, so VsBots-v0 takes "mcts" specs
import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import Rules
from carcassonne_env.envs import SoloEnv, VsBotsEnv


def run_episode(env, seed: int, rng: np.random.Generator, check=None):
    """Reset with `seed` and play uniformly random masked actions to the end; returns
    (rewards, last info, number of steps)."""
    obs, info = env.reset(seed=seed)
    rewards = []
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.unwrapped.action_masks()
        assert np.array_equal(info["action_mask"].astype(bool), mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(reward, float)
        assert env.observation_space.contains(obs)
        rewards.append(reward)
        if check is not None:
            check(env, obs, reward, info)
    assert terminated and not truncated
    return rewards, info, len(rewards)


# --------------------------------------------------------------------------- API checks


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Carcassonne/Solo-v0", {}),
        ("Carcassonne/Solo-v0", {"colours": 4, "action_mode": "two_step", "board_size": 20}),
        ("Carcassonne/VsBots-v0", {"opponents": ["greedy"]}),
        ("Carcassonne/VsBots-v0", {"opponents": "random", "players": 3, "seat": 2}),
        (
            "Carcassonne/VsBots-v0",
            {"opponents": ["random", "greedy"], "hand_size": 3, "reward": "margin"},
        ),
    ],
    ids=str,
)
def test_check_env(env_id, kwargs):
    env = gymnasium.make(env_id, **kwargs)
    # render modes other than ansi are Pillow drawings, checked in their own test below
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_spaces():
    env = gymnasium.make("Carcassonne/Solo-v0")
    enc = env.unwrapped.driver.encoder
    assert env.observation_space["board"].shape == (96, 96, 8 + 3)
    assert env.observation_space["board"].dtype == np.int8
    assert env.observation_space["features"].shape == (enc.n_features,)
    assert env.action_space == gymnasium.spaces.Discrete(32 * 32 * 4 * 9)
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents=["greedy"] * 3, board_size=8)
    assert env.unwrapped.rules == Rules(players=4)
    assert env.observation_space["board"].shape == (24, 24, 8 + 4)
    assert env.action_space.n == 8 * 8 * 4 * 9


# --------------------------------------------------------------------------- solo


@pytest.mark.parametrize(
    ("kwargs", "seeds"),
    [
        ({}, range(4)),
        ({"colours": 4}, range(2)),
        ({"action_mode": "two_step"}, range(2)),
    ],
    ids=str,
)
def test_solo_return_is_result_minus_one(kwargs, seeds):
    env = gymnasium.make("Carcassonne/Solo-v0", **kwargs)
    rng = np.random.default_rng(0)
    for seed in seeds:
        rewards, info, steps = run_episode(env, seed, rng)
        game = env.unwrapped.game
        assert game.done
        assert sum(rewards) == game.result - 1
        assert all(r >= 0 for r in rewards)  # the lowest colour's score never drops
        assert info["end_reason"] == game.end_reason in ("A", "B", "tiles")
        assert info["scores"].tolist() == game.scores and min(info["scores"]) == game.result
        assert not info["action_mask"].any() and not env.unwrapped.action_masks().any()
        assert info["moves_outside_window"] == 0
        per_turn = 2 if kwargs.get("action_mode") == "two_step" else 1
        assert steps == per_turn * game.turn


def test_solo_masks_match_the_encoder_and_legal_moves():
    env = gymnasium.make("Carcassonne/Solo-v0")
    enc = env.unwrapped.driver.encoder

    def check(env, obs, reward, info):
        game = env.unwrapped.game
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.shape == (enc.n_actions,)
        assert int(mask.sum()) == len(game.legal_moves()) * (not game.done)
        if not game.done:
            assert np.array_equal(mask, enc.action_mask(game).astype(bool))
            fresh = enc.encode(game, 0)
            assert np.array_equal(obs["board"], fresh["board"])
            assert np.array_equal(obs["features"], fresh["features"])

    run_episode(env, 11, np.random.default_rng(11), check)


def test_solo_same_seed_same_game_and_unseeded_resets_differ():
    env = gymnasium.make("Carcassonne/Solo-v0")
    obs1, _ = env.reset(seed=42)
    order1 = env.unwrapped.game.tile_order()
    obs2, _ = env.reset(seed=42)
    assert env.unwrapped.game.tile_order() == order1
    assert np.array_equal(obs1["features"], obs2["features"])
    env.reset()
    assert env.unwrapped.game.tile_order() != order1


def test_observations_are_not_overwritten_by_later_steps():
    env = gymnasium.make("Carcassonne/Solo-v0")
    obs, info = env.reset(seed=3)
    kept = {k: v.copy() for k, v in obs.items()}
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert all(np.array_equal(obs[k], kept[k]) for k in kept)


# --------------------------------------------------------------------------- vs bots


def test_vsbots_seat_none_varies_the_seat():
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents=["random"] * 2)
    seats = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        seat = env.unwrapped.seat
        seats.add(seat)
        assert env.unwrapped.game.current_player == seat  # the bots moved first
        assert env.unwrapped.game.turn == seat
        f = dict(
            zip(env.unwrapped.driver.encoder.feature_names, obs["features"].tolist(), strict=True)
        )
        assert f["to_move_0"] == 1.0  # features are seen from the learning seat
    assert seats == {0, 1, 2}
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents="random", players=3, seat=1)
    for seed in range(5):
        env.reset(seed=seed)
        assert env.unwrapped.seat == 1


@pytest.mark.parametrize(
    ("kwargs", "seeds"),
    [
        ({"opponents": ["greedy"]}, range(3)),
        ({"opponents": "random", "players": 3}, range(3)),
        (
            {"opponents": "random", "players": 4, "hand_size": 3, "action_mode": "two_step"},
            range(1),
        ),
    ],
    ids=str,
)
def test_vsbots_score_rewards_sum_to_the_seat_final_score(kwargs, seeds):
    env = gymnasium.make("Carcassonne/VsBots-v0", reward="score", **kwargs)
    rng = np.random.default_rng(1)
    for seed in seeds:
        rewards, info, _ = run_episode(env, seed, rng)
        game, seat = env.unwrapped.game, env.unwrapped.seat
        assert game.done and info["seat"] == seat
        assert game.rules.players == (kwargs.get("players") or 2)
        assert sum(rewards) == game.scores[seat]
        assert info["scores"].tolist() == game.scores


def test_vsbots_win_reward_only_at_the_end():
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents=["greedy"], reward="win")
    for seed in range(3):
        rewards, info, _ = run_episode(env, seed, np.random.default_rng(seed))
        scores, seat = env.unwrapped.game.scores, env.unwrapped.seat
        assert not any(rewards[:-1])
        top = max(scores)
        expected = (1.0 if scores.count(top) == 1 else 0.0) if scores[seat] == top else -1.0
        assert rewards[-1] == expected


def test_vsbots_margin_return_is_the_final_margin():
    """Seat 1 against a greedy bot: the bot may score on the very first turn (inside
    reset), which must count against the learning seat like any later bot turn."""
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents=["greedy"], seat=1, reward="margin")
    for seed in range(40):
        env.reset(seed=seed)
        scored_in_reset = env.unwrapped.game.scores != [0, 0]
        rewards, _, _ = run_episode(env, seed, np.random.default_rng(seed))
        scores = env.unwrapped.game.scores
        assert sum(rewards) == pytest.approx(scores[1] - scores[0])
        if scored_in_reset:
            return
    pytest.skip("no bot scored before the learning seat's first turn in 40 games")


# --------------------------------------------------------------------------- illegal actions


@pytest.mark.parametrize("env_id", ["Carcassonne/Solo-v0", "Carcassonne/VsBots-v0"])
def test_illegal_action_ends_the_episode(env_id):
    env = gymnasium.make(env_id, illegal_reward=-3.0)
    obs, info = env.reset(seed=0)
    before = env.unwrapped.game.to_record()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert isinstance(info2["illegal_move"], str) and info2["illegal_move"]
    assert env.unwrapped.game.to_record() == before  # nothing was played
    assert np.array_equal(obs2["board"], obs["board"])
    assert np.array_equal(obs2["features"], obs["features"])
    assert obs2["board"] is not obs["board"]
    for bad in (env.action_space.n, -1, 1.5, "3", None):  # outside the space: an error
        env.reset(seed=0)
        with pytest.raises(ValueError, match="action space"):
            env.step(bad)
    env.reset(seed=0)  # reset after an illegal move starts a fresh game
    assert env.unwrapped.game.turn == (env.unwrapped.seat if env_id.endswith("VsBots-v0") else 0)


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"opponents": []}, "at least one bot"),
        ({"opponents": ["chess_engine"]}, "unknown bot .chess_engine."),
        ({"opponents": ["mcts:budget=3"]}, "bad options for bot"),
        ({"opponents": ["random", "random"], "players": 2}, "need 1 opponents"),
        ({"opponents": "random", "players": 3, "seat": 3}, "seat must be an integer in \\[0, 2\\]"),
        ({"reward": "elo"}, "reward must be one of"),
        ({"variant": "solo"}, "solo"),
        ({"rules": Rules(variant="solo")}, "Solo-v0"),
        ({"render_mode": "svg"}, "render_mode"),
        ({"board_size": 1}, "board_size"),
    ],
)
def test_vsbots_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        VsBotsEnv(**kwargs)


def test_solo_bad_arguments():
    with pytest.raises(ValueError, match="colours must be an integer in \\[3, 4\\], got 5"):
        SoloEnv(colours=5)
    with pytest.raises(ValueError, match="action_mode"):
        SoloEnv(action_mode="sideways")
    with pytest.raises(ValueError, match="render_mode"):
        SoloEnv(render_mode="human_eyes")


# --------------------------------------------------------------------------- rendering


def test_render_ansi():
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents=["random"], render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == str(env.unwrapped.game)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    text = env.render()
    assert isinstance(text, str) and text == str(env.unwrapped.game)
    env = gymnasium.make("Carcassonne/Solo-v0")
    env.reset(seed=0)
    assert env.render() is None


def test_render_rgb_array():
    pytest.importorskip("PIL")
    env = gymnasium.make("Carcassonne/Solo-v0", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3 and image.shape[0] > 0 < image.shape[1]


# --------------------------------------------------------------------------- training


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Carcassonne/Solo-v0", {"board_size": 16}),
        ("Carcassonne/VsBots-v0", {"opponents": ["greedy"], "board_size": 16}),
        ("Carcassonne/Solo-v0", {}),  # default board size
    ],
    ids=str,
)
def test_maskable_ppo_learns_without_glue(env_id, kwargs, one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = gymnasium.make(env_id, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # e.g. a window overflow at size 16
        model = sb3_contrib.MaskablePPO(
            "MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu"
        )
        model.learn(256)
    assert model.num_timesteps == 256
    obs, _ = env.reset(seed=5)
    mask = env.unwrapped.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]
