"""The `carcassonne` command line: `play` (bots play a seeded game), `bench` (speed),
`render` (a game record as a PNG), `view` (a record as an HTML replay), `gif` (a record
as an animation), `arena` (a tournament between bots), `solo-bench`
(a bot's results on fixed solo deals), `train` (PPO baselines: the `training` scripts),
`warmup` (compile the numba code ahead of time), `clear-cache` (delete it), `solo-solve`
(a clairvoyant line for a solo deal), `solo-analyze` (a solo game judged move by move).

A mistake on the command line (a missing file, a bad bot spec, a bad option value) ends
in one line, `carcassonne: error: ...`, and exit status 2; `--debug` shows the traceback.
Arguments are checked and output folders created before any work starts. Ctrl-C ends in
one line, `carcassonne: interrupted: ...`, exit status 130, and keeps the work done: the
arena and solo-bench report the games played, training saves a checkpoint to --resume
from, solo-solve writes the best line found."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from .checks import install_hint
from .cli_errors import Interrupted, OneLineParser, interrupted
from .layout import check_package
from .rules import EXPANSION_MODES, EXPANSIONS, FARM_SCORING, Rules

# Exceptions that report a user's mistake (bad value, missing file, missing extra): one
# line and exit status 2. Anything else is a bug and keeps its traceback.
USER_ERRORS = (ValueError, OSError, ImportError)
# Commands that use neither `agents` nor `training`; the others check first that another
# package of that name does not shadow ours (carcassonne_env.layout).
STANDALONE_COMMANDS = {"bench", "render", "view", "gif"}


def int_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= `low` (argparse names the option on failure)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    return parse


def non_negative_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be >= 0 seconds, got {text}")
    return value


def _bench_parts(text: str) -> tuple[str, ...]:
    """An argparse type: `bench --only`'s comma-separated benchmark parts."""
    from .bench import check_parts

    try:
        return check_parts([p.strip() for p in text.split(",") if p.strip()])
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("only ")) from None


