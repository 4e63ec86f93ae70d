"""MaskablePPO for Carcassonne at a table of 2-5 players by self-play: every episode the
learning seat (drawn per game) meets opponents drawn from a pool of built-in bots and
frozen snapshots of the policy itself (the newest snapshot half of the time), in every
other seat.

    carcassonne train multi --out runs/duel --minutes 15       # the default recipe, 15 min
    carcassonne train multi --out runs/duel --resume --minutes 15  # 15 minutes more
    carcassonne train multi --out runs/duel                    # to its step target
    carcassonne train multi --preset board --out runs/board    # the board planes
    carcassonne train multi --out runs/duel2 --init ppo_duel_rl_280k --bots heuristic
    carcassonne train multi --players 3 --out runs/3p --minutes 15   # a 3-player table
    carcassonne train multi --expansions inns_cathedrals,traders_builders --out runs/exp

The default recipe (preset "candidates") learns by RL alone over the candidate moves,
rewarded by the rise of the projected margin, every game against the jitted greedy or
heuristic bot: ppo_duel_rl_280k's, the start of ppo_duel_rl (``carcassonne train card
ppo_duel_rl_280k``). The table is set by the rule options of ``carcassonne play``
(--players, --expansions, --hand-size, the farm and city options; `TableSettings`): with
3 or more players the margin is over the best other seat or the others' mean
(--potential; `training.shaping`), and an expansion's figures (the large follower, the
builder, the pig) are candidate moves like any other. The model file records the table:
the ``sb3`` bot plays it there and refuses another.

--env python plays every game in a Python `VsBotsEnv` with Python bots; --env batched
plays them in jitted `VsBotsVectorEnv`s (one per built-in bot, one against the league of
snapshots: `training.league`), many times faster. --init starts a new run from the
policy weights of another run's model (e.g. behaviour cloning: ``carcassonne train bc``,
`training.imitation`).

--gate-every N makes the run a loop of generations: every N timesteps the learner plays
the newest generation, and only a learner that beats it (a gate, then a confirmation)
joins the pool, as the next generation (`training.generations`).

A run folder holds config.json, checkpoints/, pool/ (the snapshots' weights), tb/,
curve.csv (recent win rate against each kind of opponent, per rollout) and model.zip; a
--minutes run adds curve.png and its evaluation (evaluation.json, evaluation.md). The
model plays as a bot: ``carcassonne arena --bots sb3:model=runs/duel/model.zip,greedy``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecMonitor

from agents import split_specs
from agents.sb3_policy import SB3Agent
from carcassonne_env.atomic import atomic_path
from carcassonne_env.bots import make_bot
from carcassonne_env.bots.jitted_bots import bot_spec
from carcassonne_env.cli_errors import run_script
from carcassonne_env.encoding import WindowOverflowError, empty_observation
from carcassonne_env.envs import VsBotsEnv, VsBotsVectorEnv
from carcassonne_env.envs.driver import REWARDS
from carcassonne_env.model_file import mark_rules

from .callbacks import EpisodeCurve
from .cli import run_cli
from .generations import GateSettings, GenerationCallback, drop_unrecorded, recorded_wall
from .league import JoinedVecEnv, League, frozen_copy
from .ppo import learn, load_or_create, prepare_torch
from .run_folder import Session, SessionOptions, cleanup_on_failure, plan_run, record_run
from .settings import PPOSettings, TableSettings, require, setting
from .shaping import MARGINS, ProjectedReward

if TYPE_CHECKING:
    from typing_extensions import Unpack

SELF = "self"  # the curve's label for games against policy snapshots


@dataclasses.dataclass
class MultiSettings(TableSettings, GateSettings, PPOSettings):
    """PPO settings plus the table (`TableSettings`), the self-play pool and, with
    gate_every, the loop of generations (`training.generations`)."""

    board_size: int = setting(
        20, "the observation's window B (cells a side; moves outside it are masked out)"
    )
    bots: str = setting(
        "random,greedy,heuristic", "the built-in opponents, comma-separated bot specs"
    )
    bot_share: float = setting(
        0.5, "the share of games against a built-in bot; the others meet snapshots of the policy"
    )
    snapshot_every: int = setting(
        25_000, "timesteps between snapshots of the policy joining the pool"
    )
    pool_size: int = setting(8, "snapshots kept in the pool (the oldest leave first)")
    reward: str = setting(
        "margin",
        "margin (own points minus the opponents' mean), score or win "
        "at the end; projected: the rise of the projected margin every "
        "step (--env batched, --obs-features aggregate; training.shaping)",
    )
    reward_scale: float = setting(
        0.1, "the rewards are multiplied by this (keeps the value targets near 1)"
    )
    win_bonus: float = setting(
        0.0,
        "points added to a won game's projected rewards and "
        "taken from a lost one's (--reward projected)",
    )
    potential: str = setting(
        "mean",
        "--reward projected: own projected score minus the others' mean or the best "
        "other's (mean or best; with 2 players both are the margin)",
    )
    env: str = setting(
        "python",
        "python: Python envs and bots; batched: jitted vector envs, "
        "many times faster (training.league)",
    )
    move_prior: float = setting(
        0.0,
        "w > 0: the board policy also sees the heuristic's move "
        "prior and its logits start as w x prior; 0: no prior",
    )
    gate_every: int = setting(
        0,
        "N > 0: every N timesteps the learner is gated against the "
        "newest generation and only generations join the league "
        "(training.generations); 0: snapshots join every "
        "--snapshot-every timesteps",
    )

    def check(self) -> None:
        super().check()
        self.check_table()
        require(self, "gate_every", int, lambda v: v >= 0, "an integer >= 0")
        if self.gate_every:
            self.check_gate()
            if self.players != 2:
                raise ValueError(
                    "--gate-every gates the learner in 2-player matches against its newest "
                    f"generation: it needs --players 2, got {self.players}"
                )
        require(self, "env", str, lambda v: v in ("python", "batched"), "python or batched")
        if self.env == "batched":
            for spec in split_specs(self.bots):
                try:
                    bot_spec(spec)
                except ValueError as err:
                    raise ValueError(f"--bots with --env batched: {err}") from None
        if not split_specs(self.bots):
            raise ValueError(
                "--bots needs at least one built-in bot (the opponent before the first snapshot)"
            )
        for spec in split_specs(self.bots):
            try:
                make_bot(spec)
            except ValueError as err:
                raise ValueError(f"--bots: {err}") from None
        require(self, "bot_share", float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require(self, "move_prior", float, lambda v: v >= 0, "a number >= 0")
        if self.move_prior and self.policy != "board":
            raise ValueError("--move-prior is an input of the board policy (--policy board)")
        if self.move_prior and (self.env != "batched" or self.bot_share != 1):
            raise ValueError(
                "--move-prior needs --env batched and --bot-share 1 (policy "
                "snapshots as opponents would need the prior too)"
            )
        for name in ("snapshot_every", "pool_size"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        require(
            self,
            "reward",
            str,
            lambda v: v in (*REWARDS, "projected"),
            f"one of {', '.join(REWARDS)}, projected",
        )
        if self.reward == "projected" and (
            self.env != "batched" or self.obs_features != "aggregate"
        ):
            raise ValueError(
                "--reward projected needs --env batched and --obs-features "
                "aggregate (the projected scores are in that observation)"
            )
        require(self, "reward_scale", float, lambda v: v > 0, "a number > 0")
        require(self, "win_bonus", float, lambda v: v >= 0, "a number >= 0")
        if self.win_bonus and self.reward != "projected":
            raise ValueError("--win-bonus adds to --reward projected")
        require(self, "potential", str, lambda v: v in MARGINS, " or ".join(MARGINS))
        if self.potential != "mean" and self.reward != "projected":
            raise ValueError("--potential shapes --reward projected")


# The recipes (--preset NAME; the first is the default), each the settings it takes from
# MultiSettings' defaults: the one place a recipe is set. "candidates": ppo_duel_rl_280k's
# (see the module docstring); "board": the board planes (BoardPolicy) over Python envs
# against bots and snapshots, 450k steps; "board-quick": its first 150k steps.
_BOARD = {
    "n_envs": 16,
    "n_steps": 128,
    "batch_size": 256,
    "n_epochs": 2,
    "learning_rate": 1e-3,
    "channels": 32,
    "blocks": 2,
    "checkpoint_every": 50_000,
}
PRESETS: dict[str, dict[str, Any]] = {
    "candidates": {
        "env": "batched",
        "policy": "candidates",
        "hidden": 64,
        "obs_features": "aggregate",
        "reward": "projected",
        "board_size": 20,
        "bots": "greedy,heuristic",
        "bot_share": 1.0,
        "n_envs": 128,
        "n_steps": 16,
        "batch_size": 512,
        "n_epochs": 2,
        "learning_rate": 1e-3,
        "ent_coef": 0.0,
        "gamma": 0.97,
        "gae_lambda": 0.8,
        "torch_threads": 2,
        "total_timesteps": 2_000_000,
        "checkpoint_every": 100_000,
    },
    "board": {**_BOARD, "total_timesteps": 450_000},
    "board-quick": {**_BOARD, "total_timesteps": 150_000},
}


class OpponentPool:
    """Built-in bots and frozen policy snapshots; `draw` picks an episode's opponent."""

    def __init__(self, bots: list[str], bot_share: float, size: int) -> None:
        if not bots:
            raise ValueError(
                "the pool needs at least one built-in bot (the opponent before the first snapshot)"
            )
        for spec in bots:
            make_bot(spec)  # fail now on an unknown bot
        if not 0.0 <= bot_share <= 1.0:
            raise ValueError(f"bot_share must be in [0, 1], got {bot_share}")
        self.bots, self.bot_share, self.size = bots, bot_share, size
        self.snapshots: list[tuple[str, SB3Agent]] = []

    def add(self, label: str, policy: Any, weights: dict | None = None) -> None:
        """A frozen copy of `policy` (with `weights`, a state dict, if given) joins the
        pool; it samples its moves, for variety."""
        self.snapshots.append((label, SB3Agent(frozen_copy(policy, weights), deterministic=False)))
        del self.snapshots[: -self.size]

    def draw(self, rng: np.random.Generator) -> tuple[str, Any]:
        """(label, agent): a bot with chance bot_share (always, while there is no
        snapshot), else the newest snapshot or, half of the time, an older one."""
        if not self.snapshots or (self.bots and rng.random() < self.bot_share):
            spec = self.bots[int(rng.integers(len(self.bots)))]
            return spec, make_bot(spec, seed=int(rng.integers(2**63)))
        k = len(self.snapshots) - 1
        if k and rng.random() < 0.5:
            k = int(rng.integers(k))
        return SELF, self.snapshots[k][1]


