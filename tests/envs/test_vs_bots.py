"""The batched `VsBots` vector env (`carcassonne_env.envs.vs_bots`) against independent
`VsBots-v0` envs step for step. (The jitted bots it plays: tests/bots/test_jitted_bots.py.)"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from numba import config as numba_config

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import Rules
from carcassonne_env.envs import VsBotsEnv, VsBotsVectorEnv


def pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)


def run_side_by_side(venv, singles, seed, steps, illegal_every=0):
    """Step the vector env and the single envs with the same actions; everything the
    learner sees must agree. Returns the episode ends per game."""
    obs, info = venv.reset(seed=seed)
    single = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    assert info["seat"].tolist() == [s[1]["seat"] for s in single]
    rng = np.random.default_rng(seed)
    ends = np.zeros(venv.num_envs, int)
    for t in range(steps):
        masks = venv.action_masks()
        for i, env in enumerate(singles):
            o, inf = single[i]
            assert obs.keys() == o.keys()
            for key in o:  # board, features (and the candidate moves)
                assert np.array_equal(obs[key][i], o[key]), (t, i, key)
            assert np.array_equal(masks[i], env.unwrapped.action_masks()), (t, i)
            assert venv.seats[i] == inf["seat"]
        actions = pick(masks, rng)
        if illegal_every and t % illegal_every == illegal_every - 1:
            actions[0] = np.flatnonzero(~masks[0])[t % 7]
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert not truncated.any()
        for i, env in enumerate(singles):
            o, r, term, _, inf = env.step(int(actions[i]))
            assert rewards[i] == r and terminated[i] == term, (t, i, rewards[i], r)
            if term:
                final = infos["final_info"]
                assert infos["_final_obs"][i] and infos["_final_info"][i]
                assert infos["final_obs"][i].keys() == o.keys()
                for key in o:
                    assert np.array_equal(infos["final_obs"][i][key], o[key]), key
                assert final["scores"][i].tolist() == inf["scores"].tolist()
                assert final["seat"][i] == single[i][1]["seat"]  # the episode's seat
                if "illegal_move" in inf:
                    assert final["_illegal_move"][i] and r == venv.illegal_reward
                else:
                    assert final["end_reason"][i] == inf["end_reason"] == "tiles"
                ends[i] += 1
                o, inf = env.reset()
            else:
                assert venv.game(i).scores == env.unwrapped.game.scores
            single[i] = (o, inf)
    return ends


@pytest.mark.parametrize(
    ("num_envs", "kwargs", "seed", "steps"),
    [
        (3, {"opponents": "random"}, 100, 80),
        (2, {"opponents": ["greedy", "heuristic"], "reward": "margin", "seat": 1}, 7, 50),
        (2, {"opponents": ["random", "greedy", "random"], "reward": "win", "hand_size": 3}, 3, 40),
        (2, {"opponents": "greedy", "obs_features": "aggregate", "reward": "margin"}, 5, 50),
        (2, {"opponents": ["random", "heuristic"], "obs_features": "aggregate"}, 11, 30),
        # the expansions' decks hold 90 and 96 tiles: about 45 learner steps a game
        (
            2,
            {
                "opponents": "heuristic",
                "expansions": ["inns_cathedrals"],
                "obs_features": "aggregate",
            },
            13,
            60,
        ),
        (2, {"opponents": ["random", "heuristic"], "expansions": ["traders_builders"]}, 17, 60),
        # candidate moves (K below and above the legal moves), with the expansions' figures
        (2, {"opponents": "random", "candidate_moves": 8, "reward": "margin"}, 19, 50),
        (
            2,
            {
                "opponents": ["greedy", "random"],
                "candidate_moves": 256,
                "hand_size": 3,
                "obs_features": "aggregate",
            },
            23,
            40,
        ),
        (
            2,
            {
                "opponents": "heuristic",
                "expansions": ["inns_cathedrals", "traders_builders"],
                "candidate_moves": 64,
            },
            29,
            60,
        ),
    ],
)
def test_sub_envs_match_single_vs_bots_envs(num_envs, kwargs, seed, steps):
    """Game i is VsBots-v0 reset with seed + i (then without a seed after each game):
    same seats, observations, masks, rewards, ends and final observations; illegal
    actions (mixed into game 0) end the episode in both."""
    venv = VsBotsVectorEnv(num_envs=num_envs, board_size=32, **kwargs)
    singles = [
        gymnasium.make("Carcassonne/VsBots-v0", board_size=32, **kwargs) for _ in range(num_envs)
    ]
    ends = run_side_by_side(venv, singles, seed, steps, illegal_every=23)
    assert ends.sum() >= num_envs


@pytest.mark.skipif(
    numba_config.NUMBA_NUM_THREADS < 2,
    reason="numba allows one thread here (one core or NUMBA_NUM_THREADS=1)",
)
@pytest.mark.parametrize("env_class", ["solo", "vs_bots"])
def test_threads_change_nothing(env_class):
    """Two threads taking chunks of games (`BatchedGamesEnv._in_chunks`) step every game
    exactly as one thread does: observations, candidate moves, masks, rewards, ends."""
    from carcassonne_env.envs import SoloVectorEnv

    def make(threads):
        if env_class == "solo":
            return SoloVectorEnv(
                num_envs=24,
                board_size=32,
                candidate_moves=16,
                obs_features="aggregate",
                num_threads=threads,
            )
        return VsBotsVectorEnv(
            num_envs=24,
            board_size=32,
            opponents=["random", "greedy"],
            candidate_moves=16,
            obs_features="aggregate",
            num_threads=threads,
        )

    one, two = make(1), make(2)
    assert two.num_threads == 2 and one.num_threads == 1
    obs1, _ = one.reset(seed=5)
    obs2, _ = two.reset(seed=5)
    rng = np.random.default_rng(5)
    ended = 0
    for t in range(60):
        for key in obs1:
            assert np.array_equal(obs1[key], obs2[key]), (t, key)
        masks = one.action_masks()
        assert np.array_equal(masks, two.action_masks()), t
        actions = pick(masks, rng)
        obs1, r1, term1, _, _ = one.step(actions)
        obs2, r2, term2, _, _ = two.step(actions)
        assert np.array_equal(r1, r2) and np.array_equal(term1, term2), t
        ended += int(term1.sum())
    assert ended > 0  # (with the autoreset of ended games)


def test_attributes_and_make_vec():
    venv = gymnasium.make_vec(
        "Carcassonne/VsBots-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        players=3,
        opponents=["greedy", "random"],
        board_size=10,
    )
    env = venv.unwrapped
    assert isinstance(env, VsBotsVectorEnv) and isinstance(env, VectorEnv)
    assert env.num_envs == 3 and env.rules.players == 3
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    single = gymnasium.make("Carcassonne/VsBots-v0", players=3, board_size=10)
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    assert env.action_space == gymnasium.spaces.MultiDiscrete([10 * 10 * 4 * 9] * 3)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["seat"].shape == (3,) and env.action_masks().shape == (3, 3600)
    assert env.action_masks().any(axis=1).all()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"opponents": []}, "at least one"),
        ({"opponents": "mcts"}, "'mcts' has no jitted version"),
        ({"opponents": [1]}, "opponents must be bot specs"),
        ({"opponents": ["random", "random"], "players": 2}, "2 players need 1 opponents"),
        ({"players": 7}, "players"),
        ({"seat": 2}, "seat must be an integer in \\[0, 1\\], got 2"),
        ({"reward": "points"}, "reward must be one of"),
        ({"rules": Rules(variant="solo")}, "Solo-v0"),
        ({"num_threads": 0}, "num_threads"),
        ({"board_size": 2}, "board_size"),
        ({"render_mode": "human"}, "render_mode"),
        ({"self_policy": 3}, "self_policy must be a callable"),
        ({"obs_features": "rich"}, "obs_features"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        VsBotsVectorEnv(**kwargs)


def test_sb3_adapter():
    pytest.importorskip("stable_baselines3")
    env = VsBotsVectorEnv(num_envs=2, opponents="random", board_size=16).to_sb3()
    env.seed(4)
    obs = env.reset()
    assert obs["board"].shape == (2, 48, 48, 10)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(45):
        env.step_async(pick(env.action_masks(), rng))
        obs, rewards, dones, infos = env.step_wait()
        assert rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"]["board"].shape == (48, 48, 10)
            assert infos[i]["end_reason"] == "tiles" and len(infos[i]["scores"]) == 2
            ends += 1
    assert ends >= 1


# --------------------------------------------------------------------------- policies


class _FirstActionBot:
    """A Python bot playing the first action of its seat's mask (what `first_action`
    below does as a batched policy)."""

    name = "first"

    def __init__(self, encoder):
        self.encoder = encoder

    def act(self, game):
        mask = self.encoder.encode(game, game.current_player)["action_mask"]
        return self.encoder.action_to_move(game, int(np.argmax(mask)))


class _VsFirstBots(VsBotsEnv):
    def _make_bots(self, seats):
        rng = self.np_random
        for _ in seats:
            rng.integers(2**63)  # the vector env draws a seed per opponent too
        return {p: _FirstActionBot(self.driver.encoder) for p in seats}


@pytest.mark.parametrize(
    "options",
    [{"obs_features": "aggregate"}, {"candidate_moves": 32}],
    ids=["aggregate", "candidates"],
)
def test_policy_opponents_are_batched_and_match_the_single_env(options):
    calls = []

    def first_action(obs, masks, seats):
        calls.append(len(seats))
        assert obs["board"].shape[0] == masks.shape[0] == len(seats)
        if "candidates" in obs:  # the opponents' own candidates: legal actions
            acts = obs["candidate_actions"]
            assert (acts[:, 0] >= 0).all()
            assert masks[np.arange(len(seats))[:, None], np.maximum(acts, 0)][acts >= 0].all()
        return masks.argmax(axis=1)

    venv = VsBotsVectorEnv(
        num_envs=3, opponents=[first_action, first_action], players=3, board_size=32, **options
    )
    singles = [
        _VsFirstBots(opponents=["random", "random"], players=3, board_size=32, **options)
        for _ in range(3)
    ]
    run_side_by_side(venv, singles, seed=2, steps=30)
    # one call per opponent turn for all the games waiting on it, not one per game
    assert max(calls) == 3 and len(calls) <= 2 * 32  # <= 2 rounds per step and reset


def test_a_league_policy_gets_the_game_indices():
    """A policy with a `games` parameter learns which games it moves in (a league gives
    each game its own snapshot); seat 0 is the learner, so seat 1 waits in every game."""
    batches = []

    def league(obs, masks, seats, games):
        batches.append(games.tolist())
        snapshot = games % 2  # game parity picks the "snapshot": first or last action
        first = masks.argmax(axis=1)
        last = masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)
        return np.where(snapshot == 0, first, last)

    venv = VsBotsVectorEnv(num_envs=3, opponents=league, players=2, seat=0, board_size=24)
    venv.reset(seed=1)
    venv.step(venv.action_masks().argmax(axis=1))
    assert batches == [[0, 1, 2]]


def test_self_play_seats_use_the_self_policy():
    seen = []

    def policy(obs, masks, seats):
        seen.append(seats.copy())
        return masks.argmax(axis=1)

    venv = VsBotsVectorEnv(num_envs=2, opponents="self", players=2, seat=0, board_size=32)
    with pytest.raises(ValueError, match="set self_policy"):
        venv.reset(seed=0)
    venv.self_policy = policy
    venv.reset(seed=0)
    for _ in range(5):
        _, _, _, _, _ = venv.step(venv.action_masks().argmax(axis=1))
    assert all((s == 1).all() for s in seen) and len(seen) == 5
    for i in range(2):
        assert venv.game(i).current_player == 0  # the learner's (seat 0) decision


def test_bench_reports_vs_bots_beside_solo():
    from benchmarks.targets import TARGETS
    from carcassonne_env.speed import bench_vs_bots

    results = bench_vs_bots(steps=8, repeats=1, num_envs=2)
    for bot in ("random", "greedy", "heuristic"):
        assert results[f"VsBots vector steps/s (N=2, {bot})"] > 0
    assert results["VsBots/solo ratio (random)"] == pytest.approx(
        results["VsBots vector steps/s (N=2, random)"] / results["SoloVectorEnv steps/s (N=2)"]
    )
    assert "VsBots/solo ratio (random, 1 thread)" in results
    assert results["VsBots vector steps/s (N=2, random, aggregate obs)"] > 0
    assert TARGETS["VsBots/solo ratio (random)"] == 0.45


def test_maskable_ppo_self_play_with_its_own_policy_as_opponent(one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from carcassonne_env.envs.vs_bots import sb3_policy

    venv = VsBotsVectorEnv(num_envs=2, opponents="self", players=2, board_size=16)
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy",
        venv.to_sb3(),
        n_steps=16,
        batch_size=16,
        n_epochs=1,
        seed=0,
        device="cpu",
    )
    calls = []
    policy = sb3_policy(model)
    venv.self_policy = lambda obs, masks, seats: (
        calls.append(len(seats)) or policy(obs, masks, seats)
    )
    model.learn(32)
    assert model.num_timesteps == 32 and calls and max(calls) <= 2


def test_game_views_render_and_copies():
    venv = VsBotsVectorEnv(
        num_envs=2, opponents="greedy", board_size=16, copy=True, render_mode="ansi"
    )
    obs, _ = venv.reset(seed=3)
    kept = obs["board"].copy()
    enc = venv.encoder
    for _ in range(3):
        for i in range(2):
            game = venv.game(i)
            assert game.current_player == venv.seats[i]  # the learner is to move
            mask = venv.action_masks()[i]
            assert {enc.action_to_move(game, int(a)) for a in np.flatnonzero(mask)} <= set(
                game.legal_moves()
            )
        obs2, *_ = venv.step(venv.action_masks().argmax(axis=1))
        assert obs2["board"] is not obs["board"]
    assert np.array_equal(obs["board"], kept)  # copy=True: never overwritten
    assert venv.render() == (str(venv.game(0)), str(venv.game(1)))
    assert VsBotsVectorEnv(num_envs=1).render() is None
