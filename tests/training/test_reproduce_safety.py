"""`carcassonne train reproduce` runs training only: a card's commands must be training
subcommands writing inside --out (refused in one line otherwise, before anything runs),
and the card of a model that is not a shipped one is printed and run only with --yes."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("sb3_contrib")

import carcassonne_env.cli  # noqa: E402
from agents.sb3_policy import model_path, shipped_models  # noqa: E402
from carcassonne_env.cli import main  # noqa: E402
from training import cards  # noqa: E402


@pytest.fixture
def ran(monkeypatch):
    """The commands `reproduce` runs (recorded instead of run)."""
    calls: list[list[str]] = []

    def record(argv):
        calls.append(list(argv))
        return 0

    monkeypatch.setattr(carcassonne_env.cli, "main", record)
    return calls


def _with_card(tmp_path, commands: list[str], name: str = "ppo_solo"):
    """A copy of the shipped `name` whose card runs `commands`."""
    path = tmp_path / "model.zip"
    path.write_bytes(model_path(name).read_bytes())
    cards.write_card(path, {**cards.read_card(name), "commands": commands})
    return path


@pytest.mark.parametrize("name", shipped_models())
def test_every_shipped_card_is_accepted(name, tmp_path):
    out = tmp_path / "out"
    cards.check_commands(cards.card_commands(cards.read_card(name), out), out)


def test_a_shipped_model_or_an_exact_copy_reproduces_without_yes(tmp_path, ran, capsys):
    out = tmp_path / "out"
    expected = cards.card_commands(cards.read_card("ppo_solo"), out)
    assert main(["train", "reproduce", "ppo_solo", "--out", str(out)]) == 0
    copy = tmp_path / "copy.zip"
    copy.write_bytes(model_path("ppo_solo").read_bytes())
    assert main(["train", "reproduce", str(copy), "--out", str(out)]) == 0
    assert ran == expected * 2
    capsys.readouterr()


def test_a_tampered_card_is_printed_and_run_only_with_yes(tmp_path, ran, capsys):
    out = tmp_path / "out"
    path = _with_card(
        tmp_path,
        [
            "carcassonne train solo --total-timesteps 64 --out {out}/run",
            "carcassonne train export {out}/run/model.zip -o {out}/m.zip",
        ],
    )
    argv = ["train", "reproduce", str(path), "--out", str(out)]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and ran == []
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"[1/2] carcassonne train solo --total-timesteps 64 --out {out}/run",
        f"[2/2] carcassonne train export {out}/run/model.zip -o {out}/m.zip",
    ]
    assert (
        captured.err.count("\n") == 1
        and "is not a shipped model" in captured.err
        and "--yes" in captured.err
    )
    assert main([*argv, "--yes"]) == 0
    assert ran == [
        ["train", "solo", "--total-timesteps", "64", "--out", f"{out}/run"],
        ["train", "export", f"{out}/run/model.zip", "-o", f"{out}/m.zip"],
    ]


@pytest.mark.parametrize(
    "command, why",
    [
        ("rm -rf {out}", "is not a carcassonne command"),
        ("carcassonne play --bots random,random", "is not one of carcassonne train"),
        (
            "carcassonne train reproduce ppo_solo --out {out}/again",
            "is not one of carcassonne train",
        ),
        ("carcassonne train rllib --iterations 1", "is not one of carcassonne train"),
        ("carcassonne train solo --out {elsewhere}/run", "writes to .*, outside --out"),
        ("carcassonne train solo --out {out}/../escape", "writes to .*, outside --out"),
        ("carcassonne train solo --ou {elsewhere}", "writes to .*, outside --out"),  # abbreviated
        ("carcassonne train solo --out={elsewhere}", "writes to .*, outside --out"),
        ("carcassonne train export {out}/m.zip -o{elsewhere}/m.zip", "writes to .*, outside --out"),
        ("carcassonne train export {out}/m.zip --output={elsewhere}/m.zip", "outside --out"),
        ("carcassonne train export {out}/m.zip", "does not name its output"),
        ("carcassonne train plot {out}/run", "does not name its output"),  # (its default: .)
        ("carcassonne train solo --out {out}/run --init {elsewhere}/m.zip", "--init must name"),
        ("carcassonne train solo --out {out}/run --ini {elsewhere}/m.zip", "--init must name"),
        ("carcassonne train export {out}/m.zip -o {out}/s.zip --trust", "may not trust files"),
    ],
)
def test_a_card_command_outside_training_or_out_is_refused_even_with_yes(
    tmp_path, ran, capsys, command, why
):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    path = _with_card(tmp_path, [command.replace("{elsewhere}", str(elsewhere))])
    for extra in (["--yes"], ["--yes", "--dry-run"]):
        with pytest.raises(SystemExit) as stop:
            main(["train", "reproduce", str(path), "--out", str(out), *extra])
        assert stop.value.code == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1
        assert re.search(why, captured.err), captured.err
    assert ran == [] and not out.exists() and not elsewhere.exists()


def test_init_may_name_a_shipped_model_or_a_file_inside_out(tmp_path, ran):
    out = tmp_path / "out"
    commands = [
        "carcassonne train solo --out {out}/a --init ppo_solo_rl",
        "carcassonne train solo --out {out}/b --init ppo_solo_rl.zip",
        "carcassonne train solo --out {out}/c --init {out}/a/model.zip",
    ]
    path = _with_card(tmp_path, commands)
    assert main(["train", "reproduce", str(path), "--out", str(out), "--yes"]) == 0
    assert [c[-1] for c in ran] == ["ppo_solo_rl", "ppo_solo_rl.zip", f"{out}/a/model.zip"]
