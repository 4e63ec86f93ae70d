"""What the training scripts share: the PPO settings record, run folders (config,
checkpoints, TensorBoard, learning curve), resuming, and the progress / curve callbacks."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import re
import shutil
import sys
import time
import zipfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecEnv
from tqdm.auto import tqdm

from carcassonne_env.atomic import atomic_open, write_bytes, write_json
from carcassonne_env.cli_errors import Interrupted, OneLineParser, sigterm_as_interrupt
from carcassonne_env.encoding import OBS_FEATURES
from carcassonne_env.model_file import save_model

from .buffers import CompactMaskableDictRolloutBuffer
from .policy import CANDIDATE_KEYS, BoardPolicy, CandidatePolicy

POLICIES = ("board", "candidates")

CURVE_FILE = "curve.csv"
CONFIG_FILE = "config.json"
FINAL_MODEL = "model.zip"


@dataclasses.dataclass
class PPOSettings:
    """MaskablePPO and policy settings (see SB3's PPO for the meaning of each)."""

    total_timesteps: int = 200_000
    n_envs: int = 32
    n_steps: int = 64  # per env and rollout: a rollout is n_envs * n_steps decisions
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    board_size: int = 16
    channels: int = 32
    blocks: int = 2
    global_pool: int = 0  # 1: BoardPolicy's blocks see the whole board (pooled context)
    obs_features: str = "standard"  # or "aggregate" (docs/observations.md)
    policy: str = "board"  # BoardPolicy (CNN over the planes) or "candidates" (CandidatePolicy)
    candidate_moves: int = 128  # K of the candidate-move observation (--policy candidates)
    hidden: int = 128  # CandidatePolicy's layer width
    seed: int = 0
    checkpoint_every: int = 50_000  # timesteps
    torch_threads: int = 2
    # a saved model (path or shipped name) whose policy weights start a new run instead
    # of random ones (fine-tuning); its network must be the one these settings describe
    init: str = ""

    def check(self) -> None:
        """Raise ValueError naming the first setting out of range (before any work)."""
        for name in ("total_timesteps", "n_envs", "n_steps", "n_epochs", "channels", "blocks",
                     "checkpoint_every", "torch_threads"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        require(self, "batch_size", int, lambda v: v >= 2, "an integer >= 2")
        require(self, "board_size", int, lambda v: v >= 3, "an integer >= 3")
        require(self, "seed", int, lambda v: 0 <= v < 2**32, "an integer in [0, 2**32)")
        require(self, "learning_rate", float, lambda v: v > 0, "a number > 0")
        require(self, "gamma", float, lambda v: 0 < v <= 1, "a number in (0, 1]")
        require(self, "gae_lambda", float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require(self, "clip_range", float, lambda v: v > 0, "a number > 0")
        require(self, "global_pool", int, lambda v: v in (0, 1), "0 or 1")
        require(self, "obs_features", str, lambda v: v in OBS_FEATURES,
                f"one of {', '.join(OBS_FEATURES)}")
        require(self, "policy", str, lambda v: v in POLICIES, f"one of {', '.join(POLICIES)}")
        for name in ("candidate_moves", "hidden"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        for name in ("ent_coef", "vf_coef"):
            require(self, name, float, lambda v: v >= 0, "a number >= 0")
        require(self, "init", str, lambda v: True, "a model path or a shipped model's name")
        if self.init:
            from agents.sb3_policy import model_path
            try:
                model_path(self.init)
            except FileNotFoundError as err:
                raise ValueError(f"--init: {err}") from None

    def env_options(self) -> dict[str, Any]:
        """The observation options of the run's envs (obs_features, candidate_moves)."""
        return {"obs_features": self.obs_features,
                "candidate_moves": self.candidate_moves if self.policy == "candidates" else 0}


def require(settings: Any, name: str, kind: type, ok: Callable[[Any], bool],
            what: str) -> None:
    """ValueError unless settings.<name> is of `kind` (an int passes as a float; a bool
    never passes) and `ok`; the message names the command-line option."""
    value = getattr(settings, name)
    kinds = (int, float) if kind is float else (kind,)
    if isinstance(value, bool) or not isinstance(value, kinds) or not ok(value):
        raise ValueError(f"--{name.replace('_', '-')} must be {what}, got {value!r}")


def settings_from(cls: type, preset: dict[str, Any], overrides: dict[str, Any]) -> Any:
    """A settings dataclass from a preset and command-line overrides (None = keep)."""
    values = dict(preset)
    values.update({k: v for k, v in overrides.items() if v is not None})
    unknown = set(values) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise ValueError(f"unknown settings: {sorted(unknown)}")
    return cls(**values)


# The settings that only one policy reads (the other would ignore them).
POLICY_OPTIONS = {"board": ("channels", "blocks", "global_pool"),
                  "candidates": ("candidate_moves", "hidden")}


def check_policy_options(settings: Any, given: dict[str, Any]) -> None:
    """ValueError if an option `given` on the command line is one the run's policy
    ignores (e.g. --hidden with the board policy)."""
    policy = getattr(settings, "policy", None)
    for other, names in POLICY_OPTIONS.items():
        if other == policy or policy is None:
            continue
        ignored = [f"--{n.replace('_', '-')}" for n in names if n in given]
        if ignored:
            raise ValueError(f"{', '.join(ignored)} set{'s' if len(ignored) == 1 else ''} "
                             f"the {other} policy; this run uses --policy {policy} "
                             f"(add --policy {other} to use it)")


def add_settings_arguments(parser: Any, cls: type, presets: dict[str, dict]) -> None:
    """One --option per settings field (defaults None: the preset decides; the help
    shows each preset's value)."""
    group = parser.add_argument_group("settings (override the preset)")
    for f in dataclasses.fields(cls):
        kind = {"int": int, "float": float, "str": str}[str(f.type)]
        values = ", ".join(f"{name} {preset.get(f.name, f.default)}"
                           for name, preset in presets.items())
        group.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=None,
                           help=f"default: {values}")


def new_model(settings: PPOSettings, venv: VecEnv, run_dir: Path) -> MaskablePPO:
    """A fresh MaskablePPO with `BoardPolicy` or `CandidatePolicy` (settings.policy),
    logging to run_dir/tb."""
    s = settings
    if s.policy == "candidates":
        policy, kwargs = CandidatePolicy, {"hidden": s.hidden}
    else:
        policy, kwargs = BoardPolicy, {
            "channels": s.channels, "blocks": s.blocks, "global_pool": bool(s.global_pool),
            **({"prior_weight": s.move_prior} if getattr(s, "move_prior", 0) else {})}
    model = MaskablePPO(
        policy, venv, n_steps=s.n_steps, batch_size=s.batch_size, n_epochs=s.n_epochs,
        learning_rate=s.learning_rate, gamma=s.gamma, gae_lambda=s.gae_lambda,
        clip_range=s.clip_range, ent_coef=s.ent_coef, vf_coef=s.vf_coef,
        rollout_buffer_class=CompactMaskableDictRolloutBuffer,
        rollout_buffer_kwargs=buffer_options(s.policy, venv.observation_space),
        policy_kwargs=kwargs,
        tensorboard_log=str(run_dir / "tb"), seed=s.seed, device="cpu", verbose=0)
    if s.init:
        load_policy_weights(model, s.init, POLICY_OPTIONS[s.policy])
    return model


def buffer_options(policy: str, observation_space: spaces.Space) -> dict[str, Any]:
    """`CompactMaskableDictRolloutBuffer`'s options for `policy`: the candidate policy's
    rollouts keep the candidate rows packed and leave out what it does not read."""
    if policy != "candidates":
        return {}
    return {"pack_candidates": True,
            "unread_keys": tuple(k for k in observation_space.spaces
                                 if k not in CandidatePolicy.observation_keys)}


def load_policy_weights(model: MaskablePPO, source: str, options: tuple[str, ...]) -> None:
    """Copy the policy weights of saved model `source` (a path or a shipped model's
    name) into `model`; ValueError if its network or observation differ (naming the
    settings `options` that shape the network). A candidate network narrower than
    `model`'s is widened to it, computing what it did (`training.widen`)."""
    from agents.sb3_policy import load_model

    from .policy import CandidatePolicy
    from .widen import widen_candidate_weights

    saved = load_model(source, cached=False)
    if type(saved.policy) is not type(model.policy) \
            or not _same_but_candidate_count(saved.observation_space, model.observation_space) \
            or saved.action_space != model.action_space:
        raise ValueError(f"--init {source}: its network or spaces ({type(saved.policy).__name__}"
                         f"; board size, observation features, players) differ from this "
                         f"run's ({type(model.policy).__name__})")
    mine, theirs = model.policy.state_dict(), saved.policy.state_dict()
    if isinstance(model.policy, CandidatePolicy) and saved.policy.hidden < model.policy.hidden:
        theirs = widen_candidate_weights(theirs, mine, saved.policy.hidden, model.policy.hidden)
    differ = sorted(k for k in mine.keys() | theirs.keys()
                    if k not in mine or k not in theirs or mine[k].shape != theirs[k].shape)
    if differ:
        raise ValueError(f"--init {source}: its weights differ in shape from this run's "
                         f"network ({', '.join(differ[:4])}); give the settings it was "
                         f"trained with ({', '.join('--' + o.replace('_', '-') for o in options)})")
    model.policy.load_state_dict(theirs)


def _same_but_candidate_count(a: Any, b: Any) -> bool:
    """Whether observation spaces `a` and `b` are equal but for the number of candidate
    moves (a candidate network's weights do not depend on it: `train export
    --candidate-moves`)."""
    if not all(isinstance(s, spaces.Dict) and set(CANDIDATE_KEYS) <= set(s.spaces)
               for s in (a, b)):
        return a == b
    return a.spaces.keys() == b.spaces.keys() and all(
        a[k] == b[k] if k not in CANDIDATE_KEYS else
        (a[k].shape[1:], a[k].dtype) == (b[k].shape[1:], b[k].dtype) for k in a.spaces)


def load_or_create(settings: PPOSettings, venv: VecEnv, run_dir: Path,
                   resume: bool) -> MaskablePPO:
    """With `resume`, the run's furthest saved model (`saved_progress`; reseeded with
    seed + its timesteps: reproducible, fresh games) bound to `venv`; otherwise, or if
    the run has saved no model yet, a new model."""
    saved = saved_progress(run_dir) if resume else None
    if saved is None:
        return new_model(settings, venv, run_dir)
    from agents.sb3_policy import open_model

    model = open_model(saved[1], env=venv, tensorboard_log=str(run_dir / "tb"),
                       rollout_buffer_class=CompactMaskableDictRolloutBuffer,
                       rollout_buffer_kwargs=buffer_options(settings.policy,
                                                            venv.observation_space))
    model.set_random_seed(settings.seed + model.num_timesteps)
    return model


def prepare_torch(settings: PPOSettings) -> None:
    """PyTorch's thread count (with two cores, two threads; one when another job shares
    them: spinning threads on a busy core slow every update down)."""
    torch.set_num_threads(settings.torch_threads)


def checkpoint_path(run_dir: Path, timesteps: int) -> Path:
    """Where a run saves its checkpoint after `timesteps`."""
    return run_dir / "checkpoints" / f"model_{timesteps}_steps.zip"


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The whole checkpoint with the most timesteps in run_dir/checkpoints, or None
    (a torn one is skipped: `saved_timesteps`)."""
    found = [(int(m.group(1)), p) for p in (run_dir / "checkpoints").glob("model_*_steps.zip")
             if (m := re.fullmatch(r"model_(\d+)_steps\.zip", p.name))]
    for _, path in sorted(found, reverse=True):
        if saved_timesteps(path) is not None:
            return path
    return None


def saved_progress(run_dir: Path) -> tuple[int, Path] | None:
    """(timesteps, file) of the furthest whole model a run has saved: its newest
    checkpoint or model.zip (a run shorter than checkpoint_every has only the latter);
    None if none."""
    found = []
    if (checkpoint := latest_checkpoint(run_dir)) is not None:
        found.append((int(checkpoint.stem.split("_")[1]), checkpoint))
    final = run_dir / FINAL_MODEL
    if final.is_file() and (timesteps := saved_timesteps(final)) is not None:
        found.append((timesteps, final))
    return max(found) if found else None


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
            print(f"carcassonne: warning: skipping {path}: not a whole model file ({err})",
                  file=sys.stderr)
        return None


# What a run writes into its folder; a folder holding any of them holds a run.
RUN_FILES = (CONFIG_FILE, FINAL_MODEL, CURVE_FILE, "checkpoints", "pool", "tb")
# What a resumed run may change: the target (written to config.json) and, for this
# session only, how it runs.
RESUME_CHANGES = ("total_timesteps", "torch_threads", "checkpoint_every")


def run_files(run_dir: Path) -> list[str]:
    """The RUN_FILES present in run_dir."""
    return [name for name in RUN_FILES if (run_dir / name).exists()]


def plan_run(run_dir: Path, settings: Any, resume: bool = False,
             changes: dict[str, Any] | None = None, overwrite: bool = False) -> Any:
    """Check a run before any work, writing nothing; returns the settings to train with.

    A new run needs a folder holding no run (`RUN_FILES`), unless `overwrite` (the old
    run's files go when the new run starts). With `resume`, the stored settings come back
    with `changes` applied: options that equal the stored ones are fine, only those in
    RESUME_CHANGES may differ, and total_timesteps may not fall below the timesteps the
    run has done. Raises ValueError, FileExistsError or FileNotFoundError."""
    if resume and overwrite:
        raise ValueError("--resume continues the run in the folder and --overwrite "
                         "replaces it: give one of them")
    if not resume:
        settings.check()
        held = run_files(run_dir)
        if held and not overwrite:
            raise FileExistsError(
                f"{run_dir} holds a run already ({', '.join(held)}); pass --resume to "
                "continue it, --overwrite to replace it, or choose another --out")
        return settings
    stored = read_config(run_dir)
    changes = changes or {}
    bad = sorted(k for k, v in changes.items()
                 if k not in RESUME_CHANGES and stored.get(k) != v)
    if bad:
        raise ValueError(f"a resumed run keeps its settings; only "
                         f"{', '.join(RESUME_CHANGES)} may change, not "
                         f"{', '.join(f'{k} ({stored.get(k)!r} -> {changes[k]!r})' for k in bad)}")
    try:
        settings = type(settings)(**{**stored, **changes})
    except TypeError as err:
        raise ValueError(f"{run_dir / CONFIG_FILE} does not hold this trainer's settings "
                         f"({err})") from None
    dataclasses.replace(settings, init="").check()  # (its start model is not read again)
    done = (saved_progress(run_dir) or (0, None))[0]
    if settings.total_timesteps < done:
        raise ValueError(f"{run_dir} has {done} timesteps done already; --total-timesteps "
                         f"{settings.total_timesteps} is below that (give more to train on)")
    return settings


def read_json(path: Path) -> Any:
    """The JSON in the file `path`; FileNotFoundError if there is none, ValueError in
    one line if it is unreadable (cut short, or not JSON)."""
    try:
        return json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is unreadable ({err}): not the JSON this package "
                         "writes") from None


def read_config(run_dir: Path) -> dict[str, Any]:
    """The stored settings of the run in `run_dir` (its config.json); FileNotFoundError
    if it has none, ValueError in one line if it is unreadable."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        raise FileNotFoundError(f"nothing to resume: no {CONFIG_FILE} in {run_dir}")
    stored = read_json(path)
    if not isinstance(stored, dict) or not isinstance(stored.get("settings"), dict):
        raise ValueError(f"{path} is unreadable: it holds no \"settings\" object")
    return stored["settings"]


def record_run(run_dir: Path, settings: Any, resume: bool = False,
               overwrite: bool = False) -> None:
    """Write the run's config.json (whole) once the run is ready to train: with
    `overwrite` after removing the old run's files; with `resume` only the target
    total_timesteps is rewritten (the run keeps its other settings)."""
    if overwrite:
        remove_run_files(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    values = dataclasses.asdict(settings)
    if resume:
        values = {**read_config(run_dir), "total_timesteps": settings.total_timesteps}
    write_json(run_dir / CONFIG_FILE, {"settings": values}, indent=2)


def remove_run_files(run_dir: Path) -> None:
    """Delete the RUN_FILES in run_dir (other files stay)."""
    for name in run_files(run_dir):
        target = run_dir / name
        shutil.rmtree(target) if target.is_dir() else target.unlink()


@contextmanager
def cleanup_on_failure(run_dir: Path, new_run: bool,
                       model: MaskablePPO | None = None) -> Iterator[None]:
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
    return Interrupted(f"{model.num_timesteps} timesteps saved to {path}; --resume "
                       "carries on from there")


class ProgressBar(BaseCallback):
    """tqdm bar over the run's timesteps (a resumed run starts at those done), with the
    latest curve metric."""

    def __init__(self, total: int, done: int, describe: Callable[[], str]) -> None:
        super().__init__()
        self.total, self.done, self.describe = total, done, describe
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total, initial=self.done, unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        self.bar.set_postfix_str(self.describe())

    def _on_training_end(self) -> None:
        self.bar.close()


class Checkpoints(BaseCallback):
    """Every `every` steps of the vector env (every x n_envs timesteps) the model is saved
    as run_dir/checkpoints/model_<timesteps>_steps.zip, whole and with its description
    (`carcassonne_env.model_file.save_model`)."""

    def __init__(self, every: int, run_dir: Path) -> None:
        super().__init__()
        self.every, self.run_dir = every, run_dir

    def _init_callback(self) -> None:
        (self.run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            save_model(self.model, checkpoint_path(self.run_dir, self.num_timesteps))
        return True


def read_rows(path: Path) -> list[dict[str, str]]:
    """A curve (CSV) as rows."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, columns: list[str], rows: Iterable[dict[str, Any]] = ()) -> None:
    """A curve at `path`, replaced whole: the header `columns`, then `rows` in that order
    (NaN: not given)."""
    with atomic_open(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerows([[r.get(c, float("nan")) for c in columns] for r in rows])


def append_row(path: Path, columns: list[str], row: dict[str, Any]) -> None:
    """`row` added to the curve at `path` in the order of `columns` (NaN: not given). The
    file is rewritten whole, so a row is never torn."""
    line = io.StringIO()
    csv.writer(line).writerow([row.get(c, float("nan")) for c in columns])
    write_bytes(path, path.read_bytes() + line.getvalue().encode("utf-8"))


def continue_curve(path: Path, header: list[str], timesteps: int) -> tuple[int, float]:
    """Start a curve.csv at `path` with `header`, or keep its whole rows up to
    `timesteps` (rows written after a resumed model's checkpoint were undone). Returns
    (episodes, wall seconds) of the last kept row, zeros if none."""
    rows = read_rows(path) if path.exists() else []
    rows = [r for r in rows if None not in r.values() and r["timesteps"].isdigit()
            and int(r["timesteps"]) <= timesteps]
    write_rows(path, header, rows)
    if not rows:
        return 0, 0.0
    return int(rows[-1]["episodes"]), float(rows[-1]["wall_s"])


class EpisodeCurve(BaseCallback):
    """Collects one number per finished episode from the infos (`metric(info)`, None to
    skip), logs their recent mean to TensorBoard and appends a row per rollout to
    run_dir/curve.csv: timesteps, wall seconds, episodes, mean of the last `window`.
    A resumed run's wall clock counts on from curve.csv's last kept row, or from
    `wall_floor` (seconds) if that is later: another file of the run may have recorded
    work done after that row (a gate and panel of `train multi --gate-every`)."""

    def __init__(self, run_dir: Path, metrics: dict[str, Callable[[dict], float | None]],
                 window: int = 200, wall_floor: float = 0.0) -> None:
        super().__init__()
        self.path = run_dir / CURVE_FILE
        self.metrics, self.wall_floor = metrics, wall_floor
        self.recent = {k: deque(maxlen=window) for k in metrics}
        self.episodes = 0
        self.wall0 = 0.0

    def _on_training_start(self) -> None:
        self.wall0 = time.perf_counter() - max(self._continue_file(), self.wall_floor)

    def _continue_file(self) -> float:
        """Start curve.csv or keep its rows up to the (resumed) model's timesteps;
        returns the wall time so far."""
        self.episodes, wall = continue_curve(self.path, ["timesteps", "wall_s", "episodes",
                                                         *self.metrics], self.num_timesteps)
        return wall

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done:
                self.episodes += 1
                for key, metric in self.metrics.items():
                    value = metric(info)
                    if value is not None:
                        self.recent[key].append(value)
        return True

    def means(self) -> dict[str, float]:
        """The mean of each recorded quantity over the episodes since the last call."""
        return {k: float(np.mean(v)) for k, v in self.recent.items() if v}

    def _on_rollout_end(self) -> None:
        means = self.means()
        for key, value in means.items():
            self.logger.record(f"curve/{key}", value)
        append_row(self.path, ["timesteps", "wall_s", "episodes", *self.metrics], {
            "timesteps": self.num_timesteps, "wall_s": round(time.perf_counter() - self.wall0, 1),
            "episodes": self.episodes,
            **{k: round(means.get(k, float("nan")), 3) for k in self.metrics}})


def learn(model: MaskablePPO, settings: PPOSettings, run_dir: Path, curve: EpisodeCurve,
          extra: list[BaseCallback] = (), progress: bool = True) -> MaskablePPO:
    """Train up to settings.total_timesteps (counting what a resumed model has done),
    with checkpoints, the learning curve and a progress bar; saves run_dir/model.zip."""
    remaining = settings.total_timesteps - model.num_timesteps
    callbacks: list[BaseCallback] = [
        Checkpoints(max(1, settings.checkpoint_every // settings.n_envs), run_dir),
        curve, *extra]
    if progress:
        callbacks.append(ProgressBar(settings.total_timesteps, model.num_timesteps,
                                     lambda: _describe(curve)))
    if remaining > 0:
        model.learn(remaining, callback=CallbackList(callbacks),
                    reset_num_timesteps=model.num_timesteps == 0, tb_log_name="ppo")
    else:
        print(f"{run_dir}: {model.num_timesteps} timesteps done already (target "
              f"{settings.total_timesteps}); raise it with --total-timesteps to train on",
              file=sys.stderr)
    save_model(model, run_dir / FINAL_MODEL)
    return model


def _describe(curve: EpisodeCurve) -> str:
    return " ".join(f"{k}={v:.2f}" for k, v in curve.means().items())


def run_cli(prog: str, doc: str, settings_cls: type, presets: dict[str, dict],
            train: Callable[..., Any], argv: list[str] | None) -> int:
    """The training scripts' command line: --out, --quick, --resume, --overwrite, one
    option per setting; checks them all (and the run folder) before any work, trains
    and reports where the model went."""
    parser = OneLineParser(prog=prog, description=doc,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="run folder")
    parser.add_argument("--quick", action="store_true",
                        help="the short preset (about 20-25 minutes on 2 cores; default: the full "
                        "one); new runs only")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its furthest saved model with "
                        "its stored settings (only --total-timesteps, --torch-threads and "
                        "--checkpoint-every may change; only the first is stored)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the run in --out (without it, a folder holding a run "
                        "is refused)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_settings_arguments(parser, settings_cls, presets)
    args = parser.parse_args(argv)
    if args.resume and args.quick:
        parser.error("--quick picks the preset of a new run; a resumed run keeps its "
                     "stored settings (raise --total-timesteps to train further)")
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(settings_cls)
             if getattr(args, f.name) is not None}
    settings = settings_from(settings_cls, presets["quick" if args.quick else "full"], given)
    try:
        check_policy_options(settings, given)
    except ValueError as err:
        parser.error(str(err))
    changes = given if args.resume else None
    try:
        plan_run(args.out, settings, args.resume, changes, args.overwrite)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    train(settings, args.out, resume=args.resume, progress=not args.no_progress,
          changes=changes, overwrite=args.overwrite)
    print(f"saved {args.out / FINAL_MODEL}")
    return 0
