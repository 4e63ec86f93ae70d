"""The command line of the RLlib example: ``python -m training.rllib`` (or ``carcassonne
train rllib``); how to run it locally and on a Ray cluster is in `training.rllib`'s
docstring.

Each iteration prints the mean episode return (summed over both players: with ``--reward
score`` the total points of a game), the env steps sampled, the losses, the number of
illegal moves (always 0: the policy is masked) and of games cut short because no legal
move fitted the observation window (``window_overflows``; use a larger ``--board-size``
if it is not 0). A checkpoint is saved at the end; ``Algorithm.from_checkpoint(path)``
restores it (``algo.get_module("shared")`` is the policy).
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from typing import Any

from carcassonne_env.cli_errors import OneLineParser
from carcassonne_env.encoding import OBS_FEATURES
from training.rllib.config import POLICIES, POLICY_ID, build_config


def _mean(value: Any) -> float:
    """A float out of an RLlib metric (None / missing: nan)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def summarize(result: dict[str, Any]) -> dict[str, float]:
    """The few numbers of one ``algo.train()`` result that `main` prints."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    return {
        "episode_return_mean": _mean(runners.get("episode_return_mean")),
        "episode_len_mean": _mean(runners.get("episode_len_mean")),
        "env_steps_sampled": _mean(runners.get("num_env_steps_sampled")),
        "env_steps_lifetime": _mean(result.get("num_env_steps_sampled_lifetime")),
        "episodes": _mean(runners.get("num_episodes")),
        "illegal_moves": _mean(runners.get("illegal_moves", 0)),
        "window_overflows": _mean(runners.get("window_overflows", 0)),
        "policy_loss": _mean(learner.get("policy_loss")),
        "vf_loss": _mean(learner.get("vf_loss")),
        "entropy": _mean(learner.get("entropy")),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options of `main`."""
    parser = OneLineParser(
        prog="carcassonne train rllib",
        description="PPO self-play on the Carcassonne PettingZoo env with RLlib.",
    )
    parser.add_argument(
        "--iterations", type=int, default=10, help="training iterations (default: %(default)s)"
    )
    parser.add_argument(
        "--board-size", type=int, default=24, help="window B, cells (default: %(default)s)"
    )
    parser.add_argument("--players", type=int, default=2, help="seats, 2-6 (default: %(default)s)")
    parser.add_argument(
        "--reward",
        default="score",
        choices=["score", "margin", "win"],
        help="the reward at a game's end: own score, margin or win (default: %(default)s)",
    )
    parser.add_argument(
        "--policy",
        default="mlp",
        choices=POLICIES,
        help="mlp: RLlib's default MLP over the flattened planes; "
        "candidates: the candidate-move network of 'carcassonne "
        "train multi --policy candidates' (CandidateTorchRLModule) "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--candidate-moves",
        type=int,
        default=128,
        help="K, candidate moves per observation (--policy candidates; default: %(default)s)",
    )
    parser.add_argument(
        "--hidden",
        type=int,
        default=128,
        help="the candidate network's width (--policy candidates; default: %(default)s)",
    )
    parser.add_argument(
        "--obs-features",
        default="standard",
        choices=OBS_FEATURES,
        help="the features vector (docs/observations.md; default: %(default)s)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join ('auto', 'head-ip:6379'); default: start a local Ray instance",
    )
    parser.add_argument(
        "--num-env-runners",
        type=int,
        default=0,
        help="remote EnvRunners (0: sample in this process; default: %(default)s)",
    )
    parser.add_argument(
        "--num-learners",
        type=int,
        default=0,
        help="remote Learner actors (0: learn in this process; default: %(default)s)",
    )
    parser.add_argument(
        "--num-gpus-per-learner",
        type=float,
        default=0,
        help="GPUs per Learner (with --num-learners 0: the local one; default: %(default)s)",
    )
    parser.add_argument(
        "--train-batch-size",
        type=int,
        default=4000,
        help="env steps per iteration, per Learner (default: %(default)s)",
    )
    parser.add_argument(
        "--minibatch-size",
        type=int,
        default=500,
        help="minibatch of the PPO update (default: %(default)s)",
    )
    parser.add_argument(
        "--num-epochs", type=int, default=4, help="passes over each batch (default: %(default)s)"
    )
    parser.add_argument(
        "--checkpoint-dir",
        default="~/ray_results/carcassonne_ppo",
        help="where the final checkpoint goes, a directory on the driver (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seeds RLlib's sampling and the games (default: %(default)s)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> str:
    """Train for ``--iterations``, print a line per iteration, save a checkpoint.

    Returns:
        The checkpoint's directory.
    """
    import ray

    args = parse_args(argv)
    started = not ray.is_initialized()
    if started:
        ray.init(address=args.address)
    try:
        config = build_config(
            board_size=args.board_size,
            players=args.players,
            reward=args.reward,
            num_env_runners=args.num_env_runners,
            num_learners=args.num_learners,
            num_gpus_per_learner=args.num_gpus_per_learner,
            train_batch_size=args.train_batch_size,
            minibatch_size=min(args.minibatch_size, args.train_batch_size),
            num_epochs=args.num_epochs,
            seed=args.seed,
            policy=args.policy,
            candidate_moves=args.candidate_moves,
            hidden=args.hidden,
            env_options={"obs_features": args.obs_features},
        )
        algo = config.build_algo()
        try:
            for it in range(1, args.iterations + 1):
                s = summarize(algo.train())
                print(
                    f"iter {it:4d}  return {s['episode_return_mean']:8.2f}  "
                    f"len {s['episode_len_mean']:6.1f}  "
                    f"steps {s['env_steps_sampled']:.0f} ({s['env_steps_lifetime']:.0f})  "
                    f"pi_loss {s['policy_loss']:.4f}  vf_loss {s['vf_loss']:.4f}  "
                    f"entropy {s['entropy']:.3f}  illegal {s['illegal_moves']:.0f}  "
                    f"overflows {s['window_overflows']:.0f}",
                    flush=True,
                )
            path = algo.save_to_path(os.path.abspath(os.path.expanduser(args.checkpoint_dir)))
            print(f"checkpoint: {path}")
            return path
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()
