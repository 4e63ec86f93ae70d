"""Bulk copies inside the jitted core: one `memcpy` instead of an element loop.

numba compiles `dst[:n] = src[:n]` (and an explicit loop) to an element-by-element copy
with aliasing checks; for the state's many small int8 / int16 arrays that made
`state.copy_into` the largest cost of a search step. `copy_flat` is a numba intrinsic
that emits LLVM's memcpy over a range of a C-contiguous array.
"""

from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

from .jit import hot


@intrinsic
def _memcpy(typingctx, dst, src, start, n):
    """dst.flat[start:start + n] = src.flat[start:start + n] (C-contiguous arrays of one
    dtype; n > 0, the range inside both: unchecked)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.dtype == src.dtype and dst.layout == "C" and src.layout == "C"
            and isinstance(start, types.Integer) and isinstance(n, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        d, s, first, count = args
        dst_arr = context.make_array(sig.args[0])(context, builder, d)
        src_arr = context.make_array(sig.args[1])(context, builder, s)
        first = context.cast(builder, first, sig.args[2], types.intp)
        count = context.cast(builder, count, sig.args[3], types.intp)
        itemsize = context.get_abi_sizeof(context.get_data_type(sig.args[0].dtype))
        dptr = builder.gep(dst_arr.data, [first])
        sptr = builder.gep(src_arr.data, [first])
        cgutils.raw_memcpy(builder, dptr, sptr, count, itemsize)
        return context.get_dummy_value()

    return types.void(dst, src, start, n), codegen


if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1 (debugging): intrinsics need the compiler
    def _memcpy(dst, src, start, n):  # noqa: F811
        dst.reshape(-1)[start:start + n] = src.reshape(-1)[start:start + n]


@hot
def copy_flat(dst, src, start, n):
    """dst.flat[start:start + n] = src.flat[start:start + n] for same-dtype C-contiguous
    arrays (2-D: rows of the flattened array); nothing when n <= 0."""
    if n > 0:
        _memcpy(dst, src, start, n)
