"""PPO baselines: the board policy's layout and distribution, the training scripts (tiny
runs: run folders, resume, seeds, the self-play pool), evaluation and the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import numpy as np
import pytest

from tests.support.paths import ROOT

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.distributions import MaskableCategorical  # noqa: E402

from carcassonne_env import Game, Rules  # noqa: E402
from carcassonne_env.encoding import Encoder, WindowOverflowWarning  # noqa: E402
from carcassonne_env.envs import SoloEnv  # noqa: E402
from tests.support.tiny_runs import TINY  # noqa: E402
from training import evaluate, train_multi, train_solo  # noqa: E402
from training.buffers import CompactMaskableDictRolloutBuffer  # noqa: E402
from training.curves import read_rows, write_rows  # noqa: E402
from training.policy import BoardPolicy, LeanMaskedCategorical  # noqa: E402
from training.ppo import load_or_create  # noqa: E402
from training.run_folder import latest_checkpoint  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _policy(rules: Rules, board_size: int) -> BoardPolicy:
    enc = Encoder(rules, board_size)
    return BoardPolicy(
        enc.observation_space(), enc.action_space(), lambda _: 1e-3, channels=8, blocks=1
    )


@pytest.mark.parametrize(
    "rules", [Rules(variant="solo"), Rules(players=2), Rules(players=2, hand_size=3)], ids=str
)
def test_action_head_logits_sit_at_their_action_index(rules):
    """The logit of action (hand, row, col, rotation, slot) is the head's output for that
    window cell, so the conv head and the encoder agree on the action layout."""
    B = 6
    enc = Encoder(rules, B)
    policy = _policy(rules, B)
    game = Game(rules, seed=3)
    obs = enc.encode(game, 0)
    tensors, _ = policy.obs_to_tensor({"board": obs["board"], "features": obs["features"]})
    with torch.no_grad():
        latent = policy.extract_features(tensors)
        logits = policy.action_net(latent)[0]
        per_cell = policy.action_net.linear(latent.view(1, B, B, -1))[0]  # [row, col, out]
    assert logits.shape == (enc.n_actions,)
    per_hand = 4 * enc.slots
    rng = np.random.default_rng(0)
    for action in rng.integers(enc.n_actions, size=50):
        h, row, col, r, slot = enc.split(int(action))
        expected = per_cell[row, col, h * per_hand + r * enc.slots + slot + 1]
        assert torch.isclose(logits[action], expected)


def test_policy_rejects_spaces_it_cannot_serve():
    enc = Encoder(Rules(), 6, action_mode="two_step")
    with pytest.raises(ValueError, match="turn"):
        BoardPolicy(enc.observation_space(), enc.action_space(), lambda _: 1e-3)
    solo = SoloEnv(board_size=6)
    flat = {"observation_space": solo.observation_space["features"]}
    with pytest.raises(ValueError, match="Dict"):
        BoardPolicy(flat["observation_space"], solo.action_space, lambda _: 1e-3)


def test_lean_distribution_matches_sb3_contrib():
    """Same log-probabilities, entropies and modes as sb3-contrib's MaskableCategorical;
    samples never fall on masked actions and follow the probabilities."""
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(64, 40, generator=gen) * 3
    masks = torch.rand(64, 40, generator=gen) < 0.3
    masks[:, 7] = True  # every row has a legal action
    ref = MaskableCategorical(logits=logits, masks=masks)
    lean = LeanMaskedCategorical(40).proba_distribution(logits)
    lean.apply_masking(masks.numpy())
    actions = torch.randint(40, (64,), generator=gen)
    legal = masks[torch.arange(64), actions]
    assert torch.allclose(lean.log_prob(actions)[legal], ref.log_prob(actions)[legal], atol=1e-5)
    assert torch.allclose(lean.entropy(), ref.entropy(), atol=1e-5)
    assert torch.equal(lean.mode(), ref.probs.argmax(1))
    dense = lean.distribution.logits  # normalised log-probabilities, -inf where masked
    assert torch.allclose(dense[masks], ref.logits[masks], atol=1e-5)
    assert torch.isinf(dense[~masks]).all()
    tied = LeanMaskedCategorical(40).proba_distribution(torch.zeros(64, 40))
    tied.apply_masking(masks.numpy())
    assert torch.equal(tied.mode(), masks.float().argmax(1))  # the first legal action
    # the PPO loss's gradient flows to the legal logits only, as with the dense form
    raw = logits.clone().requires_grad_(True)
    grad = LeanMaskedCategorical(40).proba_distribution(raw)
    grad.apply_masking(masks.numpy())
    (grad.log_prob(actions)[legal].sum() + grad.entropy().sum()).backward()
    assert (raw.grad[~masks] == 0).all() and raw.grad[masks].abs().sum() > 0
    torch.manual_seed(1)
    draws = torch.stack([lean.sample() for _ in range(2000)])  # [2000, 64]
    assert masks.gather(1, draws.T).all()
    freq = torch.zeros(40).index_add_(0, draws[:, 0], torch.ones(2000)) / 2000
    assert torch.allclose(freq, ref.probs[0], atol=0.04)


def test_compact_rollout_buffer_gives_sb3_contribs_samples():
    """Same samples as sb3-contrib's buffer, over two rollouts (the second reuses the
    arrays the first flattened), with int8 planes and bool masks stored."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer

    obs_space = spaces.Dict(
        {
            "board": spaces.Box(-1, 1, (6, 6, 3), np.int8),
            "features": spaces.Box(0, 1, (4,), np.float32),
        }
    )
    args = (8, obs_space, spaces.Discrete(10))
    ours, ref = (
        CompactMaskableDictRolloutBuffer(*args, n_envs=2),
        MaskableDictRolloutBuffer(*args, n_envs=2),
    )
    rng = np.random.default_rng(0)
    for _ in range(2):
        for buf in (ours, ref):
            buf.reset()
        for _ in range(8):
            step = dict(
                obs={
                    "board": rng.integers(-1, 2, (2, 6, 6, 3)).astype(np.int8),
                    "features": rng.random((2, 4), dtype=np.float32),
                },
                action=rng.integers(0, 10, (2, 1)),
                reward=rng.random(2),
                episode_start=np.zeros(2),
                value=torch.rand(2, 1),
                log_prob=torch.rand(2),
                action_masks=rng.random((2, 10)) < 0.5,
            )
            for buf in (ours, ref):
                buf.add(**step)
        assert ours.observations["board"].dtype == np.int8
        assert (
            ours.action_masks.dtype == bool
            and ours.action_masks.nbytes * 4 == ref.action_masks.nbytes
        )
        last_values = torch.rand(2, 1)
        for buf in (ours, ref):
            buf.compute_returns_and_advantage(last_values, np.zeros(2))
        np.random.seed(1)
        mine = list(ours.get(5))
        np.random.seed(1)
        theirs = list(ref.get(5))
        assert len(mine) == len(theirs) == 4
        for a, b in zip(mine, theirs, strict=True):
            for key in ("board", "features"):
                assert torch.equal(a.observations[key].float(), b.observations[key])
            assert torch.equal(a.action_masks.float(), b.action_masks)
            assert torch.equal(a.actions, b.actions) and torch.equal(a.returns, b.returns)


