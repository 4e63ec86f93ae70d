"""Core functions compiled without numba's CPython wrapper (`core.jit`: `hot`, `counted`)
still answer a Python call, through a twin compiled with one; the inner compile itself is
what jitted callers use."""

import numpy as np
from numba import njit

from carcassonne_env.core.board import find, root_of
from carcassonne_env.core.jit import _InnerDispatcher, entry_point
from carcassonne_env.core.turn import apply_move, legal_moves


@njit
def _root_from_jitted(parent, g):
    return root_of(parent, g)


def test_an_inner_function_answers_python_through_its_twin():
    parent = np.array([0, 0, 1, 2, 4], np.int16)
    assert isinstance(root_of, _InnerDispatcher)
    assert [root_of(parent, g) for g in range(5)] == [0, 0, 0, 0, 4]
    twin = root_of.python_twin()
    assert twin is root_of.python_twin()  # made once
    assert not isinstance(twin, _InnerDispatcher) and twin.overloads
    assert twin.py_func.__qualname__ == "root_of_from_python"  # its own cache files
    assert {**root_of.targetoptions, "no_cpython_wrapper": False} == twin.targetoptions
    assert entry_point(root_of, parent, 3)(parent, 3) == 0
    # a jitted caller compiles (and calls) the inner version, not the twin
    assert _root_from_jitted(parent, 3) == 0
    assert root_of.overloads


def test_the_functions_python_calls_in_the_package_keep_their_wrapper():
    for fn in (legal_moves, apply_move, find):
        assert not isinstance(fn, _InnerDispatcher), fn.py_func.__name__
