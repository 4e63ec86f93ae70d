"""Core functions compiled without numba's CPython wrapper (`compiler.jit`: `hot`, `counted`)
still answer a Python call, through a twin compiled with one; the inner compile itself is
what jitted callers use.

Internals: the wrapper-less dispatcher (`compiler.jit._InnerDispatcher`) and numba's own
dispatch (`_compile_for_args`) are what these tests check."""

import os
import subprocess
import sys

import numpy as np
from numba import njit, types

from carcassonne_env.compiler.jit import _InnerDispatcher, entry_point, jitted
from carcassonne_env.core.board import find, n_segments, root_of
from carcassonne_env.core.state import copy_game, n_figures
from carcassonne_env.core.turn import apply_move, game_call, legal_moves


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


def _twice(x):
    return 2 * x


def test_a_narrower_integer_from_python_runs_the_int64_version():
    """One compiled version takes every integer width; after the first call with a
    width, numba's dispatch finds it directly (it used to compile-and-look-up again on
    every call, about 0.1 ms)."""
    f = jitted(entry=True)(_twice)
    assert f(np.int16(3)) == 6 and f(np.uint8(4)) == 8 and f(5) == 10
    assert list(f.overloads) == [(types.int64,)]
    f.compile((types.int16,))  # again, as a jitted caller's typing may ask: still one entry

    def refuse(*args):
        raise AssertionError(f"dispatched to a compile for {args}")

    f._compile_for_args = refuse  # where numba's dispatch goes without an exact match
    assert f(np.int16(7)) == 14 and f(np.uint8(1)) == 2 and f(np.int64(2)) == 4


def test_the_functions_python_calls_in_the_package_keep_their_wrapper():
    for fn in (game_call, copy_game, n_segments):
        assert not isinstance(fn, _InnerDispatcher), fn.py_func.__name__
    assert not hasattr(n_figures, "py_func")  # plain Python: sizes buffers, compiles nothing
    for fn in (legal_moves, apply_move, find):  # `Game` plays through `game_call`
        assert isinstance(fn, _InnerDispatcher), fn.py_func.__name__


_LINKED_MODULE = """
from carcassonne_env.compiler.jit import hot, hot_entry

@hot
def double(x):
    return 2 * x

@hot_entry
def first(x):
    return double(x) + 1

@hot_entry
def second(x):
    return double(x) + 2
"""

_RUN = """
import sys
sys.path.insert(0, {path!r})
import linked
value = getattr(linked, {entry!r})(3)
(inner,) = linked.double.overloads.values()
print(value, type(inner.library).__name__, sum(linked.double.stats.cache_hits.values()))
"""


def _run(tmp_path, entry):
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "CARCASSONNE_NO_COMPILE_NOTICE": "1",
    }
    out = subprocess.run(
        [sys.executable, "-c", _RUN.format(path=str(tmp_path), entry=entry)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def test_inner_code_is_linked_into_its_callers_and_cached_for_later_ones(tmp_path):
    """An inner function's library is link-only (`compiler.link_only`): compiled once, read
    back from the cache by a later process whose new caller links it."""
    (tmp_path / "linked.py").write_text(_LINKED_MODULE)
    assert _run(tmp_path, "first") == ["7", "LinkOnlyLibrary", "0"]
    assert _run(tmp_path, "second") == ["8", "LinkOnlyLibrary", "1"]


def test_n_figures_counts_the_figure_ids_of_the_rules():
    from carcassonne_env.core.state import make_state
    from carcassonne_env.rules import Rules

    both = ["inns_cathedrals", "traders_builders"]
    for rules, n in (
        (Rules(), 1),
        (Rules(variant="solo"), 1),
        (Rules(expansions=["inns_cathedrals"]), 2),  # the large follower
        (Rules(expansions=["traders_builders"]), 4),  # builder and pig
        (Rules(expansions=both), 4),
    ):
        assert n_figures(make_state(rules.to_config(), 1, 1, 1).cfg) == n, rules
