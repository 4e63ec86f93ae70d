"""The RLlib example (the package `training.rllib`): the observation wrapper around
RLlib's `PettingZooEnv`, and tiny local PPO runs on a private Ray instance (a few seconds
each)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from tests.support.paths import ROOT

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import ray  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

from carcassonne_env.encoding import WindowOverflowWarning, empty_observation  # noqa: E402
from training.rllib import (  # noqa: E402
    CANDIDATE_OBS_KEYS,
    POLICY_ID,
    CandidateRLlibEnv,
    CandidateTorchCategorical,
    CandidateTorchRLModule,
    CarcassonneRLlibEnv,
    build_config,
    copy_candidate_weights,
    count_game_ends,
    flatten_observation,
    main,
    parse_args,
    summarize,
)

pytestmark = [
    pytest.mark.filterwarnings(
        f"ignore::{WindowOverflowWarning.__module__}.{WindowOverflowWarning.__name__}"
    ),
    # RLlib re-registers its multi-agent env wrapper with gymnasium for every algorithm.
    pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env"),
]

TINY = {"train_batch_size": 256, "minibatch_size": 128, "num_epochs": 1, "hiddens": (32,)}


@pytest.fixture(scope="module")
def local_ray():
    """A private 2-CPU Ray instance for this module's tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def play(env: CarcassonneRLlibEnv, choose, seed: int, max_steps: int = 200):
    """Play one game in `env`, `choose(agent, flat_obs)` picking every action; checks each
    flat observation against the AEC env's own. Returns (steps, last step's results)."""
    obs, _ = env.reset(seed=seed)
    for step in range(1, max_steps + 1):
        ((agent, flat),) = obs.items()  # turn-based: one agent observes at a time
        raw = env.env.observe(agent)  # the classic layout: the vector is passed as is
        assert np.array_equal(flat["action_mask"], raw["action_mask"])
        assert flat["action_mask"].dtype == np.float32
        assert flat["observations"] is raw["observation"]
        assert flat["observations"].dtype == np.float32
        game = env.env.unwrapped.game
        dict_layout = env.env.unwrapped.driver.encoder.encode(
            game, env.env.unwrapped.agent_name_mapping[agent], with_mask=False
        )
        assert np.array_equal(
            flat["observations"],
            np.concatenate([dict_layout["board"].ravel(), dict_layout["features"]]).astype(
                np.float32
            ),
        )
        assert env.observation_space[agent].contains(flat)
        action = choose(agent, flat)
        assert flat["action_mask"][action] == 1, f"illegal action {action} chosen"
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        if terminateds["__all__"] or truncateds["__all__"]:
            return step, (obs, rewards, terminateds, truncateds, infos)
    raise AssertionError(f"no game end in {max_steps} steps")


def test_wrapper_passes_the_env_mask_and_ends_games():
    env = CarcassonneRLlibEnv({"board_size": 12, "players": 2})
    assert sorted(env.possible_agents) == ["player_0", "player_1"]
    n = 12 * 12 * 4 * 9
    assert env.action_spaces["player_0"].n == n
    assert env.observation_spaces["player_0"]["action_mask"].shape == (n,)
    assert env.observation_spaces["player_0"]["observations"].shape == (36 * 36 * 10 + 67,)
    rng = np.random.default_rng(0)
    steps, (obs, rewards, terminateds, truncateds, infos) = play(
        env, lambda agent, flat: int(rng.choice(np.flatnonzero(flat["action_mask"]))), seed=3
    )
    assert steps == 71  # 72 tiles, the first placed at the start
    assert terminateds == {"player_0": True, "player_1": True, "__all__": True}
    assert not truncateds["__all__"]
    assert set(obs) == {"player_0", "player_1"}  # every agent gets its final observation
    assert all("scores" in info for info in infos.values())
    assert flatten_observation(env.env.observe("player_0"))["action_mask"].sum() == 0


def test_window_overflow_truncates_the_episode():
    """A 4-cell window soon has no legal move inside: the game is cut short (truncated)
    for everyone instead of raising `WindowOverflowError` in the EnvRunner."""
    env = CarcassonneRLlibEnv({"board_size": 4})
    rng = np.random.default_rng(1)
    steps, (obs, _, terminateds, truncateds, infos) = play(
        env, lambda agent, flat: int(rng.choice(np.flatnonzero(flat["action_mask"]))), seed=1
    )
    assert steps < 71
    assert truncateds == {"player_0": True, "player_1": True, "__all__": True}
    assert not terminateds["__all__"]
    assert all("window_overflow" in info for info in infos.values())
    for agent, flat in obs.items():
        assert env.observation_space[agent].contains(flat)
        assert flat["action_mask"].sum() == 0


