"""The command line every trainer shares (`run_cli`): --out, --overwrite, --resume,
--quick, --no-progress and one option per setting, all checked with the run folder
before any work (`training.run_folder`), each mistake in one line."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carcassonne_env.cli_errors import OneLineParser

from .run_folder import FINAL_MODEL, plan_run
from .settings import add_settings_arguments, check_policy_options, settings_from

PPO_RESUME = ("continue the run in --out from its furthest saved model with its stored "
              "settings (only --total-timesteps, --torch-threads and --checkpoint-every may "
              "change; only the first is stored)")


def run_cli(prog: str, doc: str, settings_cls: type, presets: dict[str, dict[str, Any]],
            train: Callable[..., Any], argv: list[str] | None, *,
            plan: Callable[..., Any] = plan_run, resume: str | None = PPO_RESUME) -> int:
    """A trainer's command line `prog` (help: `doc`): parses `argv`, builds its settings
    (`settings_cls` from `presets["full"]`, or `presets["quick"]` with --quick where
    there is one, and the options given), checks them and the folder --out with
    `plan(out, settings, resume, changes, overwrite)` (ValueError, OSError: one line),
    then calls ``train(settings, out, progress=, overwrite=)`` (with ``resume=`` and
    ``changes=``, the options given, where the trainer resumes: `resume` is the help of
    its --resume, None for none) and reports the model.zip it saved."""
    parser = OneLineParser(prog=prog, description=doc,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="run folder")
    if "quick" in presets:
        parser.add_argument("--quick", action="store_true",
                            help="the short preset: the full one's settings on a smaller "
                            "budget (default: the full one); new runs only")
    if resume is not None:
        parser.add_argument("--resume", action="store_true", help=resume)
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the run in --out (without it, a folder holding a run "
                        "is refused)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_settings_arguments(parser, settings_cls, presets)
    args = parser.parse_args(argv)
    quick, resuming = getattr(args, "quick", False), getattr(args, "resume", False)
    if resuming and quick:
        parser.error("--quick picks the preset of a new run; a resumed run keeps its "
                     "stored settings (raise --total-timesteps to train further)")
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(settings_cls)
             if getattr(args, f.name) is not None}
    settings = settings_from(settings_cls, presets["quick" if quick else "full"], given)
    changes = given if resuming else None
    try:
        check_policy_options(settings, given)
        plan(args.out, settings, resuming, changes, args.overwrite)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    how = {"resume": resuming, "changes": changes} if resume is not None else {}
    train(settings, args.out, progress=not args.no_progress, overwrite=args.overwrite, **how)
    print(f"saved {args.out / FINAL_MODEL}")
    return 0
