"""The candidate-move observation (`candidate_moves=K`, issue 25) in every env: Solo-v0,
VsBots-v0, the PettingZoo env in each `obs_layout`; and a model trained on it
(`training.policy.CandidatePolicy`) plays everywhere a board model does:
`make_env_for_model`, the `sb3:model=` bot, agent insight, slim exports. (The columns
themselves: tests/core/test_candidate_columns.py; vector envs: tests/envs/test_solo.py and
tests/envs/test_vs_bots.py.)"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import Game, Rules, carcassonne_v0
from carcassonne_env.encoding import Encoder
from carcassonne_env.envs.aec import flat_observation, unflatten_observation

pytestmark = pytest.mark.xdist_group("candidates")  # on one worker: tests/conftest.py

CANDIDATE_KEYS = ("candidates", "candidate_actions")


def _assert_candidates_of(obs: dict, game: Game, observer: int, K: int) -> None:
    """`obs` holds the candidates an Encoder gives for `observer` in `game`."""
    enc = Encoder(game.rules, obs["board"].shape[0] // 3, candidate_moves=K, tileset=game.tileset)
    want = enc.encode(game, observer)
    for key in CANDIDATE_KEYS:
        assert np.array_equal(obs[key], want[key]), key


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Carcassonne/Solo-v0", {}),
        ("Carcassonne/Solo-v0", {"colours": 4, "scoring_order": "player"}),
        ("Carcassonne/VsBots-v0", {"opponents": ["greedy"], "players": 2}),
        ("Carcassonne/VsBots-v0", {"opponents": "random", "players": 3, "hand_size": 3}),
    ],
    ids=["solo", "solo-player-order", "vsbots", "vsbots-hand"],
)
def test_gymnasium_envs_give_the_candidates(env_id, kwargs):
    K = 12
    env = gymnasium.make(env_id, board_size=16, candidate_moves=K, **kwargs)
    space = env.observation_space
    assert space["candidates"].shape == (K, Encoder(env.unwrapped.rules, 16).n_candidate_columns)
    assert space["candidate_actions"].shape == (K,)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        assert space.contains(obs)
        game = env.unwrapped.game
        observer = info.get("seat", 0)  # VsBots: the learner's seat; solo: colours are absolute
        _assert_candidates_of(obs, game, observer, K)
        present = obs["candidate_actions"][obs["candidate_actions"] >= 0]
        assert len(present) == min(K, int(info["action_mask"].sum()))
        assert info["action_mask"][present].all()
        # the candidates are the env's actions: play one
        obs, _, terminated, truncated, info = env.step(int(rng.choice(present)))
        if terminated or truncated:
            obs, info = env.reset()


@pytest.mark.parametrize("env_id", ["Carcassonne/Solo-v0", "Carcassonne/VsBots-v0"])
def test_gymnasium_envs_refuse_bad_candidate_options(env_id):
    with pytest.raises(ValueError, match="candidate_moves must be an integer >= 0"):
        gymnasium.make(env_id, candidate_moves=-1)
    with pytest.raises(ValueError, match="candidate_moves must be an integer >= 0"):
        gymnasium.make(env_id, candidate_moves=2.5)
    with pytest.raises(ValueError, match="needs action_mode='turn'"):
        gymnasium.make(env_id, candidate_moves=8, action_mode="two_step")
    assert "candidates" not in gymnasium.make(env_id).observation_space.spaces  # off by default


@pytest.mark.parametrize("layout", ["dict", "classic", "flat"])
def test_the_pettingzoo_env_gives_the_candidates_in_every_layout(layout):
    K = 10
    env = carcassonne_v0.env(players=3, board_size=16, obs_layout=layout, candidate_moves=K)
    dict_space = env.unwrapped.driver.encoder.observation_space()
    env.reset(seed=2)
    moved = 0
    for agent in env.agent_iter(max_iter=40):
        obs, _, termination, truncation, info = env.last()
        assert env.observation_space(agent).contains(obs)
        if layout == "dict":
            parts = obs["observation"]
        else:
            flat = obs if layout == "flat" else obs["observation"]
            parts = unflatten_observation(flat, dict_space)
            # the flat array is the dict observation's parts in order
            assert np.array_equal(flat, flat_observation(**parts))
            board, features = parts["board"], parts["features"]
            assert np.array_equal(flat[board.size : board.size + features.size], features)
            assert np.array_equal(flat[-K:], parts["candidate_actions"])
            assert np.array_equal(
                flat[-K - parts["candidates"].size : -K], parts["candidates"].reshape(-1)
            )
        mask = info["action_mask"] if layout == "flat" else obs["action_mask"]
        seat = env.unwrapped.agent_name_mapping[agent]
        for other in env.agents:  # every agent not to move sees no candidates
            if other != agent:
                hidden = env.observe(other)
                hidden = hidden["observation"] if layout != "flat" else hidden
                if layout != "dict":
                    hidden = unflatten_observation(hidden, dict_space)
                assert (hidden["candidate_actions"] == -1).all()
                assert not hidden["candidates"].any()
        _assert_candidates_of(parts, env.unwrapped.game, seat, K)
        actions = parts["candidate_actions"]
        assert mask[actions[actions >= 0]].all()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(actions[moved % 3]))  # a candidate is an action of the env
        moved += 1
    assert moved >= 30


def test_unflatten_refuses_an_array_of_another_layout():
    space = Encoder(Rules(players=2), 8, candidate_moves=4).observation_space()
    with pytest.raises(ValueError, match="does not fit the space"):
        unflatten_observation(np.zeros(10, np.float32), space)


# --------------------------------------------------------------------------- models


def _candidate_model(env, tmp_path, name: str):
    """A tiny untrained MaskablePPO with CandidatePolicy, saved to `tmp_path`."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from training.policy import CandidatePolicy

    # seeded: the rollout's games must stay inside the tests' small windows, and an
    # unseeded one sometimes sprawls past an 8-cell window (WindowOverflowError)
    model = sb3_contrib.MaskablePPO(
        CandidatePolicy,
        env,
        n_steps=16,
        batch_size=16,
        device="cpu",
        policy_kwargs={"hidden": 16},
        seed=0,
    )
    model.learn(16)  # a rollout: `_last_obs` holds candidates, as a trained run's
    from carcassonne_env.model_file import save_model

    return save_model(model, tmp_path / f"{name}.zip")  # (with the description it loads by)


