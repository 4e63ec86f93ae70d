"""The HTML replay viewer (`carcassonne view`) without a browser: the data it embeds
and the records it refuses. Browser tests: tests/viewer/test_viewer_browser.py."""

from __future__ import annotations

import json

import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.cli import main
from carcassonne_env.tiles import base_tileset
from carcassonne_env.viewer import tile_geometry, view_data, view_html
from tests.support.games import expansion_game, issue_28_opening


def played(rules: Rules | None = None, seed: int = 3, moves: int | None = None) -> Game:
    game = Game(rules, seed=seed)
    while not game.done and (moves is None or game.turn < moves):
        legal = game.legal_moves()
        game.play(legal[(game.turn * 7) % len(legal)])
    return game


def test_geometry_from_the_tile_data():
    geo = tile_geometry()
    ts = base_tileset()
    assert set(geo["tiles"]) == set(ts.names)
    for t, name in enumerate(ts.names):
        tile = geo["tiles"][name]
        assert tile["image"].startswith("data:image/png;base64,")
        for r in range(4):  # one follower spot per segment, named as the rules name them
            assert set(tile["spots"][r]) == set(ts.slot_names[t][r])
            for x, y, _ in tile["spots"][r].values():
                assert 0 <= x <= 1 and 0 <= y <= 1


@pytest.mark.parametrize(
    "rules", [Rules(), Rules(players=4), Rules(hand_size=3), Rules(variant="solo")]
)
def test_view_data_follows_the_game(rules):
    game = played(rules)
    data = view_data(game.to_record())
    assert len(data["turns"]) == game.turn
    assert data["turns"][-1]["scores"] == game.scores
    assert data["result"] == game.result
    assert data["solo"] == (rules.variant == "solo")
    assert data["initial"]["scores"] == Game(rules, tile_order=game.tile_order()).scores
    for k, turn in enumerate(data["turns"]):
        assert turn["scores"] == game.to_record()["scores"][k]
        # the tiles left by kind add up to the tiles not drawn (hands and stacks too)
        assert sum(turn["deck"].values()) == turn["tiles_left"]
    events = [e for t in data["turns"] for e in t["events"]]
    assert len(events) == len(game.events)


def test_page_is_self_contained():
    html = view_html(played(moves=12).to_record())
    assert "/*DATA*/" not in html and "/*BOARD_JS*/" not in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html


def test_cli_view_and_refusals(tmp_path, capsys):
    record = played(moves=20).to_record()
    src = tmp_path / "game.json"
    src.write_text(json.dumps(record))
    out = tmp_path / "sub" / "game.html"
    out.parent.mkdir()  # (no command makes an output's folder)
    assert main(["view", str(src), "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    bad = dict(record, scores=[list(s) for s in record["scores"]])
    bad["scores"][5][0] += 1
    src.write_text(json.dumps(bad))
    assert main(["view", str(src), "-o", str(out), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("carcassonne: error: ") and "cannot show this record" in err
    assert "move 5" in err
    src.write_text(json.dumps(dict(record, version=99)))
    assert main(["view", str(src), "-o", str(out), "--overwrite"]) == 2
    assert "unsupported record version" in capsys.readouterr().err
    src.write_text("[1, 2]")
    assert main(["view", str(src), "-o", str(out), "--overwrite"]) == 2
    assert "not a game record" in capsys.readouterr().err


def test_a_follower_that_scores_at_once_is_the_move_played():
    game = issue_28_opening()
    assert game.board[(0, -1)].follower is None  # back in the supply after scoring
    turn = view_data(game.to_record())["turns"][2]
    assert (turn["tile"], turn["x"], turn["y"], turn["rotation"], turn["follower"]) == (
        "I",
        0,
        -1,
        3,
        "city:S",
    )
    assert [(e["kind"], e["points"], e["scorers"]) for e in turn["events"]] == [("city", 4, [0])]
    assert turn["supply"] == [6, 6]


def test_expansion_figures_extra_turns_and_goods():
    game = expansion_game()
    data = view_data(game.to_record())
    record = game.to_record()
    figures = [(t["figure"], t["follower"]) for t in data["turns"] if "figure" in t]
    assert figures == [(m["figure"], m["follower"]) for m in record["moves"] if "figure" in m]
    assert {f for f, _ in figures} == {"large", "builder", "pig"}
    # an extra turn: the builder's owner moves again, and the viewer marks that move
    extra = [k for k, t in enumerate(data["turns"]) if t.get("extra")]
    assert extra and all(data["turns"][k]["seat"] == data["turns"][k - 1]["seat"] for k in extra)
    assert data["turns"][-1]["figures"] == game.figures_in_supply
    goods = [e for t in data["turns"] for e in t["events"] if e["kind"] == "goods"]
    assert goods and all(
        e["detail"] in ("wine", "grain", "cloth") and e["tiles"] == [] for e in goods
    )
    assert "figures" not in view_data(played(moves=3).to_record())["initial"]
