"""The compile options of the core.

`hot` functions run without numba's reference counting (`_nrt=False`): reading an array
out of the state tuple would otherwise cost an atomic increment/decrement pair, which
dominated the run time of a move. The price: a `hot` function, and everything it calls,
must not allocate arrays; buffers come from the state's scratch arrays instead.
"""

from numba import njit

hot = njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