def test_new_models_use_the_compact_buffer(tmp_path):
    settings = train_solo.SoloSettings(**TINY, total_timesteps=128)
    model = train_solo.train(settings, tmp_path / "solo", progress=False)
    assert isinstance(model.rollout_buffer, CompactMaskableDictRolloutBuffer)
    resumed = load_or_create(
        settings, train_solo.make_env(settings), tmp_path / "solo", resume=True
    )
    assert isinstance(resumed.rollout_buffer, CompactMaskableDictRolloutBuffer)


def test_train_solo_run_folder_resume_and_refusal(tmp_path):
    out = tmp_path / "solo"
    settings = train_solo.SoloSettings(**TINY, total_timesteps=256)
    model = train_solo.train(settings, out, progress=False)
    assert model.num_timesteps == 256
    assert json.loads((out / "config.json").read_text())["settings"]["n_envs"] == 4
    assert latest_checkpoint(out).name == "model_256_steps.zip"
    rows = (out / "curve.csv").read_text().splitlines()
    assert rows[0] == "timesteps,wall_s,episodes,result" and len(rows) == 3
    assert (out / "model.zip").exists() and (out / "tb").is_dir()
    with pytest.raises(FileExistsError, match="--resume"):
        train_solo.train(settings, out, progress=False)
    with (out / "curve.csv").open("a") as f:  # as if a crash came after the last checkpoint
        f.write("999999,1.0,1,1.0\n")
    resumed = train_solo.train(
        settings, out, resume=True, progress=False, changes={"total_timesteps": 384}
    )
    assert resumed.num_timesteps == 384
    assert len((out / "curve.csv").read_text().splitlines()) == 4
    assert json.loads((out / "config.json").read_text())["settings"]["total_timesteps"] == 384


def _config(out) -> dict:
    return json.loads((out / "config.json").read_text())["settings"]


def test_init_starts_a_new_run_from_a_saved_models_weights(tmp_path):
    settings = train_solo.SoloSettings(**TINY, total_timesteps=128)
    first = train_solo.train(settings, tmp_path / "first", progress=False)
    started = train_solo.SoloSettings(
        **TINY, total_timesteps=128, seed=7, init=str(tmp_path / "first" / "model.zip")
    )
    model = load_or_create(started, train_solo.make_env(started), tmp_path / "second", resume=False)
    theirs = first.policy.state_dict()
    assert all(torch.equal(w, theirs[k]) for k, w in model.policy.state_dict().items())
    assert model.num_timesteps == 0  # a new run: only the weights come from the model
    other = train_solo.SoloSettings(
        **{**TINY, "channels": 4}, total_timesteps=128, init=started.init
    )
    with pytest.raises(
        ValueError, match="its weights differ in shape.*trained with .--channels, --blocks"
    ):
        train_solo.train(other, tmp_path / "third", progress=False)
    assert not (tmp_path / "third").exists()
    train_solo.train(started, tmp_path / "second", progress=False)
    (tmp_path / "first" / "model.zip").unlink()  # a resumed run never reads it again
    resumed = train_solo.train(
        started, tmp_path / "second", resume=True, progress=False, changes={"total_timesteps": 256}
    )
    assert resumed.num_timesteps == 256