class _Logger:
    """Collects what `count_game_ends` logs."""

    def __init__(self):
        self.values = {}

    def log_value(self, key, value, reduce=None):
        self.values[key] = self.values.get(key, 0) + value


@pytest.mark.parametrize(
    ("board_size", "illegal_at", "expect"),
    [
        (12, 5, {"illegal_moves": 1, "window_overflows": 0}),
        (4, None, {"illegal_moves": 0, "window_overflows": 1}),
        (12, None, {"illegal_moves": 0, "window_overflows": 0}),
    ],
)
def test_count_game_ends_reads_the_last_infos(board_size, illegal_at, expect):
    """The episode callback on an RLlib episode recorded by hand: an illegal action (the
    masked policy never plays one), an overflow truncation, a normal game end."""
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    env = CarcassonneRLlibEnv({"board_size": board_size})
    obs, infos = env.reset(seed=0)
    episode = MultiAgentEpisode(agent_to_module_mapping_fn=lambda agent, ep: POLICY_ID)
    episode.add_env_reset(observations=obs, infos=infos)
    rng = np.random.default_rng(0)
    for step in range(100):
        ((agent, flat),) = obs.items()
        mask = flat["action_mask"]
        action = int(
            np.flatnonzero(mask == 0)[0] if step == illegal_at else rng.choice(np.flatnonzero(mask))
        )
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        episode.add_env_step(
            observations=obs,
            actions={agent: action},
            rewards=rewards,
            infos=infos,
            terminateds=terminateds,
            truncateds=truncateds,
        )
        if episode.is_done:
            break
    assert episode.is_done
    logger = _Logger()
    count_game_ends(episode=episode, metrics_logger=logger)
    assert logger.values == expect


def test_tiny_training_run(local_ray, one_torch_thread):
    """One PPO iteration on a 12-cell board (sampling in the driver): steps are sampled,
    losses are finite, no game ends with an illegal move; then the trained shared module
    plays two games, greedy and sampled, and every action it picks is legal."""
    algo = build_config(board_size=12, seed=0, **TINY).build_algo()
    try:
        result = algo.train()
        s = summarize(result)
        assert s["env_steps_sampled"] >= TINY["train_batch_size"]
        assert s["episodes"] >= 1 and s["episode_len_mean"] == 71
        for key in ("episode_return_mean", "policy_loss", "vf_loss", "entropy"):
            assert math.isfinite(s[key]), key
        assert math.isfinite(result["learners"][POLICY_ID]["total_loss"])
        assert s["illegal_moves"] == 0 and s["window_overflows"] == 0
        module = algo.get_module(POLICY_ID)
    finally:
        algo.stop()

    def forward(flat, explore):
        batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in flat.items()}}
        with torch.no_grad():
            out = module.forward_exploration(batch) if explore else module.forward_inference(batch)
        return out[Columns.ACTION_DIST_INPUTS][0]

    gen = torch.Generator().manual_seed(0)
    env = CarcassonneRLlibEnv({"board_size": 12})
    for explore in (False, True):

        def choose(agent, flat, explore=explore):
            logits = forward(flat, explore)
            if not explore:
                return int(torch.argmax(logits))
            return int(torch.multinomial(torch.softmax(logits, -1), 1, generator=gen))

        steps, (_, _, terminateds, _, infos) = play(env, choose, seed=7)
        assert steps == 71 and terminateds["__all__"]
        assert not any("illegal_move" in info for info in infos.values())


def test_window_overflow_in_training(local_ray, one_torch_thread):
    """On a 5-cell window every game overflows: RLlib takes the truncated episodes."""
    algo = build_config(board_size=5, seed=0, **TINY).build_algo()
    try:
        s = summarize(algo.train())
    finally:
        algo.stop()
    assert s["window_overflows"] >= 1 and s["illegal_moves"] == 0
    assert s["episode_len_mean"] < 71
    assert math.isfinite(s["policy_loss"]) and math.isfinite(s["vf_loss"])


