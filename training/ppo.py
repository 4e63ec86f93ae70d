"""The PPO trainers' model: a new MaskablePPO (the learner of `training.learner`) from
the settings (`new_model`), or the resumed run's (`load_or_create`), and its training to
the target with checkpoints, the learning curve and a progress bar (`learn`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecEnv

from carcassonne_env.encoding import Encoder
from carcassonne_env.model_file import save_model

from .buffers import CompactMaskableDictRolloutBuffer
from .callbacks import Checkpoints, EpisodeCurve, ProgressBar, budget_session, save_checkpoint
from .learner import ThreadedMaskablePPO, candidate_buffer_options
from .policy import BoardPolicy, CandidatePolicy
from .run_folder import FINAL_MODEL, Session, saved_progress
from .settings import POLICY_OPTIONS, PPOSettings, TableSettings
from .warm_start import load_policy_weights


def new_model(settings: PPOSettings, venv: VecEnv, run_dir: Path) -> ThreadedMaskablePPO:
    """A fresh MaskablePPO (`ThreadedMaskablePPO`: its updates on settings.torch_threads
    threads) with `BoardPolicy` or `CandidatePolicy` (settings.policy), logging to
    run_dir/tb; with settings.init, its policy starts from that model's weights
    (`training.warm_start`)."""
    s = settings
    policy: type[MaskableActorCriticPolicy]
    kwargs: dict[str, Any]
    if s.policy == "candidates":
        policy, kwargs = CandidatePolicy, {"hidden": s.hidden}
    else:
        prior = getattr(s, "move_prior", 0)  # train multi's settings (training.train_multi)
        policy, kwargs = (
            BoardPolicy,
            {
                "channels": s.channels,
                "blocks": s.blocks,
                "global_pool": bool(s.global_pool),
                **({"prior_weight": prior} if prior else {}),
            },
        )
    model = ThreadedMaskablePPO(
        policy,
        venv,
        threads=s.torch_threads,
        n_steps=s.n_steps,
        batch_size=s.batch_size,
        n_epochs=s.n_epochs,
        learning_rate=s.learning_rate,
        gamma=s.gamma,
        gae_lambda=s.gae_lambda,
        clip_range=s.clip_range,
        ent_coef=s.ent_coef,
        vf_coef=s.vf_coef,
        rollout_buffer_class=CompactMaskableDictRolloutBuffer,
        rollout_buffer_kwargs=buffer_options(s.policy, venv.observation_space),
        policy_kwargs=kwargs,
        tensorboard_log=str(run_dir / "tb"),
        seed=s.seed,
        device="cpu",
        verbose=0,
    )
    if s.init:
        load_policy_weights(model, s.init, POLICY_OPTIONS[s.policy], run_encoder(s))
    return model


def run_encoder(settings: PPOSettings) -> Encoder | None:
    """The encoder of a multi-player run's observations (`TableSettings`: its table, an
    `--init` model of another table is matched to it), None for other runs."""
    if not isinstance(settings, TableSettings):
        return None
    options = settings.env_options()
    return Encoder(settings.rules(), settings.board_size, "turn", **options)


def buffer_options(policy: str, observation_space: spaces.Space) -> dict[str, Any]:
    """`CompactMaskableDictRolloutBuffer`'s options for `policy`: the candidate policy's
    rollouts keep the candidate rows packed and leave out what it does not read."""
    return candidate_buffer_options(observation_space) if policy == "candidates" else {}


def load_or_create(
    settings: PPOSettings, venv: VecEnv, run_dir: Path, resume: bool
) -> ThreadedMaskablePPO:
    """With `resume`, the run's furthest saved model (`saved_progress`; reseeded with
    seed + its timesteps: reproducible, fresh games) bound to `venv`, as a
    `ThreadedMaskablePPO` on settings.torch_threads threads; otherwise, or if the run has
    saved no model yet, a new model."""
    saved = saved_progress(run_dir) if resume else None
    if saved is None:
        return new_model(settings, venv, run_dir)
    from agents.sb3_policy import open_model

    model = open_model(
        saved[1],
        algorithm=ThreadedMaskablePPO,
        threads=settings.torch_threads,
        env=venv,
        tensorboard_log=str(run_dir / "tb"),
        rollout_buffer_class=CompactMaskableDictRolloutBuffer,
        rollout_buffer_kwargs=buffer_options(settings.policy, venv.observation_space),
    )
    model.set_random_seed(settings.seed + model.num_timesteps)
    return model


def prepare_torch(settings: PPOSettings) -> None:
    """PyTorch's thread count outside the PPO learner's phases (which run PyTorch on one
    thread each and parallelise otherwise: `training.learner`): settings.torch_threads."""
    torch.set_num_threads(settings.torch_threads)


def learn(
    model: MaskablePPO,
    settings: PPOSettings,
    run_dir: Path,
    curve: EpisodeCurve,
    session: Session,
    extra: Sequence[BaseCallback] = (),
) -> MaskablePPO:
    """Train up to settings.total_timesteps (counting what a resumed model has done) or
    until the `session`'s budget ends it (`budget_session`), with checkpoints, the
    learning curve, `extra` callbacks and, as the session asks, a progress bar; saves
    run_dir/model.zip."""
    targets, timing = budget_session(settings, session, model.num_timesteps, curve.describe)
    remaining = targets.total_timesteps - model.num_timesteps
    callbacks: list[BaseCallback] = [
        Checkpoints(max(1, settings.checkpoint_every // settings.n_envs), run_dir),
        curve,
        *extra,
        *timing,
    ]
    if session.progress and not timing:
        callbacks.append(ProgressBar(settings.total_timesteps, model.num_timesteps, curve.describe))
    if remaining > 0:
        model.learn(
            remaining,
            callback=CallbackList(callbacks),
            reset_num_timesteps=model.num_timesteps == 0,
            tb_log_name="ppo",
        )
    else:
        print(
            f"{run_dir}: {model.num_timesteps} timesteps done already (target "
            f"{settings.total_timesteps}); raise it with --total-timesteps to train on",
            file=sys.stderr,
        )
    # model.zip slim, to play with; the run resumes from its newest checkpoint, whole
    save_checkpoint(model, run_dir)
    save_model(model, run_dir / FINAL_MODEL, slim=True)
    return model
