"""The public paths of the first release (issue 79): one bot factory, every env class
under `carcassonne_env.envs`, no module kept only to re-export another under an old
name, and no symlink in the tree."""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys

import pytest

import carcassonne_env
import carcassonne_env.envs
from carcassonne_env.bots import factory
from tests.support.paths import ROOT

# Each env export and the module that defines it.
ENV_EXPORTS = {
    "SoloEnv": "carcassonne_env.envs.solo",
    "SoloVectorEnv": "carcassonne_env.envs.solo",
    "VsBotsEnv": "carcassonne_env.envs.vs_bots",
    "VsBotsVectorEnv": "carcassonne_env.envs.vs_bots",
    "sb3_policy": "carcassonne_env.envs.vs_bots",
    "raw_env": "carcassonne_env.envs.aec",
    "parallel_env": "carcassonne_env.envs.aec",
    "SB3VecEnv": "carcassonne_env.envs.sb3",
    "make_env_for_model": "carcassonne_env.envs.for_model",
    "model_env_options": "carcassonne_env.envs.for_model",
    "model_rules": "carcassonne_env.envs.for_model",
}

# Paths of modules before the first release: gone, no alias left behind.
REMOVED = [
    "agents.base",
    "agents.insight",
    "carcassonne_env.annotations",
    "carcassonne_env.bench",
    "carcassonne_env.bots.fast_bots",
    "carcassonne_env.bots.plugins",
    "carcassonne_env.core.config",
    "carcassonne_env.core.jit",
    "carcassonne_env.core.link_only",
    "carcassonne_env.core.notices",
    "carcassonne_env.core.numba_cache",
    "carcassonne_env.core.numba_inlining",
    "carcassonne_env.core.numba_typing",
    "carcassonne_env.envs.batched",
    "carcassonne_env.envs.kernels",
    "carcassonne_env.envs.single",
    "carcassonne_env.envs.vector",
    "carcassonne_env.envs.vector_multi",
    "carcassonne_env.render",
    "carcassonne_env.text",
    "training.rllib_example",
]


def test_every_env_class_is_exported_by_carcassonne_env_envs():
    assert carcassonne_env.envs.__all__ == sorted(ENV_EXPORTS)
    for name, module in ENV_EXPORTS.items():
        exported = getattr(carcassonne_env.envs, name)
        assert exported is getattr(importlib.import_module(module), name), name
        assert exported.__module__ == module, name
    with pytest.raises(AttributeError, match="has no attribute 'VectorEnv'"):
        carcassonne_env.envs.VectorEnv  # noqa: B018


def test_gymnasium_ids_build_the_exported_classes():
    import gymnasium

    from carcassonne_env.envs import SoloEnv, SoloVectorEnv, VsBotsEnv, VsBotsVectorEnv

    for env_id, single, vector in (
        ("Carcassonne/Solo-v0", SoloEnv, SoloVectorEnv),
        ("Carcassonne/VsBots-v0", VsBotsEnv, VsBotsVectorEnv),
    ):
        spec = gymnasium.spec(env_id)
        assert spec.entry_point == f"{single.__module__}:{single.__name__}"
        assert spec.vector_entry_point == f"{vector.__module__}:{vector.__name__}"


def test_importing_the_package_imports_no_env_and_no_bot():
    """`import carcassonne_env` stays as light as before: the envs and `make_bot` load
    on first use."""
    code = (
        "import sys, carcassonne_env\n"
        "print(sorted(m for m in sys.modules if m.startswith(('carcassonne_env.envs', "
        "'carcassonne_env.bots', 'agents'))))\n"
        "carcassonne_env.make_bot\n"
        "print(sorted(m for m in sys.modules if m.startswith('carcassonne_env.bots')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARCASSONNE_NO_COMPILE_NOTICE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout
    assert out == (
        "[]\n['carcassonne_env.bots', 'carcassonne_env.bots.base', "
        "'carcassonne_env.bots.factory']\n"
    )


def test_one_bot_factory():
    from carcassonne_env import bots

    assert carcassonne_env.make_bot is bots.make_bot is factory.make_bot
    import agents

    assert not hasattr(agents, "make_agent") and not hasattr(bots, "make_opponent")
    assert type(carcassonne_env.make_bot("greedy", seed=0)).__name__ == "GreedyAgent"
    assert carcassonne_env.make_bot("heuristic:follower=2", seed=0).name == "heuristic:follower=2"


@pytest.mark.parametrize("module", REMOVED)
def test_the_paths_before_the_first_release_are_gone(module):
    top, _, rest = module.partition(".")
    assert importlib.util.find_spec(top) is not None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(module)


def test_the_tree_holds_no_symlink():
    """The shipped models have one home, `agents/models/`: no links to them elsewhere."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.splitlines()
    links = [line.split("\t")[1] for line in files if line.startswith("120000 ")]
    assert links == []
    assert not (ROOT / "models").exists()
