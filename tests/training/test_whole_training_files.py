"""Training writes every file whole: --resume skips a torn newest checkpoint (a run killed
during a save, before saves were whole) with one warning line, a torn config.json ends in
one clear line, a SIGTERM during a save waits for the file, curves never keep a torn
row."""

from __future__ import annotations

import dataclasses
import json
import signal

import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402

from agents.sb3_policy import load_model  # noqa: E402
from carcassonne_env.cli import main  # noqa: E402
from carcassonne_env.cli_errors import sigterm_as_interrupt  # noqa: E402
from carcassonne_env.model_file import save_model  # noqa: E402
from tests.support.tiny_runs import TINY_ARGS  # noqa: E402
from training import search  # noqa: E402
from training.curves import continue_curve, read_rows  # noqa: E402
from training.run_folder import saved_progress  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _tear(path) -> None:
    """Cut the file in half, as a kill during an in-place write left it."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_resume_skips_a_torn_newest_checkpoint_with_one_warning(tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        main(
            [
                "train",
                "solo",
                "--out",
                str(out),
                "--no-progress",
                "--total-timesteps",
                "256",
                *TINY_ARGS,
            ]
        )
        == 0
    )
    torn = out / "checkpoints" / "model_256_steps.zip"
    _tear(torn)
    (out / "model.zip").unlink()  # killed while saving its last checkpoint
    capsys.readouterr()
    assert (
        main(
            [
                "train",
                "solo",
                "--out",
                str(out),
                "--no-progress",
                "--resume",
                "--total-timesteps",
                "384",
            ]
        )
        == 0
    )
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 1 and err[0].startswith(
        f"carcassonne: warning: skipping {torn}: not a whole model file ("
    )
    assert load_model(out / "model.zip", cached=False).num_timesteps == 384
    assert [r["timesteps"] for r in read_rows(out / "curve.csv")] == ["128", "256", "384"]
    assert saved_progress(out)[0] == 384  # the torn checkpoint was written anew, whole


@pytest.mark.parametrize(
    "config",
    ['{"settings": {"n_envs": 4, "n_st', "", '{"settings": [1, 2]}', '{"settings": {"colour": 3}}'],
    ids=["torn", "empty", "not-settings", "unknown-setting"],
)
def test_a_torn_config_ends_resume_in_one_clear_line(tmp_path, capsys, config):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text(config)
    with pytest.raises(SystemExit) as stop:
        main(["train", "solo", "--out", str(out), "--no-progress", "--resume"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config.json" in err
    assert (
        ("is unreadable" in err)
        if "colour" not in config
        else ("does not hold this trainer's settings" in err)
    )


def test_a_torn_search_state_is_one_clear_error(tmp_path):
    out = tmp_path / "loop"
    out.mkdir()
    (out / "config.json").write_text(
        json.dumps({"settings": dataclasses.asdict(search.SearchSettings())})
    )
    (out / "state.json").write_text('{"iteration": 3, "gen')
    with pytest.raises(ValueError, match=r"state\.json is unreadable"):
        search.run(search.SearchSettings(), out, resume=True)


def test_a_sigterm_during_a_save_waits_for_the_whole_file(tmp_path, monkeypatch):
    model = load_model("ppo_solo_rl_small", cached=False)
    original = type(model).save

    def killed_while_saving(self, path, *args, **kwargs):
        signal.raise_signal(signal.SIGTERM)  # arrives before a byte is written
        original(self, path, *args, **kwargs)

    monkeypatch.setattr(type(model), "save", killed_while_saving)
    path = tmp_path / "m.zip"
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"), sigterm_as_interrupt():
        save_model(model, path)
    saved = load_model(path, cached=False)  # whole: it loads, the same weights
    assert all(
        torch.equal(a, b)
        for a, b in zip(
            saved.policy.state_dict().values(), model.policy.state_dict().values(), strict=True
        )
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.zip"]


def test_a_resumed_curve_drops_a_torn_row(tmp_path):
    """Curves are written whole now; one written in place by an older run may end in a
    torn row, which a resumed run drops."""
    path = tmp_path / "curve.csv"
    path.write_text("timesteps,wall_s,episodes,result\n128,0.5,6,8.1\n256,1.0,14,8.3\n38")
    header = ["timesteps", "wall_s", "episodes", "result"]
    assert continue_curve(path, header, 10_000) == (14, 1.0)
    assert path.read_text().splitlines() == [
        "timesteps,wall_s,episodes,result",
        "128,0.5,6,8.1",
        "256,1.0,14,8.3",
    ]
