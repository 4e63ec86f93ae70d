"""Everything that draws a game, for people (the HTML pages are `carcassonne_env.viewer`):

- `text`: the text board (`render_board`, which `str(game)` gives) and moves in words
  (`move_text`);
- `image`: the board picture (`render_rgb`, `save_image`, `save_png`), built from
  `tile_pictures` (each tile's picture, drawn from the tile data, and its follower spots)
  in the colours of `palette`;
- `modes`: the envs' render modes ("ansi", "rgb_array", "human": `render_game`) and the
  window of "human" (`show`).

Nothing is imported here: the text board needs no Pillow, and the envs import Pillow only
when they draw.
"""
