"""PettingZoo AEC env `carcassonne_env.carcassonne_v0` (and its parallel form): the
PettingZoo API tests, registry, rewards, illegal actions, two_step turns."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from carcassonne_env import Rules, carcassonne_v0
from carcassonne_env.envs.aec import parallel_env, raw_env

pytestmark = pytest.mark.filterwarnings(
    # PettingZoo's api_test nags about Dict observations (ours are Dict by design)
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:Observation space for each agent probably should be:UserWarning",
)


def play(env, seed: int, rng: np.random.Generator, on_step=None) -> dict[str, float]:
    """Play one game with uniformly random legal actions through `agent_iter`; returns
    each agent's summed rewards (from `last()`, so everything it was credited)."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if on_step is not None:
            on_step(env, agent)
    assert env.agents == []
    return totals


# --------------------------------------------------------------------------- API tests


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 2},
        {"players": 3},
        {"players": 6},
        {"players": 3, "action_mode": "two_step"},
        {"players": 4, "hand_size": 3},
        {"players": 2, "reward": "margin", "board_size": 24},
        {"rules": Rules(players=2, small_city=True), "reward": "win"},
    ],
    ids=str,
)
def test_api_test(kwargs):
    api_test(carcassonne_v0.env(**kwargs), num_cycles=1000)


def test_seed_test():
    seed_test(lambda: carcassonne_v0.env(players=3), num_cycles=100)
    seed_test(lambda: carcassonne_v0.env(players=2, action_mode="two_step"), num_cycles=100)


def test_render_test_ansi():
    """PettingZoo's render_test visits every mode in metadata["render_modes"]; this one
    checks "ansi" only (rgb_array is covered in tests/envs/test_gym_envs.py)."""

    def ansi_only(render_mode=None):
        env = carcassonne_v0.env(players=2, render_mode=render_mode)
        env.unwrapped.metadata = {**env.unwrapped.metadata, "render_modes": ["ansi"]}
        return env

    render_test(ansi_only)
    env = carcassonne_v0.env(players=2, render_mode="ansi")
    env.reset(seed=1)
    assert env.render() == str(env.unwrapped.game)
    env = carcassonne_v0.env(players=2)  # no render_mode
    env.reset(seed=1)
    assert env.render() is None


def test_metadata():
    env = raw_env(players=2)
    assert env.metadata["name"] == "carcassonne_v0"
    assert env.metadata["is_parallelizable"] is True
    assert set(env.metadata["render_modes"]) == {"ansi", "rgb_array", "human"}
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(players=2, render_mode="svg")


@pytest.mark.parametrize("players", [2, 4])
def test_parallel_api_test(players):
    parallel_api_test(
        turn_based_aec_to_parallel(carcassonne_v0.env(players=players)), num_cycles=1000
    )
    parallel_api_test(parallel_env(players=players), num_cycles=1000)


def test_parallel_env_plays_whole_games():
    env = parallel_env(players=3)
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=3)
    assert set(obs) == set(env.possible_agents)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        acting = [a for a in env.agents if obs[a]["action_mask"].any()]
        assert len(acting) == 1  # one agent to move, the others get an all-zero mask
        actions = {
            a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if a in acting else 0
            for a in env.agents
        }
        obs, rewards, terms, truncs, infos = env.step(actions)
        for a, r in rewards.items():
            totals[a] += r
        steps += 1
        if all(terms.values()):
            break
    game = env.unwrapped.game
    assert game.done and steps == game.turn
    assert [totals[a] for a in env.possible_agents] == game.scores


def test_registry_make():
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", "Carcassonne/Carcassonne-v0", players=3)
    assert isinstance(env, pettingzoo.AECEnv)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    par = pettingzoo.make("parallel", "Carcassonne/Carcassonne-v0", players=2)
    assert isinstance(par, pettingzoo.ParallelEnv)
    obs, _ = par.reset(seed=0)
    assert set(obs) == {"player_0", "player_1"}


