"""`ThreadedMaskablePPO`: sb3-contrib's MaskablePPO with the same losses and the same
saved models, whose updates use several cores without PyTorch's intra-op threads.

PyTorch parallelises each operation over its threads, with a join after every one: a
PPO minibatch is a few hundred small operations, so one thread that another job holds
off its core stalls them all (docs/training.md, "The PPO learner"). Here each minibatch
is cut into `threads` shards of consecutive samples (`CompactMaskableDictRolloutBuffer.
get_shards`); each shard's loss and gradients are computed on a Python thread of their
own with single-threaded operations (PyTorch releases the GIL inside them), and the
gradients are summed: one join per minibatch. The loss is SB3's, written as sums over
the shards divided by the minibatch size (advantages normalised over the whole
minibatch), so the update equals MaskablePPO's up to float rounding
(tests/training/test_learner.py).

Rollouts are MaskablePPO's loop with the policy's features (most of its forward pass)
computed the same way, in shards of the games on `threads` threads; the jitted vector
envs' own ``num_threads`` step the games. The candidate policy's moves are its
candidates, legal moves by construction (`CandidateCategorical` reads no mask), so its
rollouts fetch no action masks (steps x games x ~10^4 booleans).

A model is a `MaskablePPO`: `carcassonne_env.model_file.save_model` saves it as one, and
``MaskablePPO.load`` and ``sb3:model=`` load and play what it saved; a trainer resumes it
with ``agents.sb3_policy.open_model(path, algorithm=ThreadedMaskablePPO, ...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBufferSamples
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import explained_variance, obs_as_tensor
from stable_baselines3.common.vec_env import VecEnv
from torch.nn import functional as F

from agents.sb3_policy import torch_threads
from carcassonne_env.checks import check_int, check_space

from .buffers import CompactMaskableDictRolloutBuffer
from .policy import CandidatePolicy

Result = TypeVar("Result")


class ShardResult(NamedTuple):
    """One shard's gradients (of its share of the minibatch loss) and its sums over its
    samples of what MaskablePPO logs (each divided by the minibatch size)."""

    grads: tuple[th.Tensor | None, ...]
    policy_loss: float
    value_loss: float
    entropy_loss: float
    clip_fraction: float
    approx_kl: float


class ThreadedMaskablePPO(MaskablePPO):
    """MaskablePPO whose updates compute each minibatch's gradients on `threads` Python
    threads (shards of the minibatch, single-threaded PyTorch operations, gradients
    summed), needing `CompactMaskableDictRolloutBuffer` (the default here). Rollouts
    compute the policy's features on `threads` threads the same way; the candidate
    policy's rollouts fetch no action masks and keep its candidate rows packed
    (`candidate_buffer_options`, unless rollout_buffer_kwargs are given). Every other
    argument is MaskablePPO's, and so are the losses and saved models. PyTorch's thread
    count is restored after each phase."""

    rollout_buffer: CompactMaskableDictRolloutBuffer  # type: ignore[assignment]

    def __init__(self, *args: Any, threads: int = 1, **kwargs: Any) -> None:
        self.threads = check_int("threads", threads, 1)
        self._pool: ThreadPoolExecutor | None = None
        kwargs.setdefault("rollout_buffer_class", CompactMaskableDictRolloutBuffer)
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        buffer = self.rollout_buffer_class
        if not (isinstance(buffer, type) and issubclass(buffer, CompactMaskableDictRolloutBuffer)):
            raise ValueError(
                f"{type(self).__name__} samples shards of minibatches from a "
                "training.buffers.CompactMaskableDictRolloutBuffer, got "
                f"{getattr(buffer, '__name__', buffer)}"
            )
        if (
            not self.rollout_buffer_kwargs
            and isinstance(self.policy_class, type)
            and issubclass(self.policy_class, CandidatePolicy)
        ):
            self.rollout_buffer_kwargs = candidate_buffer_options(self.observation_space)
        super()._setup_model()

    def collect_rollouts(
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: RolloutBuffer,
        n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        """MaskablePPO's rollout loop (the same steps, callback calls, local names and
        buffer contents), PyTorch on one thread, the policy's features computed in shards
        of the games on `threads` threads (`_policy_step`); the candidate policy's
        rollouts fetch no masks."""
        obs = self._last_obs
        if not isinstance(obs, dict) or not isinstance(
            rollout_buffer, CompactMaskableDictRolloutBuffer
        ):
            raise TypeError(
                f"{type(self).__name__} rolls Dict observations out into a "
                "CompactMaskableDictRolloutBuffer"
            )
        masked = use_masking and not isinstance(self.policy, CandidatePolicy)
        if masked and not is_masking_supported(env):
            raise ValueError(
                "Environment does not support action masking. Consider using ActionMasker wrapper"
            )
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        callback.on_rollout_start()
        n_steps, action_masks = 0, None
        with torch_threads(1):
            while n_steps < n_rollout_steps:
                if masked:
                    action_masks = get_action_masks(env)
                with th.no_grad():
                    chosen, values, log_probs = self._policy_step(
                        obs_as_tensor(obs, self.device), action_masks
                    )
                actions = chosen.cpu().numpy()
                new_obs, rewards, dones, infos = env.step(actions)
                self.num_timesteps += env.num_envs
                callback.update_locals(locals())
                if not callback.on_step():
                    return False
                self._update_info_buffer(infos, dones)
                n_steps += 1
                if isinstance(self.action_space, spaces.Discrete):
                    actions = actions.reshape(-1, 1)
                self._bootstrap_cut_games(rewards, dones, infos)
                rollout_buffer.add(
                    obs,
                    actions,
                    rewards,
                    self._last_episode_starts,
                    values,
                    log_probs,
                    action_masks=action_masks,
                )
                if not isinstance(new_obs, dict):
                    raise TypeError(
                        f"the env gave {type(new_obs).__name__} observations, not a dict"
                    )
                obs = self._last_obs = new_obs
                self._last_episode_starts = dones
            with th.no_grad():
                values = self.policy.predict_values(obs_as_tensor(obs, self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.on_rollout_end()
        return True

    def _policy_step(
        self, obs: th.Tensor | dict[str, th.Tensor], action_masks: np.ndarray | None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """The policy's (actions, values, log-probabilities) of a batch of observations,
        as ``policy(obs, action_masks=...)``: the features (most of the work) of
        `threads` shards of the games in parallel, the rest here (the same random
        draws as one call)."""
        policy = self.policy
        n = len(next(iter(obs.values()))) if isinstance(obs, dict) else 0
        if self.threads == 1 or n < 2 * self.threads or not policy.share_features_extractor:
            return policy(obs, action_masks=action_masks)
        assert isinstance(obs, dict)  # (n > 0)
        cuts = np.linspace(0, n, self.threads + 1).astype(int)
        shards = [
            {key: value[a:b] for key, value in obs.items()}
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)
        ]

        def features(shard: dict[str, th.Tensor]) -> th.Tensor:
            out = policy.extract_features(shard)
            assert isinstance(out, th.Tensor)  # one extractor: one tensor
            return out

        latent_pi, latent_vf = policy.mlp_extractor(th.cat(self._parallel(features, shards)))
        values = policy.value_net(latent_vf)
        distribution = policy._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        actions = distribution.get_actions(deterministic=False)
        return actions, values, distribution.log_prob(actions)

    def _bootstrap_cut_games(
        self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]
    ) -> None:
        """A game cut short (``TimeLimit.truncated``) gets gamma times its last
        observation's value added to its reward, as SB3 does."""
        for i in np.flatnonzero(dones):
            last = infos[i].get("terminal_observation")
            if last is not None and infos[i].get("TimeLimit.truncated", False):
                with th.no_grad():
                    value = self.policy.predict_values(self.policy.obs_to_tensor(last)[0])[0]
                rewards[i] += self.gamma * value

    def _parallel(self, function: Callable[[Any], Result], items: Sequence[Any]) -> list[Result]:
        """`function` of each item, the first on this thread, the others on the pool's
        threads (at most `threads` at once), in order."""
        if len(items) > 1 and self._pool is None:  # (created inside a phase: torch at 1)
            self._pool = ThreadPoolExecutor(
                self.threads - 1, "ppo-learner", initializer=th.set_num_threads, initargs=(1,)
            )
        futures = [self._pool.submit(function, item) for item in items[1:]] if self._pool else []
        return [function(items[0]), *(future.result() for future in futures)]

    def train(self) -> None:
        """MaskablePPO's update (epochs of clipped-surrogate minibatch steps, the same
        logs), each minibatch's gradients computed shard by shard in parallel."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        progress = self._current_progress_remaining
        clip_range = float(self.clip_range(progress))  # type: ignore[operator]
        clip_range_vf = None if self.clip_range_vf is None else float(self.clip_range_vf(progress))  # type: ignore[operator]
        params = list(self.policy.parameters())
        logs: dict[str, list[float]] = {"policy": [], "value": [], "entropy": [], "clip": []}
        approx_kl_divs: list[float] = []
        loss = 0.0
        with torch_threads(1):
            for epoch in range(self.n_epochs):
                approx_kl_divs = []
                stop = False
                for shards in self.rollout_buffer.get_shards(self.batch_size, self.threads):
                    parts = self._shard_results(shards, params, clip_range, clip_range_vf)
                    sums = [sum(values) for values in zip(*(p[1:] for p in parts), strict=True)]
                    for key, value in zip(logs, sums[:4], strict=True):
                        logs[key].append(value)
                    approx_kl_divs.append(sums[4])
                    loss = sums[0] + self.ent_coef * sums[2] + self.vf_coef * sums[1]
                    if self.target_kl is not None and sums[4] > 1.5 * self.target_kl:
                        stop = True
                        if self.verbose >= 1:
                            print(
                                f"Early stopping at step {epoch} due to reaching max kl: "
                                f"{sums[4]:.2f}"
                            )
                        break
                    self._apply(params, [p.grads for p in parts])
                self._n_updates += 1
                if stop:
                    break
        self._record(logs, approx_kl_divs, loss, clip_range, clip_range_vf)

    def _shard_results(
        self,
        shards: Sequence[MaskableDictRolloutBufferSamples],
        params: Sequence[th.Tensor],
        clip_range: float,
        clip_range_vf: float | None,
    ) -> list[ShardResult]:
        """Every shard's `ShardResult`, the first on this thread, the others on the
        pool's."""
        advantages = th.cat([s.advantages for s in shards])
        if self.normalize_advantage:  # over the whole minibatch, as MaskablePPO does
            centre, scale = advantages.mean(), advantages.std() + 1e-8
        else:
            centre, scale = th.zeros(()), th.ones(())
        size = len(advantages)

        def run(samples: MaskableDictRolloutBufferSamples) -> ShardResult:
            return self._shard(samples, params, (centre, scale), size, clip_range, clip_range_vf)

        return self._parallel(run, shards)

    def _shard(
        self,
        samples: MaskableDictRolloutBufferSamples,
        params: Sequence[th.Tensor],
        normalise: tuple[th.Tensor, th.Tensor],
        size: int,
        clip_range: float,
        clip_range_vf: float | None,
    ) -> ShardResult:
        """One shard's part of MaskablePPO's minibatch loss (its sums divided by the
        minibatch `size`) and the gradients of that part."""
        actions = samples.actions
        if isinstance(self.action_space, spaces.Discrete):
            actions = actions.long().flatten()
        values, log_prob, entropy = self.policy.evaluate_actions(
            samples.observations,  # type: ignore[arg-type]  # (SB3's hint: a Tensor only)
            actions,
            action_masks=samples.action_masks,
        )
        values = values.flatten()
        advantages = (samples.advantages - normalise[0]) / normalise[1]
        ratio = th.exp(log_prob - samples.old_log_prob)
        policy_loss = (
            -th.min(
                advantages * ratio, advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
            ).sum()
            / size
        )
        values_pred = (
            values
            if clip_range_vf is None
            else samples.old_values
            + th.clamp(values - samples.old_values, -clip_range_vf, clip_range_vf)
        )
        value_loss = F.mse_loss(samples.returns, values_pred, reduction="sum") / size
        # no analytical entropy: minus the mean of -log_prob, as MaskablePPO
        entropy_loss = (-entropy.sum() if entropy is not None else log_prob.sum()) / size
        loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
        grads = th.autograd.grad(loss, params, allow_unused=True)
        with th.no_grad():
            clipped = (th.abs(ratio - 1) > clip_range).float().sum() / size
            log_ratio = log_prob - samples.old_log_prob
            kl = ((th.exp(log_ratio) - 1) - log_ratio).sum() / size
        return ShardResult(
            grads,
            policy_loss.item(),
            value_loss.item(),
            entropy_loss.item(),
            clipped.item(),
            kl.item(),
        )

    def _apply(
        self, params: Sequence[th.Tensor], grads: list[tuple[th.Tensor | None, ...]]
    ) -> None:
        """One optimizer step on the shards' summed gradients (clipped as SB3 does)."""
        for param, *shard_grads in zip(params, *grads, strict=True):
            present = [g for g in shard_grads if g is not None]
            param.grad = th.stack(present).sum(0) if present else None
        th.nn.utils.clip_grad_norm_(params, self.max_grad_norm)
        self.policy.optimizer.step()

    def _record(
        self,
        logs: dict[str, list[float]],
        approx_kl_divs: list[float],
        loss: float,
        clip_range: float,
        clip_range_vf: float | None,
    ) -> None:
        """MaskablePPO's "train/..." logs."""
        buffer = self.rollout_buffer
        record = self.logger.record
        record("train/entropy_loss", np.mean(logs["entropy"]))
        record("train/policy_gradient_loss", np.mean(logs["policy"]))
        record("train/value_loss", np.mean(logs["value"]))
        record("train/approx_kl", np.mean(approx_kl_divs))
        record("train/clip_fraction", np.mean(logs["clip"]))
        record("train/loss", loss)
        record(
            "train/explained_variance",
            explained_variance(buffer.values.flatten(), buffer.returns.flatten()),
        )
        record("train/n_updates", self._n_updates, exclude="tensorboard")
        record("train/clip_range", clip_range)
        if clip_range_vf is not None:
            record("train/clip_range_vf", clip_range_vf)

    def _excluded_save_params(self) -> list[str]:
        # the thread count belongs to the machine that trains, not to the model file; the
        # last observations (megabytes with many games) are started afresh on loading
        # (carcassonne_env.model_file.FRESH_KEYS) and on the next learn()
        return [
            *super()._excluded_save_params(),
            "threads",
            "_pool",
            "_last_obs",
            "_last_original_obs",
            "_last_episode_starts",
        ]


def candidate_buffer_options(observation_space: spaces.Space) -> dict[str, Any]:
    """`CompactMaskableDictRolloutBuffer`'s options for `CandidatePolicy`: the candidate
    rows packed, the keys it does not read left out."""
    keys = check_space(observation_space, spaces.Dict).spaces
    return {
        "pack_candidates": True,
        "unread_keys": tuple(k for k in keys if k not in CandidatePolicy.observation_keys),
    }


# The default learner's settings on a 2-core machine (benchmarks/bench_ppo.py "default"),
# by the names of the trainers' settings (training.settings.PPOSettings): torch_threads
# is the learner's `threads` and the jitted envs' num_threads.
LEARNER_SETTINGS: dict[str, int] = {
    "n_envs": 128,
    "n_steps": 16,
    "batch_size": 512,
    "n_epochs": 2,
    "torch_threads": 2,
    "hidden": 64,
}