def test_main_with_a_remote_env_runner(local_ray, one_torch_thread, tmp_path, capsys):
    """The command line: one iteration sampled by a remote EnvRunner actor (the path a
    cluster run takes), a line printed, a checkpoint written that restores."""
    from ray.rllib.algorithms.algorithm import Algorithm

    path = main(
        [
            "--iterations",
            "1",
            "--board-size",
            "12",
            "--num-env-runners",
            "1",
            "--train-batch-size",
            "128",
            "--minibatch-size",
            "64",
            "--num-epochs",
            "1",
            "--checkpoint-dir",
            str(tmp_path / "ckpt"),
            "--seed",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert "iter    1" in out and "illegal 0" in out and f"checkpoint: {path}" in out
    assert os.path.isdir(path) and os.listdir(path)
    assert ray.is_initialized()  # main leaves a Ray instance it did not start running
    restored = Algorithm.from_checkpoint(path)
    try:
        assert restored.get_module(POLICY_ID) is not None
    finally:
        restored.stop()


# ------------------------------------------------------------- the candidate policy
CANDIDATE_TINY = {**TINY, "policy": "candidates", "candidate_moves": 64, "hidden": 16}


@pytest.fixture
def sb3_policy():
    """`training.policy` (the candidate network's home; needs sb3-contrib)."""
    pytest.importorskip("sb3_contrib")
    import training.policy

    return training.policy


def candidate_batch(observations):
    """RLlib's batch of candidate observations (torch tensors, batch dim first)."""
    return {
        Columns.OBS: {
            k: torch.from_numpy(np.stack([o[k] for o in observations])) for k in CANDIDATE_OBS_KEYS
        }
    }


def candidate_positions(seed, n=6, candidate_moves=64):
    """(env, [(candidate observation, the AEC env's dict observation incl. mask)]) of
    the first `n` decisions of a game played at random."""
    env = CandidateRLlibEnv({"board_size": 12, "candidate_moves": candidate_moves})
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    positions = []
    for _ in range(n):
        ((agent, cand),) = obs.items()
        raw = env.env.observe(agent)
        positions.append((cand, raw))
        obs, *_ = env.step({agent: int(rng.choice(np.flatnonzero(raw["action_mask"])))})
    return env, positions


def test_candidate_module_puts_mass_on_the_legal_actions_only(sb3_policy):
    """`CandidateTorchRLModule` on observations of `CandidateRLlibEnv` (K above the legal
    count, so the candidates are exactly the legal actions): the dense log-probabilities
    are finite exactly on the env's action mask and -inf elsewhere, samples and modes are
    legal, a value per observation; an observation with no candidate (the truncation's
    `empty_observation`) gets no mass anywhere and a finite value."""
    env, positions = candidate_positions(seed=2)
    space, action_space = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    assert set(space.spaces) == set(CANDIDATE_OBS_KEYS)
    assert space["candidates"].shape == (64, 154)
    module = CandidateTorchRLModule(
        observation_space=space, action_space=action_space, model_config={"hidden": 16}
    )
    assert isinstance(module.net, sb3_policy.CandidateNet)
    observations = [cand for cand, _ in positions]
    for cand, raw in positions:
        assert space.contains(cand)
        for key in CANDIDATE_OBS_KEYS:
            assert np.array_equal(cand[key], raw["observation"][key])
    empty = empty_observation(space)
    assert (empty["candidate_actions"] == -1).all() and space.contains(empty)
    batch = candidate_batch([*observations, empty])
    with torch.no_grad():
        inputs = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
        values = module.compute_values(batch)
    assert inputs.shape == (len(observations) + 1, 2 * 64)
    assert values.shape == (len(observations) + 1,) and torch.isfinite(values).all()
    dist = CandidateTorchCategorical.from_logits(inputs)
    dense = dist.dense_logp(action_space.n)
    for row, (_, raw) in enumerate(positions):
        legal = torch.from_numpy(raw["action_mask"] == 1)
        assert torch.isfinite(dense[row]).eq(legal).all()
        assert math.isclose(float(dense[row].exp().sum()), 1.0, rel_tol=1e-5)
    assert torch.isneginf(dense[-1]).all()
    masks = np.stack([raw["action_mask"] for _, raw in positions])
    rows = np.arange(len(positions))
    for _ in range(20):
        assert (masks[rows, dist.sample()[:-1].numpy()] == 1).all()
    greedy = dist.to_deterministic().sample()[:-1]
    assert torch.equal(greedy, dense[:-1].argmax(1))
    logp = dist.logp(greedy.new_tensor([*greedy, greedy[0]]))[:-1]
    assert torch.allclose(logp, dense[:-1].gather(1, greedy[:, None]).squeeze(1))


def test_candidate_module_computes_what_the_sb3_policy_computes(sb3_policy):
    """One network, two frameworks: with the weights of an SB3 `CandidatePolicy` copied in
    (`copy_candidate_weights`), the RLModule gives the same action log-probabilities over
    the whole action space, the same values and the same greedy moves; and back."""
    env, positions = candidate_positions(seed=5, n=4)
    dict_space = env.env.observation_space("player_0")["observation"]
    action_space = env.action_spaces["player_0"]
    torch.manual_seed(0)
    policy = sb3_policy.CandidatePolicy(dict_space, action_space, lambda _: 3e-4, hidden=16)
    module = CandidateTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=action_space,
        model_config={"hidden": 16},
    )
    copy_candidate_weights(policy, module)
    batch = candidate_batch([cand for cand, _ in positions])
    obs = {k: np.stack([raw["observation"][k] for _, raw in positions]) for k in dict_space}
    with torch.no_grad():
        dist = CandidateTorchCategorical.from_logits(
            module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        )
        values = module.compute_values(batch)
        obs_tensor, _ = policy.obs_to_tensor(obs)
        sb3 = policy.get_distribution(obs_tensor)
        sb3_values = policy.predict_values(obs_tensor).squeeze(1)
    sb3_logp = sb3.distribution.logits
    assert torch.isfinite(sb3_logp).sum() > 0
    assert torch.equal(
        torch.isfinite(sb3_logp), torch.isfinite(dense := dist.dense_logp(action_space.n))
    )
    finite = torch.isfinite(dense)
    assert torch.allclose(dense[finite], sb3_logp[finite], atol=1e-5)
    assert torch.allclose(values, sb3_values, atol=1e-5)
    assert torch.equal(dist.to_deterministic().sample(), sb3.mode())
    # and back: a module's weights in the SB3 policy
    other = CandidateTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=action_space,
        model_config={"hidden": 16},
    )
    copy_candidate_weights(other, policy)
    with torch.no_grad():
        assert torch.allclose(
            other.compute_values(batch), policy.predict_values(obs_tensor).squeeze(1), atol=1e-5
        )
    with pytest.raises(TypeError, match="CandidatePolicy"):
        copy_candidate_weights(object(), module)
    narrower = CandidateTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=action_space,
        model_config={"hidden": 8},
    )
    with pytest.raises(RuntimeError, match="size mismatch"):
        copy_candidate_weights(policy, narrower)


