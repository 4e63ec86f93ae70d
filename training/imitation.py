"""Behaviour cloning from a jitted bot (DAgger style), a warm start for PPO: the policy
learns to choose what the teacher (by default the heuristic bot) would choose, in the
positions it reaches itself, and its value head learns the teacher's estimate of the
margin still to come.

    carcassonne train bc --out runs/bc                    # the full recipe
    carcassonne train bc --preset quick --out runs/bc     # its first 300k steps
    carcassonne train multi --out runs/duel --init runs/bc/model.zip   # then PPO
    carcassonne train bc --players 1 --out runs/bc-solo   # the solo variant

Every step plays `n_envs` games one move further in a `VsBotsVectorEnv` (the learner
against `opponents`, jitted; ``--players 1``: solo games in a `SoloVectorEnv`). Per
game the env gives the teacher's move and its soft targets (`teacher` of the vector
envs: a softmax over the heuristic's evaluation of every legal move, at `temperature`
points); the policy takes one gradient
step on the cross-entropy to them plus `vf_coef` times the squared error of its value
against ``reward_scale`` times the teacher's margin estimate (the scale of the PPO
runs' margin rewards). The move played is the teacher's with chance `teacher_share`,
else the policy's own sample, so the data cover the positions the policy reaches.

Every `eval_every` steps the deterministic policy plays `eval_games` games against
`eval_opponent` (the same decks each time; solo: `eval_games` games, their mean
result): curve.csv gets its win rate (or result) and the share of
moves where the policy agreed with the teacher. The run folder is laid out as the PPO
runs' (config.json, checkpoints/, curve.csv, model.zip: a MaskablePPO with the trained
`BoardPolicy`), so ``--resume``, ``carcassonne train evaluate`` and ``train plot`` work
on it, and ``sb3:model=runs/bc/model.zip`` plays it as a bot.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from tqdm.auto import tqdm

from agents import split_specs
from carcassonne_env.bots.jitted_bots import bot_spec
from carcassonne_env.cli_errors import run_script
from carcassonne_env.envs import SoloVectorEnv, VsBotsVectorEnv
from carcassonne_env.envs.vector_base import BatchedGamesEnv
from carcassonne_env.model_file import mark_solo, save_model

from .cli import run_cli
from .curves import append_row, continue_curve
from .ppo import load_or_create, prepare_torch
from .run_folder import (
    CHECKPOINTS,
    CURVE_FILE,
    FINAL_MODEL,
    Session,
    SessionOptions,
    checkpoint_path,
    cleanup_on_failure,
    plan_run,
    record_run,
)
from .settings import PPOSettings, require, setting

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclasses.dataclass
class ImitationSettings(PPOSettings):
    """Behaviour-cloning settings. Of the PPO settings, n_envs (games stepped together:
    the batch of every gradient step), learning_rate, vf_coef, the policy's (channels,
    blocks, global_pool, board_size, obs_features), seed, checkpoint_every and
    torch_threads apply; the others are stored in the model for a later PPO run."""

    total_timesteps: int = setting(
        200_000,
        "the timesteps (the learner's decisions) to train to, counted from the start of the run",
    )
    players: int = setting(2, "seats; 1: the solo variant (3 colours, SoloVectorEnv)")
    teacher: str = setting("heuristic", "the bot cloned (a jitted bot spec)")
    temperature: float = setting(
        1.0, "points: the softness of the teacher's targets (softmax of its evaluations over this)"
    )
    opponents: str = setting("greedy", "the jitted bot(s) of the other seats, comma-separated")
    teacher_share: float = setting(
        0.5, "the chance that a game plays the teacher's move, not the policy's"
    )
    reward_scale: float = setting(0.1, "value targets: the teacher's margin estimate times this")
    eval_every: int = setting(20_000, "timesteps between evaluations (curve.csv rows)")
    eval_games: int = setting(100, "games (solo: deals) of each evaluation, the same every time")
    eval_opponent: str = setting("greedy", "the jitted bot of the evaluation games")

    def check(self) -> None:
        super().check()
        require(self, "total_timesteps", int, lambda v: v >= 1, "a positive integer")
        require(
            self,
            "players",
            int,
            lambda v: 1 <= v <= 6,
            "an integer in [1, 6] (1: the solo variant)",
        )
        for name in ("teacher", "eval_opponent"):
            try:
                bot_spec(getattr(self, name))
            except ValueError as err:
                raise ValueError(f"--{name.replace('_', '-')}: {err}") from None
        specs = split_specs(self.opponents)
        if self.players == 1:
            specs = []  # solo: no opponents
        elif len(specs) not in (1, self.players - 1):
            raise ValueError(f"--opponents: give one bot or {self.players - 1}, got {specs}")
        for spec in specs:
            try:
                bot_spec(spec)
            except ValueError as err:
                raise ValueError(f"--opponents: {err}") from None
        require(self, "temperature", float, lambda v: v >= 0, "a number >= 0")
        require(self, "teacher_share", float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require(self, "reward_scale", float, lambda v: v > 0, "a number > 0")
        for name in ("eval_every", "eval_games"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")


_BC = {
    "n_envs": 128,
    "learning_rate": 1e-3,
    "channels": 32,
    "blocks": 3,
    "global_pool": 1,
    "board_size": 20,
    "obs_features": "aggregate",
    "n_steps": 64,
    "batch_size": 512,
    "n_epochs": 2,
    "checkpoint_every": 100_000,
}
# The recipes (--preset NAME; the first is the default): "quick" is the first 300k
# steps of "full" (--resume --total-timesteps carries it on).
PRESETS: dict[str, dict[str, Any]] = {
    "full": {**_BC, "total_timesteps": 1_200_000},
    "quick": {**_BC, "total_timesteps": 300_000},
}


def make_env(
    settings: ImitationSettings, num_envs: int, opponents: list[str], reward: str = "margin"
) -> BatchedGamesEnv:
    """The batched games the policy plays (one numba thread per PyTorch thread): a
    `SoloVectorEnv` for players=1, else a `VsBotsVectorEnv`. A game with no legal move
    inside the window is cut short (`on_overflow="truncate"`), not the run."""
    if settings.players == 1:
        return SoloVectorEnv(
            num_envs,
            board_size=settings.board_size,
            obs_features=settings.obs_features,
            num_threads=settings.torch_threads,
            on_overflow="truncate",
        )
    return VsBotsVectorEnv(
        num_envs,
        opponents=opponents,
        players=settings.players,
        reward=reward,
        board_size=settings.board_size,
        obs_features=settings.obs_features,
        num_threads=settings.torch_threads,
        on_overflow="truncate",
    )


def policy_outputs(
    policy: Any, obs: dict[str, np.ndarray], masks: np.ndarray
) -> tuple[th.Tensor, th.Tensor]:
    """(masked log-probabilities [N, actions], values [N]) of a `BoardPolicy`."""
    obs_t, _ = policy.obs_to_tensor(obs)
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs_t))
    logits = policy.action_net(latent_pi)
    legal = th.as_tensor(masks, dtype=th.bool)
    return th.log_softmax(logits.masked_fill(~legal, -1e8), 1), policy.value_net(latent_vf).squeeze(
        1
    )


def judge(policy: Any, env: BatchedGamesEnv, seed: int) -> float:
    """The deterministic `policy`'s mean result over the first game of every sub-env of
    `env` (reset with `seed`: the same decks and seats every call): the win rate (a draw
    counts half; `env` has reward "win") or, solo, the lowest colour's score."""
    obs, _ = env.reset(seed=seed)
    result = np.full(env.num_envs, np.nan)
    with th.no_grad():
        while np.isnan(result).any():
            logp, _ = policy_outputs(policy, obs, env.action_masks())
            obs, rewards, terminated, _, infos = env.step(logp.argmax(1).numpy())
            first = np.flatnonzero(terminated & np.isnan(result))
            for i in first:
                if isinstance(env, SoloVectorEnv):
                    result[i] = min(infos["final_info"]["scores"][i])
                else:
                    result[i] = (rewards[i] + 1) / 2  # reward "win": 1 / 0 / -1
    return float(result.mean())


