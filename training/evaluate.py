"""Evaluate a trained model with confidence intervals: a multi-player model in a gauntlet
against the arena's bots, seats rotated, a solo model on the solo benchmark's fixed deals.

    carcassonne train evaluate ppo_duel --opponents random,greedy,heuristic
    carcassonne train evaluate runs/3p/model.zip --opponents heuristic --games 300
    carcassonne train evaluate ppo_solo --deals 1000

A shipped model goes by its name, any other by its path. The table (players, rules) is
the one the model was trained at. At N players the other N - 1 seats are filled from
--opponents: one bot fills them all, N - 1 bots make one table (a bot may be named
twice), more make a table of every N - 1 of them; the model plays every seat equally
often, and its win share (a shared top score split between the seats that share it) is
printed with its Wilson interval beside the fair share 1/N. Both delegate to the arena
and the solo benchmark (`agents.arena`, `agents.solo_bench`), so the numbers are
comparable with theirs: same decks, same deals, Wilson / t intervals. Ctrl-C or SIGTERM
stops the workers and keeps the games played: their table is printed and written to
--out.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents import split_specs
from agents.sb3_policy import load_model, shipped_models
from carcassonne_env.atomic import held_signals, write_json, write_text
from carcassonne_env.cli_errors import Interrupted, command_parser, run_script
from carcassonne_env.envs.for_model import model_rules

from .run_folder import EVALUATION_FILES, FINAL_MODEL, saved_timesteps

if TYPE_CHECKING:
    from agents.arena import ArenaResult
    from agents.solo_bench import SoloBenchResult


def evaluate(
    model_path: str | Path,
    opponents: list[str],
    games: int = 100,
    deals: int = 1000,
    seed: int = 1,
    workers: int = 1,
    out: Path | None = None,
    progress: bool = True,
) -> str:
    """Evaluate `model_path`; returns a markdown table. Solo model: `deals` solo-bench
    deals. N-player model: `games` games (a multiple of N) at each table of it against
    `opponents` (`other_seats`), seats rotated on every deck; its win share over all
    of them heads the table (`headline`). `out`: folder for the full results (JSON,
    CSV). A Ctrl-C (or SIGTERM under `run_script`) writes the results of the games played
    to `out` and raises `Interrupted` with them as its `partial`."""
    rules = model_rules(load_model(model_path))
    if rules.variant != "solo":
        other_seats(opponents, rules.players)  # bad opponents: refused before any work
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    try:
        result = _play(
            model_path, opponents, games, deals, seed, workers=workers, progress=progress
        )
    except Interrupted as err:  # the games played so far are kept
        if err.partial is None or out is None:
            raise
        with held_signals():
            _save(err.partial, out)
        raise Interrupted(
            f"{err.kept}; their results are above and in {out}", err.partial
        ) from None
    if out is not None:
        with held_signals():
            _save(result, out)
    return _report(result, model_spec(model_path))


def _report(result: SoloBenchResult | ArenaResult, spec: str) -> str:
    """The markdown table of a result, headed by the model's win share (multi-player)."""
    from agents.arena import ArenaResult

    if not isinstance(result, ArenaResult) or spec not in result.bots:
        return _table(result)
    return f"{spec}: {describe_headline(headline(result, spec))}\n\n{_table(result)}"


def _play(
    model_path: str | Path,
    opponents: list[str],
    games: int,
    deals: int,
    seed: int,
    first_deal: int = 0,
    workers: int = 1,
    progress: bool = True,
) -> SoloBenchResult | ArenaResult:
    """A solo model's solo-bench run over deals first_deal .. + `deals` - 1 (bot `seed`),
    or a multi-player model's gauntlet of `games` games at each table of
    `other_seats(opponents, players)` (arena `seed`: the same decks at each, every
    seat rotation)."""
    from agents.arena import run_arena
    from agents.solo_bench import run_solo_bench

    rules = model_rules(load_model(model_path))
    spec = model_spec(model_path)
    how: dict[str, Any] = {"seed": seed, "workers": workers, "rules": rules, "progress": progress}
    if rules.variant == "solo":
        return run_solo_bench(spec, deals=deals, first_deal=first_deal, **how)
    others = other_seats(opponents, rules.players)
    return run_arena([spec, *others], games=games, gauntlet=spec, **how)


