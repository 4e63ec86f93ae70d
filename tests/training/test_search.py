"""Search-guided self-play (`carcassonne train search`, training.search): its samples and
replay, a tiny generation end to end (self-play, fit, gate, panel), resume and refusals."""

import csv
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.puct import PUCTAgent  # noqa: E402
from agents.sb3_policy import SB3Agent, load_model  # noqa: E402
from carcassonne_env import Rules  # noqa: E402
from training import search  # noqa: E402


def _tiny_loop(out: Path, *more: str) -> list[str]:
    """`train search` for one tiny iteration into `out` (one self-play game, 2 simulations
    a move, a 2-game gate), then the options `more`."""
    return [
        *("--out", str(out), "--iterations", "1", "--games", "1", "--simulations", "2"),
        *("--gate-games", "2", "--no-progress", *more),
    ]


def test_self_play_samples_hold_visit_shares_and_margin_targets():
    agent = PUCTAgent(SB3Agent("ppo_duel_rl"), seed=0, simulations=3, value_base="projected")
    samples, scores = search.self_play_game(
        agent, Rules(players=2), seed=7, explore_moves=4, rng=np.random.default_rng(0)
    )
    assert len(samples) > 30
    for s in samples:
        present = s.obs["candidate_actions"] >= 0
        assert len(s.obs["candidates"]) == present.sum()  # the present rows only
        assert s.target.sum() == pytest.approx(1.0)
        assert (s.target[~present] == 0).all()
        margin = scores[s.seat] - scores[1 - s.seat]
        assert s.value == pytest.approx(margin - s.base)
    assert len({s.base for s in samples}) > 3  # the projected margin moves


def test_solo_self_play_targets_the_lowest_colour():
    agent = PUCTAgent(SB3Agent("ppo_solo_rl"), seed=0, simulations=3)
    samples, scores = search.self_play_game(
        agent, Rules(variant="solo"), seed=5, explore_moves=2, rng=np.random.default_rng(0)
    )
    assert len(samples) > 5 and len(scores) == 3
    for s in samples:
        assert s.target.sum() == pytest.approx(1.0)
        assert s.value == pytest.approx(min(scores) - s.base)
    assert len({s.base for s in samples}) > 2  # the lowest colour's projection moves


def test_the_replay_packs_and_pads_the_candidates(tmp_path):
    agent = PUCTAgent(SB3Agent("ppo_duel_rl"), seed=0, simulations=2, value_base="projected")
    samples, _ = search.self_play_game(
        agent, Rules(players=2), seed=3, explore_moves=2, rng=np.random.default_rng(0)
    )
    packed = search.pack(samples, value_scale=10.0)
    search.save_samples(tmp_path / "s.npz", packed)
    data = search.union([search.load_samples(tmp_path / "s.npz")] * 2)
    assert len(data["value"]) == 2 * len(samples)
    starts = np.concatenate([[0], np.cumsum(data["counts"])[:-1]])
    idx = np.array([1, len(samples) + 1])
    K = agent.net.model.observation_space["candidates"].shape[0]
    n = len(samples[1].obs["candidates"])  # the present rows only
    assert n == (samples[1].obs["candidate_actions"] >= 0).sum() < K
    batch = search._batch(data, starts, idx, K)  # internals: the fit's batches, padded
    for obs in (batch["candidates"][0], batch["candidates"][1]):
        np.testing.assert_array_equal(obs[:n], samples[1].obs["candidates"])
        assert not obs[n:].any()  # padded with zeros to K
    assert data["value"][1] == pytest.approx(samples[1].value / 10.0)


