"""`SoloVectorEnv` (jitted batch of solo games) against independent `Solo-v0` envs, its
Gymnasium VectorEnv attributes, illegal actions, and the SB3 VecEnv adapter."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env.envs import SoloVectorEnv


def pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)


def assert_obs_equal(batch: dict, i: int, single: dict) -> None:
    assert batch.keys() == single.keys()
    for key, value in single.items():  # board, features (and the candidate moves)
        assert np.array_equal(batch[key][i], value), key


# --------------------------------------------------------------------------- attributes


def test_vector_env_attributes():
    venv = SoloVectorEnv(num_envs=3, board_size=10)
    assert isinstance(venv, VectorEnv)
    assert venv.num_envs == 3
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert venv.single_action_space == gymnasium.spaces.Discrete(10 * 10 * 4 * 9)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([10 * 10 * 4 * 9] * 3)
    assert venv.single_observation_space["board"].shape == (30, 30, 11)
    assert venv.observation_space["board"].shape == (3, 30, 30, 11)
    assert venv.observation_space["features"].shape == (
        3,
        *venv.single_observation_space["features"].shape,
    )
    solo = gymnasium.make("Carcassonne/Solo-v0", board_size=10)
    assert venv.single_observation_space == solo.observation_space
    assert venv.single_action_space == solo.action_space
    obs, info = venv.reset(seed=0)
    assert info == {}
    assert venv.observation_space.contains(obs)
    masks = venv.action_masks()
    assert masks.shape == (3, venv.single_action_space.n) and masks.dtype == bool
    assert SoloVectorEnv(num_envs=2, colours=4).single_observation_space["board"].shape == (
        96,
        96,
        12,
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2.0}, "num_envs"),
        ({"colours": 2}, "colours must be an integer in \\[3, 4\\], got 2"),
        ({"board_size": 2}, "board_size"),
        ({"render_mode": "human"}, "render_mode"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SoloVectorEnv(**kwargs)


def test_reset_seeds():
    venv = SoloVectorEnv(num_envs=2)
    with pytest.raises(ValueError, match="need 2 seeds"):
        venv.reset(seed=[1, 2, 3])
    venv.reset(seed=[5, 9])
    orders = [venv.game(i).tile_order() for i in range(2)]
    venv.reset(seed=5)  # game i gets seed 5 + i
    assert venv.game(0).tile_order() == orders[0]
    assert venv.game(1).tile_order() != orders[1]
    solo = gymnasium.make("Carcassonne/Solo-v0")
    solo.reset(seed=9)
    assert solo.unwrapped.game.tile_order() == orders[1]


# --------------------------------------------------------------------------- equivalence


@pytest.mark.parametrize(
    ("num_envs", "colours", "seed", "steps", "options"),
    [
        (3, 3, 100, 160, {}),
        (2, 4, 7, 110, {}),
        (2, 3, 5, 120, {"obs_features": "aggregate"}),
        # candidate moves: fewer than the legal moves (the first K kept) and all of them
        (2, 3, 9, 110, {"candidate_moves": 8}),
        (
            2,
            4,
            3,
            110,
            {"candidate_moves": 256, "obs_features": "aggregate", "scoring_order": "player"},
        ),
    ],
)
def test_matches_independent_solo_envs(num_envs, colours, seed, steps, options):
    """Game i of the batch is Solo-v0 reset with seed + i, then reset without a seed after
    every episode: same observations, masks, rewards, terminations and final obs/info.
    Some illegal actions are mixed in (they end the episode in both)."""
    venv = SoloVectorEnv(num_envs=num_envs, colours=colours, **options)
    singles = [
        gymnasium.make("Carcassonne/Solo-v0", colours=colours, **options) for _ in range(num_envs)
    ]
    obs, _ = venv.reset(seed=seed)
    single_obs, single_info = zip(
        *(e.reset(seed=seed + i) for i, e in enumerate(singles)), strict=True
    )
    single_obs, single_info = list(single_obs), list(single_info)
    rng = np.random.default_rng(seed)
    ends = np.zeros(num_envs, int)
    illegal_ends = 0
    for t in range(steps):
        masks = venv.action_masks()
        for i, env in enumerate(singles):
            assert_obs_equal(obs, i, single_obs[i])
            assert np.array_equal(masks[i], env.unwrapped.action_masks())
            assert np.array_equal(masks[i], single_info[i]["action_mask"].astype(bool))
        actions = pick(masks, rng)
        if t % 37 == 36:  # an illegal action now and then (in game 0)
            actions[0] = np.flatnonzero(~masks[0])[t % 5]
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert rewards.shape == terminated.shape == truncated.shape == (num_envs,)
        assert not truncated.any()
        if not terminated.any():
            assert "final_obs" not in infos and "final_info" not in infos
        for i, env in enumerate(singles):
            o, r, term, trunc, info = env.step(int(actions[i]))
            assert rewards[i] == r and terminated[i] == term and not trunc
            if term:
                assert infos["_final_obs"][i] and infos["_final_info"][i]
                final_obs = infos["final_obs"][i]
                assert final_obs.keys() == o.keys()
                for key in o:
                    assert np.array_equal(final_obs[key], o[key]), key
                final = infos["final_info"]
                game = env.unwrapped.game
                assert final["scores"][i].tolist() == info["scores"].tolist()
                if "illegal_move" in info:
                    assert bool(final["illegal_move"][i]) and final["_illegal_move"][i]
                    assert r == -1.0
                    illegal_ends += 1
                else:
                    assert final["end_reason"][i] == game.end_reason == info["end_reason"]
                    assert final["result"][i] == game.result
                    assert "illegal_move" not in final or not final["_illegal_move"][i]
                ends[i] += 1
                o, info = env.reset()
                assert venv.game(i).turn == 0
            else:
                if "_final_obs" in infos:
                    assert not infos["_final_obs"][i]
                assert venv.game(i).turn == env.unwrapped.game.turn
            single_obs[i], single_info[i] = o, info
            assert venv.game(i).scores == env.unwrapped.game.scores
    assert (ends >= 3).all(), ends
    assert illegal_ends >= 2


def test_observation_arrays_are_reused_unless_copy():
    rng = np.random.default_rng(0)
    venv = SoloVectorEnv(num_envs=2, board_size=12)
    obs0, _ = venv.reset(seed=0)
    kept = obs0["board"].copy()
    obs1, *_ = venv.step(pick(venv.action_masks(), rng))
    # documented: two buffer sets take turns, so obs0 survives one step, not two
    assert obs1["board"] is not obs0["board"] and np.array_equal(obs0["board"], kept)
    obs2, *_ = venv.step(pick(venv.action_masks(), rng))
    assert obs2["board"] is obs0["board"]
    venv = SoloVectorEnv(num_envs=2, board_size=12, copy=True)
    obs0, _ = venv.reset(seed=0)
    kept = obs0["board"].copy()
    obs1, *_ = venv.step(pick(venv.action_masks(), np.random.default_rng(0)))
    assert obs1["board"] is not obs0["board"] and np.array_equal(obs0["board"], kept)


# --------------------------------------------------------------------------- illegal actions


def test_illegal_actions_end_only_their_game():
    venv = SoloVectorEnv(num_envs=3, illegal_reward=-4.0)
    venv.reset(seed=1)
    rng = np.random.default_rng(1)
    venv.step(pick(venv.action_masks(), rng))
    assert [venv.game(i).turn for i in range(3)] == [1, 1, 1]
    before = venv.game(1).scores
    actions = pick(venv.action_masks(), rng)
    actions[1] = np.flatnonzero(~venv.action_masks()[1])[-1]  # masked out
    actions[2] = np.flatnonzero(~venv.action_masks()[2])[0]
    obs, rewards, terminated, _, infos = venv.step(actions)
    assert terminated.tolist() == [venv.game(0).done, True, True]
    assert rewards[1] == rewards[2] == -4.0
    assert [m.startswith("action ") for m in infos["final_info"]["illegal_move"][1:]] == [
        True,
        True,
    ]  # the reason, as in Solo-v0
    assert infos["final_info"]["_illegal_move"].tolist() == [False, True, True]
    assert infos["final_info"]["scores"][1].tolist() == before  # nothing was played
    assert venv.game(0).turn == 2
    assert [venv.game(i).turn for i in (1, 2)] == [0, 0]  # restarted
    assert venv.action_masks()[1:].any(axis=1).all()
    actions = pick(venv.action_masks(), rng)
    actions[0] = np.flatnonzero(~venv.action_masks()[0])[0]
    _, rewards, terminated, _, infos = venv.step(actions)
    assert terminated[0] and rewards[0] == -4.0


def test_normal_end_and_illegal_action_in_the_same_step():
    rng = np.random.default_rng(0)
    probe = SoloVectorEnv(num_envs=2, board_size=16)
    probe.reset(seed=0)
    actions = []
    while True:  # random play until game 0 ends
        actions.append(pick(probe.action_masks(), rng))
        _, _, terminated, _, _ = probe.step(actions[-1])
        if terminated[0]:
            break
    assert not terminated[1]
    venv = SoloVectorEnv(num_envs=2, board_size=16)
    venv.reset(seed=0)
    for a in actions[:-1]:
        venv.step(a)
    last = actions[-1].copy()
    last[1] = np.flatnonzero(~venv.action_masks()[1])[0]  # game 1: illegal, in the step
    # where game 0 ends normally
    _, rewards, terminated, _, infos = venv.step(last)
    assert terminated.tolist() == [True, True] and rewards[1] == -1.0
    final = infos["final_info"]
    assert final["result"][0] == min(final["scores"][0]) and final["_result"][1] == 0
    assert final["end_reason"][0] in ("A", "B", "tiles") and final["end_reason"][1] is None
    assert final["illegal_move"][1] and final["_illegal_move"].tolist() == [False, True]


def test_game_view_follows_the_steps():
    venv = SoloVectorEnv(num_envs=2)
    venv.reset(seed=0)
    enc = venv.encoder
    rng = np.random.default_rng(0)
    for _ in range(3):
        game = venv.game(0)
        mask = venv.action_masks()[0]
        assert {enc.action_to_move(game, int(a)) for a in np.flatnonzero(mask)} == set(
            game.legal_moves()
        )
        venv.step(pick(venv.action_masks(), rng))


def test_render_ansi():
    venv = SoloVectorEnv(num_envs=2, render_mode="ansi")
    venv.reset(seed=0)
    text = venv.render()
    assert isinstance(text, tuple) and len(text) == 2
    assert text == (str(venv.game(0)), str(venv.game(1)))
    assert SoloVectorEnv(num_envs=1).render() is None


def test_registered_vector_id_can_be_made():
    venv = gymnasium.make_vec(
        "Carcassonne/Solo-v0", num_envs=2, vectorization_mode="vector_entry_point"
    )
    assert isinstance(venv.unwrapped, SoloVectorEnv) and venv.num_envs == 2


# --------------------------------------------------------------------------- SB3


def test_sb3_vec_env_protocol():
    pytest.importorskip("stable_baselines3")
    venv = SoloVectorEnv(num_envs=3, board_size=16)
    env = venv.to_sb3()
    assert env.num_envs == 3
    assert env.observation_space == venv.single_observation_space
    assert env.action_space == venv.single_action_space
    env.seed(21)
    obs = env.reset()
    assert obs["board"].shape == (3, 48, 48, 11) and obs["features"].shape[0] == 3
    ref = SoloVectorEnv(num_envs=3, board_size=16)
    ref_obs, _ = ref.reset(seed=21)  # seeds 21, 22, 23 like SB3's seed()
    assert np.array_equal(obs["board"], ref_obs["board"])
    masks = env.action_masks()
    assert masks.shape == (3, 16 * 16 * 4 * 9) and masks.dtype == bool
    assert np.array_equal(np.stack(env.env_method("action_masks")), masks)
    assert env.env_method("action_masks", indices=[2])[0].tolist() == masks[2].tolist()
    assert env.has_attr("action_masks") and env.get_attr("num_envs") == [3, 3, 3]
    assert env.env_is_wrapped(object) == [False] * 3
    rng = np.random.default_rng(21)
    ends = 0
    for _ in range(60):
        masks = env.action_masks()
        env.step_async(pick(masks, rng))
        obs, rewards, dones, infos = env.step_wait()
        assert rewards.dtype == np.float32 and rewards.shape == (3,)
        assert dones.dtype == bool and dones.shape == (3,)
        assert isinstance(infos, list) and len(infos) == 3
        for i in range(3):
            if dones[i]:
                term = infos[i]["terminal_observation"]
                assert set(term) == {"board", "features"}
                assert term["board"].shape == (48, 48, 11)
                assert not np.array_equal(term["board"], obs["board"][i])  # next game
                assert infos[i]["TimeLimit.truncated"] is False
                assert infos[i]["end_reason"] in ("A", "B", "tiles")
                assert min(infos[i]["scores"]) == infos[i]["result"]
                ends += 1
            else:
                assert "terminal_observation" not in infos[i]
    assert ends >= 3
    env.close()


def test_maskable_ppo_trains_on_the_sb3_vec_env(one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = SoloVectorEnv(num_envs=4, board_size=16).to_sb3()
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(256)
    assert model.num_timesteps == 256
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[np.arange(4), actions].all()


@pytest.mark.parametrize(
    "copy",
    [
        False,
        True,
    ],
    ids=["copy=False", "copy=True"],
)
def test_sb3_rollout_buffer_pairs_each_action_with_its_observation(copy, one_torch_thread):
    """The cell of the action taken at step t is an open cell in the observation stored
    for step t (the one the policy saw when it chose it)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = SoloVectorEnv(num_envs=2, board_size=16, copy=copy)
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy",
        venv.to_sb3(),
        n_steps=16,
        batch_size=16,
        n_epochs=1,
        seed=0,
        device="cpu",
    )
    model.learn(32)
    buffer = model.rollout_buffer
    # after training the buffer is flattened env-major: row i * n_steps + t
    boards = buffer.observations["board"].reshape(2, 16, 48, 48, 11)
    actions = buffer.actions.reshape(2, 16)
    open_cell = venv.encoder.plane_names.index("open_cell")
    for i in range(2):
        for t in range(16):
            _, row, col, _, _ = venv.encoder.split(int(actions[i, t]))
            assert boards[i, t, 3 * row : 3 * row + 3, 3 * col : 3 * col + 3, open_cell].all(), t


def test_sb3_observations_are_not_overwritten_by_the_next_step():
    """SB3's VecEnvs (DummyVecEnv, SubprocVecEnv) return fresh arrays every step; SB3
    relies on it (see the test above)."""
    pytest.importorskip("stable_baselines3")
    env = SoloVectorEnv(num_envs=2, board_size=16, copy=True).to_sb3()
    obs = env.reset()
    kept = {k: v.copy() for k, v in obs.items()}
    env.step(pick(env.action_masks(), np.random.default_rng(0)))
    assert all(np.array_equal(obs[k], kept[k]) for k in kept)
