"""The trainers' settings: `PPOSettings` (MaskablePPO and its policy, the base of the PPO
trainers' settings), each field declared with its description (`setting`: what its
option's --help says), the range checks every settings record uses (`require`), and how a
settings record is built from a preset (a trainer's `PRESETS` table) and the command
line."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from carcassonne_env.encoding import OBS_FEATURES
from carcassonne_env.rules import EXPANSION_MODES, EXPANSIONS, FARM_SCORING, Rules

POLICIES = ("board", "candidates")
T = TypeVar("T")


def setting(default: T, help: str) -> T:
    """A settings field with its default and its description (`help`: what
    `--help` says of its option; `add_settings_arguments`)."""
    return dataclasses.field(default=default, metadata={"help": help})


@dataclasses.dataclass
class PPOSettings:
    """MaskablePPO and policy settings (see SB3's PPO for the meaning of each)."""

    total_timesteps: int = setting(
        200_000,
        "the timesteps (the learner's decisions) to train to, counted from the start "
        "of the run; 0: no step target (a --minutes run)",
    )
    n_envs: int = setting(32, "games played at once")
    n_steps: int = setting(
        64, "steps per game and rollout: a rollout is n_envs x n_steps decisions"
    )
    batch_size: int = setting(512, "minibatch of the PPO update")
    n_epochs: int = setting(4, "passes over each rollout in its update")
    learning_rate: float = setting(3e-4, "Adam's learning rate")
    gamma: float = setting(0.99, "discount factor per decision")
    gae_lambda: float = setting(0.95, "lambda of the advantages (GAE)")
    clip_range: float = setting(0.2, "PPO's clip of the probability ratio")
    ent_coef: float = setting(0.01, "weight of the entropy bonus")
    vf_coef: float = setting(0.5, "weight of the value loss")
    board_size: int = setting(
        16, "the observation's window B (cells a side; moves outside it are masked out)"
    )
    channels: int = setting(32, "board policy: channels of its convolutions")
    blocks: int = setting(2, "board policy: residual blocks")
    global_pool: int = setting(
        0, "board policy: 1 lets its blocks see the whole board (pooled context), 0 not"
    )
    obs_features: str = setting(
        "standard", "the observation's features: standard or aggregate (docs/observations.md)"
    )
    policy: str = setting(
        "board",
        "the network: board (a CNN over the board planes) or "
        "candidates (a network over the candidate moves)",
    )
    candidate_moves: int = setting(128, "candidate policy: K, the legal moves it sees per position")
    hidden: int = setting(128, "candidate policy: its layers' width")
    seed: int = setting(0, "seeds PyTorch, the policy's sampling and the games")
    checkpoint_every: int = setting(
        50_000, "timesteps between checkpoints (checkpoints/model_<steps>_steps.zip)"
    )
    torch_threads: int = setting(
        2, "threads of the learner's network passes and of the batched games (one per core)"
    )
    init: str = setting(
        "",
        "a saved model (path or shipped name) whose policy weights start "
        "a new run instead of random ones (fine-tuning); its network must be "
        "the one these settings describe (train multi: a candidate network of "
        "another table too, its inputs matched by name)",
    )

    def check(self) -> None:
        """Raise ValueError naming the first setting out of range (before any work)."""
        require(
            self,
            "total_timesteps",
            int,
            lambda v: v >= 0,
            "an integer >= 0 (0: no step target, with --minutes)",
        )
        for name in (
            "n_envs",
            "n_steps",
            "n_epochs",
            "channels",
            "blocks",
            "checkpoint_every",
            "torch_threads",
        ):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        require(self, "batch_size", int, lambda v: v >= 2, "an integer >= 2")
        require(self, "board_size", int, lambda v: v >= 3, "an integer >= 3")
        require(self, "seed", int, lambda v: 0 <= v < 2**32, "an integer in [0, 2**32)")
        require(self, "learning_rate", float, lambda v: v > 0, "a number > 0")
        require(self, "gamma", float, lambda v: 0 < v <= 1, "a number in (0, 1]")
        require(self, "gae_lambda", float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require(self, "clip_range", float, lambda v: v > 0, "a number > 0")
        require(self, "global_pool", int, lambda v: v in (0, 1), "0 or 1")
        require(
            self,
            "obs_features",
            str,
            lambda v: v in OBS_FEATURES,
            f"one of {', '.join(OBS_FEATURES)}",
        )
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
        return {
            "obs_features": self.obs_features,
            "candidate_moves": self.candidate_moves if self.policy == "candidates" else 0,
        }


@dataclasses.dataclass
class TableSettings:
    """The table a run trains at: the seats and the rule options, by the names of the
    `carcassonne play` / `arena` rule options (`carcassonne_env.cli.args`) and of `Rules`'
    keywords; `rules()` is the `Rules` they name."""

    players: int = setting(2, "seats, 2-5: the learner and players - 1 opponents")
    followers: int = setting(7, "followers per seat")
    small_city: bool = setting(False, "a 2-tile city scores 2 (the old rule)")
    farm_scoring: str = setting(
        "field", "farm scoring: field (3rd edition, per field) or city (1st edition, per city)"
    )
    farm_city_points: int = setting(3, "points per completed city in farm scoring")
    hand_size: int = setting(1, "tiles in hand: 1, or 3 (the strategic variant)")
    expansions: str = setting("", f"comma-separated expansions: {', '.join(EXPANSIONS)}")
    expansion_mode: str = setting(
        "full",
        "with --expansions: full (their rules and figures: the large follower, the "
        "builder, the pig) or tiles_only (their tiles as ordinary tiles)",
    )

    def check_table(self) -> None:
        """ValueError naming the first table setting out of its range, or the rule
        options that contradict each other."""
        require(self, "players", int, lambda v: 2 <= v <= 5, "an integer in [2, 5]")
        require(self, "followers", int, lambda v: 0 <= v <= 99, "an integer in [0, 99]")
        require(self, "small_city", bool, lambda v: True, "true or false")
        require(self, "farm_scoring", str, lambda v: v in FARM_SCORING, " or ".join(FARM_SCORING))
        require(self, "farm_city_points", int, lambda v: 0 <= v <= 99, "an integer in [0, 99]")
        require(self, "hand_size", int, lambda v: v in (1, 3), "1 or 3")
        unknown = [e for e in self.expansion_names() if e not in EXPANSIONS]
        known = f"comma-separated names among {', '.join(EXPANSIONS)}"
        require(self, "expansions", str, lambda v: not unknown, known)
        modes = " or ".join(EXPANSION_MODES)
        require(self, "expansion_mode", str, lambda v: v in EXPANSION_MODES, modes)
        if self.expansion_mode != "full" and not self.expansion_names():
            raise ValueError(f"--expansion-mode {self.expansion_mode} needs --expansions")
        try:
            self.rules()
        except ValueError as err:
            raise ValueError(f"the table's rules: {err}") from None

    def expansion_names(self) -> tuple[str, ...]:
        """The expansions `expansions` names (comma-separated), in its order."""
        return tuple(e.strip() for e in self.expansions.split(",") if e.strip())

    def rules(self) -> Rules:
        """The `Rules` of the table."""
        return Rules(
            players=self.players,
            followers=self.followers,
            small_city=self.small_city,
            farm_scoring=self.farm_scoring,
            farm_city_points=self.farm_city_points,
            hand_size=self.hand_size,
            expansions=self.expansion_names(),
            expansion_mode=self.expansion_mode,
        )


def require(settings: Any, name: str, kind: type, ok: Callable[[Any], bool], what: str) -> None:
    """ValueError unless settings.<name> is of `kind` (an int passes as a float; a bool
    passes only as a bool) and `ok`; the message names the command-line option."""
    value = getattr(settings, name)
    kinds = (int, float) if kind is float else (kind,)
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kinds) or not ok(value):
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
POLICY_OPTIONS = {
    "board": ("channels", "blocks", "global_pool"),
    "candidates": ("candidate_moves", "hidden"),
}


def check_policy_options(settings: Any, given: dict[str, Any]) -> None:
    """ValueError if an option `given` on the command line is one the run's policy
    ignores (e.g. --hidden with the board policy)."""
    policy = getattr(settings, "policy", None)
    for other, names in POLICY_OPTIONS.items():
        if other == policy or policy is None:
            continue
        ignored = [option(n) for n in names if n in given]
        if ignored:
            raise ValueError(
                f"{', '.join(ignored)} set{'s' if len(ignored) == 1 else ''} "
                f"the {other} policy; this run uses --policy {policy} "
                f"(add --policy {other} to use it)"
            )


def add_settings_arguments(
    parser: argparse.ArgumentParser, cls: type, preset: dict[str, Any]
) -> None:
    """One --option per settings field of `cls` (a flag for a bool field): its help is the
    field's description and its default, the value in `preset` (the default recipe) or
    else the field's own. The options default to None: what is not given comes from the
    preset the run uses."""
    group = parser.add_argument_group("settings (each given one overrides the preset's value)")
    for f in dataclasses.fields(cls):
        about = f"{f.metadata.get('help', '')} (default: {shown(preset.get(f.name, f.default))})"
        if str(f.type) == "bool":  # a flag: given, True; not given, the preset's value
            group.add_argument(
                option(f.name), action="store_true", default=None, help=about.replace("%", "%%")
            )
            continue
        kind, metavar = {"int": (int, "N"), "float": (float, "X"), "str": (str, "TEXT")}[
            str(f.type)
        ]
        group.add_argument(
            option(f.name), type=kind, default=None, metavar=metavar, help=about.replace("%", "%%")
        )


def shown(value: Any) -> str:
    """A setting's value as the help and the preset list show it ("" as "none")."""
    return "none" if value == "" else str(value)


def preset_changes(cls: type, base: dict[str, Any], preset: dict[str, Any]) -> list[str]:
    """The options that turn the recipe `base` into `preset` (settings of `cls`), as
    "--name value" in the fields' order."""
    before, after = settings_from(cls, base, {}), settings_from(cls, preset, {})
    policy = getattr(after, "policy", None)
    unread = [n for other, names in POLICY_OPTIONS.items() if other != policy for n in names]
    return [
        f"{option(f.name)} {shown(getattr(after, f.name))}"
        for f in dataclasses.fields(cls)
        if getattr(after, f.name) != getattr(before, f.name) and f.name not in unread
    ]