def test_train_search_loop_gates_resumes_and_refuses(tmp_path):
    """One tiny generation end to end (self-play, fit, gate, panel), then --resume runs
    the next iteration from the checkpoint with the replay restored."""
    out = tmp_path / "loop"
    more = ("--gate-threshold", "0", "--confirm-threshold", "0", "--panel-games", "2")
    args = _tiny_loop(out, *more, "--panel", "random", "--replay", "2")
    assert search.main(args) == 0
    assert {p.name for p in out.iterdir()} >= {
        "config.json",
        "state.json",
        "curve.csv",
        "curve.png",
        "model.zip",
        "optimizer.pt",
        "model_iter_0.zip",
        "model_iter_1.zip",
        "gen_0.zip",
        "gen_1.zip",
        "best.zip",
        "samples_1.npz",
    }
    before = load_model(out / "model_iter_0.zip", cached=False).policy.state_dict()
    after = load_model(out / "model_iter_1.zip", cached=False).policy.state_dict()
    assert any((before[k] != after[k]).any() for k in before)  # it learned something
    with pytest.raises(SystemExit):  # a folder holding a run
        search.main(args)
    with pytest.raises(SystemExit):  # resume keeps the stored settings
        search.main(["--out", str(out), "--resume", "--games", "3"])
    assert search.main(["--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["0", "1", "2"]
    assert [r["generation"] for r in rows] == ["0", "1", "2"]  # threshold 0: accepted
    assert float(rows[2]["wall_s"]) > float(rows[1]["wall_s"]) > 0
    for r in rows[1:]:
        for col in ("gate", "confirm"):  # an accepted one's second match too
            assert (
                0 <= float(r[f"{col}_lo"]) <= float(r[f"{col}_win"]) <= float(r[f"{col}_hi"]) <= 1
            )
    for r in rows:  # the panel of every generation, generation 0 too
        assert 0 <= float(r["lo_vs_random"]) <= float(r["win_vs_random"]) <= 1
    # the replay was restored: iteration 2 fitted on both iterations' samples
    assert int(rows[2]["replay_samples"]) == int(rows[1]["samples"]) + int(rows[2]["samples"])
    assert (out / "samples_1.npz").exists() and (out / "samples_2.npz").exists()
    assert load_model(out / "model.zip", cached=False) is not None


def test_a_rejected_candidate_leaves_the_best(tmp_path):
    out = tmp_path / "loop"
    more = ("--gate-threshold", "1", "--panel-games", "0", "--replay", "1")
    assert search.main(_tiny_loop(out, *more)) == 0
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    if rows[1]["accepted"] == "0":  # (2 games: it may win both)
        assert rows[1]["generation"] == "0" and not (out / "gen_1.zip").exists()
        # the best's value head was refitted, its policy left as it was
        start = load_model(out / "gen_0.zip", cached=False).policy.state_dict()
        best = load_model(out / "best.zip", cached=False).policy.state_dict()
        value = [k for k in start if ".net.value." in k or k.startswith("value_net")]
        assert value and any((start[k] != best[k]).any() for k in value)
        assert all((start[k] == best[k]).all() for k in start if k not in value)
    assert search.main(["--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    assert not (out / "samples_1.npz").exists()  # out of a replay of 1


def test_the_confirmation_decides_after_the_gate(tmp_path):
    """A candidate through the gate (threshold 0) is not a new generation unless its
    confirmation match reaches --confirm-threshold (1 here: it must win both games)."""
    out = tmp_path / "loop"
    more = ("--gate-threshold", "0", "--confirm-threshold", "1", "--panel-games", "0")
    assert search.main(_tiny_loop(out, *more, "--replay", "1")) == 0
    with open(out / "curve.csv", newline="") as f:
        row = list(csv.DictReader(f))[1]
    assert 0 <= float(row["confirm_lo"]) <= float(row["confirm_win"]) <= 1  # played
    won_both = float(row["confirm_win"]) == 1
    assert row["accepted"] == str(int(won_both))
    assert row["generation"] == str(int(won_both))
    assert (out / "gen_1.zip").exists() == won_both


def test_train_search_needs_a_candidate_model(tmp_path):
    with pytest.raises(SystemExit):
        search.main(
            [
                "--out",
                str(tmp_path / "x"),
                "--init",
                "ppo_duel_bc",
                "--iterations",
                "1",
                "--no-progress",
            ]
        )


def test_sharpened_targets_lean_to_the_most_visited():
    shares = np.array([[0.5, 0.3, 0.2, 0.0], [1.0, 0.0, 0.0, 0.0]], np.float32)
    np.testing.assert_allclose(search.sharpen(shares, 1.0), shares)
    sharp = search.sharpen(shares, 0.5)
    np.testing.assert_allclose(sharp.sum(1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(sharp[0, :3], np.array([25, 9, 4]) / 38, rtol=1e-5)
    assert sharp[0, 3] == 0 and sharp[1, 0] == 1
