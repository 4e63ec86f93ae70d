"""The old path of the board pictures, which live in the package
`carcassonne_env.rendering`: `render_rgb`, `save_png`, `save_image`, `image_format`,
`IMAGE_FORMATS` in `rendering.image`; `tile_raster`, `segment_anchors` in
`rendering.tile_pictures`; the colours (`SEAT_COLOURS`, `SEAT_NAMES`...) in
`rendering.palette`; `show` in `rendering.modes`. Importing this module warns
(DeprecationWarning)."""

from __future__ import annotations

import warnings

from .rendering.image import IMAGE_FORMATS, image_format, render_rgb, save_image, save_png
from .rendering.modes import show
from .rendering.palette import *  # noqa: F403 - the colours, as this module had them
from .rendering.palette import SEAT_COLOURS, SEAT_NAMES
from .rendering.tile_pictures import segment_anchors, tile_raster

warnings.warn("carcassonne_env.render is deprecated: import render_rgb, save_image... from "
              "carcassonne_env.rendering.image (see carcassonne_env.rendering)",
              DeprecationWarning, stacklevel=2)

__all__ = ["IMAGE_FORMATS", "SEAT_COLOURS", "SEAT_NAMES", "image_format", "render_rgb",
           "save_image", "save_png", "segment_anchors", "show", "tile_raster"]
