"""`build_config`: the PPO configuration of the example (RLlib's new API stack), self-play
with one shared policy, either network (`POLICIES`) on its env."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from training.rllib.envs import CandidateRLlibEnv, CarcassonneRLlibEnv, count_game_ends
from training.rllib.modules import CandidateTorchRLModule, MaskedPPOTorchRLModule

POLICY_ID = "shared"
"""The one policy (RLModule) both players map to."""

POLICIES = ("mlp", "candidates")
"""`build_config`'s networks: RLlib's default MLP over the flattened planes
(`MaskedPPOTorchRLModule`) or the candidate-move network (`CandidateTorchRLModule`)."""


def build_config(
    board_size: int = 24,
    players: int = 2,
    reward: str = "score",
    *,
    num_env_runners: int = 0,
    num_learners: int = 0,
    num_gpus_per_learner: float = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 4,
    lr: float = 3e-4,
    gamma: float = 0.99,
    hiddens: Sequence[int] = (256, 256),
    seed: int | None = None,
    env_options: dict[str, Any] | None = None,
    policy: str = "mlp",
    candidate_moves: int = 128,
    hidden: int = 128,
) -> PPOConfig:
    """The PPO configuration (RLlib's new API stack) for self-play with one shared
    policy that plays legal moves only.

    Args:
        board_size: observation window B (cells); actions = B * B * 4 * 9.
        players: 2-6 seats, all played by the shared policy.
        reward: the AEC env's reward: "score", "margin" or "win".
        num_env_runners: remote EnvRunner actors sampling games (0: sample in the
            driver process, for local debugging and tests).
        num_learners: remote Learner actors (0: one Learner in the driver process).
        num_gpus_per_learner: GPUs for each Learner (the local one if `num_learners` is 0).
        train_batch_size: env steps (all players together) per training iteration and
            Learner.
        minibatch_size, num_epochs, lr, gamma: PPO's SGD settings.
        hiddens: MLP layer sizes of the policy and value networks (separate encoders;
            policy "mlp").
        seed: seeds RLlib (networks, EnvRunners and the games they play).
        env_options: further keywords for `carcassonne_v0.env` (rule options,
            obs_features, illegal_reward...).
        policy: "mlp" (`MaskedPPOTorchRLModule` on `CarcassonneRLlibEnv`: RLlib's
            default MLP over the flattened planes, masked) or "candidates"
            (`CandidateTorchRLModule` on `CandidateRLlibEnv`: the network of
            ``carcassonne train multi --policy candidates``).
        candidate_moves: K of the candidate observation (policy "candidates").
        hidden: `CandidateNet`'s width (policy "candidates").

    Returns:
        A `PPOConfig`; ``config.build_algo()`` makes the `Algorithm`.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    env_config = {
        "players": players,
        "board_size": board_size,
        "reward": reward,
        **(env_options or {}),
    }
    env_class: type[CarcassonneRLlibEnv]
    if policy == "candidates":
        env_class = CandidateRLlibEnv
        env_config["candidate_moves"] = candidate_moves
        module = RLModuleSpec(module_class=CandidateTorchRLModule, model_config={"hidden": hidden})
    else:
        env_class = CarcassonneRLlibEnv
        module = RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            model_config={
                "fcnet_hiddens": list(hiddens),
                "fcnet_activation": "relu",
                "head_fcnet_hiddens": [],
                "vf_share_layers": False,
            },
        )
    config = (
        PPOConfig()
        .environment(env=env_class, env_config=env_config)
        .framework("torch")
        .multi_agent(
            policies={POLICY_ID},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY_ID,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module}))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=gamma,
        )
        .callbacks(on_episode_end=count_game_ends)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config