def output_file(path: str | Path | None) -> None:
    """Make an output file writable before the work starts: create its missing parent
    folders; refuse a path that is a folder."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)


def _add_rule_options(p: argparse.ArgumentParser, solo: bool = True) -> None:
    g = p.add_argument_group("rules")
    g.add_argument("--players", type=int, default=None, help="seats, 1-6 (default 2)")
    g.add_argument("--followers", type=int, default=None, help="followers per seat")
    g.add_argument("--small-city", action="store_true", help="2-tile city scores 2")
    g.add_argument("--farm-scoring", choices=FARM_SCORING, default="field")
    g.add_argument("--farm-city-points", type=int, default=3)
    g.add_argument("--hand-size", type=int, choices=(1, 3), default=1,
                   help="3 = strategic variant")
    if solo:
        g.add_argument("--solo", action="store_true", help="2020 solo variant (3 colours)")
        g.add_argument("--solo-colours", type=int, choices=(3, 4), default=None,
                       help="colours in the solo variant (default 3; needs --solo)")
    _add_expansion_options(g)


def _add_expansion_options(g: argparse._ActionsContainer) -> None:
    g.add_argument("--expansions", default=None, metavar="LIST",
                   help=f"comma-separated expansions: {', '.join(EXPANSIONS)}")
    g.add_argument("--expansion-mode", choices=EXPANSION_MODES, default=None,
                   help="with --expansions: full (default): the expansions' rules and "
                   "figures (Inns & Cathedrals: inns, cathedrals, the large follower; "
                   "Traders & Builders: trade goods, the builder, the pig); tiles_only: "
                   "their tiles as ordinary tiles")


def _expansion_options(args: argparse.Namespace) -> dict:
    """The `Rules` keywords of --expansions and --expansion-mode; an option that would
    change nothing is refused."""
    if args.expansions is None:
        if args.expansion_mode is not None:
            raise ValueError(f"--expansion-mode {args.expansion_mode} needs --expansions")
        return {}
    names = [e.strip() for e in args.expansions.split(",") if e.strip()]
    if not names:
        raise ValueError(f"--expansions {args.expansions!r} names no expansion (known: "
                         f"{', '.join(EXPANSIONS)})")
    return {"expansions": tuple(names), "expansion_mode": args.expansion_mode or "full"}


def _rules(args: argparse.Namespace) -> Rules:
    """The rules the options name; contradictory options are refused."""
    solo = getattr(args, "solo", False)
    if solo and args.players not in (None, 1):
        raise ValueError(f"--players {args.players} contradicts --solo (the solo variant "
                         "has one player; --solo-colours sets its colours)")
    if not solo and getattr(args, "solo_colours", None) is not None:
        raise ValueError("--solo-colours needs --solo")
    return Rules(
        players=1 if solo else args.players,
        followers=args.followers,
        small_city=args.small_city,
        farm_scoring=args.farm_scoring,
        farm_city_points=args.farm_city_points,
        hand_size=args.hand_size,
        variant="solo" if solo else "standard",
        solo_colours=(args.solo_colours or 3) if solo else 3,
        **_expansion_options(args),
    )


def cmd_play_human(args: argparse.Namespace) -> int:
    """`play --human`: a person against bots, in the browser or the terminal (issue 16)."""
    from agents import make_agent, split_specs

    from .viewer.play import BOT_DELAY, HumanSession, check_port, play_tui, serve

    rules = _rules(args)
    if args.scoring_order:  # Rules refuses "player" outside the solo variant
        rules = dataclasses.replace(rules, scoring_order=args.scoring_order)
    if args.bots:
        raise ValueError("--human takes its opponents from --against, not --bots")
    if args.annotate or args.coach:
        raise ValueError("--annotate and --coach annotate bots' games, not --human")
    solo = rules.variant == "solo"
    names = [] if solo else split_specs(args.against or "heuristic")
    if not solo and len(names) == 1:
        names = names * (rules.players - 1)
    if not solo and len(names) != rules.players - 1:
        raise ValueError(f"--against needs {rules.players - 1} bot specs (one per other "
                         f"seat; or one for all), got {len(names)}: {','.join(names)}")
    if solo and args.against:
        raise ValueError("--against: the solo variant has no opponents")
    seat = args.seat or 0
    if not 0 <= seat < rules.players:
        raise ValueError(f"--seat must be in [0, {rules.players - 1}], got {seat}")
    if args.bot_delay is not None and not args.tui:
        raise ValueError("--bot-delay needs --tui (the page has its own speed menu)")
    record = args.record or "human_game.json"
    output_file(record)
    if not args.tui:
        check_port(args.port)  # before the bots play their first moves
    bots = [make_agent(n, seed=args.seed + k) for k, n in enumerate(names)]
    session = HumanSession(rules, bots, human_seat=seat, seed=args.seed, record=record,
                           names=names)
    if args.tui:
        play_tui(session, delay=BOT_DELAY if args.bot_delay is None else args.bot_delay)
    else:
        serve(session, port=args.port, open_browser=not args.no_browser)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from agents import make_agent, split_specs

    from .game import Game

    if args.human:
        return cmd_play_human(args)
    for flag in ("against", "tui", "no_browser", "seat", "bot_delay"):
        if getattr(args, flag) not in (None, False):
            raise ValueError(f"--{flag.replace('_', '-')} needs --human")
    rules = _rules(args)
    solo = rules.variant == "solo"
    # default: random, greedy, random... one per seat (solo: one random bot)
    names = split_specs(args.bots) if args.bots else (
        ["random"] if solo else (["random", "greedy"] * rules.players)[: rules.players])
    if solo and len(names) != 1:
        raise ValueError(f"--solo is played by one bot (all colours), got {len(names)} "
                         f"specs: {','.join(names)}")
    if args.scoring_order:
        raise ValueError("--scoring-order needs --human --solo (bots score in the "
                         "engine's order)")
    if not solo and len(names) == 1:
        names = names * rules.players
    if not solo and len(names) != rules.players:
        raise ValueError(f"--bots needs {rules.players} specs (one per seat; or one for "
                         f"every seat), got {len(names)}: {','.join(names)}")
    annotate = args.annotate or args.coach is not None
    if annotate and not args.record:
        raise ValueError("--annotate and --coach write into the record: give --record FILE")
    output_file(args.record)
    bots = [make_agent(n, seed=args.seed + k) for k, n in enumerate(names)]
    coach = notes = None
    if annotate:  # issue 16: per-move agent insight in the record
        from agents.insight import Coach
        from agents.insight import annotate as note_for

        coach = Coach(args.coach, seed=args.seed) if args.coach else None
        notes = []
    game = Game(rules, seed=args.seed)
    while not game.done:
        seat = game.current_player
        bot = bots[0] if solo else bots[seat]
        move = bot.act(game)
        if notes is not None:
            notes.append(note_for(bot, game, move, args.top_k, coach))
        if args.verbose:
            print(f"turn {game.turn:2d} seat {seat} {game.hand} -> {tuple(move)}")
        game.play(move)
    print(game)
    print()
    if solo:
        print(f"solo result (lowest colour): {game.result}; end {game.end_reason}; "
              f"colour scores {game.scores}")
    else:
        for seat, (name, score) in enumerate(zip(names, game.scores, strict=True)):
            print(f"seat {seat} ({name}): {score}")
    if args.record:
        record = game.to_record()
        if notes is not None:
            from .annotations import annotations_block

            record["annotations"] = annotations_block(notes)
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump(record, f)
        print(f"record written to {args.record}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_benchmarks

    run_benchmarks(games=args.games, api_games=args.api_games, repeats=args.repeats,
                   cold=not args.no_cold, markdown=args.markdown, only=args.only)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from .game import Game
    from .render import image_format, save_image

    image_format(args.output)  # an unknown suffix is refused before the record is read
    record = _read_record(args.record)
    moves = record.get("moves")
    if args.moves is not None and isinstance(moves, list) and args.moves > len(moves):
        raise ValueError(f"--moves {args.moves} is past the end of {args.record}: the game "
                         f"has {len(moves)} moves")
    try:
        if args.moves is not None and isinstance(moves, list) and args.moves < len(moves):
            record = {k: v for k, v in record.items() if k not in ("result", "end_reason")}
            record["moves"] = moves[: args.moves]
            if isinstance(record.get("scores"), list):
                record["scores"] = record["scores"][: args.moves]
        game = Game.from_record(record)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        what = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise ValueError(f"{args.record}: invalid game record: {what}") from None
    output_file(args.output)
    save_image(game, args.output, cell=args.cell)
    print(f"board after {game.turn} moves written to {args.output}")
    return 0


def _read_record(path: str) -> dict:
    """A game record from a JSON file; ValueError naming the file if it is not one."""
    with open(path, encoding="utf-8") as f:
        try:
            record = json.load(f)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not JSON: {err}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not JSON: not a UTF-8 text file") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a game record (expected a JSON object)")
    return record


def cmd_view(args: argparse.Namespace) -> int:
    from .viewer import write_html

    record = _read_record(args.record)
    output_file(args.output)
    try:
        path = write_html(record, args.output, title=args.title)
    except (ValueError, KeyError, TypeError) as err:
        what = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise ValueError(f"{args.record}: cannot show this record: {what}") from None
    print(f"replay of {len(record['moves'])} moves written to {path}")
    return 0


def cmd_gif(args: argparse.Namespace) -> int:
    from .viewer.gif import save_gif

    if not args.output.lower().endswith(".gif"):
        raise ValueError(f"-o {args.output}: the animation is a .gif file")
    record = _read_record(args.record)
    output_file(args.output)
    try:
        n = save_gif(record, args.output, cell=args.cell, fps=args.fps, hold=args.hold,
                     moves=args.moves)
    except (ValueError, KeyError, TypeError) as err:
        what = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise ValueError(f"{args.record}: cannot draw this record: {what}") from None
    print(f"{n} frames written to {args.output}")
    return 0


def cmd_solo_bench(args: argparse.Namespace) -> int:
    from agents.base import split_specs, warm_up
    from agents.solo_bench import file_for_bot, histogram_format, markdown_table, run_solo_bench

    rules = Rules(variant="solo", solo_colours=args.solo_colours, followers=args.followers,
                  **_expansion_options(args))
    bots = split_specs(args.bot)
    if not bots:
        raise ValueError("--bot needs at least one bot spec")
    if args.hist:
        histogram_format(args.hist)
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError(
                f"--hist needs matplotlib: {install_hint('plot')}") from None
    for path in (args.hist, args.json, args.csv):
        output_file(path)
    for bot in bots:  # a bad spec (or a model of other rules) fails before the progress bar
        warm_up(bot, rules)
    results, stop = [], None
    try:
        for bot in bots:
            results.append(run_solo_bench(bot, deals=args.deals, first_deal=args.first_deal,
                                          seed=args.seed, workers=args.workers, rules=rules,
                                          progress=not args.no_progress))
    except Interrupted as err:  # Ctrl-C: the deals played so far are reported
        results += [err.partial] if err.partial is not None else []
        if not results:
            raise
        stop = err
    print(markdown_table(results))
    for res in results:
        for path, write in ((args.hist, res.histogram_png), (args.json, res.to_json),
                            (args.csv, res.to_csv)):
            if path:
                path = path if len(bots) == 1 else file_for_bot(path, res.bot)
                write(path)
                print(f"{res.bot}: wrote {path}", file=sys.stderr)
    if stop is not None:
        return interrupted(f"{stop.kept}; the results of the deals played are above"
                           + (" and in the files written" if args.hist or args.json
                              or args.csv else ""))
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from agents import split_specs
    from agents.arena import run_arena

    bots = split_specs(args.bots)
    if args.annotate and not args.records:
        raise ValueError("--annotate writes into the game records: give --records DIR")
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    stop = None
    try:
        result = run_arena(bots, games=args.games, seed=args.seed, workers=args.workers,
                           gauntlet=args.gauntlet, rules=_rules(args),
                           records_dir=args.records, progress=not args.no_progress,
                           backend=args.backend, ray_address=args.ray_address,
                           annotate=args.annotate)
    except Interrupted as err:  # Ctrl-C: the games played so far are reported
        if err.partial is None:
            raise
        result, stop = err.partial, err
    markdown = result.to_markdown()
    print(markdown, end="")
    if out is not None:
        result.to_json(out / "summary.json")
        result.to_csv(out / "games.csv")
        result.leaderboard_csv(out / "leaderboard.csv")
        (out / "leaderboard.md").write_text(markdown, encoding="utf-8")
        print(f"wrote summary.json, games.csv, leaderboard.csv, leaderboard.md to {out}",
              file=sys.stderr)
    if stop is not None:
        return interrupted(f"{stop.kept}; their results are above"
                           + (f" and in {out}" if out is not None else ""))
    return 0


# --- solo strategy lab (issue 15): solo-solve, solo-analyze -------------------------------
def cmd_solo_solve(args: argparse.Namespace) -> int:
    from agents.solo_solve import solve_deal

    out = Path(args.output or f"solo_solve_{args.deal}.json")
    output_file(out)
    output_file(args.json)
    rules = Rules(variant="solo", solo_colours=args.solo_colours, followers=args.followers)
    stop = None
    try:
        sol = solve_deal(args.deal, seconds=args.seconds, rules=rules)
    except Interrupted as err:  # Ctrl-C after the first pass: its best line is kept
        sol, stop = err.partial, err
    out.write_text(json.dumps(sol.record, indent=1), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(sol.to_dict(), indent=1), encoding="utf-8")
    passes = ", ".join(f"top_k={p['top_k'] or 'all'}: {p['result']}" for p in sol.passes)
    print(f"deal {sol.deal}: best line found {sol.result} (heuristic rollout "
          f"{sol.baseline}; passes {passes}; {sol.seconds:.1f} s). Not a proof of "
          f"optimality: a lower bound on what the deal allowed.")
    print(f"wrote {out} (replays with Game.from_record)", file=sys.stderr)
    if stop is not None:
        return interrupted(f"{stop.kept}; the best line found so far is in {out}")
    return 0


def cmd_solo_analyze(args: argparse.Namespace) -> int:
    from agents.solo_analyze import analyze_record

    record = _read_record(args.record)
    output_file(args.json)
    analysis = analyze_record(record, bot=args.bot, seed=args.seed)
    print(analysis.to_markdown())
    if args.json:
        Path(args.json).write_text(json.dumps(analysis.to_dict(), indent=1),
                                   encoding="utf-8")
    return 0
# --- end of the solo strategy lab block ----------------------------------------------------


def cmd_warmup(args: argparse.Namespace) -> int:
    from agents.compilation import warmup

    jobs = args.jobs or os.cpu_count() or 1
    report = (lambda _: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    bar = not args.quiet and sys.stderr.isatty()  # a progress bar on a terminal, else lines
    seconds = warmup(report, jobs=jobs, progress=bar)
    print(f"compiled code ready ({seconds:.1f} s)")
    return 0


def cmd_clear_cache(args: argparse.Namespace) -> int:
    from agents.compilation import cache_files, clear_cache

    files = cache_files() if args.dry_run else clear_cache()
    for path in files if args.verbose or args.dry_run else ():
        print(path)
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {len(files)} numba cache files; the next run compiles afresh",
          file=sys.stderr)
    return 0


TRAIN_COMMANDS = {
    "solo": "training.train_solo",
    "multi": "training.train_multi",
    "bc": "training.imitation",
    "evaluate": "training.evaluate",
    "plot": "training.plots",
    "rllib": "training.rllib_example",
    "export": "training.export",
    "search": "training.search",
    "value": "training.value_fit",
}


def cmd_train(args: argparse.Namespace) -> int:
    import importlib

    if "--debug" in args.rest:  # options after the name go to the script, but not this one
        args.rest.remove("--debug")
        args.debug = True
    try:
        module = importlib.import_module(TRAIN_COMMANDS[args.what])
    except ImportError as err:
        if "pip install" in str(err):  # the module said what to install
            raise
        extra = "rllib" if args.what == "rllib" else "train"
        raise ImportError(f"{err}; install it with: {install_hint(extra)}") from err
    result = module.main(args.rest)
    return result if isinstance(result, int) else 0


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; a new command is one more `add_parser(...,
    parents=[common])` with `set_defaults(func=...)`."""
    parser = OneLineParser(prog="carcassonne", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error")
    # The same option after the command name; SUPPRESS keeps the top-level value.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("play", parents=[common],
                       help="built-in bots play one seeded game; prints the board")
    _add_rule_options(p)
    p.add_argument("--bots", default=None,
                   help="comma-separated bot spec per seat, or one for every seat (random, "
                   "greedy, heuristic, mcts, sb3:model=ppo_duel or sb3:model=FILE.zip; "
                   "options as in mcts:iterations=400); default random,greedy; with --solo "
                   "one bot, default random")
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--verbose", "-v", action="store_true", help="print every move")
    p.add_argument("--record", metavar="FILE", help="write the game record (JSON) here")
    # issue 16: annotated records
    p.add_argument("--annotate", action="store_true",
                   help="store what each bot thought about its moves in the record (PPO: "
                   "top actions and value; MCTS: visits; heuristic: its estimates)")
    p.add_argument("--coach", metavar="BOT", default=None,
                   help="also store the points each move lost versus BOT's move (implies "
                   "--annotate)")
    p.add_argument("--top-k", type=int_at_least(1), default=5,
                   help="moves per annotation (default 5)")
    # issue 16: a person plays
    g = p.add_argument_group("human play")
    g.add_argument("--human", action="store_true",
                   help="you play against bots in the browser (a local server on "
                   "127.0.0.1); with --solo you play the solo variant")
    g.add_argument("--against", metavar="BOTS", default=None,
                   help="with --human: bot spec for every other seat, or one per seat "
                   "(default heuristic; sb3:model=ppo_duel works too)")
    g.add_argument("--seat", type=int_at_least(0), default=None,
                   help="with --human: your seat (default 0)")
    g.add_argument("--port", type=int_at_least(0), default=0,
                   help="with --human: the server's port (default: a free one)")
    g.add_argument("--no-browser", action="store_true",
                   help="with --human: print the address, open no browser")
    g.add_argument("--tui", action="store_true",
                   help="with --human: play in the terminal instead of the browser")
    g.add_argument("--bot-delay", type=non_negative_seconds, metavar="SECONDS", default=None,
                   help="with --tui: the pause after each bot reply, shown one by one "
                   "(default 0.8, as the page; 0: all at once)")
    g.add_argument("--scoring-order", choices=("auto", "player"), default=None,
                   help="with --human --solo: 'player' lets you choose the order in which "
                   "features completed together and the end bonus score (default auto)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("bench", parents=[common],
                       help="speed of the rules core, the Python API and the envs")
    p.add_argument("--games", type=int_at_least(1), default=20000,
                   help="jitted random playouts")
    p.add_argument("--api-games", type=int_at_least(1), default=30,
                   help="games through the Python API")
    p.add_argument("--repeats", type=int_at_least(1), default=5,
                   help="repeats (medians reported)")
    p.add_argument("--no-cold", action="store_true", help="skip the cold-start measurement")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument("--only", type=_bench_parts, metavar="PARTS",
                   help="run only these parts, comma-separated: start-up, playouts, api, "
                        "clone, envs, vector, vs-bots, expansions (default: all; README "
                        "gives the time each takes)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("render", parents=[common],
                       help="draw the board of a game record as an image")
    p.add_argument("record", help="game record (JSON) from `play --record` or Game.to_record()")
    p.add_argument("-o", "--output", default="board.png",
                   help="image to write, format from the suffix: .png, .jpg/.jpeg, .webp, "
                   ".bmp (default board.png)")
    p.add_argument("--cell", type=int_at_least(8), default=48,
                   help="pixels per tile, >= 8 (default 48)")
    p.add_argument("--moves", type=int_at_least(0), metavar="K", default=None,
                   help="draw the board after the first K moves only")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("view", parents=[common],
                       help="a game record as a self-contained HTML replay page",
                       description="Write one HTML file (no network needed) that replays a "
                       "game record: board, timeline, scores, deck, score chart and the "
                       "agents' annotations; see docs/viewer.md.")
    p.add_argument("record", help="game record (JSON) from `play --record` or the arena")
    p.add_argument("-o", "--output", default="game.html", help="HTML file (default game.html)")
    p.add_argument("--title", default=None, help="page title")
    p.set_defaults(func=cmd_view)

    p = sub.add_parser("gif", parents=[common],
                       help="a game record as an animated GIF (one frame per turn)")
    p.add_argument("record", help="game record (JSON)")
    p.add_argument("-o", "--output", default="game.gif", help="GIF file (default game.gif)")
    p.add_argument("--cell", type=int_at_least(8), default=32,
                   help="pixels per tile, >= 8 (default 32)")
    p.add_argument("--fps", type=float, default=4.0, help="turns per second (default 4)")
    p.add_argument("--hold", type=float, default=3.0,
                   help="seconds the last frame stays (default 3)")
    p.add_argument("--moves", type=int_at_least(0), metavar="K", default=None,
                   help="animate the first K moves only")
    p.set_defaults(func=cmd_gif)

    p = sub.add_parser("solo-bench", parents=[common],
                       help="a bot plays fixed solo deals; prints the statistics",
                       description="A bot plays the solo variant on deal seeds FIRST .. "
                       "FIRST+DEALS-1 and prints a markdown table of the result (lowest "
                       "colour's score); see docs/solo_bench.md.")
    p.add_argument("--bot", default="random",
                   help="bot spec, or several comma-separated for one stacked table "
                   "(random, greedy, heuristic, mcts, solo-search, sb3:model=ppo_solo or "
                   "sb3:model=FILE.zip, with options as in mcts:iterations=500); default "
                   "random")
    p.add_argument("--deals", type=int_at_least(1), default=1000,
                   help="deals to play (default 1000)")
    p.add_argument("--first-deal", type=int_at_least(0), default=0, metavar="FIRST",
                   help="seed of the first deal (default 0: deal seeds 0..DEALS-1)")
    p.add_argument("--seed", type=int_at_least(0), default=0,
                   help="bot seed, hashed with each deal seed")
    p.add_argument("--workers", type=int_at_least(1), default=1,
                   help="processes (same results for any count; time per move is only "
                   "comparable at the same count)")
    p.add_argument("--solo-colours", type=int, choices=(3, 4), default=3)
    p.add_argument("--followers", type=int_at_least(1), default=None,
                   help="followers per colour (default 4; the seed's options: 3 harder, "
                   "5 easier)")
    _add_expansion_options(p)
    p.add_argument("--hist", metavar="FILE.png", help="write a histogram of the result")
    p.add_argument("--json", metavar="FILE", help="write the summary and per-deal rows")
    p.add_argument("--csv", metavar="FILE", help="write the per-deal rows")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_solo_bench)

    p = sub.add_parser("arena", parents=[common],
                       help="a tournament between bots; prints the leaderboard",
                       description="Round-robin (or gauntlet) tournament with paired decks "
                       "and rotated seats; prints markdown tables (win rates with Wilson "
                       "intervals, score margins, OpenSkill ratings, time per move). Same "
                       "seed, same results for any --workers; see docs/arena.md.")
    _add_rule_options(p, solo=False)  # the solo variant is not a tournament
    p.add_argument("--bots", default="random,greedy",
                   help="comma-separated bot specs (random, greedy, heuristic, mcts, with "
                   "options as in mcts:iterations=500); default random,greedy")
    p.add_argument("--games", type=int_at_least(1), default=100,
                   help="games per table, a multiple of --players (default 100)")
    p.add_argument("--seed", type=int_at_least(0), default=0,
                   help="decks and bot seeds derive from it")
    p.add_argument("--gauntlet", metavar="BOT",
                   help="only tables of BOT against the others (default: round-robin)")
    p.add_argument("--workers", type=int_at_least(1), default=1,
                   help="parallel jobs: processes, or Ray tasks in flight (same results for "
                   "any count; time per move is only comparable at the same count)")
    p.add_argument("--out", metavar="DIR",
                   help="write summary.json, games.csv, leaderboard.csv and leaderboard.md")
    p.add_argument("--records", metavar="DIR", help="write every game record (JSON) here")
    p.add_argument("--annotate", action="store_true",
                   help="with --records: keep what each bot thought about its moves")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="run the game batches in local processes or on Ray "
                   "(pip install 'carcassonne-env[ray]')")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="Ray cluster to join (e.g. auto); default: start a local one")
    p.set_defaults(func=cmd_arena)

    # --- solo strategy lab (issue 15) ---
    p = sub.add_parser("solo-solve", parents=[common],
                       help="the best line found for a solo deal with every stack known",
                       description="Search solo deal N with perfect information (the true "
                       "order of every stack) for about S seconds and write the best line "
                       "as a game record that replays to its score. A heuristic search: "
                       "the score is a lower bound, not a proof of optimality. See "
                       "docs/solo_lab.md.")
    p.add_argument("--deal", type=int_at_least(0), required=True, help="deal seed")
    p.add_argument("--seconds", type=float, default=60.0,
                   help="time budget (default 60; the first pass always completes)")
    p.add_argument("--solo-colours", type=int, choices=(3, 4), default=3)
    p.add_argument("--followers", type=int_at_least(1), default=None,
                   help="followers per colour (default 4)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="game record to write (default solo_solve_N.json)")
    p.add_argument("--json", metavar="FILE", help="also write the search summary")
    p.set_defaults(func=cmd_solo_solve)

    p = sub.add_parser("solo-analyze", parents=[common],
                       help="per-move analysis of a solo game record by the search bot",
                       description="For every move of a solo game record: the search bot's "
                       "value of the move played and of its best move, and the points "
                       "given away; a table and a summary line. See docs/solo_lab.md.")
    p.add_argument("record", help="solo game record (JSON)")
    p.add_argument("--bot", default="solo-search",
                   help="the judging bot's spec (default solo-search)")
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--json", metavar="FILE", help="write the analysis as JSON")
    p.set_defaults(func=cmd_solo_analyze)
    # --- end of the solo strategy lab block ---

    p = sub.add_parser("warmup", parents=[common],
                       help="compile the numba code now (first use otherwise waits 30-60 s)",
                       description="Compile every jitted function (rules "
                       "core, encoder, vector env, heuristic and MCTS bots) into numba's "
                       "on-disk cache, e.g. right after installing or in a Docker build.")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the total time")
    p.add_argument("--jobs", "-j", type=int_at_least(1), default=None,
                   help="compile in this many processes at once (default: every core)")
    p.set_defaults(func=cmd_warmup)

    p = sub.add_parser("clear-cache", parents=[common],
                       help="delete numba's compiled code of this package",
                       description="Delete the numba cache files of every module with "
                       "jitted code. numba recompiles a function when its own file "
                       "changes, but not when a function it calls in another file does: "
                       "after editing the core, clear the cache (see CONTRIBUTING.md).")
    p.add_argument("--dry-run", action="store_true", help="list the files, delete nothing")
    p.add_argument("--verbose", "-v", action="store_true", help="list the deleted files")
    p.set_defaults(func=cmd_clear_cache)

    p = sub.add_parser("train", parents=[common],
                       help="PPO baselines: train, resume, evaluate (train extra)",
                       description="solo: MaskablePPO on the solo variant; multi: 2-player "
                       "self-play; evaluate: a saved model against bots or on the solo "
                       "benchmark; plot: learning curves of runs as a PNG; export: a slim "
                       "copy of a model (weights and spaces); search: search-guided "
                       "self-play (expert iteration with the puct bot); value: a candidate "
                       "model's value head refitted on its own self-play outcomes (for "
                       "puct); rllib: the RLlib example (rllib extra). Options after the "
                       "name go to that script: "
                       "carcassonne train solo --help.")
    p.add_argument("what", choices=sorted(TRAIN_COMMANDS))
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the script's own options")
    p.set_defaults(func=cmd_train)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2: a user mistake, reported in one
    line unless --debug)."""
    args = build_parser().parse_args(argv)
    try:
        if args.command not in STANDALONE_COMMANDS:  # first: a clear error if shadowed
            check_package("agents")
            if args.command == "train":
                check_package("training")
        return args.func(args)
    except KeyboardInterrupt as err:  # Ctrl-C: one line; the commands keep their work
        if args.debug:
            raise
        return interrupted(getattr(err, "kept", "") or "stopped by Ctrl-C")
    except USER_ERRORS as err:
        if args.debug:
            raise
        message = " ".join(str(err).split()) or type(err).__name__
        print(f"carcassonne: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