class SelfPlayEnv(VsBotsEnv):
    """`Carcassonne/VsBots-v0` whose opponent comes from an `OpponentPool` each episode;
    rewards scaled by `reward_scale`; ``info["opponent"]`` names the opponent. A game
    whose board outgrows the window so far that no legal move fits is cut short
    (truncated) instead of stopping the run."""

    def __init__(self, pool: OpponentPool, reward_scale: float = 1.0, **kwargs: Any) -> None:
        super().__init__(opponents=pool.bots[:1], **kwargs)  # replaced per episode
        self.pool, self.reward_scale = pool, reward_scale
        self.opponent = ""

    def _make_bots(self, seats: list[int]) -> dict[int, Any]:
        """One draw from the pool for the episode; with 3 or more players the same
        opponent plays every other seat (a bot: one per seat, each with its own seed)."""
        rng = self.np_random
        self.opponent, first = self.pool.draw(rng)
        bots = {seats[0]: first}
        for seat in seats[1:]:
            bots[seat] = (
                first
                if self.opponent == SELF
                else make_bot(self.opponent, seed=int(rng.integers(2**63)))
            )
        return bots

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = super().reset(seed=seed, options=options)
        info["opponent"] = self.opponent
        return obs, info

    def step(self, action):
        try:
            obs, reward, terminated, truncated, info = super().step(action)
        except WindowOverflowError:
            obs = empty_observation(self.observation_space)
            return obs, 0.0, False, True, {"opponent": self.opponent, "window_overflow": True}
        info["opponent"] = self.opponent
        return obs, reward * self.reward_scale, terminated, truncated, info


