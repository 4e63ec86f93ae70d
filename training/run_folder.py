"""A training run's folder: what it holds, how one call of a trainer runs in it
(`Session`), the checks before a run starts in it (a new run, --overwrite, --resume:
`plan_folder`, `plan_run`), its config.json, its checkpoints
and the furthest model saved, and how a run that fails or is stopped leaves it
(`cleanup_on_failure`). Every file goes through `carcassonne_env.atomic`: whole or not
at all."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from carcassonne_env.atomic import write_json
from carcassonne_env.cli_errors import Interrupted, sigterm_as_interrupt
from carcassonne_env.model_file import save_model

from .settings import option

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

    from .callbacks import TimeBudget

CONFIG_FILE = "config.json"  # {"settings": the run's settings}
FINAL_MODEL = "model.zip"
CURVE_FILE = "curve.csv"
CHECKPOINTS = "checkpoints"  # model_<timesteps>_steps.zip
GENERATIONS_FILE = "generations.csv"  # `train multi --gate-every`: a row per gate
CURVE_PLOT = "curve.png"  # curve.csv drawn at the end of a --minutes run
# The evaluation of model.zip at the end of a --minutes run (`training.evaluate.evaluate_run`)
EVALUATION_FILES = ("evaluation.json", "evaluation.md")

# What a PPO run (`train solo`, `multi`, `bc`) writes into its folder (glob patterns); a
# folder holding any of them holds a run.
RUN_FILES = (
    CONFIG_FILE,
    FINAL_MODEL,
    CURVE_FILE,
    CHECKPOINTS,
    "pool",
    "tb",
    GENERATIONS_FILE,
    "generations.png",
    "generations",
    CURVE_PLOT,
    *EVALUATION_FILES,
)
# What a resumed PPO run may change: the target (written to config.json) and, for this
# session only, how it runs.
RESUME_CHANGES = ("total_timesteps", "torch_threads", "checkpoint_every")


class SessionOptions(TypedDict, total=False):
    """The keywords every trainer takes after its settings and folder (``train(settings,
    out, **options)``): how this call runs, see `Session`."""

    resume: bool
    progress: bool
    changes: dict[str, Any] | None
    overwrite: bool
    budget: TimeBudget | None


@dataclasses.dataclass(frozen=True)
class Session:
    """How one call of a trainer runs in its folder. `resume`: continue the run there
    from its furthest saved model with its stored settings, `changes` applied (those the
    trainer lets change: `plan_folder`); `overwrite`: replace the run there (a new run
    only); `progress`: progress bars; `budget`: a wall-clock budget that also ends the
    session (whichever of it and the run's own target comes first; a trainer without
    --minutes refuses one: `untimed`)."""

    resume: bool = False
    progress: bool = True
    changes: dict[str, Any] | None = None
    overwrite: bool = False
    budget: TimeBudget | None = None

    def options(self) -> SessionOptions:
        """The session as a trainer's keywords."""
        return cast(SessionOptions, dict(vars(self)))

    def untimed(self, trainer: str) -> Session:
        """This session, checked for a trainer that takes no wall-clock budget."""
        if self.budget is not None:
            raise ValueError(f"{trainer} takes no wall-clock budget (--minutes)")
        return self


