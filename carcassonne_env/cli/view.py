"""`carcassonne render`, `view` and `gif`: a game record drawn as an image, an HTML replay
page and an animation. They use neither `agents` nor `training`."""

from __future__ import annotations

import argparse

from ..checks import output_file
from .args import add_cell, add_moves, add_output, add_overwrite, add_record, command
from .files import read_record, record_errors


def render_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne render`."""
    add_record(p, "game record (JSON) from `play --record` or Game.to_record()")
    add_output(
        p,
        "board.png",
        "image to write, format from the suffix: .png, .jpg/.jpeg, .webp, .bmp (default board.png)",
    )
    add_cell(p, 48)
    add_moves(p, "draw the board after the first K moves only")
    add_overwrite(p)


def view_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne view`."""
    add_record(p, "game record (JSON) from `play --record` or the arena")
    add_output(p, "game.html", "HTML file (default game.html)")
    p.add_argument("--title", default=None, help="page title")
    add_overwrite(p)


def gif_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne gif`."""
    add_record(p, "game record (JSON)")
    add_output(p, "game.gif", "GIF file (default game.gif)")
    add_cell(p, 32)
    p.add_argument("--fps", type=float, default=4.0, help="turns per second (default 4)")
    p.add_argument(
        "--hold", type=float, default=3.0, help="seconds the last frame stays (default 3)"
    )
    add_moves(p, "animate the first K moves only")
    add_overwrite(p)


@command("render", render_options)
def cmd_render(args: argparse.Namespace) -> int:
    """draw the board of a game record as an image"""
    from ..game import Game
    from ..rendering.image import image_format, save_image

    image_format(args.output)  # an unknown suffix is refused before the record is read
    record = read_record(args.record)
    moves = record.get("moves")
    if args.moves is not None and isinstance(moves, list) and args.moves > len(moves):
        raise ValueError(
            f"--moves {args.moves} is past the end of {args.record}: the game "
            f"has {len(moves)} moves"
        )
    with record_errors(args.record, "invalid game record", also=(AttributeError,)):
        if args.moves is not None and isinstance(moves, list) and args.moves < len(moves):
            record = {k: v for k, v in record.items() if k not in ("result", "end_reason")}
            record["moves"] = moves[: args.moves]
            if isinstance(record.get("scores"), list):
                record["scores"] = record["scores"][: args.moves]
        game = Game.from_record(record)
    output_file(args.output, args.overwrite)
    save_image(game, args.output, cell=args.cell)
    print(f"board after {game.turn} moves written to {args.output}")
    return 0


@command("view", view_options)
def cmd_view(args: argparse.Namespace) -> int:
    """a game record as a self-contained HTML replay page

    Write one HTML file (no network needed) that replays a game record: board, timeline,
    scores, deck, score chart and the agents' annotations; see docs/viewer.md."""
    from ..viewer import write_html

    record = read_record(args.record)
    output_file(args.output, args.overwrite)
    with record_errors(args.record, "cannot show this record"):
        path = write_html(record, args.output, title=args.title)
    print(f"replay of {len(record['moves'])} moves written to {path}")
    return 0


@command("gif", gif_options)
def cmd_gif(args: argparse.Namespace) -> int:
    """a game record as an animated GIF (one frame per turn)"""
    from ..viewer.gif import save_gif

    if not args.output.lower().endswith(".gif"):
        raise ValueError(f"-o {args.output}: the animation is a .gif file")
    record = read_record(args.record)
    output_file(args.output, args.overwrite)
    with record_errors(args.record, "cannot draw this record"):
        n = save_gif(
            record, args.output, cell=args.cell, fps=args.fps, hold=args.hold, moves=args.moves
        )
    print(f"{n} frames written to {args.output}")
    return 0