def win_against(label: str) -> Callable[[dict], float | None]:
    """Curve metric: 1 / 0.5 / 0 for a won / drawn / lost game against `label`."""

    def metric(info: dict) -> float | None:
        if (
            info.get("opponent") != label
            or "scores" not in info
            or "illegal_move" in info
            or info.get("window_overflow")
        ):  # a game cut short has no result
            return None
        mine = info["scores"][info["seat"]]
        best_other = max(s for p, s in enumerate(info["scores"]) if p != info["seat"])
        return 1.0 if mine > best_other else 0.5 if mine == best_other else 0.0

    return metric


def join_pool(pool: OpponentPool | League, folder: Path, policy: Any, timesteps: int) -> None:
    """`policy` as it is after `timesteps` joins the pool; its weights are saved in
    `folder` so a resumed run gets its pool back (`restore_pool`)."""
    label = f"snapshot_{timesteps}"
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_path(folder / f"{label}.pt") as tmp:  # whole or not at all
        torch.save(policy.state_dict(), tmp)
    pool.add(label, policy)


class SnapshotCallback(BaseCallback):
    """Every `every` timesteps the current policy joins the pool (`join_pool`)."""

    def __init__(self, pool: OpponentPool | League, every: int, folder: Path) -> None:
        super().__init__()
        self.pool, self.every, self.folder = pool, every, folder
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            join_pool(self.pool, self.folder, self.model.policy, self.num_timesteps)


