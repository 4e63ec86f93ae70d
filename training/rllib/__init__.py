"""PPO self-play on the PettingZoo AEC env with RLlib: the scale-out path (RLlib's default
MLP, or with ``--policy candidates`` the candidate-move network SB3 trains on a laptop).

The AEC env (`carcassonne_env.carcassonne_v0`) is wrapped by RLlib's `PettingZooEnv` into
a `MultiAgentEnv` (`envs`: `CarcassonneRLlibEnv`, `CandidateRLlibEnv`); both players map
to one shared policy (self-play), an RLModule that plays legal moves only (`modules`:
`MaskedPPOTorchRLModule`, `CandidateTorchRLModule` with its action distribution
`distribution.CandidateTorchCategorical`); `config.build_config` puts them together and
`example.main` is the command line. RLlib's new API stack (RLModule / Learner /
EnvRunner) is used throughout. The classes live in these modules, the path RLlib records
in checkpoints and remote workers import them by.

Install: ``pip install -e '.[rllib]'`` (Ray's own ``ray[rllib]`` extra pins an older
gymnasium; the ``rllib`` extra lists the few packages RLlib really imports).

Run locally (starts a private Ray instance on this machine)::

    python -m training.rllib --iterations 2 --board-size 16 --train-batch-size 1000
    python -m training.rllib --iterations 200 --num-env-runners 4

(``carcassonne train rllib ...`` takes the same options.) The first line is a quick look
(small batches). At the defaults (B = 24, 4000 steps
per iteration) the MLPs have ~30M parameters and an iteration takes minutes on a CPU;
``--num-gpus-per-learner 1`` trains on a GPU.

Run on a Ray cluster: every node needs `carcassonne_env` and its dependencies (install
the package in the cluster's image, or ship the repository as the job's working
directory), then attach to the running cluster with ``--address auto`` (the driver runs
on a node of the cluster, as with ``ray job submit``) or ``--address <head-ip>:6379``::

    ray job submit --working-dir . -- \\
        python -m training.rllib --address auto --iterations 500 \\
        --num-env-runners 32 --num-gpus-per-learner 1

EnvRunners (one CPU each) sample games in parallel on the cluster; the Learner (local to
the driver, or ``--num-learners`` remote ones, each on ``--num-gpus-per-learner`` GPUs,
each taking ``--train-batch-size`` steps per iteration) updates the shared policy.

The window is B = ``--board-size`` cells wide: the action space has B * B * 4 * 9 actions
and the flattened board 9 * B * B * (8 + players) inputs, so the default MLP grows fast
with B. B = 24 never overflowed in 10,000 random 2-player games; B = 12-16 are for quick
tests (legal moves outside the window are masked out, with a `WindowOverflowWarning`).

``--policy candidates`` trains the network of ``carcassonne train multi --policy
candidates`` instead (needs the ``train`` extra too, for `training.policy`); its size does
not depend on B, and `copy_candidate_weights` moves its weights to and from SB3::

    python -m training.rllib --policy candidates --candidate-moves 128 \\
        --hidden 64 --obs-features aggregate --iterations 200 --num-env-runners 4
"""

from __future__ import annotations

from carcassonne_env.checks import install_hint

try:  # the rllib extra, checked once for every module of the package
    import ray.rllib.algorithms.ppo  # noqa: F401
    import torch  # noqa: F401
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"the RLlib example needs ray's RLlib and torch: {install_hint('rllib')}"
    ) from err

from training.rllib.config import POLICIES, POLICY_ID, build_config
from training.rllib.distribution import CandidateTorchCategorical
from training.rllib.envs import (
    CANDIDATE_OBS_KEYS,
    CandidateRLlibEnv,
    CarcassonneRLlibEnv,
    candidate_observation,
    candidate_observation_space,
    count_game_ends,
    flat_observation_space,
    flatten_observation,
)
from training.rllib.example import main, parse_args, summarize
from training.rllib.modules import (
    CandidateTorchRLModule,
    MaskedPPOTorchRLModule,
    candidate_parts,
    copy_candidate_weights,
)

__all__ = [
    "CANDIDATE_OBS_KEYS",
    "POLICIES",
    "POLICY_ID",
    "CandidateRLlibEnv",
    "CandidateTorchCategorical",
    "CandidateTorchRLModule",
    "CarcassonneRLlibEnv",
    "MaskedPPOTorchRLModule",
    "build_config",
    "candidate_observation",
    "candidate_observation_space",
    "candidate_parts",
    "copy_candidate_weights",
    "count_game_ends",
    "flat_observation_space",
    "flatten_observation",
    "main",
    "parse_args",
    "summarize",
]
