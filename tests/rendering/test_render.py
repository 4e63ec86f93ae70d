"""Board pictures (`carcassonne_env.rendering`) and the `carcassonne render` command."""

from __future__ import annotations

import json
import random
import sys
import warnings

import numpy as np
import pytest
from PIL import Image

from carcassonne_env import Game, Rules
from carcassonne_env.cli import main
from carcassonne_env.rendering import modes
from carcassonne_env.rendering.image import render_rgb, save_png
from carcassonne_env.rendering.modes import show
from carcassonne_env.rendering.palette import SEAT_COLOURS, SEAT_NAMES
from carcassonne_env.rendering.tile_pictures import segment_anchors, tile_raster
from carcassonne_env.tiles import base_tileset


def random_game(
    seed: int = 1, moves: int | None = None, rules: Rules | None = None, followers: bool = False
) -> Game:
    """A game of random legal moves (`followers`: prefer moves that place one)."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.done and (moves is None or game.turn < moves):
        legal = game.legal_moves()
        with_follower = [m for m in legal if m.follower is not None]
        game.play(rng.choice(with_follower if followers and with_follower else legal))
    return game


def colour_pixels(image: np.ndarray, colour) -> np.ndarray:
    return (image == np.array(colour, np.uint8)).all(axis=2)


def first_move_with(game: Game, prefix: str):
    return next(m for m in game.legal_moves() if (m.follower or "").startswith(prefix))


def test_shape_dtype_and_crop():
    game = Game(seed=1)
    board_only = render_rgb(game, cell=40, show_scores=False)
    assert board_only.dtype == np.uint8 and board_only.shape == (120, 120, 3)  # 1 tile + margin
    full = render_rgb(game)
    assert full.dtype == np.uint8 and full.ndim == 3 and full.shape[2] == 3
    assert full.shape[1] == 144 and full.shape[0] > 144  # score strip below the board
    game = random_game(moves=10)
    xs = [x for x, _ in game.board]
    ys = [y for _, y in game.board]
    image = render_rgb(game, cell=20, show_scores=False)
    assert image.shape == ((max(ys) - min(ys) + 3) * 20, (max(xs) - min(xs) + 3) * 20, 3)
    with pytest.raises(ValueError):
        render_rgb(game, cell=4)


def test_deterministic_for_a_seed():
    a = render_rgb(random_game(seed=4, moves=30, followers=True))
    b = render_rgb(random_game(seed=4, moves=30, followers=True))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, render_rgb(random_game(seed=5, moves=30, followers=True)))


def test_every_seat_colour_appears_with_followers():
    assert not any(
        colour_pixels(render_rgb(Game(seed=2), show_scores=False), c).any() for c in SEAT_COLOURS
    )  # nobody on the board yet
    game = random_game(seed=2, moves=24, rules=Rules(players=6), followers=True)
    seats = {p.follower[0] for p in game.board.values() if p.follower}
    assert seats == set(range(6))
    image = render_rgb(game, show_scores=False)
    for seat in range(6):
        assert colour_pixels(image, SEAT_COLOURS[seat]).sum() > 20, SEAT_NAMES[seat]


def test_solo_game_renders():
    game = random_game(seed=3, rules=Rules(variant="solo"), followers=True)
    assert game.done
    image = render_rgb(game)
    assert image.dtype == np.uint8 and image.shape[0] > 48


def meeple_box(game: Game) -> tuple[int, int]:
    """(width, height) of seat 0's (red) pixels."""
    mask = colour_pixels(render_rgb(game, cell=64, show_scores=False), SEAT_COLOURS[0])
    ys, xs = np.nonzero(mask)
    return xs.max() - xs.min() + 1, ys.max() - ys.min() + 1


