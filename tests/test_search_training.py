"""Search-guided self-play (`carcassonne train search`, training.search): a tiny run, its
samples, resume and refusals."""

import csv

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.puct import PUCTAgent  # noqa: E402
from agents.sb3_policy import SB3Agent, load_model  # noqa: E402
from carcassonne_env import Rules  # noqa: E402
from training import search  # noqa: E402


def test_self_play_samples_hold_visit_shares_and_margin_targets():
    agent = PUCTAgent(SB3Agent("ppo_duel_rl"), seed=0, simulations=3, value_base="projected")
    samples, scores = search.self_play_game(agent, Rules(players=2), seed=7, explore_moves=4,
                                            rng=np.random.default_rng(0))
    assert len(samples) > 30
    for s in samples:
        present = s.obs["candidate_actions"] >= 0
        assert s.target.sum() == pytest.approx(1.0)
        assert (s.target[~present] == 0).all()
        margin = scores[s.seat] - scores[1 - s.seat]
        assert s.value == pytest.approx(margin - s.base)
    assert len({s.base for s in samples}) > 3  # the projected margin moves


def test_train_search_runs_resumes_and_refuses(tmp_path):
    out = tmp_path / "exit"
    args = ["--out", str(out), "--iterations", "1", "--games", "1", "--simulations", "2",
            "--eval-games", "0", "--no-progress"]
    assert search.main(args) == 0
    assert {p.name for p in out.iterdir()} >= {"config.json", "curve.csv", "model.zip",
                                              "model_iter_0.zip", "model_iter_1.zip"}
    before = load_model(out / "model_iter_0.zip", cached=False).policy.state_dict()
    after = load_model(out / "model_iter_1.zip", cached=False).policy.state_dict()
    assert any((before[k] != after[k]).any() for k in before)  # it learned something
    with pytest.raises(SystemExit):  # a folder holding a run
        search.main(args)
    with pytest.raises(SystemExit):  # resume keeps the stored settings
        search.main(["--out", str(out), "--resume", "--games", "3"])
    assert search.main(["--out", str(out), "--resume", "--iterations", "2",
                        "--no-progress"]) == 0
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["1", "2"]
    assert float(rows[1]["wall_s"]) > float(rows[0]["wall_s"])


def test_train_search_needs_a_candidate_model(tmp_path):
    with pytest.raises(SystemExit):
        search.main(["--out", str(tmp_path / "x"), "--init", "ppo_duel_bc",
                     "--iterations", "1", "--no-progress"])
