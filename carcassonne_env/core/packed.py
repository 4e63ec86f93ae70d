"""Many numpy arrays packed into one buffer, read by name in numba and in Python.

The game state and the tile tables are each one flat buffer: a header of offsets and
dimensions, then every array's data. Jitted code reads an array as an attribute
(``st.board[y, x]``), which numba compiles to a view of the buffer (a pointer and the
dimensions read from the header); Python reads the same attribute as a numpy view.

Why one buffer: a jitted function over a named tuple of 35 arrays compiled 6-10 times
slower than over two plain arrays (numba types, lowers and passes every array's
pointer, shape and strides: about 400 arguments a call), and a copy of a game took one
numpy call per array. A packed buffer is one argument and one memcpy.

A `Packed` layout lists its fields: name, dtype, and either a fixed shape (laid out
first, at offsets known when compiling: no header read) or a number of dimensions
(shape chosen per buffer, read from the header). Fields flagged scratch come last and
are never copied (`live_words`: the words before them).

Numba sees a buffer as the layout's own type (not an array: a plain int64 array never
converts to it, nor the other way), passed as one array structure. Python's buffer is an
ndarray subclass of a structured dtype of the layout's own, so numba's fast dispatch
types it by fingerprint, distinct from any plain array (`__numba_array_subtype_dispatch__`).
`Packed.cast` makes a row of a 2-D buffer (a vector env's games) a packed buffer inside
jitted code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.core.extending import NativeValue, intrinsic, register_model, typeof_impl, unbox
from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.np.numpy_support import from_dtype

_WORDS = types.Array(types.int64, 1, "C")  # the buffer as numba passes it
_META = 2  # header words before the fields: total words, live words (before scratch)
_PER_FIELD = 4  # byte offset and up to three dimensions


class PackedType(types.Type):
    """The numba type of a packed buffer (one subclass per layout)."""

    layout: Packed
    dtype, ndim = types.int64, 1  # read by the array data model

    def __init__(self) -> None:
        super().__init__(name=self.layout.name)

    def __reduce__(self):  # numba's cache pickles signatures: the layout's one instance
        return _type_of, (self.layout.name,)


_LAYOUTS: dict[str, Packed] = {}


def _type_of(name: str) -> PackedType:
    return _LAYOUTS[name].numba_type


class _Model(models.ArrayModel):
    """A packed buffer is passed as the array structure of its int64 words."""


class PackedArray(np.ndarray):
    """A packed buffer in Python: its fields are attributes (numpy views, writable)."""

    __numba_array_subtype_dispatch__ = True  # typed by numba as the layout, not an array
    layout: Packed

    def _header(self) -> list[int]:
        try:
            return self.__dict__["_hdr"]
        except KeyError:  # read once per buffer object
            n = _META + _PER_FIELD * len(self.layout.fields)
            hdr = self.__dict__["_hdr"] = self.words[:n].tolist()
            return hdr

    @property
    def words(self) -> np.ndarray:
        """The whole buffer as int64 words (a view)."""
        return self.view(np.ndarray).view(np.int64)

    @property
    def live_words(self) -> int:
        """Words before the scratch fields: what a copy copies."""
        return self._header()[1]

    def fields(self) -> dict[str, np.ndarray]:
        """Every field by name (views)."""
        return {name: getattr(self, name) for name in self.layout.names}


class Packed:
    """A layout of named arrays in one buffer (module docstring). `fields`: (name,
    dtype, shape or ndim, scratch) with the fixed shapes first, the scratch fields
    last. `array_class`, the buffers' Python class, must be bound to `name` in
    `module`."""

    def __init__(self, name: str, fields: list[tuple[str, Any, Any, bool]],
                 module: str) -> None:
        self.name = name
        self.fields = [(f, np.dtype(dt), dims, scratch) for f, dt, dims, scratch in fields]
        self.names = tuple(f for f, *_ in self.fields)
        self.index = {f: k for k, f in enumerate(self.names)}
        self.header_words = _META + _PER_FIELD * len(self.fields)
        self.buffer_dtype = np.dtype([(name, "<i8")])
        # fixed fields: offsets and shapes known to the compiler
        self.fixed: dict[str, tuple[int, tuple[int, ...]]] = {}
        offset = 8 * self.header_words
        for f, dt, dims, _ in self.fields:
            if isinstance(dims, tuple):
                if len(self.fixed) != self.index[f]:
                    raise ValueError(f"{name}: fixed field {f} after a variable one")
                self.fixed[f] = (offset, dims)
                offset += _aligned(dt.itemsize * int(np.prod(dims)))
        self.fixed_end = offset
        self.numba_type = type(name + "Type", (PackedType,), {"layout": self})()
        # `module` binds the class to `name` (pickle finds it there)
        doc = (f"A packed {name}: one int64 buffer whose fields ({', '.join(self.names)}) "
               f"read as numpy views, in Python and in jitted code alike.")
        self.array_class = type(name, (PackedArray,), {"layout": self, "__module__": module,
                                                       "__doc__": doc})
        for k, (f, dt, dims, _) in enumerate(self.fields):
            shape = dims if isinstance(dims, tuple) else f"{dims}-D"
            setattr(self.array_class, f, property(_field_getter(k),
                                                  doc=f"The {f} field: {dt} {shape} (a view)."))
        self.cast = _make_cast(self)
        _LAYOUTS[name] = self
        _register(self)

    def header_word(self, name: str) -> int:
        """The header word holding field `name`'s byte offset (its dimensions follow)."""
        return _META + _PER_FIELD * self.index[name]

    def field_type(self, name: str) -> types.Array:
        """The numba array type of field `name` (its dtype and number of dimensions)."""
        _, dt, dims, _ = self.fields[self.index[name]]
        return types.Array(from_dtype(dt), len(dims) if isinstance(dims, tuple) else dims, "C")

    def allocate(self, shapes: dict[str, tuple[int, ...]]) -> PackedArray:
        """A zeroed buffer with the given shape for each variable field."""
        header = [0] * self.header_words
        offset = self.fixed_end
        live = None
        for k, (f, dt, dims, scratch) in enumerate(self.fields):
            if scratch and live is None:
                live = offset
            if isinstance(dims, tuple):
                at, shape = self.fixed[f]
            else:
                shape = tuple(int(d) for d in shapes[f])
                if len(shape) != dims:
                    raise ValueError(f"{self.name}.{f}: {dims} dimensions, got {shape}")
                at = offset
                offset += _aligned(dt.itemsize * int(np.prod(shape)))
            header[_META + _PER_FIELD * k: _META + _PER_FIELD * k + 1 + len(shape)] = \
                [at, *shape]
        unknown = set(shapes) - {f for f, _, dims, _ in self.fields if not isinstance(dims, tuple)}
        if unknown:
            raise ValueError(f"{self.name}: no variable fields {sorted(unknown)}")
        words = offset // 8
        header[0], header[1] = words, (live if live is not None else offset) // 8
        buf = np.zeros(words, self.buffer_dtype).view(self.array_class)
        buf.words[: self.header_words] = header
        return buf

    def adopt(self, words: np.ndarray) -> PackedArray:
        """A buffer of this layout over `words` (an int64 row of a 2-D buffer, or a
        buffer's copy), sharing its memory."""
        return words.view(self.buffer_dtype).view(self.array_class)