def test_spaces_and_observations():
    env = carcassonne_v0.env(players=3, board_size=10)
    env.reset(seed=0)
    space = env.observation_space("player_1")
    assert space["observation"]["board"].shape == (30, 30, 11)
    assert space["action_mask"].shape == (10 * 10 * 4 * 9,)
    assert env.action_space("player_2").n == 10 * 10 * 4 * 9
    acting = env.agent_selection
    obs = env.observe(acting)
    assert space.contains(obs) and obs["action_mask"].any()
    enc = env.unwrapped.driver.encoder
    assert np.array_equal(obs["action_mask"], enc.action_mask(env.unwrapped.game))
    for other in ("player_1", "player_2"):  # not their turn: all-zero mask
        o = env.observe(other)
        assert o["action_mask"].shape == (enc.n_actions,) and not o["action_mask"].any()
        assert space.contains(o)
    # boards are seen from each agent's seat: follower planes rotate, terrain doesn't
    b0, b1 = env.observe("player_0")["observation"], env.observe("player_1")["observation"]
    assert np.array_equal(b0["board"][:, :, :8], b1["board"][:, :, :8])
    assert not np.array_equal(b0["features"], b1["features"])  # to_move is relative


# --------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("seed", [0, 1])
def test_score_rewards_sum_to_final_scores(seed):
    env = carcassonne_v0.env(players=3, reward="score")
    totals = play(env, seed, np.random.default_rng(seed))
    game = env.unwrapped.game
    assert game.done and game.end_reason == "tiles"
    assert [totals[a] for a in env.possible_agents] == game.scores
    assert sum(game.scores) > 0


def test_score_rewards_two_step_and_hand_size_3():
    env = carcassonne_v0.env(players=4, hand_size=3, action_mode="two_step")
    totals = play(env, 5, np.random.default_rng(5))
    game = env.unwrapped.game
    assert [totals[a] for a in env.possible_agents] == game.scores
    assert len(game.to_record()["moves"]) == game.turn


def test_margin_rewards_sum_to_zero_every_step():
    env = carcassonne_v0.env(players=4, reward="margin")
    sums = []

    def check(env, agent):
        sums.append(sum(env.rewards.values()))
        assert set(env.rewards) == set(env.possible_agents)

    totals = play(env, 2, np.random.default_rng(2), on_step=check)
    assert len(sums) == env.unwrapped.game.turn
    assert np.allclose(sums, 0.0)
    scores = np.array(env.unwrapped.game.scores, float)
    margin = scores - (scores.sum() - scores) / 3
    assert np.allclose([totals[a] for a in env.possible_agents], margin)


@pytest.mark.parametrize("seed", [0, 3])
def test_win_rewards_only_at_the_end(seed):
    env = carcassonne_v0.env(players=3, reward="win")
    steps = []

    def check(env, agent):
        steps.append((env.unwrapped.game.done, dict(env.rewards)))

    totals = play(env, seed, np.random.default_rng(seed), on_step=check)
    assert all(not any(r.values()) for done, r in steps if not done)
    assert [done for done, _ in steps].count(True) == 1 and steps[-1][0]
    scores = env.unwrapped.game.scores
    top = max(scores)
    sole = scores.count(top) == 1
    expected = [(1.0 if sole else 0.0) if s == top else -1.0 for s in scores]
    assert [steps[-1][1][a] for a in env.possible_agents] == expected
    assert [totals[a] for a in env.possible_agents] == expected


def test_win_reward_for_a_shared_top_score():
    env = carcassonne_v0.env(players=2, reward="win")
    for seed in range(40):  # find a tie (deterministic)
        totals = play(env, seed, np.random.default_rng(seed))
        scores = env.unwrapped.game.scores
        if scores[0] == scores[1]:
            assert list(totals.values()) == [0.0, 0.0]
            return
        assert sorted(totals.values()) == [-1.0, 1.0]
    pytest.skip("no tie in 40 random games")