def test_candidate_tiny_training_run(local_ray, one_torch_thread, sb3_policy):
    """One PPO iteration of `--policy candidates` sampling in the driver: finite losses,
    full games, no illegal move; the trained module is the candidate network."""
    algo = build_config(board_size=12, seed=0, **CANDIDATE_TINY).build_algo()
    try:
        result = algo.train()
        module = algo.get_module(POLICY_ID)
    finally:
        algo.stop()
    s = summarize(result)
    assert s["env_steps_sampled"] >= CANDIDATE_TINY["train_batch_size"]
    assert s["episodes"] >= 1 and s["episode_len_mean"] == 71
    for key in ("episode_return_mean", "policy_loss", "vf_loss", "entropy"):
        assert math.isfinite(s[key]), key
    assert s["illegal_moves"] == 0 and s["window_overflows"] == 0
    assert isinstance(module, CandidateTorchRLModule) and module.net.hidden == 16


def test_candidate_options():
    args = parse_args(
        [
            "--policy",
            "candidates",
            "--candidate-moves",
            "32",
            "--hidden",
            "8",
            "--obs-features",
            "aggregate",
        ]
    )
    assert (args.policy, args.candidate_moves, args.hidden, args.obs_features) == (
        "candidates",
        32,
        8,
        "aggregate",
    )
    with pytest.raises(ValueError, match="policy must be one of mlp, candidates"):
        build_config(policy="cnn")
    with pytest.raises(ValueError, match="candidate_moves must be a positive integer"):
        CandidateRLlibEnv({"candidate_moves": 0})


# ------------------------------------------------------------- the package's paths
def test_classes_live_in_the_package_modules():
    """Every public class is defined in ``training.rllib.*``, the module path RLlib
    pickles it by (checkpoints, workers), and `main` is the package's command line."""
    import training.rllib as package
    from training.rllib.example import main

    assert package.main is main
    for name in package.__all__:
        value = getattr(package, name)
        if isinstance(value, type):
            assert value.__module__.startswith("training.rllib."), name


def test_python_m_runs_the_command_line():
    """``python -m training.rllib``."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "training.rllib", "--help"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "carcassonne train rllib" in done.stdout and "--policy" in done.stdout
