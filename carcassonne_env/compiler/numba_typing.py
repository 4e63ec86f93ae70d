"""numba's typing of calls, made cheaper without changing what it decides.

Typing a function, numba resolves every call in it (each ``+``, ``min``, ``np.uint64``
...) by trying the callee's typing templates in turn, and looks up each candidate
overload in a cache keyed by the compile flags in force. Two costs repeat there on
every call, for answers that never change:

- Hashing or comparing a flags object (`numba.core.targetconfig.TargetConfig`) builds
  the dict of all its 50-odd options through one property call each. `values`,
  `config_hash` and `config_eq` compute the same values faster: the dict read from the
  option table directly (each property returns ``self._values.get(name,
  option.default)``, as the copy does); the hash, which was that of the sorted option
  *names* (``sorted`` of a dict sorts its keys), once per class; equality at once when
  both objects are of one class and set the same options alike.
- The same call types resolved again from scratch: ``a + b`` over two int64 is typed
  thousands of times in the core. `get_call_type` remembers each resolution of a
  function type (`numba.core.types.functions.BaseFunction`) by everything it depends
  on: the function type (a new overload makes a new one), its templates, the typing
  context, the target, the argument types (literals included) and the compile flags in
  force. A repeat returns the signature and records the same implementation for
  lowering as the first resolution did. Calls of jitted functions (dispatchers) are
  typed as before.

Both shorten a cold start. `install()` runs at import; `tests/compiler/test_numba_typing.py`
checks each replacement against numba's own.
"""

from __future__ import annotations

from typing import Any

from numba.core import targetconfig
from numba.core.target_extension import get_local_target
from numba.core.types.functions import BaseFunction

_TargetConfig = targetconfig.TargetConfig
NUMBA_VALUES = _TargetConfig.values
NUMBA_HASH = _TargetConfig.__hash__
NUMBA_EQ = _TargetConfig.__eq__
NUMBA_GET_CALL_TYPE = BaseFunction.get_call_type

_class_hashes: dict[type, int] = {}
_call_types: dict[tuple, tuple] = {}  # resolution key -> (signature, implementation key)


def values(self: Any) -> dict[str, Any]:
    """Every option's value, the default where it is not set (numba's ``values``)."""
    get = self._values.get
    return {name: get(name, option.default) for name, option in self.options.items()}


def config_hash(self: Any) -> int:
    """numba's hash: that of the sorted option names, computed once per class."""
    cls = type(self)
    found = _class_hashes.get(cls)
    if found is None:
        found = _class_hashes[cls] = hash(tuple(sorted(self.options)))
    return found


def config_eq(self: Any, other: Any) -> Any:
    """numba's ``__eq__``: equal option values (quick when both set the same ones)."""
    if not isinstance(other, _TargetConfig):
        return NotImplemented
    if type(self) is type(other) and self._values == other._values:
        return True
    return values(self) == values(other)


def get_call_type(self: Any, context: Any, args: Any, kws: dict) -> Any:
    """numba's ``BaseFunction.get_call_type``, remembered per resolution key (module
    docstring). Failures are not remembered: they raise as before."""
    try:
        key = (
            self,
            len(self.templates),
            context,
            get_local_target(context),
            tuple(args),
            tuple(kws.items()),
            targetconfig.ConfigStack.top_or_none(),
        )
        found = _call_types.get(key)
    except TypeError:  # an unhashable argument type (e.g. a default value's)
        return NUMBA_GET_CALL_TYPE(self, context, args, kws)
    if found is not None:
        sig, impl = found
        self._impl_keys[sig.args] = impl  # what lowering will call, as the first time
        return sig
    sig = NUMBA_GET_CALL_TYPE(self, context, args, kws)
    if sig is not None:
        _call_types[key] = (sig, self._impl_keys[sig.args])
    return sig


def install() -> None:
    """Put the replacements in place of numba's (idempotent)."""
    _TargetConfig.values = values
    _TargetConfig.__hash__ = config_hash
    _TargetConfig.__eq__ = config_eq
    BaseFunction.get_call_type = get_call_type


install()
