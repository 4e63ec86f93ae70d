"""Evaluate a trained model with confidence intervals: a 2-player model in a gauntlet
against the arena's bots, a solo model on the solo benchmark's fixed deals.

    carcassonne train evaluate ppo_duel --opponents random,greedy,heuristic
    carcassonne train evaluate ppo_solo --deals 1000

A shipped model goes by its name, any other by its path. The task is read off the
model's spaces. Both delegate to the arena and the solo benchmark (`agents.arena`,
`agents.solo_bench`), so the numbers are comparable with theirs: same decks, same deals,
Wilson / t intervals. Ctrl-C or SIGTERM stops the workers and keeps the games played: their
table is printed and written to --out.
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
    deals. 2-player model: `games` games against each of `opponents` (seats swapped on
    every deck). `out`: folder for the full results (JSON, CSV). A Ctrl-C (or SIGTERM
    under `run_script`) writes the results of the games played to `out` and raises
    `Interrupted` with them as its `partial`."""
    rules = model_rules(load_model(model_path))
    if rules.variant != "solo" and not opponents:
        raise ValueError("name at least one opponent bot")
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
    return _table(result)


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
    or a 2-player model's gauntlet of `games` games against each of `opponents` (arena
    `seed`: the same decks for each, both seatings)."""
    from agents.arena import run_arena
    from agents.solo_bench import run_solo_bench

    rules = model_rules(load_model(model_path))
    spec = f"sb3:model={model_path}"
    how: dict[str, Any] = {"seed": seed, "workers": workers, "rules": rules, "progress": progress}
    if rules.variant == "solo":
        return run_solo_bench(spec, deals=deals, first_deal=first_deal, **how)
    return run_arena([spec, *opponents], games=games, gauntlet=spec, **how)


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
    """A model's strength in a few figures, with the markdown table they come from: a
    2-player model's win rate (draws half) with its Wilson 95% interval and its mean
    margin over `games` games against the heuristic (arena `seed`: games / 2 decks, both
    seatings); a solo model's mean result with its 95% interval over deals first_deal ..
    first_deal + games - 1."""
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
        pair = result.pairwise()[f"sb3:model={model_path}", FINAL_OPPONENT]
        figures = {
            "opponent": FINAL_OPPONENT,
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
        else f"{FINAL_OPPONENT}, arena seed {FINAL_SEED}, both seatings of each deck"
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
    games" or "mean result 19.52 [18.31, 20.73] over 100 deals"."""
    if "deals" in figures:
        low, high = figures["ci95"] or (math.nan, math.nan)
        return (
            f"mean result {figures['mean']:.2f} [{low:.2f}, {high:.2f}] over "
            f"{figures['deals']} deals"
        )
    return (
        f"{figures['win_rate']:.3f} [{figures['win_lo']:.3f}, {figures['win_hi']:.3f}] "
        f"against {figures['opponent']} over {figures['games']} games"
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

    spec = f"sb3:model={path}"
    result = run_arena([spec, *opponents], games=games, seed=seed, gauntlet=spec, progress=False)
    pairs = result.pairwise()
    return {
        o: (pairs[spec, o].win_rate, pairs[spec, o].win_lo, pairs[spec, o].win_hi)
        for o in opponents
    }


def gate(candidate: Path, best: Path, games: int, seed: int) -> tuple[float, float, float]:
    """The candidate's raw policy against the best's over `games` games (both seatings):
    (win rate with draws half, Wilson 95% low, high)."""
    return play_off(candidate, [f"sb3:model={best}"], games, seed)[f"sb3:model={best}"]


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
        help="2-player model: comma-separated bot specs (default random,greedy,heuristic)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="2-player model: games per opponent (even; default 100)",
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
        solo = model_rules(load_model(args.model)).variant == "solo"
        given = [
            f"--{name}"
            for name in (("opponents", "games") if solo else ("deals",))
            if getattr(args, name) is not None
        ]
        if given:  # an option of the other kind of model would be ignored: refuse it
            raise ValueError(
                f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} "
                f"for a {'2-player' if solo else 'solo'} model; "
                f"{args.model} is a {'solo' if solo else '2-player'} model "
                f"(it takes {'--deals' if solo else '--opponents, --games'})"
            )
        opponents = split_specs(args.opponents or "random,greedy,heuristic")
        try:
            table = evaluate(
                args.model,
                opponents,
                args.games or 100,
                args.deals or 1000,
                args.seed,
                args.workers,
                args.out,
                not args.no_progress,
            )
        except Interrupted as err:  # the table of the games played, then run_script's line
            if err.partial is not None:
                print(_table(err.partial).rstrip("\n"))
            raise
        print(table.rstrip("\n"))  # one final newline, solo table or arena's
    except (OSError, ValueError) as err:
        print(f"carcassonne train evaluate: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
