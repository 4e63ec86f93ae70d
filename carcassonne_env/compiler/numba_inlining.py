"""numba's inlining of a jitted function (``inline="always"``, this package's `hot_inline`)
without its two deep copies of the callee's IR.

To inline a function at a call site, numba builds the callee's IR afresh from its
bytecode (`InlineWorker.run_untyped_passes`), then `InlineWorker.inline_ir` deep-copies
it twice block by block: once to mutate it into the caller (the IR passed in may be
shared: the typed inliner passes a cached one), once to return an unmutated copy, which
both of numba's callers drop. For the fresh IR of `inline_function` neither copy is
needed; `inline_function` here runs `inline_ir` with the copies made shallow (its
``copy`` module stands in for one whose ``deepcopy`` returns its argument), so the
fresh blocks are moved into the caller as they are. The first value returned is then
the mutated IR, not an unmutated copy (numba's callers ignore it). Inlining IR that is
shared goes through numba's `inline_ir` as before.

Without it a cold start deep-copies each inlined callee's IR twice. `install()` runs
at import; `tests/compiler/test_numba_inlining.py` checks that a function compiles to the same
LLVM IR either way.
"""

from __future__ import annotations

import copy
from typing import Any

from numba.core import inline_closurecall

NUMBA_INLINE_FUNCTION = inline_closurecall.InlineWorker.inline_function


class _NoDeepCopy:
    """The ``copy`` module as `inline_ir` sees it while it inlines fresh IR."""

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        return value


def inline_function(
    self: Any, caller_ir: Any, block: Any, i: int, function: Any, arg_typs: Any = None
) -> tuple:
    """`InlineWorker.inline_function` (numba's, line for line) with `inline_ir`'s copies
    of the fresh callee IR left out."""
    callee_ir = self.run_untyped_passes(function)
    freevars = function.__code__.co_freevars
    inline_closurecall.copy = _NoDeepCopy
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
    finally:
        inline_closurecall.copy = copy


def install() -> None:
    """Put `inline_function` in place of numba's (idempotent)."""
    inline_closurecall.InlineWorker.inline_function = inline_function


install()