@pytest.mark.parametrize("solo", [True, False], ids=["solo", "vsbots"])
def test_a_candidate_model_gets_its_env_plays_explains_and_exports(
    solo, tmp_path, one_torch_thread
):
    from agents.annotations import explain
    from agents.sb3_policy import SB3Agent, load_model
    from carcassonne_env import make_bot
    from carcassonne_env.envs import SoloEnv, VsBotsEnv, make_env_for_model, model_env_options
    from training.export import export_model

    K = 8
    env = (
        SoloEnv(board_size=8, candidate_moves=K)
        if solo
        else VsBotsEnv(opponents="random", board_size=8, candidate_moves=K)
    )
    path = _candidate_model(env, tmp_path, "candidates")
    model = load_model(path, cached=False)
    options = model_env_options(model)
    assert options["candidate_moves"] == K and options["board_size"] == 8
    assert options == (
        {"colours": 3, "board_size": 8, "action_mode": "turn", "candidate_moves": K}
        if solo
        else {
            "players": 2,
            "hand_size": 1,
            "board_size": 8,
            "action_mode": "turn",
            "candidate_moves": K,
        }
    )
    with pytest.raises(ValueError, match="the model fixes candidate_moves=8"):
        make_env_for_model(model, candidate_moves=4)
    made = make_env_for_model(model)
    assert made.observation_space == model.observation_space
    # the standard loop: predict on the env's observations, actions are legal
    from sb3_contrib.common.maskable.utils import get_action_masks

    obs, _ = made.reset(seed=0)
    for _ in range(10):
        action, _ = model.predict(obs, action_masks=get_action_masks(made), deterministic=True)
        assert get_action_masks(made)[int(action)]
        obs, _, terminated, truncated, _ = made.step(action)
        if terminated or truncated:
            break
    # the sb3 bot (by spec), its insight, and a slim export that plays the same moves
    rules = Rules(variant="solo") if solo else Rules(players=2)
    bot = make_bot(f"sb3:model={path}", seed=0)
    assert isinstance(bot, SB3Agent)
    slim = SB3Agent(load_model(export_model(path, tmp_path / "slim.zip"), cached=False))
    game = Game(rules, seed=1)
    for _ in range(8):
        move = bot.act(game)
        assert move in game.legal_moves()
        assert slim.act(game) == move
        note = explain(bot, game, top_k=3)
        assert note["kind"] == "policy"
        best = [t for t in note["top"] if t["weight"] == note["top"][0]["weight"]]
        assert (move.x, move.y, move.rotation, move.follower) in [
            (t["x"], t["y"], t["rotation"], t["follower"]) for t in best
        ]
        game.play(move)
    assert bot.encoder_for(game).candidate_moves == K
    assert model_env_options(slim.model) == options