def test_farmer_lies_down():
    standing = Game(tile_order="UU")  # not the last tile: no final scoring
    standing.play(first_move_with(standing, "road"))
    farmer = Game(tile_order="UU")  # not the last tile: no final scoring
    farmer.play(first_move_with(farmer, "field"))
    w, h = meeple_box(standing)
    fw, fh = meeple_box(farmer)
    assert h > 1.1 * w  # upright: taller than wide
    assert fw > 1.1 * fh  # lying: wider than tall


@pytest.mark.parametrize("cell", [48, 21])
def test_tile_rasters_follow_the_rotation(cell):
    ts = base_tileset()
    for t, name in enumerate(ts.names):
        upright = tile_raster(ts, t, 0, cell)
        assert upright.shape == (cell, cell, 3) and upright.dtype == np.uint8
        for r in range(4):
            raster = tile_raster(ts, t, r, cell)
            assert np.array_equal(raster, np.rot90(upright, -r)), (name, r)
    # Different tiles look different (at the same rotation).
    pictures = {tile_raster(ts, t, 0, cell).tobytes() for t in range(len(ts.names))}
    assert len(pictures) == len(ts.names)


def test_follower_anchors_lie_on_their_tile():
    ts = base_tileset()
    for t in range(len(ts.names)):
        for r in range(4):
            anchors = segment_anchors(ts, t, r)
            assert set(anchors) == set(ts.slot_aliases[t][r].values())
            assert all(0 < x < 1 and 0 < y < 1 for x, y in anchors.values())


def test_highlight_marks_the_last_tile():
    game = random_game(seed=6, moves=12)
    on = render_rgb(game, show_scores=False)
    off = render_rgb(game, show_scores=False, highlight_last=False)
    changed = (on != off).any(axis=2)
    assert changed.sum() > 48
    (x, y) = list(game.board)[-1]
    x0 = min(bx for bx, _ in game.board) - 1
    y0 = min(by for _, by in game.board) - 1
    ys, xs = np.nonzero(changed)
    assert xs.min() >= (x - x0) * 48 - 1 and xs.max() <= (x - x0 + 1) * 48
    assert ys.min() >= (y - y0) * 48 - 1 and ys.max() <= (y - y0 + 1) * 48


def test_show_is_harmless_without_a_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    # internals: as at a program's start, no warning given and no window refused yet
    monkeypatch.setattr(modes, "_warned", False)
    monkeypatch.setattr(modes, "_no_window", False)
    image = render_rgb(Game(seed=1))
    with pytest.warns(RuntimeWarning, match="no display"):
        assert show(image) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once only
        assert show(image) is False


def test_save_png(tmp_path):
    game = random_game(seed=7, moves=5)
    save_png(game, tmp_path / "b.png", cell=30)
    with Image.open(tmp_path / "b.png") as im:
        assert np.array_equal(np.asarray(im.convert("RGB")), render_rgb(game, cell=30))


def test_cli_render(tmp_path, capsys):
    game = random_game(seed=1)
    assert game.done
    record = tmp_path / "game.json"
    record.write_text(json.dumps(game.to_record()))
    out = tmp_path / "board.png"
    assert main(["render", str(record), "-o", str(out), "--cell", "32"]) == 0
    with Image.open(out) as im:
        assert im.format == "PNG" and im.width > 0 and im.height > 0
        assert np.array_equal(np.asarray(im.convert("RGB")), render_rgb(game, cell=32))
    early = tmp_path / "early.png"
    assert main(["render", str(record), "-o", str(early), "--moves", "5"]) == 0
    with Image.open(early) as im:
        assert np.array_equal(
            np.asarray(im.convert("RGB")), render_rgb(random_game(seed=1, moves=5))
        )
    assert "written to" in capsys.readouterr().out


def test_cli_render_bad_files(tmp_path, capsys):
    out = str(tmp_path / "x.png")
    assert main(["render", str(tmp_path / "missing.json"), "-o", out]) == 2
    assert "missing.json" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    for text in ("not json", "[1, 2]", '{"format": "something else"}'):
        bad.write_text(text)
        assert main(["render", str(bad), "-o", out]) == 2
        assert "error" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
