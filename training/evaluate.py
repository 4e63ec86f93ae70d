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

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from agents import split_specs
from agents.sb3_policy import load_model, shipped_models
from carcassonne_env.atomic import held_signals
from carcassonne_env.cli_errors import Interrupted, OneLineParser, run_script
from carcassonne_env.envs.for_model import model_rules


def evaluate(model_path: str | Path, opponents: list[str], games: int = 100,
             deals: int = 1000, seed: int = 1, workers: int = 1,
             out: Path | None = None, progress: bool = True) -> str:
    """Evaluate `model_path`; returns a markdown table. Solo model: `deals` solo-bench
    deals. 2-player model: `games` games against each of `opponents` (seats swapped on
    every deck). `out`: folder for the full results (JSON, CSV). A Ctrl-C (or SIGTERM
    under `run_script`) writes the results of the games played to `out` and raises
    `Interrupted` with them as its `partial`."""
    from agents.arena import run_arena
    from agents.solo_bench import run_solo_bench

    rules = model_rules(load_model(model_path))
    spec = f"sb3:model={model_path}"
    if rules.variant != "solo" and not opponents:
        raise ValueError("name at least one opponent bot")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    try:
        if rules.variant == "solo":
            result = run_solo_bench(spec, deals=deals, seed=seed, workers=workers,
                                    rules=rules, progress=progress)
        else:
            result = run_arena([spec, *opponents], games=games, seed=seed, workers=workers,
                               gauntlet=spec, rules=rules, progress=progress)
    except Interrupted as err:  # the games played so far are kept
        if err.partial is None or out is None:
            raise
        with held_signals():
            _save(err.partial, out)
        raise Interrupted(f"{err.kept}; their results are above and in {out}",
                          err.partial) from None
    if out is not None:
        with held_signals():
            _save(result, out)
    return _table(result)


def _save(result: Any, out: Path) -> None:
    """Write a solo result as solo_bench.json, an arena result as games.csv and
    summary.json (last: it never counts games that games.csv lacks)."""
    from agents.solo_bench import SoloBenchResult

    if isinstance(result, SoloBenchResult):
        result.to_json(out / "solo_bench.json")
    else:
        result.to_csv(out / "games.csv")
        result.to_json(out / "summary.json")


def _table(result: Any) -> str:
    """The markdown table of a solo or arena result."""
    from agents.solo_bench import SoloBenchResult, markdown_table

    return markdown_table([result]) if isinstance(result, SoloBenchResult) \
        else result.to_markdown()


def play_off(path: Path, opponents: list[str], games: int, seed: int
             ) -> dict[str, tuple[float, float, float]]:
    """The saved network's raw policy (one forward pass per move, no search) against
    each of `opponents` (arena specs) over `games` games each, seats swapped on every
    deck: opponent -> (win rate with draws half, Wilson 95% low, high)."""
    from agents.arena import run_arena

    spec = f"sb3:model={path}"
    result = run_arena([spec, *opponents], games=games, seed=seed, gauntlet=spec,
                       progress=False)
    pairs = result.pairwise()
    return {o: (pairs[spec, o].win_rate, pairs[spec, o].win_lo, pairs[spec, o].win_hi)
            for o in opponents}


def gate(candidate: Path, best: Path, games: int, seed: int) -> tuple[float, float, float]:
    """The candidate's raw policy against the best's over `games` games (both seatings):
    (win rate with draws half, Wilson 95% low, high)."""
    return play_off(candidate, [f"sb3:model={best}"], games, seed)[f"sb3:model={best}"]


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    parser = OneLineParser(prog="carcassonne train evaluate", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a saved model (.zip) or a shipped model's name "
                        f"({', '.join(shipped_models())})")
    parser.add_argument("--opponents", default=None,
                        help="2-player model: comma-separated bot specs (default "
                        "random,greedy,heuristic)")
    parser.add_argument("--games", type=int, default=None,
                        help="2-player model: games per opponent (even; default 100)")
    parser.add_argument("--deals", type=int, default=None,
                        help="solo model: solo-bench deals (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--out", type=Path, help="folder for the full results")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    # Workers infer one position at a time: one torch thread each is fastest.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        solo = model_rules(load_model(args.model)).variant == "solo"
        given = [f"--{name}" for name in (("opponents", "games") if solo else ("deals",))
                 if getattr(args, name) is not None]
        if given:  # an option of the other kind of model would be ignored: refuse it
            raise ValueError(f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} "
                             f"for a {'2-player' if solo else 'solo'} model; "
                             f"{args.model} is a {'solo' if solo else '2-player'} model "
                             f"(it takes {'--deals' if solo else '--opponents, --games'})")
        opponents = split_specs(args.opponents or "random,greedy,heuristic")
        try:
            table = evaluate(args.model, opponents, args.games or 100, args.deals or 1000,
                             args.seed, args.workers, args.out, not args.no_progress)
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
