"""Every shipped model carries its card (how it was made, its evaluation), `carcassonne
train card` prints it, `train reproduce` runs its commands, and each training command of
a card passes the training scripts' own checks."""

from __future__ import annotations

import shlex

import pytest

pytest.importorskip("sb3_contrib")

from agents.sb3_policy import model_path, shipped_models  # noqa: E402
from carcassonne_env.cli import main  # noqa: E402
from training import cards  # noqa: E402

TRAINERS = {
    "multi": "training.train_multi",
    "solo": "training.train_solo",
    "bc": "training.imitation",
}


class _Parsed(Exception):
    """Raised instead of training: the command got that far."""


@pytest.mark.parametrize("name", shipped_models())
def test_every_shipped_model_has_a_complete_card(name):
    card = cards.read_card(name)
    assert set(cards.CARD_KEYS) <= set(card) and card["name"] == name
    assert card["commands"][-1].startswith("carcassonne train export ")
    assert card["commands"][-1].endswith(f"-o {{out}}/{name}.zip")
    assert card["evaluation"]["results"]


@pytest.mark.parametrize("name", shipped_models())
def test_the_card_commands_pass_the_scripts_checks(name, tmp_path, monkeypatch):
    import importlib

    for command in cards.card_commands(cards.read_card(name), tmp_path):
        assert command[0] == "train", command
        if command[1] not in TRAINERS:
            continue
        module = importlib.import_module(TRAINERS[command[1]])

        def stop(*_args, **_kwargs):
            raise _Parsed

        monkeypatch.setattr(module, "train", stop)
        if "--resume" in command:  # continues the run of the step before
            continue
        if "--init" in command:  # an earlier step's checkpoint: the model stands in
            start = tmp_path / command[command.index("--init") + 1]
            start.parent.mkdir(parents=True, exist_ok=True)
            start.write_bytes(model_path(name).read_bytes())
        with pytest.raises(_Parsed):
            main(command)


def test_card_and_reproduce_commands(capsys, tmp_path):
    assert main(["train", "card", "ppo_solo_rl"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ppo_solo_rl (solo): RL only") and "24.14" in out
    assert main(["train", "reproduce", "ppo_solo", "--out", str(tmp_path), "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = [shlex.join(c) for c in cards.card_commands(cards.read_card("ppo_solo"), tmp_path)]
    assert [line.split("] carcassonne ", 1)[1] for line in lines] == expected
    with pytest.raises(SystemExit) as stop:
        main(["train", "reproduce", "ppo_solo", "--out", str(tmp_path), "--from-step", "9"])
    assert stop.value.code == 2
    assert "--from-step must be 1 to 3" in capsys.readouterr().err


def test_a_card_round_trips_and_a_model_without_one_is_named(tmp_path):
    path = tmp_path / "m.zip"
    path.write_bytes(model_path("ppo_solo").read_bytes())
    card = {**cards.read_card("ppo_solo"), "name": "m"}
    cards.write_card(path, card)
    assert cards.read_card(path) == card
    with pytest.raises(ValueError, match="a model card needs steps"):
        cards.write_card(path, {k: v for k, v in card.items() if k != "steps"})
    import zipfile

    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(bare, "w") as dst:
        for info in src.infolist():
            if info.filename != cards.CARD_FILE:
                dst.writestr(info, src.read(info))
    with pytest.raises(ValueError, match="carries no model card"):
        cards.read_card(bare)