def test_init_widens_a_narrower_candidate_network_keeping_its_play(tmp_path):
    """--init with a wider --hidden: the logits and values of the start are the saved
    model's on real observations, the new units' outputs start at zero and training
    reaches them; a narrower --hidden is refused."""
    cand = {**TINY, "policy": "candidates", "candidate_moves": 16, "obs_features": "aggregate"}
    narrow = train_solo.train(
        train_solo.SoloSettings(**cand, hidden=8, total_timesteps=128),
        tmp_path / "narrow",
        progress=False,
    )
    wide = train_solo.SoloSettings(
        **cand, hidden=16, total_timesteps=256, seed=3, init=str(tmp_path / "narrow" / "model.zip")
    )
    venv = train_solo.make_env(wide)
    model = load_or_create(wide, venv, tmp_path / "wide", resume=False)
    assert model.policy.hidden == 16
    obs = venv.reset()
    for _ in range(12):
        with torch.no_grad():
            pairs = [
                (
                    p.get_distribution(p.obs_to_tensor(obs)[0]).distribution.logp,
                    p.predict_values(p.obs_to_tensor(obs)[0]),
                )
                for p in (narrow.policy, model.policy)
            ]
        (logp_a, value_a), (logp_b, value_b) = pairs
        assert torch.allclose(logp_a, logp_b, atol=1e-5)
        assert torch.allclose(value_a, value_b, atol=1e-5)
        obs, *_ = venv.step(model.predict(obs, deterministic=True)[0])
    score = model.policy.features_extractor.net.score.weight
    assert not score[:, 8:].any() and score[:, :8].abs().sum() > 0
    trained = train_solo.train(wide, tmp_path / "wide", progress=False)
    assert trained.policy.features_extractor.net.score.weight[:, 8:].abs().sum() > 0
    back = train_solo.SoloSettings(**cand, hidden=4, total_timesteps=128, init=wide.init)
    with pytest.raises(ValueError, match="its weights differ in shape.*--hidden"):
        train_solo.train(back, tmp_path / "narrower", progress=False)


def test_init_takes_a_model_exported_with_room_for_more_candidates(tmp_path):
    """`train export --candidate-moves` changes the observation's K, not the weights: a
    run at the K it was trained with starts from them."""
    from training.export import export_model

    cand = {
        **TINY,
        "policy": "candidates",
        "candidate_moves": 16,
        "obs_features": "aggregate",
        "hidden": 8,
    }
    first = train_solo.train(
        train_solo.SoloSettings(**cand, total_timesteps=128), tmp_path / "first", progress=False
    )
    roomy = export_model(
        tmp_path / "first" / "model.zip", tmp_path / "roomy.zip", candidate_moves=32
    )
    again = train_solo.SoloSettings(**cand, total_timesteps=128, init=str(roomy))
    model = load_or_create(again, train_solo.make_env(again), tmp_path / "again", resume=False)
    theirs = first.policy.state_dict()
    assert all(torch.equal(w, theirs[k]) for k, w in model.policy.state_dict().items())