def whole_rotations(games: int, players: int) -> int:
    """`games` rounded up to a multiple of `players`: every deck played once per seat
    rotation."""
    return -(-games // players) * players


def model_spec(model_path: str | Path) -> str:
    """The bot spec of a model: ``sb3:model=PATH`` (one forward pass per move)."""
    return f"sb3:model={model_path}"


def other_seats(opponents: list[str], players: int) -> list[str]:
    """The arena bots that fill the N - 1 other seats of a model's tables (the model
    the gauntlet bot, `agents.arena.run_arena`): one spec fills
    them all (``["heuristic"]`` at 3 players -> heuristic, heuristic#2), N - 1 specs make
    one table, more make a table of every N - 1 of them (repeated specs are copies,
    `agents.arena.copies`). ValueError for 2 to N - 2 specs (which seats would they
    fill?)."""
    from agents.arena import copies

    if not opponents:
        raise ValueError("name at least one opponent bot")
    seats = players - 1
    if len(opponents) == 1:
        return copies(opponents * seats)
    if len(opponents) < seats:
        raise ValueError(
            f"a {players}-player model has {seats} other seats: name one bot (it fills "
            f"them all), {seats} bots (one table; a bot may be named twice) or more (a "
            f"table of every {seats} of them), got {len(opponents)}: {','.join(opponents)}"
        )
    return copies(opponents)


def headline(result: ArenaResult, spec: str) -> dict[str, Any]:
    """The model's win share over all its games of `result` (a top score shared by k
    seats counts 1/k) with its Wilson 95% interval, beside the fair share 1/N, and how
    many games it played in each seat."""
    standing = next(s for s in result.leaderboard if s.bot == spec)
    seats = [0] * result.players
    for row in result.rows:
        seats[row.bots.index(spec)] += 1
    return {
        "players": result.players,
        "opponents": [bot for bot in result.bots if bot != spec],
        "games": standing.games,
        "win_share": standing.win_rate,
        "ci95": [standing.win_lo, standing.win_hi],
        "fair_share": 1 / result.players,
        "games_per_seat": seats,
        "mean_margin": standing.mean_margin,
    }


def describe_headline(figures: dict[str, Any]) -> str:
    """`headline`'s figures in a line."""
    low, high = figures["ci95"]
    seats = figures["games_per_seat"]
    each = f"{seats[0]} in each seat" if len(set(seats)) == 1 else f"seats {seats}"
    return (
        f"win share {figures['win_share']:.3f} [{low:.3f}, {high:.3f}] at "
        f"{figures['players']} players against {', '.join(figures['opponents'])} over "
        f"{figures['games']} games ({each}); fair share {figures['fair_share']:.3f}"
    )


# The end of a --minutes run: model.zip against the heuristic on the arena decks of seed 1
# (those of `train evaluate`: no training or tuning uses them), a solo model on deals 0-N.
FINAL_OPPONENT = "heuristic"
FINAL_SEED = 1
FINAL_GAMES = 100  # games (solo: deals) of that evaluation unless --final-eval says


def strength(
    model_path: str | Path,
    games: int,
    seed: int = FINAL_SEED,
    first_deal: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> tuple[dict[str, Any], str]:
    """A model's strength in a few figures, with the markdown table they come from: an
    N-player model's win share (a shared top score split) with its Wilson 95% interval
    and its mean margin over `games` games (rounded up to a multiple of N) against the
    heuristic in every other seat (arena `seed`: games / N decks, every seat rotation);
    a solo model's mean result with its 95% interval over deals first_deal ..
    first_deal + games - 1."""
    players = model_rules(load_model(model_path)).players
    games = whole_rotations(games, players)
    result = _play(model_path, [FINAL_OPPONENT], games, games, seed, first_deal, workers, progress)
    from agents.solo_bench import SoloBenchResult

    figures: dict[str, Any]
    if isinstance(result, SoloBenchResult):
        summary = result.summary()
        figures = {
            "deals": summary["deals"],
            "first_deal": summary["first_deal"],
            "mean": summary["mean"],
            "ci95": summary["ci95"],
        }
    else:
        pair = next(s for s in result.leaderboard if s.bot == model_spec(model_path))
        figures = {
            "opponent": FINAL_OPPONENT,
            "players": result.players,
            "games": pair.games,
            "seed": seed,
            "wins": pair.wins,
            "draws": pair.draws,
            "losses": pair.losses,
            "win_rate": pair.win_rate,
            "win_lo": pair.win_lo,
            "win_hi": pair.win_hi,
            "mean_margin": pair.mean_margin,
        }
    return figures, _table(result)


def final_seconds(games: int) -> float:
    """What a --minutes run keeps of its budget for its end: saving model.zip, drawing the
    curve and `evaluate_run` over `games` games or deals (a generous estimate, from a
    2-core machine: about 0.07 s a game against the heuristic, 0.03 s a solo deal)."""
    return 5.0 + 0.15 * games


def evaluate_run(run_dir: Path, games: int, progress: bool = False) -> dict[str, Any]:
    """Evaluate the run's model.zip (`strength`: `games` games against the heuristic, or
    solo deals 0 .. games - 1) and write run_dir/evaluation.json (the figures, the
    model's timesteps and how the games were chosen) and evaluation.md (the table);
    returns the JSON's content."""
    figures, table = strength(run_dir / FINAL_MODEL, games, progress=progress)
    what = (
        f"deals {figures['first_deal']}-{figures['first_deal'] + figures['deals'] - 1}"
        if "deals" in figures
        else f"{FINAL_OPPONENT}, arena seed {FINAL_SEED}, every seat rotation of each deck"
    )
    report = {
        "model": FINAL_MODEL,
        "timesteps": saved_timesteps(run_dir / FINAL_MODEL),
        "evaluated_on": what,
        **figures,
    }
    json_file, markdown_file = (run_dir / name for name in EVALUATION_FILES)
    write_json(json_file, report, indent=2)
    write_text(markdown_file, f"# {run_dir.name}: {FINAL_MODEL} ({what})\n\n{table.rstrip()}\n")
    return report


def describe_strength(figures: dict[str, Any]) -> str:
    """`strength`'s figures in a line: "0.610 [0.512, 0.700] against heuristic over 100
    games", "0.420 [0.365, 0.477] against 2 x heuristic over 300 games (fair share
    0.333)" or "mean result 19.52 [18.31, 20.73] over 100 deals"."""
    if "deals" in figures:
        low, high = figures["ci95"] or (math.nan, math.nan)
        return (
            f"mean result {figures['mean']:.2f} [{low:.2f}, {high:.2f}] over "
            f"{figures['deals']} deals"
        )
    others = figures["players"] - 1
    against = figures["opponent"] if others == 1 else f"{others} x {figures['opponent']}"
    fair = "" if others == 1 else f" (fair share {1 / (others + 1):.3f})"
    return (
        f"{figures['win_rate']:.3f} [{figures['win_lo']:.3f}, {figures['win_hi']:.3f}] "
        f"against {against} over {figures['games']} games{fair}"
    )


def _save(result: SoloBenchResult | ArenaResult, out: Path) -> None:
    """Write a solo result as solo_bench.json, an arena result as games.csv and
    summary.json (last: it never counts games that games.csv lacks)."""
    from agents.solo_bench import SoloBenchResult

    if isinstance(result, SoloBenchResult):
        result.to_json(out / "solo_bench.json")
    else:
        result.to_csv(out / "games.csv")
        result.to_json(out / "summary.json")


def _table(result: SoloBenchResult | ArenaResult) -> str:
    """The markdown table of a solo or arena result."""
    from agents.solo_bench import SoloBenchResult, markdown_table

    return markdown_table([result]) if isinstance(result, SoloBenchResult) else result.to_markdown()


def play_off(
    path: Path, opponents: list[str], games: int, seed: int
) -> dict[str, tuple[float, float, float]]:
    """The saved network's raw policy (one forward pass per move, no search) against
    each of `opponents` (arena specs) over `games` games each, seats swapped on every
    deck: opponent -> (win rate with draws half, Wilson 95% low, high)."""
    from agents.arena import run_arena

    spec = model_spec(path)
    result = run_arena([spec, *opponents], games=games, seed=seed, gauntlet=spec, progress=False)
    pairs = result.pairwise()
    return {
        o: (pairs[spec, o].win_rate, pairs[spec, o].win_lo, pairs[spec, o].win_hi)
        for o in opponents
    }


def gate(candidate: Path, best: Path, games: int, seed: int) -> tuple[float, float, float]:
    """The candidate's raw policy against the best's over `games` games (both seatings):
    (win rate with draws half, Wilson 95% low, high)."""
    return play_off(candidate, [model_spec(best)], games, seed)[model_spec(best)]


# `train evaluate`'s defaults: the opponents at 2 players and at 3 or more, the games.
DEFAULT_OPPONENTS = {2: "random,greedy,heuristic", 3: "heuristic"}
DEFAULT_GAMES = 100


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    parser = command_parser("carcassonne train evaluate", __doc__)
    parser.add_argument(
        "model",
        help=f"a saved model (.zip) or a shipped model's name ({', '.join(shipped_models())})",
    )
    parser.add_argument(
        "--opponents",
        default=None,
        help="multi-player model: comma-separated bot specs for the other seats: one bot "
        "fills them all, N - 1 bots make one table, more a table of every N - 1 of them "
        f"(default {DEFAULT_OPPONENTS[2]} at 2 players, {DEFAULT_OPPONENTS[3]} at more)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="multi-player model: games per table, a multiple of the players (default "
        f"{DEFAULT_GAMES} rounded up to one)",
    )
    parser.add_argument(
        "--deals", type=int, default=None, help="solo model: solo-bench deals (default 1000)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="the arena's decks and the bots' seeds (solo: the bots' seeds; "
        "the deals are 0 to --deals - 1) (default: %(default)s)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes (default: %(default)s)")
    parser.add_argument(
        "--out", type=Path, help="folder for the full results (default: none, the table only)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    # Workers infer one position at a time: one torch thread each is fastest.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        rules = model_rules(load_model(args.model))
        solo = rules.variant == "solo"
        given = [
            f"--{name}"
            for name in (("opponents", "games") if solo else ("deals",))
            if getattr(args, name) is not None
        ]
        if given:  # an option of the other kind of model would be ignored: refuse it
            raise ValueError(
                f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} "
                f"for a {'multi-player' if solo else 'solo'} model; "
                f"{args.model} is a {'solo' if solo else f'{rules.players}-player'} model "
                f"(it takes {'--deals' if solo else '--opponents, --games'})"
            )
        default = DEFAULT_OPPONENTS[2 if rules.players <= 2 else 3]
        opponents = split_specs(args.opponents or default)
        games = args.games or whole_rotations(DEFAULT_GAMES, rules.players)
        try:
            table = evaluate(
                args.model,
                opponents,
                games,
                args.deals or 1000,
                args.seed,
                args.workers,
                args.out,
                not args.no_progress,
            )
        except Interrupted as err:  # the table of the games played, then run_script's line
            if err.partial is not None:
                print(_report(err.partial, model_spec(args.model)).rstrip("\n"))
            raise
        print(table.rstrip("\n"))  # one final newline, solo table or arena's
    except (OSError, ValueError) as err:
        print(f"carcassonne train evaluate: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
