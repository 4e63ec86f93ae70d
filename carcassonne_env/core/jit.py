"""The compile options of the core, and one compiled version per function.

`hot` functions run without numba's reference counting (`_nrt=False`): reading an array
out of the state would otherwise cost an atomic increment/decrement pair, which
dominated the run time of a move. The price: a `hot` function, and everything it calls,
must not allocate arrays; buffers come from the state's scratch arrays instead.

`counted` keeps reference counting (a function that allocates).

`hot_inline` is `hot` for a function with one jitted caller: numba copies its IR into
that caller (``inline="always"``), so it is typed once either way but never compiled,
optimised and turned into machine code on its own. Every numba function is compiled as
its own library, and each caller links and optimises its callees' code again: a
function called from one place paid that twice. Inlining those cut the cold compile of
`carcassonne play` by about a fifth. A function with several callers stays `hot`: numba
would copy and type it again in every caller (inlining everything made a turn compile
for minutes). So do the candidate-move columns (`core.candidate_columns`, `closers`,
`candidates`): inlined, they made one function of a thousand lines, which LLVM took
longer to optimise than the pieces (the part's compile: 59 CPU s against 38).

numba compiles a function once per distinct tuple of argument types, and a constant
argument is its own type (``f(st, 1)`` and ``f(st, 2)`` compiled twice), as is each
integer width (an int16 read from the board, an int32 from the scalars). Every
dispatcher made here compiles integers as int64 and constants as their plain types
(`_CanonicalDispatcher`): a caller's narrower value is widened at the call. That
halved the compiles of a game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit, types
from numba.core import sigutils
from numba.core.registry import CPUDispatcher

from . import notices  # noqa: F401 (the notice on a part's first compile)


def _canonical(ty: Any) -> Any:
    ty = types.unliteral(ty)
    if isinstance(ty, types.Integer) and (ty.signed or ty.bitwidth < 64):
        return types.int64
    return ty


class _CanonicalDispatcher(CPUDispatcher):
    """A dispatcher that compiles integers as int64 and literals as their plain types
    (module docstring); calls with other integer types convert to the compiled one."""

    def compile(self, sig):
        args, return_type = sigutils.normalize_signature(sig)
        args = tuple(_canonical(a) for a in args)
        return super().compile(args if return_type is None else return_type(*args))


def jitted(**options: Any) -> Callable:
    """``njit(cache=True, nogil=True, **options)`` with one compiled version per
    function (`_CanonicalDispatcher`)."""
    decorate = njit(cache=True, nogil=True, **options)

    def wrap(fn: Callable) -> Any:
        dispatcher = decorate(fn)
        if isinstance(dispatcher, CPUDispatcher):  # not under NUMBA_DISABLE_JIT
            dispatcher.__class__ = _CanonicalDispatcher
        return dispatcher

    return wrap


def _documented(decorator: Callable, doc: str) -> Callable:
    decorator.__doc__ = doc
    return decorator


hot = _documented(jitted(_nrt=False, error_model="numpy"), """Compile a function of the
hot path: no reference counting (it may not allocate arrays), numpy's error model.""")
counted = _documented(jitted(error_model="numpy"), """Compile a function that allocates
(numba's reference counting on), numpy's error model.""")

hot_inline = _documented(jitted(_nrt=False, error_model="numpy", inline="always"), """`hot`,
and numba copies the function's IR into its caller.""")


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled code of jitted `dispatcher` for the types of `args`, called without
    numba's dispatch (which types every argument on every call: about 0.5 us per state
    or tile tables, as much as a clone's copy). Under NUMBA_DISABLE_JIT, `dispatcher`."""
    if not hasattr(dispatcher, "overloads"):
        return dispatcher
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    if sig not in dispatcher.overloads:
        dispatcher.compile(sig)
    return dispatcher.overloads[sig].entry_point