def test_a_run_folder_is_never_overwritten_or_rewritten_by_accident(tmp_path):
    """A run shorter than checkpoint_every has one checkpoint, its end's (whole, beside
    the slim model.zip), config and curve: a new run there is refused all the same;
    --resume continues from that checkpoint,
    keeps every stored setting but the target, and refuses a target below what is done;
    --overwrite replaces the run, old checkpoints included."""
    out = tmp_path / "r1"
    first = train_solo.SoloSettings(
        **{**TINY, "checkpoint_every": 10_000}, total_timesteps=128, seed=1
    )
    train_solo.train(first, out, progress=False)
    assert latest_checkpoint(out).name == "model_128_steps.zip" and (out / "model.zip").exists()
    stored = _config(out)
    second = dataclasses.replace(first, seed=2)
    with pytest.raises(
        FileExistsError,
        match=r"holds a run already \(config.json, "
        r"model.zip, curve.csv, checkpoints, tb\); pass --resume .* --overwrite",
    ):
        train_solo.train(second, out, progress=False)
    with pytest.raises(
        ValueError, match="has 128 timesteps done already; --total-timesteps 64 is below"
    ):
        train_solo.train(first, out, resume=True, changes={"total_timesteps": 64})
    with pytest.raises(ValueError, match=r"keeps its settings.*not seed \(1 -> 2\)"):
        train_solo.train(first, out, resume=True, changes={"seed": 2})
    with pytest.raises(ValueError, match="give one of them"):
        train_solo.train(first, out, resume=True, overwrite=True)
    assert _config(out) == stored  # nothing above touched the run
    venv = train_solo.make_env(first)
    assert load_or_create(first, venv, out, resume=True).num_timesteps == 128  # checkpoint
    # Same seed as stored: no change. A session-only change of checkpoint_every.
    resumed = train_solo.train(
        first,
        out,
        resume=True,
        progress=False,
        changes={"seed": 1, "total_timesteps": 256, "checkpoint_every": 128},
    )
    assert resumed.num_timesteps == 256
    assert latest_checkpoint(out).name == "model_256_steps.zip"
    assert _config(out) == {**stored, "total_timesteps": 256}
    assert [r.split(",")[0] for r in (out / "curve.csv").read_text().splitlines()] == [
        "timesteps",
        "128",
        "256",
    ]
    train_solo.train(second, out, progress=False, overwrite=True)
    assert _config(out)["seed"] == 2  # the old checkpoints gone, the new run's end's only
    assert [c.name for c in (out / "checkpoints").iterdir()] == ["model_128_steps.zip"]
    assert [r.split(",")[0] for r in (out / "curve.csv").read_text().splitlines()] == [
        "timesteps",
        "128",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"total_timesteps": -5},
            r"--total-timesteps must be an integer >= 0 \(0: no step "
            r"target, with --minutes\), got -5",
        ),
        (
            {"total_timesteps": 0},
            r"the run has no --total-timesteps target \(0: a --minutes "
            r"run's\); give --minutes M or --total-timesteps N",
        ),
        ({"board_size": 2}, "--board-size must be an integer >= 3, got 2"),
        ({"n_envs": 0}, "--n-envs must be a positive integer"),
        ({"batch_size": 1}, "--batch-size must be an integer >= 2"),
        ({"learning_rate": -1e-3}, "--learning-rate must be a number > 0"),
        ({"gamma": 1.5}, r"--gamma must be a number in \(0, 1\]"),
        ({"seed": -1}, r"--seed must be an integer in \[0, 2\*\*32\)"),
        ({"colours": 5}, "--colours must be 3 or 4, got 5"),
        ({"ent_coef": -0.01}, "--ent-coef must be a number >= 0"),
        ({"vf_coef": -1}, "--vf-coef must be a number >= 0"),
        ({"init": "no_such_model"}, "--init: no model file at no_such_model"),
    ],
)
def test_bad_solo_settings_are_refused_before_any_work(tmp_path, change, message):
    settings = train_solo.SoloSettings(**{**TINY, "total_timesteps": 128, **change})
    with pytest.raises(ValueError, match=message):
        train_solo.train(settings, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bots": "random,nobody"}, "--bots: unknown bot 'nobody'"),
        ({"bots": " , "}, "--bots needs at least one"),
        ({"bot_share": 1.5}, r"--bot-share must be a number in \[0, 1\]"),
        ({"pool_size": 0}, "--pool-size must be a positive integer"),
        ({"reward": "points"}, "--reward must be one of score, margin, win"),
        ({"total_timesteps": -5}, "--total-timesteps must be an integer >= 0"),
        ({"gate_every": -1}, "--gate-every must be an integer >= 0"),
        ({"gate_every": 10, "gate_games": 3}, "--gate-games must be an even integer >= 0"),
        ({"gate_every": 10, "confirm_threshold": 2.0}, r"--confirm-threshold must be a number"),
        ({"win_bonus": -1.0}, "--win-bonus must be a number >= 0"),
        ({"win_bonus": 5.0}, "--win-bonus adds to --reward projected"),
    ],
)
def test_bad_multi_settings_are_refused_before_any_work(tmp_path, change, message):
    settings = train_multi.MultiSettings(**{**TINY, "total_timesteps": 64, **change})
    with pytest.raises(ValueError, match=message):
        train_multi.train(settings, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_a_new_run_that_fails_before_saving_a_model_leaves_nothing(tmp_path, monkeypatch):
    def crash(*args, **kwargs):
        raise RuntimeError("crashed in the first rollout")

    monkeypatch.setattr(train_solo, "learn", crash)
    settings = train_solo.SoloSettings(**TINY, total_timesteps=128)
    with pytest.raises(RuntimeError, match="first rollout"):
        train_solo.train(settings, tmp_path / "new", progress=False)
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("kept")
    with pytest.raises(RuntimeError, match="first rollout"):
        train_solo.train(settings, tmp_path / "mine", progress=False)
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_cli_refuses_bad_training_arguments_first(tmp_path, capsys):
    from carcassonne_env.cli import main

    out = tmp_path / "cli"
    for args, message in [
        (
            ["--total-timesteps", "-5"],
            "--total-timesteps must be an integer >= 0 (0: no step target, with --minutes), got -5",
        ),
        (["--board-size", "2"], "--board-size must be an integer >= 3, got 2"),
        (["--preset", "board", "--resume"], "--preset picks the recipe of a new run"),
        (["--resume", "--overwrite"], "give one of them"),
        (["--resume"], "nothing to resume: no config.json"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main(["train", "solo", "--out", str(out), "--no-progress", *args])
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err
        assert not out.exists()
    out.mkdir()
    (out / "curve.csv").write_text("timesteps,wall_s,episodes,result\n")
    for what in ("solo", "multi"):
        with pytest.raises(SystemExit):
            main(["train", what, "--out", str(out), "--no-progress"])
        assert "holds a run already (curve.csv)" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:TF32 acceleration")  # torch, on toggling oneDNN
def test_train_solo_is_seeded(tmp_path):
    """Same seed, same games, actions and weights, bit for bit, once PyTorch's oneDNN
    kernels are off (their summation order varies run to run: ~1e-8 differences)."""
    settings = train_solo.SoloSettings(**TINY, total_timesteps=128, seed=5)
    with torch.backends.mkldnn.flags(enabled=False):
        a, b, other = (
            train_solo.train(s, tmp_path / name, progress=False)
            for name, s in (
                ("a", settings),
                ("b", settings),
                ("c", dataclasses.replace(settings, seed=6)),
            )
        )
    buffers = [m.rollout_buffer for m in (a, b, other)]
    assert np.array_equal(buffers[0].actions, buffers[1].actions)
    assert np.array_equal(buffers[0].observations["board"], buffers[1].observations["board"])
    assert not np.array_equal(buffers[0].actions, buffers[2].actions)
    wa, wb = a.policy.state_dict(), b.policy.state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_opponent_pool_draws():
    pool = train_multi.OpponentPool(["random", "greedy"], bot_share=0.0, size=2)
    rng = np.random.default_rng(0)
    assert {pool.draw(rng)[0] for _ in range(20)} <= {"random", "greedy"}  # no snapshot yet
    policy = _policy(Rules(players=2), 20)
    for k in range(3):
        pool.add(f"snapshot_{k}", policy)
    assert [label for label, _ in pool.snapshots] == ["snapshot_1", "snapshot_2"]
    assert {pool.draw(rng)[0] for _ in range(20)} == {train_multi.SELF}
    pool.bot_share = 1.0
    assert {pool.draw(rng)[0] for _ in range(20)} <= {"random", "greedy"}
    with pytest.raises(ValueError, match="unknown bot"):
        train_multi.OpponentPool(["nobody"], 0.5, 2)
    with pytest.raises(ValueError, match="at least one"):
        train_multi.OpponentPool([], 0.5, 2)


def test_train_multi_snapshots_curve_and_resume(tmp_path):
    out = tmp_path / "duel"
    settings = train_multi.MultiSettings(
        **{**TINY, "n_envs": 2},
        total_timesteps=128,
        snapshot_every=64,
        bots="random",
        bot_share=0.5,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        train_multi.train(settings, out, progress=False)
        assert sorted(p.name for p in (out / "pool").iterdir()) == [
            "snapshot_128.pt",
            "snapshot_64.pt",
        ]
        header = (out / "curve.csv").read_text().splitlines()[0]
        assert header == "timesteps,wall_s,episodes,win_vs_random,win_vs_self"
        pool = train_multi.OpponentPool(["random"], 0.5, 8)
        model = MaskablePPO.load(out / "model.zip", device="cpu")
        train_multi.restore_pool(pool, model.policy, out / "pool")
        assert [label for label, _ in pool.snapshots] == ["snapshot_64", "snapshot_128"]
        with pytest.raises(FileExistsError, match="--overwrite"):
            train_multi.train(settings, out, progress=False)
        with pytest.raises(ValueError, match="128 timesteps done already"):
            train_multi.train(settings, out, resume=True, changes={"total_timesteps": 96})
        stored = json.loads((out / "config.json").read_text())["settings"]
        resumed = train_multi.train(
            settings,
            out,
            resume=True,
            progress=False,
            changes={"total_timesteps": 192, "bots": "random"},
        )
        assert resumed.num_timesteps == 192
        assert json.loads((out / "config.json").read_text())["settings"] == {
            **stored,
            "total_timesteps": 192,
        }
    with pytest.raises(ValueError, match="keeps its settings"):
        train_multi.train(settings, out, resume=True, changes={"board_size": 24})


def test_win_metric():
    win = train_multi.win_against("greedy")
    assert win({"opponent": "greedy", "scores": [10, 4], "seat": 0}) == 1.0
    assert win({"opponent": "greedy", "scores": [10, 10], "seat": 1}) == 0.5
    assert win({"opponent": "greedy", "scores": [10, 4], "seat": 1}) == 0.0
    assert win({"opponent": "random", "scores": [10, 4], "seat": 0}) is None
    assert win({"opponent": "greedy", "scores": [0, 0], "seat": 0, "illegal_move": "x"}) is None


def test_evaluate_solo_and_duel_models(tmp_path):
    solo = train_solo.train(
        train_solo.SoloSettings(**TINY, total_timesteps=128), tmp_path / "solo", progress=False
    )
    assert evaluate.model_rules(solo) == Rules(variant="solo")
    table = evaluate.evaluate(
        tmp_path / "solo" / "model.zip", [], deals=2, progress=False, out=tmp_path / "eval_solo"
    )
    assert "sb3:model=" in table and (tmp_path / "eval_solo" / "solo_bench.json").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        settings = train_multi.MultiSettings(
            **{**TINY, "n_envs": 2}, total_timesteps=64, bots="random"
        )
        duel = train_multi.train(settings, tmp_path / "duel", progress=False)
        assert evaluate.model_rules(duel) == Rules(players=2)
        table = evaluate.evaluate(
            tmp_path / "duel" / "model.zip", ["random"], games=2, progress=False
        )
    assert "random" in table and "sb3:model=" in table


def test_cli_train_dispatch(tmp_path, capsys):
    from carcassonne_env.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["train", "solo", "--help"])
    assert exit_.value.code == 0
    assert "--total-timesteps" in capsys.readouterr().out
    assert main(["train", "evaluate", str(tmp_path / "missing.zip")]) == 2
    assert "no model file" in capsys.readouterr().err
    out = tmp_path / "cli"
    assert (
        main(
            [
                "train",
                "solo",
                "--out",
                str(out),
                "--no-progress",
                "--total-timesteps",
                "128",
                "--preset",
                "board",
                *(f"--{k.replace('_', '-')}={v}" for k, v in TINY.items()),
            ]
        )
        == 0
    )
    assert (out / "model.zip").exists()


@pytest.mark.slow
def test_quick_solo_preset_beats_random(tmp_path):
    """The board-quick preset (~10 minutes on 2 cores) clearly beats the random bot's
    solo result (8.1) on the benchmark deals (it reached 9.8 on deals 0-999)."""
    from agents.solo_bench import run_solo_bench

    torch.set_num_threads(2)
    settings = train_solo.SoloSettings(**train_solo.PRESETS["board-quick"])
    train_solo.train(settings, tmp_path, progress=False)
    result = run_solo_bench(f"sb3:model={tmp_path / 'model.zip'}", deals=200, progress=False)
    assert result.summary()["mean"] > 9.0


MODELS = ROOT / "agents" / "models"


def test_shipped_solo_model_beats_random_on_the_bench_deals():
    from agents.solo_bench import run_solo_bench

    ppo = run_solo_bench(f"sb3:model={MODELS / 'ppo_solo.zip'}", deals=40, progress=False)
    rnd = run_solo_bench("random", deals=40, progress=False)
    assert ppo.summary()["mean"] > rnd.summary()["mean"] + 1.0


def test_shipped_duel_model_beats_random():
    from agents.arena import run_arena

    spec = f"sb3:model={MODELS / 'ppo_duel.zip'}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        result = run_arena([spec, "random"], games=20, seed=3, progress=False)
    assert result.pairwise()[(spec, "random")].win_rate > 0.7


def _stop_at_the_second_rollout(monkeypatch, stop) -> list[int]:
    """Wrap SB3's callback hook of the curve so that `stop()` runs right after the second
    rollout; returns the list of timesteps at each rollout's end, filled as they come."""
    from training.callbacks import EpisodeCurve

    # internals: SB3's callback hook, wrapped to stop the run at a known step
    rollouts, original = [], EpisodeCurve._on_rollout_end

    def at_rollout_end(self):
        original(self)
        rollouts.append(self.num_timesteps)
        if len(rollouts) == 2:
            stop()

    monkeypatch.setattr(EpisodeCurve, "_on_rollout_end", at_rollout_end)  # internals: above
    return rollouts


def _tiny_board_solo_argv(out) -> list[str]:
    """`carcassonne train solo` for 512 steps of the tiny board preset, no checkpoint."""
    return [
        "train",
        "solo",
        "--out",
        str(out),
        "--no-progress",
        "--total-timesteps",
        "512",
        "--preset",
        "board",
        *(f"--{k.replace('_', '-')}={v}" for k, v in TINY.items() if k != "checkpoint_every"),
        "--checkpoint-every",
        "100000",
    ]


def test_ctrl_c_saves_a_checkpoint_that_resume_carries_on_from(tmp_path, capsys, monkeypatch):
    """Issue 28: a Ctrl-C ends in one line, keeps the training done so far as a checkpoint
    (the run folder stays) and --resume continues from it to the target."""
    from carcassonne_env.cli import main
    from training.run_folder import saved_progress

    def interrupt():
        raise KeyboardInterrupt

    rollouts = _stop_at_the_second_rollout(monkeypatch, interrupt)
    out = tmp_path / "run"
    assert main(_tiny_board_solo_argv(out)) == 130
    checkpoint = out / "checkpoints" / "model_256_steps.zip"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"carcassonne: interrupted: 256 timesteps saved to {checkpoint}; --resume carries "
        "on from there"
    )
    assert rollouts == [128, 256] and checkpoint.is_file()
    assert not (out / "model.zip").exists()
    assert saved_progress(out) == (256, checkpoint)
    monkeypatch.undo()
    assert main(["train", "solo", "--out", str(out), "--no-progress", "--resume"]) == 0
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert model.num_timesteps == 512
    curve = (out / "curve.csv").read_text().splitlines()
    assert [int(row.split(",")[0]) for row in curve[1:]] == [128, 256, 384, 512]


def test_sigterm_saves_a_checkpoint_like_ctrl_c(tmp_path, capsys, monkeypatch):
    """`kill` (SIGTERM) during training keeps the steps done as a checkpoint, as a
    Ctrl-C does."""
    import signal

    from carcassonne_env.cli import main
    from training.run_folder import saved_progress

    rollouts = _stop_at_the_second_rollout(monkeypatch, lambda: signal.raise_signal(signal.SIGTERM))
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "run"
    assert main(_tiny_board_solo_argv(out)) == 130
    checkpoint = out / "checkpoints" / "model_256_steps.zip"
    assert rollouts == [128, 256]
    assert checkpoint.is_file() and saved_progress(out) == (256, checkpoint)
    assert f"256 timesteps saved to {checkpoint}" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back


def test_a_resumed_runs_progress_bar_counts_from_the_steps_done():
    from training.callbacks import ProgressBar

    bar = ProgressBar(500_000, 100_000, lambda: "")
    # internals: SB3 calls these hooks around a run; here without a model
    bar._on_training_start()
    assert (bar.bar.n, bar.bar.total) == (100_000, 500_000)
    bar._on_training_end()


def test_ctrl_c_before_any_training_leaves_no_run(tmp_path, capsys, monkeypatch):
    from carcassonne_env.cli import main

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "learn", interrupt)
    out = tmp_path / "run"
    argv = [
        "train",
        "solo",
        "--out",
        str(out),
        "--no-progress",
        "--total-timesteps",
        "128",
        "--preset",
        "board",
        *(f"--{k.replace('_', '-')}={v}" for k, v in TINY.items()),
    ]
    assert main(argv) == 130
    assert capsys.readouterr().err.splitlines()[-1] == (
        "carcassonne: interrupted: stopped by Ctrl-C"
    )
    assert not out.exists()  # nothing trained: nothing kept


def test_train_multi_generations_gate_join_the_league_and_resume(tmp_path):
    """--gate-every: generation 0 is the start; every gate the learner plays the newest
    generation (threshold 0: every candidate passes), joins the league's saved pool,
    plays the panel; a resumed run carries the generations on."""
    from training.generations import GENERATIONS_FILE

    out = tmp_path / "gens"
    settings = train_multi.MultiSettings(
        **{**TINY, "n_envs": 2},
        total_timesteps=128,
        env="batched",
        policy="candidates",
        hidden=8,
        candidate_moves=16,
        obs_features="aggregate",
        reward="projected",
        board_size=20,
        bots="greedy",
        bot_share=0.5,
        gate_every=64,
        gate_games=2,
        gate_threshold=0.0,
        confirm_threshold=0.0,
        panel="greedy",
        panel_games=2,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        model = train_multi.train(settings, out, progress=False)
        # the candidate policy's rollouts: packed rows, no board planes stored
        assert model.rollout_buffer.pack_candidates
        assert set(model.rollout_buffer.observations) == {"features", "candidate_actions"}
        rows = read_rows(out / GENERATIONS_FILE)
        assert [(r["timesteps"], r["generation"], r["accepted"]) for r in rows] == [
            ("0", "0", "1"),
            ("64", "1", "1"),
            ("128", "2", "1"),
        ]
        for r in rows[1:]:  # the gate and the confirmation were played, the panel too
            assert 0 <= float(r["gate_lo"]) <= float(r["gate_win"]) <= float(r["gate_hi"])
            assert not math.isnan(float(r["confirm_win"]))
        assert all(0 <= float(r["win_vs_greedy"]) <= 1 for r in rows)
        assert sorted(p.name for p in (out / "generations").iterdir()) == [
            "gen_0.zip",
            "gen_1.zip",
            "gen_2.zip",
        ]
        assert sorted(p.name for p in (out / "pool").iterdir()) == [
            "snapshot_0.pt",
            "snapshot_128.pt",
            "snapshot_64.pt",
        ]
        assert (out / "generations.png").is_file()
        # a run stopped during a new generation's panel: file and weights, no row
        (out / "generations" / "gen_3.zip").write_bytes(b"")
        (out / "pool" / "snapshot_160.pt").write_bytes(b"")
        # the last gate and panel came after curve.csv's last row: a long one (100 s)
        rows[-1]["wall_s"] = float(rows[-1]["wall_s"]) + 100
        write_rows(out / GENERATIONS_FILE, list(rows[0]), rows)
        resumed = train_multi.train(
            settings, out, resume=True, progress=False, changes={"total_timesteps": 192}
        )
        assert resumed.rollout_buffer.pack_candidates
        assert not (out / "pool" / "snapshot_160.pt").exists()
        rows = read_rows(out / GENERATIONS_FILE)
        assert [(r["iteration"], r["timesteps"], r["generation"]) for r in rows[-1:]] == [
            ("3", "192", "3")
        ]
        assert float(rows[-1]["wall_s"]) >= float(rows[-2]["wall_s"])  # the clock counts on


@pytest.mark.parametrize(
    ("matches", "accepted"),
    [
        ([0.54], False),  # below the gate: no confirmation
        ([0.60, 0.50], False),  # through the gate, not through the confirmation
        ([0.60, 0.56], True),
    ],
)
def test_the_gate_then_the_confirmation_decide(tmp_path, monkeypatch, matches, accepted):
    """The candidate meets generation 0 on the gate's decks, then (if it passed) on the
    confirmation's; both at 0.55 or more make it generation 1, in the league's pool."""
    from training import generations

    played = []
    monkeypatch.setattr(
        generations,
        "gate",
        lambda cand, best, n, seed: (
            played.append((cand.name, best.name, seed)) or (matches[len(played) - 1], 0.4, 0.7)
        ),
    )
    out = tmp_path / "gens"
    settings = train_multi.MultiSettings(
        **{**TINY, "n_envs": 2},
        total_timesteps=64,
        env="batched",
        policy="candidates",
        hidden=8,
        candidate_moves=16,
        obs_features="aggregate",
        reward="projected",
        board_size=20,
        bots="greedy",
        gate_every=64,
        gate_games=2,
        panel_games=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        train_multi.train(settings, out, progress=False)
    assert (
        played
        == [
            ("candidate_64.zip", "gen_0.zip", seed)
            for seed in (generations.GATE_SEED + 1, generations.CONFIRM_SEED + 1)
        ][: len(matches)]
    )
    row = read_rows(out / "generations.csv")[-1]
    assert (row["accepted"], row["generation"]) == (str(int(accepted)), str(int(accepted)))
    assert float(row["gate_win"]) == matches[0]
    assert (
        (float(row["confirm_win"]) == matches[1])
        if len(matches) > 1
        else math.isnan(float(row["confirm_win"]))
    )
    gens = ["gen_0.zip", "gen_1.zip"] if accepted else ["gen_0.zip"]
    assert sorted(p.name for p in (out / "generations").iterdir()) == gens
    assert sorted(p.name for p in (out / "pool").iterdir()) == (
        ["snapshot_0.pt", "snapshot_64.pt"] if accepted else ["snapshot_0.pt"]
    )


def test_a_run_saves_slim_models_but_the_checkpoint_it_resumes_from(tmp_path):
    """model.zip and every checkpoint but the newest are slim (what `train export`
    writes: no optimizer state, no last observations, deflated); the newest checkpoint is
    whole, and --resume starts from it with the optimizer's state it had."""
    from carcassonne_env.model_file import is_slim
    from training.export import export_model

    out = tmp_path / "run"
    settings = train_solo.SoloSettings(**TINY, total_timesteps=384, seed=1)
    model = train_solo.train(settings, out, progress=False)
    names = sorted(c.name for c in (out / "checkpoints").iterdir())
    assert names == ["model_128_steps.zip", "model_256_steps.zip", "model_384_steps.zip"]
    newest = out / "checkpoints" / "model_384_steps.zip"
    assert not is_slim(newest)
    assert all(is_slim(out / "checkpoints" / n) for n in names[:2]) and is_slim(out / "model.zip")
    full, slim = newest.stat().st_size, (out / "model.zip").stat().st_size
    assert slim < full / 2, (slim, full)
    exported = tmp_path / "exported.zip"
    export_model(out / "model.zip", exported)
    assert abs(exported.stat().st_size - slim) < slim / 10  # the same content
    # the slim models play as the whole one does
    same = MaskablePPO.load(out / "model.zip", device="cpu").policy.state_dict()
    assert all(torch.equal(w, same[k]) for k, w in model.policy.state_dict().items())
    resumed = load_or_create(settings, train_solo.make_env(settings), out, resume=True)
    assert resumed.num_timesteps == 384
    state = resumed.policy.optimizer.state_dict()["state"]
    kept = model.policy.optimizer.state_dict()["state"]
    assert state and all(torch.equal(state[k]["exp_avg"], kept[k]["exp_avg"]) for k in kept)
