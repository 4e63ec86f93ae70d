"""The envs' base classes state what a subclass provides as abstract methods
(`BatchedGamesEnv` for the vector envs, `SingleAgentEnv` for the single-agent ones): a
subclass that leaves one out cannot be made, and the shipped envs provide them all."""

from __future__ import annotations

import pytest

from carcassonne_env.envs import SoloEnv, SoloVectorEnv, VsBotsEnv, VsBotsVectorEnv
from carcassonne_env.envs.single_base import SingleAgentEnv
from carcassonne_env.envs.vector_base import BatchedGamesEnv


def test_the_base_classes_name_what_a_subclass_provides():
    assert BatchedGamesEnv.__abstractmethods__ == {
        "reset",
        "step",
        "_deal",
        "_start",
        "_final_extras",
    }
    assert SingleAgentEnv.__abstractmethods__ == {"reset", "step", "_observer"}
    for env in (SoloVectorEnv, VsBotsVectorEnv, SoloEnv, VsBotsEnv):
        assert env.__abstractmethods__ == frozenset(), env


def test_a_subclass_missing_a_method_cannot_be_made():
    # internals: the abstract methods are the subclass contract this test checks
    class NoDeal(SoloVectorEnv):
        _deal = BatchedGamesEnv._deal  # (the abstract one back)

    class NoObserver(SoloEnv):
        _observer = SingleAgentEnv._observer

    with pytest.raises(TypeError, match="_deal"):
        NoDeal(num_envs=1)
    with pytest.raises(TypeError, match="_observer"):
        NoObserver()