def _crossed(before: int, after: int, every: int) -> bool:
    """Whether a multiple of `every` lies in (before, after]."""
    return after // every > before // every


def _gumbel_sample(logp: th.Tensor) -> np.ndarray:
    u = th.rand_like(logp).clamp_(1e-12, 1.0)
    return (logp - th.log(-th.log(u))).argmax(1).numpy()


class ImitationCurve:
    """curve.csv of an imitation run: timesteps, wall_s, episodes, the evaluation
    (`metric`: the win rate against the evaluation opponent, or the solo result),
    agreement with the teacher (since the last row)."""

    def __init__(self, run_dir: Path, metric: str, timesteps: int) -> None:
        self.path = run_dir / CURVE_FILE
        self.header = ["timesteps", "wall_s", "episodes", metric, "teacher_agreement"]
        self.episodes, wall = continue_curve(self.path, self.header, timesteps)
        self.wall0 = time.perf_counter() - wall

    def add(self, timesteps: int, win: float, agreement: float) -> None:
        """Record one evaluation: the policy's win rate and its agreement with the teacher."""
        cells = [
            timesteps,
            round(time.perf_counter() - self.wall0, 1),
            self.episodes,
            round(win, 3),
            round(agreement, 3),
        ]
        append_row(self.path, self.header, dict(zip(self.header, cells, strict=True)))


