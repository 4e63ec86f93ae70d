"""Other RL libraries as clients (docs/clients.md): the action mask in the observation of
the single-agent envs (``mask_in_obs=True``), numpy values in `info`, and the TorchRL and
Tianshou examples run as written.

The library examples are fenced ```py, not ```python, in docs/clients.md on purpose:
tests/repository/test_docs.py runs every ```python block of docs/ with the package's own
dependencies, and TorchRL, Tianshou and OpenSpiel are only in the `clients` extra. Here
each runs under `pytest.importorskip`: CI installs the extra (a skip fails there), and
elsewhere each skips where its library is missing."""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import carcassonne_v0
from carcassonne_env.envs.aec import SCORES_DTYPE, raw_env
from tests.support.paths import ROOT

CLIENTS = ROOT / "docs" / "clients.md"
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
# a small board keeps the checkers quick (9,216 actions instead of 36,864); the moves it
# cannot show are masked out, with a warning these tests do not need
SMALL = {"board_size": 16}
pytestmark = pytest.mark.filterwarnings("ignore::carcassonne_env.encoding.WindowOverflowWarning")


def _py_blocks() -> list[str]:
    return [
        code for lang, code in FENCE.findall(CLIENTS.read_text(encoding="utf-8")) if lang == "py"
    ]


def _example(word: str) -> str:
    found = [code for code in _py_blocks() if f"from {word}" in code]
    assert len(found) == 1, f"one ```py block of docs/clients.md imports {word}"
    return found[0]


def test_the_docs_have_one_py_block_per_library():
    blocks = _py_blocks()
    assert len(blocks) == 3  # the OpenSpiel one runs in tests/game/test_openspiel.py
    assert any("torchrl" in b for b in blocks) and any("tianshou" in b for b in blocks)
    assert any("open_spiel" in b for b in blocks)


# ------------------------------------------------------------------ mask in observation


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Carcassonne/Solo-v0", {}),
        ("Carcassonne/Solo-v0", {"action_mode": "two_step", "scoring_order": "player"}),
        ("Carcassonne/VsBots-v0", {"opponents": "random"}),
    ],
    ids=str,
)
def test_mask_in_obs_passes_the_checkers(env_id, kwargs):
    env = gymnasium.make(env_id, mask_in_obs=True, **SMALL, **kwargs).unwrapped
    space = env.observation_space
    n = env.action_space.n
    assert space["action_mask"] == gymnasium.spaces.Box(0, 1, (n,), np.int8)
    # the same key and space as the PettingZoo env's mask
    pz = raw_env(players=2, action_mode=kwargs.get("action_mode", "turn"), **SMALL)
    assert pz.observation_space("player_0")["action_mask"] == space["action_mask"]
    check_env(env, skip_render_check=True)
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3's advice on int8 "image" planes
        sb3_checker.check_env(env)


@pytest.mark.parametrize("env_id", ["Carcassonne/Solo-v0", "Carcassonne/VsBots-v0"])
def test_mask_in_obs_is_the_mask_every_step(env_id):
    env = gymnasium.make(env_id, mask_in_obs=True, **SMALL)
    plain = gymnasium.make(env_id, **SMALL)
    obs, info = env.reset(seed=3)
    ref, _ = plain.reset(seed=3)
    assert set(obs) == set(ref) | {"action_mask"}
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and env.observation_space.contains(obs)
        assert np.array_equal(mask, info["action_mask"])
        assert np.array_equal(mask.view(bool), env.unwrapped.action_masks())
        for key in ref:  # the other entries are those of the env without the mask
            assert np.array_equal(obs[key], ref[key]), key
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, done, _, info = env.step(action)
        ref, ref_reward, *_ = plain.step(action)
        assert reward == ref_reward
    assert not obs["action_mask"].any()  # nothing is legal once the game is over


def test_mask_in_obs_after_an_illegal_action():
    env = gymnasium.make("Carcassonne/Solo-v0", mask_in_obs=True, **SMALL)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    after, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and "illegal_move" in info
    assert np.array_equal(after["action_mask"], obs["action_mask"])  # nothing was played
    assert after["action_mask"] is not obs["action_mask"]  # a copy, as every entry


def test_mask_in_obs_is_checked():
    with pytest.raises(ValueError, match="mask_in_obs must be True or False"):
        gymnasium.make("Carcassonne/Solo-v0", mask_in_obs="yes")


def test_default_observation_has_no_mask():
    env = gymnasium.make("Carcassonne/Solo-v0", **SMALL)
    assert "action_mask" not in env.observation_space.spaces
    assert env.unwrapped.mask_in_obs is False


# ------------------------------------------------------------------ numpy infos


@pytest.mark.parametrize("env_id", ["Carcassonne/Solo-v0", "Carcassonne/VsBots-v0"])
def test_info_scores_are_an_int_array(env_id):
    env = gymnasium.make(env_id, **SMALL)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    done = False
    while True:
        scores = info["scores"]
        assert isinstance(scores, np.ndarray) and scores.dtype == SCORES_DTYPE
        assert scores.tolist() == env.unwrapped.game.scores
        assert not any(isinstance(v, list) for v in info.values()), info
        if done:
            break
        mask = env.unwrapped.action_masks()
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
    assert info["end_reason"] in ("A", "B", "tiles")


def test_aec_final_scores_are_an_int_array():
    env = raw_env(players=3, **SMALL)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while not env.game.done:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    for info in env.infos.values():
        assert info["scores"].dtype == SCORES_DTYPE
        assert info["scores"].tolist() == env.game.scores
    a, b = (env.infos[p]["scores"] for p in env.possible_agents[:2])
    assert a is not b  # each agent's own array


# ------------------------------------------------------------------ the library examples


def test_torchrl_example_runs():
    pytest.importorskip("torchrl")
    exec(compile(_example("torchrl"), "docs/clients.md torchrl", "exec"), {})


def test_tianshou_example_runs():
    pytest.importorskip("tianshou")
    exec(compile(_example("tianshou"), "docs/clients.md tianshou", "exec"), {})


def test_tianshou_example_layout_is_what_it_reads():
    """Without Tianshou too: the classic layout has the keys its PettingZooEnv reads."""
    env = carcassonne_v0.env(players=2, obs_layout="classic", **SMALL)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observation", "action_mask"} and obs["observation"].ndim == 1
