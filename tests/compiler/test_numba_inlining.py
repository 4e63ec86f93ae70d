"""`compiler.numba_inlining` inlines as numba does: the same LLVM IR (up to numbering) and
results as numba's own inliner, for a callee inlined at two sites, in a loop, with a
branch that returns early.

Internals: the patch swaps numba's `deepcopy` for `numba_inlining._NoDeepCopy`'s while it
inlines; a test checks that numba's is back afterwards."""

import re

import numpy as np
from numba import njit
from numba.core import inline_closurecall

from carcassonne_env.compiler import numba_inlining as ni


def _program():
    """A fresh dispatcher (compiled anew) whose callee is inlined twice."""

    @njit(inline="always")
    def bump(a, i, k):
        if k < 0:
            return -1
        for j in range(k):
            a[i] += j
        return a[i]

    @njit
    def program(a):
        total = 0
        for i in range(a.shape[0]):
            total += bump(a, i, i % 3) + bump(a, 0, -1)
        return total

    return program


def _compiled_with(inline_function) -> tuple[int, np.ndarray, str]:
    installed = inline_closurecall.InlineWorker.inline_function
    inline_closurecall.InlineWorker.inline_function = inline_function
    try:
        program, a = _program(), np.arange(7)
        result = program(a)
        return result, a, program.inspect_llvm(program.signatures[0])
    finally:
        inline_closurecall.InlineWorker.inline_function = installed


def test_the_same_code_as_numbas_inliner():
    assert inline_closurecall.InlineWorker.inline_function is ni.inline_function  # installed
    theirs = _compiled_with(ni.NUMBA_INLINE_FUNCTION)
    ours = _compiled_with(ni.inline_function)
    assert ours[0] == theirs[0] == 16
    assert np.array_equal(ours[1], theirs[1])
    assert "bump" not in ours[2]  # inlined: no call left
    # labels and unique names count up across compiles (and the comments after a label are
    # padded to its length)
    numbered, padding = re.compile(r"\d+"), re.compile(r" +")
    assert padding.sub(" ", numbered.sub("0", ours[2])) == padding.sub(
        " ", numbered.sub("0", theirs[2])
    )
    assert inline_closurecall.copy.deepcopy is not ni._NoDeepCopy.deepcopy  # restored