def train(settings: ImitationSettings, out: Path, **options: Unpack[SessionOptions]) -> MaskablePPO:
    """Run behaviour cloning into folder `out`, a new run or the one there continued, as
    the `options` say (`run_folder.Session`; no budget); returns the model (a
    MaskablePPO holding the trained policy)."""
    session = Session(**options).untimed("behaviour cloning")
    settings = plan_run(out, settings, session)
    prepare_torch(settings)
    th.manual_seed(settings.seed)
    env = make_env(settings, settings.n_envs, split_specs(settings.opponents))
    model = load_or_create(settings, env.to_sb3(), out, session.resume)
    mark_solo(model, settings.players == 1)
    policy = model.policy
    policy.set_training_mode(True)
    optimizer = policy.optimizer
    for group in optimizer.param_groups:
        group["lr"] = settings.learning_rate
    judge_env = make_env(settings, settings.eval_games, [settings.eval_opponent], reward="win")
    metric = "result" if settings.players == 1 else f"win_vs_{settings.eval_opponent}"
    rng = np.random.default_rng(settings.seed + model.num_timesteps)
    with cleanup_on_failure(out, new_run=not session.resume, model=model):
        record_run(out, settings, session)
        curve = ImitationCurve(out, metric, model.num_timesteps)
        obs, _ = env.reset(seed=settings.seed + model.num_timesteps)
        agree = seen = 0

        def evaluate() -> None:
            nonlocal agree, seen
            policy.set_training_mode(False)
            value = judge(policy, judge_env, seed=10**6)
            policy.set_training_mode(True)
            curve.add(model.num_timesteps, value, agree / max(seen, 1))
            bar.set_postfix_str(f"{metric}={value:.2f} agreement={agree / max(seen, 1):.2f}")
            agree = seen = 0

        bar = tqdm(
            total=settings.total_timesteps,
            initial=model.num_timesteps,
            unit="step",
            dynamic_ncols=True,
            disable=not session.progress,
        )
        if model.num_timesteps == 0:
            evaluate()  # the untrained policy: the curve's first point
        while model.num_timesteps < settings.total_timesteps:
            masks = env.action_masks()
            teacher = env.teacher(settings.teacher, settings.temperature)
            logp, values = policy_outputs(policy, obs, masks)
            known = teacher.action >= 0
            cross_entropy = -(th.as_tensor(teacher.probs) * logp.clamp(min=-1e4)).sum(1)
            target = th.as_tensor(settings.reward_scale * teacher.margin, dtype=th.float32)
            loss = (
                cross_entropy[th.as_tensor(known)].mean()
                + settings.vf_coef * ((values - target) ** 2).mean()
            )
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            with th.no_grad():
                agree += int((logp.argmax(1).numpy() == teacher.action)[known].sum())
                seen += int(known.sum())
                actions = _gumbel_sample(logp.detach())
            follow = (rng.random(env.num_envs) < settings.teacher_share) & known
            actions[follow] = teacher.action[follow]
            obs, _, terminated, _, _ = env.step(actions)
            curve.episodes += int(terminated.sum())
            before = model.num_timesteps
            model.num_timesteps += env.num_envs
            bar.update(env.num_envs)
            if _crossed(before, model.num_timesteps, settings.checkpoint_every):
                (out / CHECKPOINTS).mkdir(exist_ok=True)
                save_model(model, checkpoint_path(out, model.num_timesteps))
            if (
                _crossed(before, model.num_timesteps, settings.eval_every)
                or model.num_timesteps >= settings.total_timesteps
            ):
                evaluate()
        bar.close()
        save_model(model, out / FINAL_MODEL)
        return model


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    return run_cli("carcassonne train bc", __doc__, ImitationSettings, PRESETS, train, argv)


if __name__ == "__main__":
    raise SystemExit(run_script(main))
