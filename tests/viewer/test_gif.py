"""`carcassonne gif`: a record as an animation drawn by the board renderer."""

from __future__ import annotations

import json

import numpy as np
from PIL import Image

from carcassonne_env import Game, Rules
from carcassonne_env.cli import main
from carcassonne_env.rendering.image import render_rgb
from carcassonne_env.viewer.gif import gif_frames


def played(rules=None, moves=None, seed=5):
    game = Game(rules, seed=seed)
    while not game.done and (moves is None or game.turn < moves):
        legal = game.legal_moves()
        game.play(legal[(game.turn * 5) % len(legal)])
    return game


def test_frames_are_the_renderer_on_a_fixed_frame():
    game = played(moves=15)
    frames = gif_frames(game.to_record(), cell=16)
    assert len(frames) == 16 and len({f.size for f in frames}) == 1
    board = render_rgb(game, cell=16, show_scores=False)
    last = np.asarray(frames[-1])
    # the final board is the whole frame's board area (no offset at the end)
    assert np.array_equal(last[: board.shape[0], : board.shape[1]], board)
    assert not np.array_equal(np.asarray(frames[0]), last)


def test_cli_gif(tmp_path, capsys):
    src = tmp_path / "g.json"
    src.write_text(json.dumps(played(Rules(variant="solo"), moves=10).to_record()))
    out = tmp_path / "out" / "g.gif"
    out.parent.mkdir()  # (no command makes an output's folder)
    assert main(["gif", str(src), "-o", str(out), "--cell", "12", "--fps", "8"]) == 0
    with Image.open(out) as im:
        assert im.format == "GIF" and im.n_frames == 11
    assert main(["gif", str(src), "-o", str(tmp_path / "g.png")]) == 2
    assert ".gif" in capsys.readouterr().err
    bad = json.loads(src.read_text())
    bad["moves"][3]["x"] = 40
    src.write_text(json.dumps(bad))
    assert main(["gif", str(src), "-o", str(out), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("carcassonne: error:") and "move 3" in err
