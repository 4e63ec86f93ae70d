"""Small output faults: learning curves of one row, pennant colour, image formats."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env import Game
from carcassonne_env.rendering.image import image_format, save_image
from carcassonne_env.rendering.palette import PENNANT, SEAT_COLOURS
from carcassonne_env.rendering.tile_pictures import tile_raster
from carcassonne_env.tiles import base_tileset


def test_pennants_use_a_colour_no_seat_plays():
    for seat in SEAT_COLOURS:  # far apart in RGB, not a shade of a seat's colour
        assert np.linalg.norm(np.subtract(PENNANT, seat)) > 100, seat
    ts = base_tileset()
    t = int(np.flatnonzero(ts.tables.seg_pennants.max(axis=1) > 0)[0])
    img = tile_raster(ts, t, 0, cell=48)
    assert (img == PENNANT).all(axis=-1).sum() > 10  # the shield is drawn in it


def test_image_format_follows_the_suffix_or_refuses(tmp_path):
    assert [image_format(f"b{s}") for s in (".png", ".JPG", ".jpeg", ".bmp")] == [
        "PNG",
        "JPEG",
        "JPEG",
        "BMP",
    ]
    for bad in ("board", "board.xyz", "board.svg"):
        with pytest.raises(ValueError, match="cannot tell an image format"):
            image_format(bad)
    game = Game(seed=0)
    save_image(game, tmp_path / "b.jpg", cell=8)
    assert (tmp_path / "b.jpg").read_bytes()[:3] == b"\xff\xd8\xff"
    assert not list(tmp_path.glob("*.xyz"))


def test_a_one_row_learning_curve_is_a_visible_point_with_distinct_ticks(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from training.plots import draw_curves

    solo, duel = tmp_path / "solo", tmp_path / "duel"
    solo.mkdir(), duel.mkdir()
    (solo / "curve.csv").write_text("timesteps,wall_s,episodes,result\n2048,13.2,40,7.5\n")
    (duel / "curve.csv").write_text("timesteps,wall_s,episodes,win_vs_random\n2048,13.2,40,0.5\n")
    fig = draw_curves([solo, duel])
    try:
        fig.canvas.draw()
        for ax in fig.axes:
            (line,) = ax.lines
            assert line.get_marker() == "o" and list(line.get_xdata()) == [2048.0]
            assert ax.get_xlim()[0] == 0 and ax.get_xlim()[1] > 2048
            labels = [t.get_text() for t in ax.get_xticklabels()]
            assert len(set(labels)) == len(labels) > 3, labels
            assert "2k" in labels and "1k" in labels and "0" in labels
            assert "13 s wall clock" in ax.get_title()
    finally:
        plt.close(fig)


def test_learning_curves_over_wall_clock_and_search_iterations(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from training.plots import draw_curves

    duel, exit_run = tmp_path / "duel", tmp_path / "exit"
    duel.mkdir(), exit_run.mkdir()
    (duel / "curve.csv").write_text(
        "timesteps,wall_s,episodes,win_vs_greedy\n2048,60,40,0.25\n4096,180,80,0.5\n"
    )
    (exit_run / "curve.csv").write_text(
        "iteration,wall_s,games,samples,policy_loss,value_loss,win_vs_greedy,"
        "win_vs_heuristic\n1,120,4,280,1.1,2.0,0.9,0.4\n2,240,4,281,1.0,1.8,0.95,0.5\n"
    )
    fig = draw_curves([duel, exit_run], x="wall")
    try:
        first, second = fig.axes
        assert list(first.lines[0].get_xdata()) == [1.0, 3.0]  # minutes
        assert first.get_xlabel() == "wall clock (minutes)"
        assert [line.get_label() for line in second.lines] == ["win vs greedy", "win vs heuristic"]
        assert "2 iterations" in second.get_title()
    finally:
        plt.close(fig)
    fig = draw_curves([exit_run])
    try:
        assert fig.axes[0].get_xlabel() == "iteration"
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="x must be"):
        draw_curves([duel], x="episodes")