def checkpoint_path(run_dir: Path, timesteps: int) -> Path:
    """Where a run saves its checkpoint after `timesteps`."""
    return run_dir / CHECKPOINTS / f"model_{timesteps}_steps.zip"


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The whole checkpoint with the most timesteps in run_dir/checkpoints, or None
    (a torn one is skipped: `saved_timesteps`)."""
    found = [
        (int(m.group(1)), p)
        for p in (run_dir / CHECKPOINTS).glob("model_*_steps.zip")
        if (m := re.fullmatch(r"model_(\d+)_steps\.zip", p.name))
    ]
    for _, path in sorted(found, reverse=True):
        if saved_timesteps(path) is not None:
            return path
    return None


def saved_progress(run_dir: Path) -> tuple[int, Path] | None:
    """(timesteps, file) of the furthest whole model a run has saved: its newest
    checkpoint or model.zip (runs saved before both kept the end's model only there), the
    checkpoint on a tie; None if none."""
    found = []
    if (checkpoint := latest_checkpoint(run_dir)) is not None:
        found.append((int(checkpoint.stem.split("_")[1]), checkpoint))
    final = run_dir / FINAL_MODEL
    if final.is_file() and (timesteps := saved_timesteps(final)) is not None:
        found.append((timesteps, final))
    # (a tie: the checkpoint, saved whole, not model.zip, saved slim: training.ppo.learn)
    return max(found, key=lambda saved: saved[0]) if found else None


_SKIPPED: set[Path] = set()  # the torn model files reported so far (once each)


def saved_timesteps(path: Path) -> int | None:
    """The timesteps of the model file `path` (SB3's "data" entry), or None, with a
    one-line warning (once per file), if it is not whole: a zip cut short or damaged
    (written by a run killed during a save, before saves were atomic)."""
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()
            if damaged is not None:
                raise ValueError(f"entry {damaged} is damaged")
            return int(json.loads(archive.read("data"))["num_timesteps"])
    except (zipfile.BadZipFile, OSError, ValueError, KeyError, TypeError) as err:
        if path not in _SKIPPED:
            _SKIPPED.add(path)
            print(
                f"carcassonne: warning: skipping {path}: not a whole model file ({err})",
                file=sys.stderr,
            )
        return None


def run_files(run_dir: Path, files: Sequence[str] = RUN_FILES) -> list[str]:
    """The names in run_dir that match the glob patterns `files` (a run's files), in
    the order of `files`."""
    return [p.name for pattern in files for p in sorted(run_dir.glob(pattern))]


def plan_folder(
    run_dir: Path,
    settings: Any,
    session: Session,
    files: Sequence[str],
    resume_changes: Sequence[str],
) -> Any:
    """The checks of every trainer's run folder before any work, writing nothing;
    returns the settings to run with (checked: their `check()`).

    A new run needs a folder holding none of `files` (glob patterns), unless the
    `session` overwrites (the trainer removes them when the run starts:
    `remove_run_files`). A resumed session's settings are those stored in config.json
    with its `changes` applied: options that equal the stored ones are fine, only those
    in `resume_changes` may differ. Raises ValueError, FileExistsError or
    FileNotFoundError."""
    resume, overwrite = session.resume, session.overwrite
    if resume and overwrite:
        raise ValueError(
            "--resume continues the run in the folder and --overwrite replaces it: give one of them"
        )
    if not resume:
        settings.check()
        held = run_files(run_dir, files)
        if held and not overwrite:
            raise FileExistsError(
                f"{run_dir} holds a run already ({', '.join(held)}); pass "
                f"{'--resume to continue it, ' if resume_changes else ''}--overwrite to "
                "replace it, or choose another --out"
            )
        return settings
    stored = read_config(run_dir)
    changes = session.changes or {}
    bad = sorted(k for k, v in changes.items() if k not in resume_changes and stored.get(k) != v)
    if bad:
        raise ValueError(
            f"a resumed run keeps its settings; only "
            f"{', '.join(resume_changes)} may change, not "
            f"{', '.join(f'{k} ({stored.get(k)!r} -> {changes[k]!r})' for k in bad)}"
        )
    try:
        settings = type(settings)(**{**stored, **changes})
    except TypeError as err:
        raise ValueError(
            f"{run_dir / CONFIG_FILE} does not hold this trainer's settings ({err})"
        ) from None
    _without_start_model(settings).check()
    return settings


def _without_start_model(settings: Any) -> Any:
    """`settings` with no `init` model: a resumed run does not read its start model
    again (it may have moved since)."""
    if any(f.name == "init" for f in dataclasses.fields(settings)):
        return dataclasses.replace(settings, init="")
    return settings


def plan_run(run_dir: Path, settings: Any, session: Session) -> Any:
    """`plan_folder` for a PPO run (`RUN_FILES`, `RESUME_CHANGES`); a resumed run's
    total_timesteps may not fall below the timesteps it has done. A run without a step
    target (total_timesteps 0) needs the session's wall-clock budget (--minutes)."""
    settings = plan_folder(run_dir, settings, session, RUN_FILES, RESUME_CHANGES)
    check_target(settings, "total_timesteps", session.budget is not None)
    if session.resume and settings.total_timesteps:
        done = (saved_progress(run_dir) or (0, None))[0]
        if settings.total_timesteps < done:
            raise ValueError(
                f"{run_dir} has {done} timesteps done already; "
                f"--total-timesteps {settings.total_timesteps} is below that "
                "(give more to train on)"
            )
    return settings


def check_target(settings: Any, target: str, timed: bool) -> None:
    """ValueError if the run's `target` setting (its step or iteration target) is 0, no
    target, and the session has no wall-clock budget (`timed`) to end it."""
    if not timed and getattr(settings, target) == 0:
        flag = option(target)
        raise ValueError(
            f"the run has no {flag} target (0: a --minutes run's); give --minutes M or {flag} N"
        )


def read_json(path: Path) -> Any:
    """The JSON in the file `path`; FileNotFoundError if there is none, ValueError in
    one line if it is unreadable (cut short, or not JSON)."""
    try:
        return json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(
            f"{path} is unreadable ({err}): not the JSON this package writes"
        ) from None


def read_config(run_dir: Path) -> dict[str, Any]:
    """The stored settings of the run in `run_dir` (its config.json); FileNotFoundError
    if it has none, ValueError in one line if it is unreadable."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        raise FileNotFoundError(f"nothing to resume: no {CONFIG_FILE} in {run_dir}")
    stored = read_json(path)
    if not isinstance(stored, dict) or not isinstance(stored.get("settings"), dict):
        raise ValueError(f'{path} is unreadable: it holds no "settings" object')
    return stored["settings"]


def write_config(run_dir: Path, settings: Any, **extra: Any) -> None:
    """The run's config.json, whole: {"settings": `settings` (a dataclass), **extra}."""
    write_json(run_dir / CONFIG_FILE, {"settings": dataclasses.asdict(settings), **extra}, indent=2)


def record_run(run_dir: Path, settings: Any, session: Session) -> None:
    """Write a PPO run's config.json (whole) once the run is ready to train: for a
    `session` that overwrites, after removing the old run's files; for one that resumes,
    only the target total_timesteps is rewritten (the run keeps its other settings)."""
    if session.overwrite:
        remove_run_files(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if session.resume:
        stored = {**read_config(run_dir), "total_timesteps": settings.total_timesteps}
        write_json(run_dir / CONFIG_FILE, {"settings": stored}, indent=2)
    else:
        write_config(run_dir, settings)


def remove_run_files(run_dir: Path, files: Sequence[str] = RUN_FILES) -> None:
    """Delete what matches the glob patterns `files` in run_dir (other files stay)."""
    for name in run_files(run_dir, files):
        target = run_dir / name
        shutil.rmtree(target) if target.is_dir() else target.unlink()


@contextmanager
def cleanup_on_failure(
    run_dir: Path, new_run: bool, model: MaskablePPO | None = None
) -> Iterator[None]:
    """If a new run fails before saving any model, remove what it wrote (and run_dir,
    if it made it), so the folder does not look like a run; a run with a saved model
    stays for --resume. On a Ctrl-C or a SIGTERM (what `kill` sends), `model` is first
    saved as a checkpoint if it has trained past the run's furthest saved model
    (`save_interrupted`), so the training time is kept and --resume carries on from it.
    A signal never interrupts a save (`carcassonne_env.atomic` holds it back)."""
    existed = run_dir.exists()
    try:
        with sigterm_as_interrupt():
            yield
    except BaseException as err:
        kept = None
        if isinstance(err, KeyboardInterrupt) and model is not None and run_dir.is_dir():
            kept = save_interrupted(model, run_dir)
        if new_run and saved_progress(run_dir) is None:
            remove_run_files(run_dir)
            if not existed and run_dir.is_dir() and not any(run_dir.iterdir()):
                run_dir.rmdir()
        if kept is not None:
            raise kept from None
        raise


def save_interrupted(model: MaskablePPO, run_dir: Path) -> Interrupted | None:
    """Save `model` as run_dir/checkpoints/model_<timesteps>_steps.zip, the checkpoint
    --resume starts from, unless the run has saved that far already. Returns the
    `Interrupted` to raise in place of the Ctrl-C (it says where the model went), or
    None when there was nothing new to save."""
    done = (saved_progress(run_dir) or (0, None))[0]
    if model.num_timesteps <= done:
        return None
    path = checkpoint_path(run_dir, model.num_timesteps)
    path.parent.mkdir(exist_ok=True)
    save_model(model, path)
    return Interrupted(
        f"{model.num_timesteps} timesteps saved to {path}; --resume carries on from there"
    )
