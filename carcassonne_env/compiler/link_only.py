"""Compiled code that only other compiled code calls: linked, never finished on its own.

numba compiles every function into its own library and finishes each one: it links in
the libraries of its callees, optimises the whole module (LLVM's full pipeline) and
turns it into machine code. A caller then links the finished callee again and optimises
everything once more, so a function deep in the core was optimised once per level above
it and turned into machine code it never ran: a function without a CPython wrapper
(`compiler.jit`'s `hot` / `counted`) is only ever called from inside a caller's module.

The libraries of those functions are `LinkOnlyLibrary`: finishing one only links its
callees in; the function that Python calls (`hot_entry` / `counted_entry`, or an inner
function's twin) optimises the whole tree once and makes the only machine code. The
cache keeps such a library as its bitcode alone (`KIND`), read back by the codegen's
`unserialize_library`, which this module extends (once, at import).

The price: every function that makes machine code optimises its callees' code from
scratch. A helper that only compiled code calls therefore belongs in `compiler.jit.jitted()`
too, not in a plain ``njit`` (with which each one optimised the raw core code anew:
the jitted bots' first compile took a fifth longer until their helpers moved).
"""

from __future__ import annotations

from typing import Any

from llvmlite import binding as ll
from numba.core import compiler, compiler_machinery, typed_passes
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.registry import cpu_target

KIND = "carcassonne-link-only"


class LinkOnlyLibrary(JITCodeLibrary):
    """A library that is linked into its callers' and never optimised, turned into
    machine code or called on its own (module docstring)."""

    def finalize(self) -> None:
        require_global_compiler_lock()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                seen.add(library)
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalized = True

    def get_pointer_to_function(self, name: str) -> int:
        self._ensure_finalized()
        return 0  # no machine code: only callers' modules hold this code

    def serialize_using_object_code(self) -> tuple:
        return (self.name, KIND, self._get_module_for_linking().as_bitcode())

    @classmethod
    def _unserialize(cls, codegen: Any, state: tuple) -> LinkOnlyLibrary:
        name, _, bitcode = state
        self = cls(codegen, name)
        self._final_module = self._shared_module = ll.parse_bitcode(bitcode)
        self._finalized = True
        return self


@compiler_machinery.register_pass(mutates_CFG=False, analysis_only=False)
class _UseLinkOnlyLibrary(compiler_machinery.LoweringPass):
    """Gives the function being compiled a `LinkOnlyLibrary` (before lowering)."""

    _name = "carcassonne_link_only_library"

    def __init__(self) -> None:
        compiler_machinery.LoweringPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        if state.library is None:
            state.library = LinkOnlyLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()
        return False


class LinkOnlyCompiler(compiler.CompilerBase):
    """numba's nopython pipeline, lowering into a `LinkOnlyLibrary` (numba's
    ``pipeline_class`` option)."""

    def define_pipelines(self) -> list:
        pm = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        lowering = next(
            i
            for i, (p, _) in enumerate(pm.passes)
            if p in (typed_passes.NativeLowering, typed_passes.NativeParforLowering)
        )
        pm.passes.insert(lowering, (_UseLinkOnlyLibrary, "link-only library"))
        pm.finalize()
        return [pm]


def _extend_codegen() -> None:
    """numba's codegen reads `KIND` from the cache, and leaves a link-only function's
    environment pointer alone (its global exists only inside its callers' code, where
    numba sets the caller's; nopython code without a CPython wrapper never reads its own)."""
    codegen = cpu_target.target_context.codegen()
    unserialize, set_env = codegen.unserialize_library, codegen.set_env

    def unserialize_library(serialized: tuple) -> Any:
        if serialized[1] == KIND:
            return LinkOnlyLibrary._unserialize(codegen, serialized)
        return unserialize(serialized)

    def set_env_if_emitted(env_name: str, env: Any) -> None:
        if codegen._engine.get_global_value_address(env_name):
            set_env(env_name, env)

    codegen.unserialize_library = unserialize_library
    codegen.set_env = set_env_if_emitted


_extend_codegen()