def test_final_infos_carry_scores():
    env = carcassonne_v0.env(players=2)
    play(env, 4, np.random.default_rng(4))
    env2 = raw_env(players=2)
    env2.reset(seed=4)
    rng = np.random.default_rng(4)
    while not env2.game.done:
        env2.step(
            int(rng.choice(np.flatnonzero(env2.observe(env2.agent_selection)["action_mask"])))
        )
    assert all(env2.terminations.values())
    for info in env2.infos.values():  # a numpy int64 array, as the Gymnasium envs'
        assert set(info) == {"scores"} and info["scores"].dtype == np.int64
        assert info["scores"].tolist() == env2.game.scores
    for a in env2.possible_agents:
        assert not env2.observe(a)["action_mask"].any()


# --------------------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (10**9, "action 1000000000 is outside the action space [0, 36864)"),
        (-1, "action -1 is outside the action space [0, 36864)"),
        (1.5, "action must be an integer in the action space"),
        ("3", "action must be an integer in the action space"),
        (None, "action must be an integer in the action space"),  # None: only for a dead agent
    ],
)
def test_an_action_outside_the_space_is_an_error(action, message):
    """Only an action of the space gets the illegal-move ending (issue 28): anything else
    raises and changes nothing."""
    env = carcassonne_v0.env(players=3, illegal_reward=-7.5)
    env.reset(seed=0)
    agent, before = env.agent_selection, env.unwrapped.game.to_record()
    with pytest.raises(ValueError, match=re.escape(message)):
        env.step(action)
    assert env.unwrapped.game.to_record() == before
    assert env.agent_selection == agent and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (0, "not legal|not in the action mask|shares no edge"),  # far corner of the window
    ],
)
def test_illegal_action_ends_the_game_for_everyone(action, reason):
    env = carcassonne_v0.env(players=3, illegal_reward=-7.5)
    env.reset(seed=0)
    agent = env.agent_selection
    before = env.unwrapped.game.to_record()
    env.step(action)
    assert env.rewards == {"player_0": -7.5, "player_1": 0.0, "player_2": 0.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    msg = env.infos[agent]["illegal_move"]
    assert isinstance(msg, str) and msg
    assert re.search(reason, msg), msg
    assert env.unwrapped.game.to_record() == before  # nothing was played
    _, reward, terminated, _, info = env.last()
    assert (reward, terminated, info["illegal_move"]) == (-7.5, True, msg)
    seen = []
    for a in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        seen.append((a, reward))
        env.step(None)
    assert dict(seen) == {"player_0": -7.5, "player_1": 0.0, "player_2": 0.0}
    assert env.agents == []


def test_illegal_follower_step_in_two_step_mode():
    env = carcassonne_v0.env(players=2, action_mode="two_step")
    env.reset(seed=0)
    agent = env.agent_selection
    place = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    env.step(place)
    assert env.agent_selection == agent and not any(env.terminations.values())
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    env.step(bad)
    assert env.rewards[agent] == -1.0
    assert all(env.terminations.values())
    assert "follower action" in env.infos[agent]["illegal_move"]


# --------------------------------------------------------------------------- two_step


def test_two_step_same_agent_acts_twice_per_turn():
    env = carcassonne_v0.env(players=3, action_mode="two_step")
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    enc = env.unwrapped.driver.encoder
    assert enc.n_actions == 32 * 32 * 4
    i = env.possible_agents.index
    for turn in range(12):
        game = env.unwrapped.game
        agent = env.agent_selection
        assert i(agent) == game.current_player and game.turn == turn
        obs = env.observe(agent)
        assert obs["observation"]["features"][enc.feature_names.index("follower_phase")] == 0
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agent_selection == agent and game.turn == turn  # nothing played yet
        obs = env.observe(agent)
        slots = np.flatnonzero(obs["action_mask"])
        assert slots.size and slots.max() < enc.slots  # the follower step
        assert obs["observation"]["features"][enc.feature_names.index("follower_phase")] == 1
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(slots)))
        assert game.turn == turn + 1
        assert env.agent_selection == env.possible_agents[game.current_player]
        assert env.agent_selection != agent


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"players": 1}, "2-6 players"),
        ({"variant": "solo"}, "solo"),
        ({"rules": Rules(variant="solo")}, "solo"),
        ({"players": 2, "reward": "points"}, "reward must be one of"),
        ({"players": 7}, "players"),
        ({"rules": Rules(), "players": 3}, "either rules= or rule options"),
        ({"players": 2, "board_size": 2}, "board_size"),
        ({"players": 2, "action_mode": "three_step"}, "action_mode"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        carcassonne_v0.env(**kwargs)


def test_env_is_order_enforced_and_warns_nothing_on_normal_play():
    env = carcassonne_v0.env(players=2)
    with pytest.raises(AssertionError, match="reset"):  # PettingZoo's OrderEnforcingWrapper
        env.step(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play(env, 9, np.random.default_rng(9))


# --------------------------------------------------------------------------- classic layout


def _api_test_warnings(**kwargs) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(carcassonne_v0.env(**kwargs), num_cycles=200)
    return [str(w.message) for w in caught]


def test_flat_layout_passes_api_test_without_any_warning():
    """api_test warns "Observation is not a NumPy array" for every dict observation of an
    env not on its list of PettingZoo's own classic envs (chess_v6, go_v5...: whitelisted
    by name). The "flat" layout (an array, the mask in infos) passes without a warning;
    the "classic" layout's array under "observation" passes every check but that one."""

    def warned(layout: str) -> set[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api_test(carcassonne_v0.env(players=2, obs_layout=layout), num_cycles=200)
        return {str(w.message) for w in caught}

    assert warned("flat") == set()
    space_hint = (
        "Observation space for each agent probably should be gymnasium.spaces.box "
        "or gymnasium.spaces.discrete"
    )
    assert warned("classic") == warned("dict") == {"Observation is not a NumPy array", space_hint}


@pytest.mark.parametrize(
    "kwargs",
    [{"players": 3, "board_size": 10}, {"players": 2, "hand_size": 3, "action_mode": "two_step"}],
    ids=str,
)
def test_classic_and_flat_layouts_are_the_dict_layout_flattened(kwargs):
    """Same seed, same actions: every observation of the classic and flat envs is the dict
    env's board planes (C order) followed by its features, as float32; the masks (flat:
    in infos) and the rewards agree."""
    classic = carcassonne_v0.env(obs_layout="classic", **kwargs)
    flat = carcassonne_v0.env(obs_layout="flat", **kwargs)
    plain = carcassonne_v0.env(**kwargs)
    space = classic.observation_space("player_0")
    enc = classic.unwrapped.driver.encoder
    size = enc.board_shape[0] * enc.board_shape[1] * enc.board_shape[2] + enc.n_features
    assert space["observation"].shape == (size,) and space["observation"].dtype == np.float32
    assert space["action_mask"] == plain.observation_space("player_0")["action_mask"]
    assert flat.observation_space("player_1") == space["observation"]
    rng = np.random.default_rng(0)
    for env in (classic, flat, plain):
        env.reset(seed=4)
    steps = 0
    for agent in classic.agent_iter():
        obs, reward, terminated, truncated, _ = classic.last()
        ref, ref_reward, *_ = plain.last()
        _, flat_reward, _, _, flat_info = flat.last()
        assert plain.agent_selection == flat.agent_selection == agent
        assert reward == ref_reward == flat_reward
        for a in classic.agents:
            o, r, f = classic.observe(a), plain.observe(a), flat.observe(a)
            assert space.contains(o) and flat.observation_space(a).contains(f)
            assert np.array_equal(
                o["observation"],
                np.concatenate([r["observation"]["board"].ravel(), r["observation"]["features"]]),
            )
            assert np.array_equal(f, o["observation"])
            assert np.array_equal(o["action_mask"], r["action_mask"])
            assert np.array_equal(flat.infos[a]["action_mask"], r["action_mask"])
            board = o["observation"][: r["observation"]["board"].size]
            assert np.array_equal(board.reshape(enc.board_shape), r["observation"]["board"])
        assert np.array_equal(flat_info["action_mask"], obs["action_mask"])
        action = (
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
        for env in (classic, flat, plain):
            env.step(action)
        steps += 1
    assert steps > 71 and plain.agents == [] and flat.agents == []
