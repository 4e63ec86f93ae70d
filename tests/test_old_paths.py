"""Old import paths that users could have used keep working: each module that moved leaves
an alias that re-exports the same objects (and warns, where nothing of ours still
imports it)."""

from __future__ import annotations

import importlib
import sys

import pytest

# old module -> (new module, names), and whether importing the old one warns
MOVED = {
    "carcassonne_env.bots.fast_bots": ("carcassonne_env.bots.jitted_bots",
                                       ["JittedBot", "bot_spec"], True),
    "carcassonne_env.render": ("carcassonne_env.rendering.image",
                               ["render_rgb", "save_png", "save_image", "image_format",
                                "IMAGE_FORMATS"], True),
    "carcassonne_env.annotations": ("carcassonne_env.records",
                                    ["check_annotations", "annotations_block",
                                     "ANNOTATIONS_VERSION"], True),
    "agents.insight": ("agents.annotations", ["explain", "annotate", "Coach"], True),
    "carcassonne_env.text": ("carcassonne_env.rendering.text",
                             ["render_board", "move_text", "tile_glyph", "LEGEND",
                              "FIGURE_WORDS"], True),
}


def _fresh_import(name: str, monkeypatch):
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_gives_the_same_objects(old, monkeypatch):
    new, names, warns = MOVED[old]
    if warns:
        with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
            module = _fresh_import(old, monkeypatch)
    else:
        module = _fresh_import(old, monkeypatch)
    target = importlib.import_module(new)
    for name in names:
        assert getattr(module, name) is getattr(target, name), name
    assert set(names) <= set(module.__all__)


def test_the_old_render_module_keeps_its_other_names(monkeypatch):
    from carcassonne_env.rendering import modes, palette, tile_pictures

    with pytest.warns(DeprecationWarning):
        render = _fresh_import("carcassonne_env.render", monkeypatch)
    assert render.show is modes.show
    assert render.tile_raster is tile_pictures.tile_raster
    assert render.segment_anchors is tile_pictures.segment_anchors
    for colour in palette.__all__:
        assert getattr(render, colour) is getattr(palette, colour), colour