def restore_pool(pool: OpponentPool | League, policy: Any, folder: Path) -> None:
    """Reload the saved snapshots (oldest first) into the pool."""
    saved = sorted(folder.glob("snapshot_*.pt"), key=lambda p: int(p.stem.split("_")[1]))
    for path in saved[-pool.size :]:
        pool.add(path.stem, policy, torch.load(path, weights_only=True))


def make_env(settings: MultiSettings, pool: OpponentPool) -> VecMonitor:
    """n_envs self-play games in this process (they share the pool)."""

    def one() -> SelfPlayEnv:
        return SelfPlayEnv(
            pool,
            settings.reward_scale,
            reward=settings.reward,
            board_size=settings.board_size,
            rules=settings.rules(),
            **settings.env_options(),
        )

    return VecMonitor(DummyVecEnv([one] * settings.n_envs))


def make_batched_env(settings: MultiSettings) -> tuple[VecMonitor, League | None]:
    """The batched games at the settings' table: n_envs split between the built-in bots
    (bot_share of them, evenly) and the league of snapshots (the rest), each game's
    other seats all played by its group's opponent; returns the env and the league."""
    bots = split_specs(settings.bots)
    n_bot = round(settings.n_envs * settings.bot_share)
    per_bot = max(1, n_bot // len(bots)) if n_bot else 0
    n_league = settings.n_envs - per_bot * len(bots)
    league = League(n_league, settings.pool_size, settings.seed) if n_league > 0 else None

    def group(n: int, opponent: Any) -> VsBotsVectorEnv:
        reward = "margin" if settings.reward == "projected" else settings.reward
        return VsBotsVectorEnv(
            n,
            opponents=opponent,
            rules=settings.rules(),
            reward=reward,
            board_size=settings.board_size,
            on_overflow="truncate",
            num_threads=settings.torch_threads,
            **settings.env_options(),
        )

    groups = [(spec, group(per_bot, spec)) for spec in bots if per_bot]
    if league is not None:
        groups.append((SELF, group(n_league, league)))
    venv: VecEnv = JoinedVecEnv(groups, settings.reward_scale, prior=bool(settings.move_prior))
    if settings.reward == "projected":
        venv = ProjectedReward(
            venv,
            groups[0][1].encoder.feature_names,
            seats=settings.players,
            potential=settings.potential,
            scale=settings.reward_scale,
            win_bonus=settings.win_bonus,
        )
    return VecMonitor(venv), league


def train(
    settings: MultiSettings,
    out: Path,
    callbacks: Sequence[BaseCallback] = (),
    **options: Unpack[SessionOptions],
) -> MaskablePPO:
    """Train a self-play run in folder `out`, a new one or the one there continued, as
    the `options` say (`run_folder.Session`: resume, changes, overwrite, progress,
    budget); returns the model. `callbacks`: more SB3 callbacks for `learn`."""
    session = Session(**options)
    settings = plan_run(out, settings, session)
    prepare_torch(settings)
    bots = split_specs(settings.bots)
    pool: OpponentPool | League | None
    if settings.env == "batched":
        env, pool = make_batched_env(settings)
    else:
        pool = OpponentPool(bots, settings.bot_share, settings.pool_size)
        env = make_env(settings, pool)
    model = load_or_create(settings, env, out, session.resume)
    mark_rules(model, settings.rules())
    with cleanup_on_failure(out, new_run=not session.resume, model=model):
        record_run(out, settings, session)
        if settings.gate_every:
            drop_unrecorded(out)
        if model.num_timesteps and pool is not None:
            restore_pool(pool, model.policy, out / "pool")
        if settings.gate_every and pool is not None and not model.num_timesteps:
            join_pool(pool, out / "pool", model.policy, 0)  # generation 0
        if isinstance(pool, League) and not pool.snapshots:
            pool.add("snapshot_0", model.policy)  # the league's first opponent
        curve = EpisodeCurve(
            out,
            {f"win_vs_{label}": win_against(label) for label in [*bots, SELF]},
            wall_floor=recorded_wall(out) if settings.gate_every else 0.0,
        )
        extra: list[BaseCallback]
        if settings.gate_every:

            def join(policy: Any, timesteps: int) -> None:
                if pool is not None:
                    join_pool(pool, out / "pool", policy, timesteps)

            extra = [
                GenerationCallback(
                    settings,
                    settings.gate_every,
                    out,
                    join,
                    lambda: time.perf_counter() - curve.wall0,
                )
            ]
        else:
            extra = [SnapshotCallback(pool, settings.snapshot_every, out / "pool")] if pool else []
        return learn(model, settings, out, curve, session, [*extra, *callbacks])


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    return run_cli(
        "carcassonne train multi",
        __doc__,
        MultiSettings,
        PRESETS,
        train,
        argv,
        target="total_timesteps",
    )


if __name__ == "__main__":
    raise SystemExit(run_script(main))