def _aligned(n: int) -> int:
    return (n + 7) // 8 * 8


def _field_getter(k: int):
    def get(self: PackedArray) -> np.ndarray:
        _, dt, dims, _ = self.layout.fields[k]
        hdr = self._header()
        base = _META + _PER_FIELD * k
        nd = len(dims) if isinstance(dims, tuple) else dims
        return np.ndarray(tuple(hdr[base + 1: base + 1 + nd]), dt,
                          buffer=self.view(np.ndarray), offset=hdr[base])
    return get


# ------------------------------------------------------------------------------ numba


def _register(layout: Packed) -> None:
    cls = type(layout.numba_type)
    register_model(cls)(_Model)

    @typeof_impl.register(layout.array_class)
    def _typeof(val, c):
        return layout.numba_type

    @unbox(cls)
    def _unbox(typ, obj, c):
        from numba.core.boxing import unbox_array

        value = unbox_array(_WORDS, obj, c)
        return NativeValue(value.value, is_error=value.is_error)

    field_types = {f: layout.field_type(f) for f in layout.names}
    field_types["words"] = _WORDS  # the whole buffer (header word 1: the live words)

    @infer_getattr
    class _Attributes(AttributeTemplate):
        key = cls

        def generic_resolve(self, typ, attr):
            return field_types.get(attr)

    @lower_getattr_generic(cls)
    def _getattr(context, builder, typ, value, attr):
        if attr == "words":
            return impl_ret_borrowed(context, builder, _WORDS, value)
        k = layout.index[attr]
        _, dt, dims, _ = layout.fields[k]
        resty = field_types[attr]
        base = context.make_array(_WORDS)(context, builder, value)
        intp = context.get_value_type(types.intp)
        if isinstance(dims, tuple):  # compile-time constants
            at, shape = layout.fixed[attr]
            offset = intp(at)
            shape = [intp(d) for d in shape]
        else:
            def word(i):
                ptr = builder.gep(base.data, [intp(_META + _PER_FIELD * k + i)])
                return builder.load(ptr)
            offset = word(0)
            shape = [word(1 + i) for i in range(dims)]
        item = intp(dt.itemsize)
        strides = [item]
        for d in reversed(shape[1:]):
            strides.insert(0, builder.mul(strides[0], d))
        nitems = shape[0]
        for d in shape[1:]:
            nitems = builder.mul(nitems, d)
        out = context.make_array(resty)(context, builder)
        data = builder.gep(builder.bitcast(base.data, cgutils.voidptr_t), [offset])
        context.populate_array(out, data=builder.bitcast(data, out.data.type), shape=shape,
                               strides=strides, itemsize=item, meminfo=base.meminfo,
                               parent=base.parent)
        return impl_ret_borrowed(context, builder, resty, out._getvalue())


def _make_cast(layout: Packed):
    """An intrinsic: a 1-D C-contiguous int64 array (a row of a 2-D buffer of packed
    buffers) as a `layout` buffer."""
    if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: plain Python
        return layout.adopt

    @intrinsic
    def cast(typingctx, words):
        if (isinstance(words, types.Array) and words.ndim == 1 and words.layout == "C"
                and words.mutable and words.dtype == types.int64):
            def codegen(context, builder, sig, args):  # the same array structure
                return impl_ret_borrowed(context, builder, sig.return_type, args[0])
            return layout.numba_type(words), codegen
        return None

    return cast
