"""The PPO learner (`training.learner.ThreadedMaskablePPO`): its update computes
MaskablePPO's losses and weights from the same rollout (packed candidate rows, tensors
indexed once per rollout, minibatches in shards on threads), and what it trains saves,
loads with ``MaskablePPO.load`` and plays as ``sb3:model=``."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.logger import Logger  # noqa: E402

from agents.sb3_policy import torch_threads  # noqa: E402
from carcassonne_env import Game, Rules, make_bot  # noqa: E402
from carcassonne_env.envs import VsBotsVectorEnv  # noqa: E402
from carcassonne_env.model_file import save_model  # noqa: E402
from training.learner import ThreadedMaskablePPO, candidate_buffer_options  # noqa: E402
from training.policy import BoardPolicy, CandidatePolicy  # noqa: E402

pytestmark = [
    pytest.mark.xdist_group("candidates"),  # on one worker: tests/conftest.py
    pytest.mark.filterwarnings("ignore::carcassonne_env.encoding.WindowOverflowWarning"),
]

LOGGED = (
    "train/policy_gradient_loss",
    "train/value_loss",
    "train/entropy_loss",
    "train/approx_kl",
    "train/clip_fraction",
    "train/loss",
    "train/explained_variance",
)


def _env(candidates: int = 64, games: int = 4) -> VsBotsVectorEnv:
    return VsBotsVectorEnv(
        games,
        opponents="random",
        board_size=12,
        candidate_moves=candidates,
        num_threads=1,
        on_overflow="truncate",
    )


# (policy, its options, the env's candidate moves)
CANDIDATES = (CandidatePolicy, {"hidden": 16}, 64)
BOARD = (BoardPolicy, {"channels": 8, "blocks": 1}, 0)


def _models(env, policy: tuple, threads: int, **ppo) -> tuple[MaskablePPO, ThreadedMaskablePPO]:
    """sb3-contrib's MaskablePPO with its own buffer (float observations and masks, dense
    candidate rows) and the learner (packed rows and no masks for the candidate policy),
    with the same weights."""
    cls, options, _ = policy
    args = dict(
        n_steps=8,
        batch_size=12,
        n_epochs=2,
        policy_kwargs=options,
        seed=0,
        device="cpu",
        **{"learning_rate": 0.02, **ppo},
    )
    theirs = MaskablePPO(cls, env.to_sb3(), **args)
    mine = ThreadedMaskablePPO(cls, env.to_sb3(), threads=threads, **args)
    mine.policy.load_state_dict(theirs.policy.state_dict())
    for model in (theirs, mine):
        model.set_logger(Logger(folder=None, output_formats=[]))
    return theirs, mine


def _fill(env, theirs: MaskablePPO, buffers: list) -> None:
    """One rollout, the policy's own moves, values and log-probabilities, into both
    buffers (as `collect_rollouts` stores them)."""
    obs, _ = env.reset(seed=1)
    starts = np.ones(env.num_envs)
    for buffer in buffers:
        buffer.reset()
    th.manual_seed(0)
    for _ in range(theirs.n_steps):
        masks = env.action_masks()
        with th.no_grad():
            actions, values, log_probs = theirs.policy(
                theirs.policy.obs_to_tensor(obs)[0], action_masks=masks
            )
        next_obs, rewards, terminated, truncated, _ = env.step(actions.numpy())
        for buffer in buffers:
            buffer.add(
                obs,
                actions.numpy()[:, None],
                rewards,
                starts,
                values,
                log_probs,
                action_masks=masks,
            )
        obs, starts = next_obs, (terminated | truncated).astype(np.float64)
    with th.no_grad():
        last = theirs.policy.predict_values(theirs.policy.obs_to_tensor(obs)[0])
    for buffer in buffers:
        buffer.compute_returns_and_advantage(last, starts)


@pytest.mark.parametrize(
    ("policy", "threads", "ppo"),
    [
        (CANDIDATES, 1, {}),
        (CANDIDATES, 3, {}),  # minibatches of 12 in shards of 4 on three threads
        (CANDIDATES, 2, {"clip_range_vf": 0.05, "ent_coef": 0.01, "clip_range": 0.1}),
        (BOARD, 2, {"ent_coef": 0.01}),  # the masks stored and read
    ],
    ids=["candidates-1", "candidates-3", "candidates-2-clip-vf", "board-2"],
)
def test_update_gives_maskable_ppos_losses_and_weights(policy, threads, ppo):
    env = _env(policy[2])
    theirs, mine = _models(env, policy, threads, **ppo)
    _fill(env, theirs, [theirs.rollout_buffer, mine.rollout_buffer])
    packed = policy is CANDIDATES
    assert mine.rollout_buffer.pack_candidates is packed
    assert "candidates" not in mine.rollout_buffer.observations  # packed apart, or none
    for model in (theirs, mine):
        np.random.seed(7)  # the minibatches' permutation (numpy's global generator)
        model.train()
    got, want = mine.logger.name_to_value, theirs.logger.name_to_value
    for key in LOGGED:
        assert got[key] == pytest.approx(want[key], rel=1e-4, abs=1e-6), key
    assert want["train/clip_fraction"] > 0  # the clipped branch was exercised
    assert mine._n_updates == theirs._n_updates == 2  # internals: SB3's update counter
    for (name, a), b in zip(
        mine.policy.state_dict().items(), theirs.policy.state_dict().values(), strict=True
    ):
        if name.endswith("net.score.bias"):  # (under each of its SB3 aliases)
            # a shift of every logit: its gradient is 0 in exact arithmetic, so Adam turns
            # either side's float noise into a step of the learning rate's size
            continue
        assert th.allclose(a, b, atol=1e-5), name


@pytest.mark.parametrize("policy", [CANDIDATES, BOARD], ids=["candidates", "board"])
def test_rollouts_in_shards_store_what_maskable_ppos_loop_stores(policy):
    """The features of 6 games in shards of 2 on three threads, the sampling (with the
    masks, for the board policy) in one piece: the same moves, values and
    log-probabilities as sb3-contrib's loop, from the same seed."""
    cls, options, candidates = policy
    buffers = []
    for model_class, extra in ((MaskablePPO, {}), (ThreadedMaskablePPO, {"threads": 3})):
        model = model_class(
            cls,
            _env(candidates, games=6).to_sb3(),
            n_steps=8,
            batch_size=48,
            n_epochs=1,
            policy_kwargs=options,
            seed=0,
            device="cpu",
            **extra,
        )
        model.learn(48)  # one rollout, then one update
        buffers.append(model.rollout_buffer)
    theirs, mine = buffers
    assert np.array_equal(mine.rewards, theirs.rewards)
    for name in ("actions", "values", "log_probs"):
        # sb3-contrib's buffer flattened these game by game when the update read them
        got = mine.swap_and_flatten(getattr(mine, name)).ravel()
        assert np.allclose(got, getattr(theirs, name).ravel(), rtol=0, atol=1e-6), name
    assert np.array_equal(mine.actions, theirs.actions.reshape(6, 8).T[:, :, None])


