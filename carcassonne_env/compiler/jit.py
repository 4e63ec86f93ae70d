"""The compile options of the core, and one compiled version per function.

`hot` functions run without numba's reference counting (`_nrt=False`): reading an array
out of the state would otherwise cost an atomic increment/decrement pair, which
dominated the run time of a move. The price: a `hot` function, and everything it calls,
must not allocate arrays; buffers come from the state's scratch arrays instead.

`counted` keeps reference counting (a function that allocates).

`hot_inline` is `hot` for a function with one jitted caller: numba copies its IR into
that caller (``inline="always"``), so it is typed once either way but never lowered and
linked as a function of its own. A function with several callers stays `hot`: numba
would copy and type it again in every caller (inlining everything made a turn compile
for minutes). So do the candidate-move columns (`core.candidate_columns`, `closers`,
`candidates`): inlined, they made one function of a thousand lines, which LLVM took
longer to optimise than the pieces. So does a function whose one caller is `counted`
(the planes of `core.observe`): inlined, it is typed and lowered with the caller's
reference counting, an atomic pair per array it reads and more code to compile.

numba compiles a function once per distinct tuple of argument types, and a constant
argument is its own type (``f(st, 1)`` and ``f(st, 2)`` compiled twice), as is each
integer width (an int16 read from the board, an int32 from the scalars). Every
dispatcher made here compiles integers as int64 and constants as their plain types
(`_CanonicalDispatcher`): a caller's narrower value is widened at the call. That
halved the compiles of a game.

numba gives every function a CPython wrapper (unboxing its arguments, boxing its result)
so Python can call it, compiled and optimised with the function whether or not Python
ever calls it. Most of the core is only called from other jitted functions, so `hot`
and `counted` compile without one (``no_cpython_wrapper``), which shortens a cold
start. The functions Python calls in the package's
own programs are `hot_entry` / `counted_entry` (with the wrapper). Calling one of the
others from Python still works (tests and the curious do): `_InnerDispatcher` compiles
a twin with a wrapper on the first Python call, so no call ever reaches a missing
wrapper (which would crash the interpreter).

Without a wrapper, a function's own machine code is never run: its callers link its
code into theirs. Such a function is compiled into a `compiler.link_only.LinkOnlyLibrary`,
which numba links but never optimises or turns into machine code on its own; only the
functions Python calls do that, once over everything they call. Before, every level of
the call tree optimised and compiled the code below it again: a cold `carcassonne play`
took about a quarter more CPU time.
"""

from __future__ import annotations

import types as pytypes
from collections.abc import Callable
from typing import Any

from numba import njit, types
from numba.core import sigutils
from numba.core.registry import CPUDispatcher

from . import (
    notices,  # noqa: F401 (the notice on a part's first compile)
    numba_cache,  # noqa: F401 (a torn cache file is compiled again, not fatal)
    numba_inlining,  # noqa: F401 (numba's inlining without copies of fresh IR)
    numba_typing,  # noqa: F401 (numba's typing of calls made cheaper)
)
from .link_only import LinkOnlyCompiler


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
        canonical = tuple(_canonical(a) for a in args)
        entry = super().compile(canonical if return_type is None else return_type(*canonical))
        aliases = self.__dict__.setdefault("_aliases", set())
        if (
            canonical != args
            and args not in aliases
            and not self.targetoptions.get("no_cpython_wrapper")
            and not any(isinstance(a, types.Literal) for a in args)
        ):
            # A call from Python with these (narrower) types runs the compiled code
            # directly from now on: else numba's dispatch, finding no exact match, would
            # come here again on every call (a slow path). Once per types: a second
            # entry for the same types makes numba's dispatch ambiguous, back to here.
            aliases.add(args)
            cres = self.overloads[canonical]
            self._insert([a._code for a in args], cres.entry_point, cres.objectmode)
        return entry


class _InnerDispatcher(_CanonicalDispatcher):
    """A `_CanonicalDispatcher` compiled without numba's CPython wrapper (module
    docstring): called from Python, it hands the call to a twin compiled with one."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.python_twin()(*args, **kwargs)

    def python_twin(self) -> Any:
        """The same function compiled with a CPython wrapper (on the first Python call;
        a copy of the function under its own name, so it has its own cache files)."""
        twin = self.__dict__.get("_twin")
        if twin is None:
            fn = self.py_func
            copy = pytypes.FunctionType(
                fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
            )
            copy.__qualname__ = fn.__qualname__ + "_from_python"
            copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
            options = {
                k: v
                for k, v in self.targetoptions.items()
                if k not in ("nopython", "nogil", "no_cpython_wrapper")
            }
            twin = self._twin = jitted(entry=True, **options)(copy)
        return twin


def jitted(entry: bool = False, **options: Any) -> Callable:
    """``njit(cache=True, nogil=True, **options)`` with one compiled version per
    function (`_CanonicalDispatcher`); unless `entry`, without numba's CPython wrapper
    and into a link-only library (`_InnerDispatcher`, `compiler.link_only`: module
    docstring)."""
    inner = not entry
    if inner:
        options["pipeline_class"] = LinkOnlyCompiler
    decorate = njit(cache=True, nogil=True, no_cpython_wrapper=inner, **options)

    def wrap(fn: Callable) -> Any:
        dispatcher = decorate(fn)
        if isinstance(dispatcher, CPUDispatcher):  # not under NUMBA_DISABLE_JIT
            dispatcher.__class__ = _InnerDispatcher if inner else _CanonicalDispatcher
        return dispatcher

    return wrap


def _documented(decorator: Callable, doc: str) -> Callable:
    decorator.__doc__ = doc
    return decorator


hot = _documented(
    jitted(_nrt=False, error_model="numpy"),
    """Compile a function of the
hot path, called from jitted code: no reference counting (it may not allocate arrays),
numpy's error model, no CPython wrapper.""",
)
counted = _documented(
    jitted(error_model="numpy"),
    """Compile a function that allocates
(numba's reference counting on), numpy's error model, no CPython wrapper.""",
)
hot_entry = _documented(
    jitted(entry=True, _nrt=False, error_model="numpy"),
    """`hot`,
and called from Python too: compiled with numba's CPython wrapper.""",
)
counted_entry = _documented(
    jitted(entry=True, error_model="numpy"),
    """`counted`, and
called from Python too: compiled with numba's CPython wrapper.""",
)

hot_inline = _documented(
    jitted(_nrt=False, error_model="numpy", inline="always"),
    """`hot`,
and numba copies the function's IR into its caller.""",
)


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled code of jitted `dispatcher` for the types of `args`, called without
    numba's dispatch (which types every argument on every call: for a state or tile
    tables as costly as a clone's copy). Under NUMBA_DISABLE_JIT, `dispatcher`."""
    if not hasattr(dispatcher, "overloads"):
        return dispatcher
    if isinstance(dispatcher, _InnerDispatcher):
        dispatcher = dispatcher.python_twin()
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    if sig not in dispatcher.overloads:
        dispatcher.compile(sig)
    return dispatcher.overloads[sig].entry_point
