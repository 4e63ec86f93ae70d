"""The trainers' settings: `PPOSettings` (MaskablePPO and its policy, the base of the PPO
trainers' settings), the range checks every settings record uses (`require`), and how a
settings record is built from a preset and the command line."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any

from carcassonne_env.encoding import OBS_FEATURES

POLICIES = ("board", "candidates")


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
        raise ValueError(f"{option(name)} must be {what}, got {value!r}")


def option(name: str) -> str:
    """The command-line option of the setting `name` ("n_envs" -> "--n-envs")."""
    return "--" + name.replace("_", "-")


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
        ignored = [option(n) for n in names if n in given]
        if ignored:
            raise ValueError(f"{', '.join(ignored)} set{'s' if len(ignored) == 1 else ''} "
                             f"the {other} policy; this run uses --policy {policy} "
                             f"(add --policy {other} to use it)")


def add_settings_arguments(parser: argparse.ArgumentParser, cls: type,
                           presets: dict[str, dict[str, Any]]) -> None:
    """One --option per settings field (defaults None: the preset decides; the help
    shows the default, each preset's where there are several)."""
    group = parser.add_argument_group("settings (override the preset)" if len(presets) > 1
                                      else "settings")
    for f in dataclasses.fields(cls):
        kind = {"int": int, "float": float, "str": str}[str(f.type)]
        values = [(name, preset.get(f.name, f.default)) for name, preset in presets.items()]
        shown = ", ".join(f"{name} {value}" for name, value in values) if len(values) > 1 \
            else str(values[0][1])
        group.add_argument(option(f.name), type=kind, default=None, help=f"default: {shown}")
