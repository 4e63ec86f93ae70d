"""`Rules` refuses what the command line refuses (issue 78 item 5): `solo_colours`
outside the solo variant, as `--solo-colours` without `--solo`."""

from __future__ import annotations

import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.cli import main


def test_solo_colours_outside_the_solo_variant_is_refused():
    with pytest.raises(ValueError, match=r"^solo_colours=4 is a solo-variant option \("):
        Rules(players=2, solo_colours=4)
    with pytest.raises(ValueError, match="^solo_colours=4 is a solo-variant option"):
        Rules.from_dict({**Rules().to_dict(), "solo_colours": 4})
    # the default (3, what every standard record holds) and the solo variant's 4 stand
    assert Rules(players=2).solo_colours == 3
    assert Rules.from_dict(Game(Rules(players=3), seed=0).to_record()["rules"]).players == 3
    assert Rules(variant="solo", solo_colours=4).solo_colours == 4


def test_the_command_line_keeps_its_one_line(capsys):
    assert main(["play", "--bots", "random,random", "--solo-colours", "4"]) == 2
    assert capsys.readouterr().err == "carcassonne: error: --solo-colours needs --solo\n"
