"""The command line every trainer shares (`run_cli`): --out, --preset, --resume,
--overwrite, --minutes, --final-eval, --no-progress and one option per setting, all
checked with the run folder before any work (`training.run_folder`), each mistake in one
line."""

from __future__ import annotations

import dataclasses
import math
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carcassonne_env.cli_errors import OneLineParser, command_parser

from .callbacks import TimeBudget
from .evaluate import FINAL_GAMES, FINAL_OPPONENT, FINAL_SEED, describe_strength, final_seconds
from .run_folder import CURVE_PLOT, EVALUATION_FILES, FINAL_MODEL, Session, plan_run
from .settings import (
    add_settings_arguments,
    check_policy_options,
    option,
    preset_changes,
    settings_from,
)

PPO_RESUME = (
    "continue the run in --out from its furthest saved model with its stored "
    "settings (only --total-timesteps, --torch-threads and --checkpoint-every may "
    "change; only the first is stored)"
)


def run_cli(
    prog: str,
    doc: str,
    settings_cls: type,
    presets: dict[str, dict[str, Any]],
    train: Callable[..., Any],
    argv: list[str] | None,
    *,
    plan: Callable[[Path, Any, Session], Any] = plan_run,
    resume: str | None = PPO_RESUME,
    target: str | None = None,
    plot: bool = True,
) -> int:
    """A trainer's command line `prog` (help: `doc`): parses `argv`, builds its settings
    (`settings_cls` from the preset --preset names, the first of `presets` by default,
    and the options given) and its `Session`, checks them and the folder --out with
    `plan(out, settings, session)` (ValueError, OSError: one line), then calls
    ``train(settings, out, **session.options())`` and reports the model.zip it saved.
    `resume`: the help of the trainer's --resume (None: it does not resume; the
    options given are the session's changes).

    `target`: the setting a wall-clock budget pairs with (total_timesteps, iterations),
    for a trainer that takes --minutes: the session's budget (a `TimeBudget` from the
    command's start); a --minutes run without the target option sets it to 0 (none).
    After `train`, a --minutes run draws curve.png (`plot`; False: the trainer draws its
    own) and, as --final-eval asks, evaluates model.zip
    (`training.evaluate.evaluate_run`)."""
    start = time.monotonic()  # --minutes counts from here: compiling and loading included
    parser = _parser(prog, doc, settings_cls, presets, resume, target)
    args = parser.parse_args(argv)
    resuming = getattr(args, "resume", False)
    minutes, final = getattr(args, "minutes", None), getattr(args, "final_eval", None)
    given = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(settings_cls)
        if getattr(args, f.name) is not None
    }
    if minutes is not None and target not in given:
        given[str(target)] = 0  # no step target: the budget ends the run
    games = final if final is not None else FINAL_GAMES if minutes is not None else 0
    try:
        _check_session(resuming, getattr(args, "preset", None), minutes, final)
        preset = presets[getattr(args, "preset", None) or next(iter(presets))]
        settings = settings_from(settings_cls, preset, given)
        check_policy_options(settings, given)
        session = Session(
            resume=resuming,
            progress=not args.no_progress,
            changes=given if resuming else None,
            overwrite=args.overwrite,
            budget=None if minutes is None else TimeBudget(minutes, final_seconds(games), start),
        )
        plan(args.out, settings, session)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    train(settings, args.out, **session.options())
    print(f"saved {args.out / FINAL_MODEL}")
    _finish_run(args.out, plot and minutes is not None, games, not args.no_progress)
    if minutes is not None:
        print(f"ended after {(time.monotonic() - start) / 60:.2f} of {minutes:g} minutes")
    return 0


def _parser(
    prog: str,
    doc: str,
    settings_cls: type,
    presets: dict[str, dict[str, Any]],
    resume: str | None,
    target: str | None,
) -> OneLineParser:
    """The trainer's parser (see `run_cli`); its epilog lists what each preset sets."""
    default = next(iter(presets))
    parser = command_parser(prog, doc, epilog=_presets_epilog(settings_cls, presets))
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the run folder (required)"
    )
    if len(presets) > 1:
        parser.add_argument(
            "--preset",
            choices=list(presets),
            default=None,
            help="the recipe the settings start from (default: "
            f"{default}; what the others change: the list at the end); "
            "new runs only",
        )
    if resume is not None:
        parser.add_argument("--resume", action="store_true", help=resume)
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run in --out (without it, a folder holding a run is refused)",
    )
    if target is not None:
        flag = option(target)
        parser.add_argument(
            "--minutes",
            type=float,
            metavar="M",
            help="train until M minutes of wall-clock time since the command started "
            "(compiling included) have passed, keeping the time the end needs, then save "
            f"model.zip, draw curve.png and evaluate (--final-eval); with --resume, M more "
            f"minutes; with {flag} too, whichever comes first (default: none, {flag} "
            "ends the run)",
        )
        parser.add_argument(
            "--final-eval",
            type=int,
            metavar="N",
            help=f"evaluate model.zip at the end: N games against the {FINAL_OPPONENT} in "
            f"every other seat (arena seed {FINAL_SEED}, every seat rotation of each deck; "
            f"rounded up to a multiple of the players) or, solo, deals 0 to N - 1; written "
            f"to evaluation.json and evaluation.md in --out (default: {FINAL_GAMES} with "
            "--minutes, else 0: none)",
        )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_settings_arguments(parser, settings_cls, presets[default])
    return parser


def _presets_epilog(settings_cls: type, presets: dict[str, dict[str, Any]]) -> str | None:
    """The --help's list of presets: the default, then what each other one changes."""
    if len(presets) < 2:
        return None
    names = list(presets)
    lines = [f"presets (--preset NAME): {names[0]}, the default, sets the defaults above;"]
    for name in names[1:]:
        changes = " ".join(preset_changes(settings_cls, presets[names[0]], presets[name]))
        lines.append(
            textwrap.fill(
                f"{name}: {changes}", width=88, initial_indent="  ", subsequent_indent="      "
            )
        )
    return "\n".join(lines)


def _check_session(
    resuming: bool, preset: str | None, minutes: float | None, final: int | None
) -> None:
    """ValueError for options of this session that cannot run: --preset with --resume, a
    budget that is not a positive number of minutes, an odd or negative --final-eval."""
    if resuming and preset is not None:
        raise ValueError(
            "--preset picks the recipe of a new run; a resumed run keeps its stored settings"
        )
    if minutes is not None and not (math.isfinite(minutes) and minutes > 0):
        raise ValueError(f"--minutes must be a number > 0, got {minutes:g}")
    if final is not None and (final < 0 or final % 2):
        raise ValueError(
            f"--final-eval must be an even integer >= 0 (both seatings of each deck), got {final}"
        )


def _finish_run(out: Path, draw_curve: bool, games: int, progress: bool = True) -> None:
    """The end of a run in `out`: curve.png from curve.csv (`draw_curve`; a warning
    instead if there is nothing to draw) and, with `games`, the evaluation of model.zip
    (`training.evaluate.evaluate_run`), its headline printed."""
    from .evaluate import evaluate_run

    if draw_curve:
        from .plots import plot_curves

        try:
            plot_curves([out], out / CURVE_PLOT, x="wall")
        except (ValueError, OSError) as err:
            print(f"carcassonne: warning: no {CURVE_PLOT} drawn: {err}", file=sys.stderr)
    if games:
        report = evaluate_run(out, games, progress=progress)
        print(
            f"evaluation of {FINAL_MODEL} ({report['timesteps']} timesteps): "
            f"{describe_strength(report)} ({out / EVALUATION_FILES[1]})"
        )
