"""Behaviour cloning (`carcassonne train bc`) and the batched self-play of
`carcassonne train multi --env batched`: tiny runs, the league, the joined env."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from carcassonne_env import Rules  # noqa: E402
from carcassonne_env.envs import VsBotsVectorEnv  # noqa: E402
from training import evaluate, imitation, train_multi  # noqa: E402
from training.league import JoinedVecEnv, League  # noqa: E402
from training.ppo import new_model  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("one_torch_thread"),
    pytest.mark.filterwarnings("ignore::carcassonne_env.encoding.WindowOverflowWarning"),
]

TINY = {
    "n_envs": 8,
    "n_steps": 16,
    "batch_size": 64,
    "n_epochs": 1,
    "channels": 8,
    "blocks": 1,
    "checkpoint_every": 64,
    "torch_threads": 1,
    "board_size": 16,
}


def test_bc_run_folder_curve_resume_and_evaluate(tmp_path):
    out = tmp_path / "bc"
    settings = imitation.ImitationSettings(
        **TINY,
        total_timesteps=128,
        eval_every=64,
        eval_games=4,
        obs_features="aggregate",
        global_pool=1,
    )
    imitation.train(settings, out, progress=False)
    rows = (out / "curve.csv").read_text().splitlines()
    assert rows[0] == "timesteps,wall_s,episodes,win_vs_greedy,teacher_agreement"
    assert [r.split(",")[0] for r in rows[1:]] == ["0", "64", "128"]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "model_128_steps.zip",
        "model_64_steps.zip",
    ]
    resumed = imitation.train(
        settings, out, resume=True, progress=False, changes={"total_timesteps": 192}
    )
    assert resumed.num_timesteps == 192
    assert [r.split(",")[0] for r in (out / "curve.csv").read_text().splitlines()[1:]] == [
        "0",
        "64",
        "128",
        "192",
    ]
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert model.policy.features_extractor.pools  # global_pool kept
    assert evaluate.model_rules(model).players == 2
    table = evaluate.evaluate(out / "model.zip", ["random"], games=2, progress=False)
    assert "random" in table


def test_bc_on_the_solo_variant(tmp_path):
    out = tmp_path / "bc-solo"
    settings = imitation.ImitationSettings(
        **TINY, players=1, total_timesteps=64, eval_every=64, eval_games=3
    )
    model = imitation.train(settings, out, progress=False)
    rows = (out / "curve.csv").read_text().splitlines()
    assert rows[0] == "timesteps,wall_s,episodes,result,teacher_agreement"
    assert 0 <= float(rows[-1].split(",")[3]) < 60
    assert evaluate.model_rules(model) == Rules(variant="solo")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"teacher": "mcts"}, "--teacher: no jitted version"),
        ({"opponents": "greedy,greedy"}, "--opponents: give one bot or 1"),
        ({"teacher_share": 2.0}, r"--teacher-share must be a number in \[0, 1\]"),
        ({"temperature": -1}, "--temperature must be a number >= 0"),
        ({"obs_features": "rich"}, "--obs-features must be one of standard, aggregate"),
        ({"global_pool": 2}, "--global-pool must be 0 or 1"),
    ],
)
def test_bad_bc_settings_are_refused_before_any_work(tmp_path, change, message):
    settings = imitation.ImitationSettings(**{**TINY, "total_timesteps": 64, **change})
    with pytest.raises(ValueError, match=message):
        imitation.train(settings, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_batched_self_play_from_an_init_model(tmp_path):
    bc = imitation.train(
        imitation.ImitationSettings(**TINY, total_timesteps=64, eval_games=2),
        tmp_path / "bc",
        progress=False,
    )
    init = str(tmp_path / "bc" / "model.zip")
    settings = train_multi.MultiSettings(
        **TINY,
        total_timesteps=256,
        env="batched",
        bots="random,greedy",
        bot_share=0.5,
        snapshot_every=128,
        init=init,
    )
    model = train_multi.train(settings, tmp_path / "duel", progress=False)
    assert model.num_timesteps == 256
    header = (tmp_path / "duel" / "curve.csv").read_text().splitlines()[0]
    assert header == "timesteps,wall_s,episodes,win_vs_random,win_vs_greedy,win_vs_self"
    assert sorted(p.name for p in (tmp_path / "duel" / "pool").iterdir()) == [
        "snapshot_128.pt",
        "snapshot_256.pt",
    ]
    fresh = new_model(
        settings, train_multi.make_batched_env(settings)[0], tmp_path / "fresh"
    )  # --init: the saved weights
    start, trained = fresh.policy.state_dict(), bc.policy.state_dict()
    assert all(torch.equal(start[k], trained[k]) for k in trained)
    bad = train_multi.MultiSettings(
        **{**TINY, "channels": 16},
        total_timesteps=64,
        env="batched",
        init=str(tmp_path / "bc" / "model.zip"),
    )
    with pytest.raises(ValueError, match="its weights differ in shape.*--channels"):
        train_multi.train(bad, tmp_path / "bad", progress=False)
    with pytest.raises(ValueError, match="--init: no model file at .*none.zip"):
        train_multi.train(
            train_multi.MultiSettings(**TINY, init=str(tmp_path / "none.zip")),
            tmp_path / "bad2",
            progress=False,
        )
    with pytest.raises(ValueError, match="--bots with --env batched"):
        train_multi.train(
            train_multi.MultiSettings(**TINY, env="batched", bots="mcts"),
            tmp_path / "bad3",
            progress=False,
        )


def test_joined_env_scales_rewards():
    def joined(scale):
        env = JoinedVecEnv(
            [("random", VsBotsVectorEnv(3, "random", board_size=16, reward="margin"))], scale
        )
        env.seed(6)
        env.reset()
        return env

    full, half = joined(1.0), joined(0.5)
    rng = np.random.default_rng(1)
    total = 0.0
    for _ in range(20):
        masks = full.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        for env in (full, half):
            env.step_async(actions)
        r_full, r_half = full.step_wait()[1], half.step_wait()[1]
        assert np.allclose(r_half, 0.5 * r_full)
        total += np.abs(r_full).sum()
    assert total > 0


def test_policies_hear_of_new_episodes_before_their_moves():
    events = []

    class Recorder:
        def __call__(self, obs, masks, seats):
            events.append(("move", len(seats)))
            return masks.argmax(1)

        def new_episodes(self, games):
            events.append(("new", sorted(games.tolist())))

    env = VsBotsVectorEnv(2, Recorder(), board_size=16, seat=1)  # the policy moves first
    env.reset(seed=0)
    assert events[0] == ("new", [0, 1]) and events[1][0] == "move"
    rng = np.random.default_rng(0)
    for _ in range(40):
        events.clear()
        masks = env.action_masks()
        _, _, terminated, _, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        if terminated.any():
            new = events.index(("new", sorted(np.flatnonzero(terminated).tolist())))
            assert ("move", int(terminated.sum())) in events[new:]
            break
    else:
        pytest.fail("no game ended")


def test_joined_env_names_opponents():
    league = League(num_games=2, size=2)
    calls = []

    class Uniform:  # stands for a frozen policy: a legal action per game
        def predict(self, obs, action_masks, deterministic):
            calls.append(len(action_masks))
            return action_masks.argmax(1), None

        def set_training_mode(self, mode):
            pass

    league.snapshots = [("snapshot_0", Uniform())]
    env = JoinedVecEnv(
        [
            ("random", VsBotsVectorEnv(2, "random", board_size=16)),
            ("self", VsBotsVectorEnv(2, league, board_size=16)),
        ],
        reward_scale=0.5,
    )
    env.seed(3)
    obs = env.reset()
    assert obs["board"].shape[0] == env.num_envs == 4 and calls
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(60):
        masks = env.action_masks()
        assert masks.shape == (4, env.action_space.n)
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones):
            seen.add((i // 2, infos[i]["opponent"]))
    assert seen == {(0, "random"), (1, "self")}
    assert len(env.env_method("action_masks", indices=[1, 3])) == 2
    assert (league.assigned == 0).all()  # one snapshot: every game plays it
    league.snapshots.append(("snapshot_1", Uniform()))
    league.new_episodes(np.arange(2))
    assert set(league.assigned) <= {0, 1}


@pytest.mark.slow
def test_behaviour_cloning_beats_the_untrained_policy():
    """A ~3-minute BC run on the jitted env: the policy wins more against greedy than
    before training and agrees with the heuristic far more often than chance."""
    settings = imitation.ImitationSettings(
        **{
            **imitation.PRESETS["quick"],
            "total_timesteps": 60_000,
            "eval_every": 60_000,
            "eval_games": 100,
            "torch_threads": 2,
        }
    )
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        imitation.train(settings, Path(tmp) / "bc", progress=False)
        rows = (Path(tmp) / "bc" / "curve.csv").read_text().splitlines()[1:]
    first, last = (r.split(",") for r in (rows[0], rows[-1]))
    assert float(last[3]) > float(first[3]) + 0.1
    assert float(last[4]) > 0.05
