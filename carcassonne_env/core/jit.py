"""The compile options of the core.

`hot` functions run without numba's reference counting (`_nrt=False`): reading an array
out of the state tuple would otherwise cost an atomic increment/decrement pair, which
dominated the run time of a move. The price: a `hot` function, and everything it calls,
must not allocate arrays; buffers come from the state's scratch arrays instead.

`hot_inline` is `hot` inlined into its callers by numba: a call that LLVM does not
inline passes the state and tile tables flattened into about 400 arguments (every
array's pointer, shape and strides), which cost more than the work of many small turn
steps. Use it for the steps of a turn that only other `hot` functions call (inlined into
a reference-counted caller, the state's arrays would be counted again).
"""

from numba import njit

hot = njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
hot_inline = njit(cache=True, nogil=True, _nrt=False, error_model="numpy", inline="always")