def test_rollouts_and_updates_leave_torchs_threads_as_they_were():
    env = _env()
    model = ThreadedMaskablePPO(
        CandidatePolicy,
        env.to_sb3(),
        threads=2,
        n_steps=8,
        batch_size=16,
        n_epochs=1,
        policy_kwargs={"hidden": 16},
        seed=0,
        device="cpu",
        rollout_buffer_kwargs=candidate_buffer_options(env.single_observation_space),
    )
    with torch_threads(3):
        model.learn(64)
        assert th.get_num_threads() == 3


def test_threads_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="threads must be an integer >= 1, got 0"):
        ThreadedMaskablePPO(CandidatePolicy, _env().to_sb3(), threads=0)


def test_needs_the_compact_buffer():
    from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer

    with pytest.raises(ValueError, match="CompactMaskableDictRolloutBuffer"):
        ThreadedMaskablePPO(
            CandidatePolicy, _env().to_sb3(), rollout_buffer_class=MaskableDictRolloutBuffer
        )


def _duel_env() -> VsBotsVectorEnv:
    return VsBotsVectorEnv(
        4,
        opponents="random",
        board_size=20,
        candidate_moves=64,
        num_threads=1,
        on_overflow="truncate",
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(model, its file): the learner after two rollouts and updates (packed rows, the
    default for the candidate policy), saved."""
    model = ThreadedMaskablePPO(
        CandidatePolicy,
        _duel_env().to_sb3(),
        threads=2,
        n_steps=8,
        batch_size=16,
        n_epochs=1,
        policy_kwargs={"hidden": 16},
        seed=0,
        device="cpu",
    )
    assert model.rollout_buffer.pack_candidates
    model.learn(64)
    return model, save_model(model, tmp_path_factory.mktemp("learner") / "duel.zip")


def test_a_trained_model_loads_as_maskable_ppo_and_plays(trained):
    model, path = trained
    with zipfile.ZipFile(path) as saved:
        data = json.loads(saved.read("data"))
    assert "_last_obs" not in data and "threads" not in data  # started afresh on loading
    loaded = MaskablePPO.load(path, device="cpu")
    assert type(loaded) is MaskablePPO and isinstance(loaded.policy, CandidatePolicy)
    for (name, a), b in zip(
        model.policy.state_dict().items(), loaded.policy.state_dict().values(), strict=True
    ):
        assert th.equal(a, b), name
    bots = [make_bot(f"sb3:model={path}", seed=0), make_bot("random", seed=1)]
    game = Game(Rules(), seed=3)
    while not game.done:
        game.play(bots[game.current_player].act(game))
    assert game.done and len(game.scores) == 2


def test_a_saved_model_resumes_as_the_learner(trained):
    from stable_baselines3 import PPO

    from agents.sb3_policy import open_model

    _, path = trained
    resumed = open_model(path, algorithm=ThreadedMaskablePPO, threads=3, env=_duel_env().to_sb3())
    assert type(resumed) is ThreadedMaskablePPO and resumed.threads == 3
    assert resumed.rollout_buffer.pack_candidates and resumed.num_timesteps == 64
    resumed.learn(32, reset_num_timesteps=False)
    assert resumed.num_timesteps == 96
    with pytest.raises(ValueError, match="holds a MaskablePPO model, not one PPO loads"):
        open_model(path, algorithm=PPO)
