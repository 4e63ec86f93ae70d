"""Many numpy arrays packed into one buffer, read by name in numba and in Python.

The game state and the tile tables are each one flat buffer: a header of offsets and
dimensions, then every array's data. Jitted code reads an array as an attribute
(``st.board[y, x]``), which numba compiles to a view of the buffer (a pointer and the
dimensions read from the header); Python reads the same attribute as a numpy view.

Why one buffer: a jitted function over a named tuple of 35 arrays compiled 6-10 times
slower than over two plain arrays (numba types, lowers and passes every array's
pointer, shape and strides: about 400 arguments a call), and a copy of a game took one
numpy call per array. A packed buffer is one argument and one memcpy.

A `Packed` layout lists its fields: name, dtype, shape, scratch flag. A shape of
integers is fixed (laid out first, at offsets known when compiling: no header read); a
shape naming dimensions ("N", "G", ...) is chosen per buffer from the sizes `allocate`
is given, and read from the header. Fields flagged scratch come last and are never
copied (`live_words`: the words before them). A layout's views name elements of its
fixed fields: a view of shape () is a scalar attribute, read and written as one
(``st.seat``, ``st.seat = p``: one load or store at an offset known when compiling), a
view of shape (n,) a run of n elements (an array attribute).

Numba sees a buffer as the layout's own type (not an array: a plain int64 array never
converts to it, nor the other way), passed as one array structure. Python's buffer is an
ndarray subclass of a structured dtype of the layout's own, so numba's fast dispatch
types it by fingerprint, distinct from any plain array (`__numba_array_subtype_dispatch__`).
`Packed.cast` makes a row of a 2-D buffer (a vector env's games) a packed buffer inside
jitted code.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.core.extending import NativeValue, intrinsic, register_model, typeof_impl, unbox
from numba.core.imputils import (
    impl_ret_borrowed,
    lower_getattr_generic,
    lower_setattr_generic,
)
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
    if TYPE_CHECKING:  # the fields and views: attributes `Packed` makes at import

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...  # the scalar views

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


class View(NamedTuple):
    """A named run of elements of a fixed field (`Packed`'s views)."""

    field: str
    first: int  # index of its first element in the field
    shape: tuple  # (): a scalar; (n,): n elements
    at: int  # byte offset in the buffer
    dtype: np.dtype


class Packed:
    """A layout of named arrays in one buffer (module docstring). `fields`: (name,
    dtype, shape, scratch) with the fixed shapes first, the scratch fields last; a shape
    holds integers and, for a field sized per buffer, dimension names. `views`: (name,
    fixed field, first index, shape () or (n,)), named elements of the fixed fields.
    `array_class`, the buffers' Python class, must be bound to `name` in `module`."""

    def __init__(
        self,
        name: str,
        fields: list[tuple[str, Any, tuple, bool]],
        module: str,
        views: list[tuple[str, str, int, tuple]] = (),
    ) -> None:
        self.name = name
        self.fields = [(f, np.dtype(dt), tuple(shape), scratch) for f, dt, shape, scratch in fields]
        self.names = tuple(f for f, *_ in self.fields)
        self.index = {f: k for k, f in enumerate(self.names)}
        self.header_words = _META + _PER_FIELD * len(self.fields)
        self.buffer_dtype = np.dtype([(name, "<i8")])
        # fixed fields: offsets and shapes known to the compiler
        self.fixed: dict[str, tuple[int, tuple[int, ...]]] = {}
        offset = 8 * self.header_words
        for f, dt, shape, _ in self.fields:
            if len(shape) > _PER_FIELD - 1:
                raise ValueError(f"{name}.{f}: at most {_PER_FIELD - 1} dimensions")
            if all(isinstance(d, int) for d in shape):
                if len(self.fixed) != self.index[f]:
                    raise ValueError(f"{name}: fixed field {f} after a variable one")
                self.fixed[f] = (offset, shape)
                offset += _aligned(dt.itemsize * int(np.prod(shape)))
        self.fixed_end = offset
        self.views = {v: self._view(v, f, first, tuple(shape)) for v, f, first, shape in views}
        self.numba_type = type(name + "Type", (PackedType,), {"layout": self})()
        # `module` binds the class to `name` (pickle finds it there)
        doc = (
            f"A packed {name}: one int64 buffer whose fields ({', '.join(self.names)}) "
            f"read as numpy views, in Python and in jitted code alike."
        )
        self.array_class = type(
            name, (PackedArray,), {"layout": self, "__module__": module, "__doc__": doc}
        )
        for k, (f, dt, shape, _) in enumerate(self.fields):
            setattr(
                self.array_class,
                f,
                property(_field_getter(k), doc=f"The {f} field: {dt} {list(shape)} (a view)."),
            )
        for v, view in self.views.items():
            setattr(self.array_class, v, _view_property(v, view))
        self.cast = _make_cast(self)
        _LAYOUTS[name] = self
        _register(self)

    def _view(self, view: str, field: str, first: int, shape: tuple) -> View:
        """View `view`: elements first.. of `field`."""
        if view in self.index or field not in self.fixed or len(shape) > 1:
            raise ValueError(
                f"{self.name}.{view}: a view must have a new name and be a "
                f"scalar or a run of elements of a fixed 1-D field"
            )
        at, (size,) = self.fixed[field]
        if not 0 <= first <= first + int(np.prod(shape)) <= size:
            raise ValueError(f"{self.name}.{view}: outside {field}[{size}]")
        dt = self.fields[self.index[field]][1]
        return View(field, first, shape, at + first * dt.itemsize, dt)

    def header_word(self, name: str) -> int:
        """The header word holding field `name`'s byte offset (its dimensions follow)."""
        return _META + _PER_FIELD * self.index[name]

    def field_type(self, name: str) -> types.Type:
        """The numba type of field or view `name`: an array of its dtype and number of
        dimensions, or a scalar view's dtype."""
        if name in self.views:
            view = self.views[name]
            dt = from_dtype(view.dtype)
            return types.Array(dt, 1, "C") if view.shape else dt
        _, dt, shape, _ = self.fields[self.index[name]]
        return types.Array(from_dtype(dt), len(shape), "C")

    def allocate(self, dims: dict[str, int]) -> PackedArray:
        """A zeroed buffer whose variable fields take their shapes from `dims`, the
        size of each dimension they name."""
        named = {d for *_, shape, _ in self.fields for d in shape if isinstance(d, str)}
        if set(dims) != named:
            raise ValueError(
                f"{self.name}: sizes of dimensions {sorted(named)} needed, got {sorted(dims)}"
            )
        header = [0] * self.header_words
        offset = self.fixed_end
        live = None
        for k, (f, dt, shape, scratch) in enumerate(self.fields):
            if scratch and live is None:
                live = offset
            if f in self.fixed:
                at = self.fixed[f][0]
            else:
                shape = tuple(int(dims[d]) if isinstance(d, str) else d for d in shape)
                at = offset
                offset += _aligned(dt.itemsize * int(np.prod(shape)))
            header[_META + _PER_FIELD * k : _META + _PER_FIELD * k + 1 + len(shape)] = [at, *shape]
        words = offset // 8
        header[0], header[1] = words, (live if live is not None else offset) // 8
        buf = np.zeros(words, self.buffer_dtype).view(self.array_class)
        buf.words[: self.header_words] = header
        return buf

    def pack(self, arrays: dict[str, np.ndarray]) -> PackedArray:
        """A buffer holding `arrays` (one per field, named dimensions sized by them);
        ValueError when a shape does not fit the layout's."""
        if set(arrays) != set(self.names):
            raise ValueError(
                f"{self.name}: arrays {sorted(self.names)} needed, got {sorted(arrays)}"
            )
        dims: dict[str, int] = {}
        for f, _, shape, _ in self.fields:
            got = arrays[f].shape
            fits = len(got) == len(shape) and all(
                dims.setdefault(d, n) == n if isinstance(d, str) else d == n
                for d, n in zip(shape, got, strict=False)
            )
            if not fits:
                raise ValueError(f"{self.name}.{f}: shape {list(shape)} ({dims}), got {got}")
        buf = self.allocate(dims)
        for f, a in arrays.items():
            getattr(buf, f)[...] = a
        return buf

    def adopt(self, words: np.ndarray) -> PackedArray:
        """A buffer of this layout over `words` (an int64 row of a 2-D buffer, or a
        buffer's copy), sharing its memory."""
        return words.view(self.buffer_dtype).view(self.array_class)


def _aligned(n: int) -> int:
    return (n + 7) // 8 * 8


def _field_getter(k: int):
    def get(self: PackedArray) -> np.ndarray:
        _, dt, shape, _ = self.layout.fields[k]
        hdr = self._header()
        base = _META + _PER_FIELD * k
        return np.ndarray(
            tuple(hdr[base + 1 : base + 1 + len(shape)]),
            dt,
            buffer=self.view(np.ndarray),
            offset=hdr[base],
        )

    return get


def _view_property(name: str, view: View) -> property:
    """A view as a Python attribute: a scalar read (a Python int) and written in place,
    or a run of elements as a numpy view."""
    at, dt, shape, where = view.at, view.dtype, view.shape, f"{view.field}[{view.first}]"
    if shape:

        def run(self: PackedArray) -> np.ndarray:
            return np.ndarray(shape, dt, buffer=self.view(np.ndarray), offset=at)

        return property(run, doc=f"The {name} view: {dt} {list(shape)} from {where}.")
    scalar = struct.Struct("=" + dt.char)  # (reads the buffer: no numpy view made)

    if config.DISABLE_JIT:  # jitted code run as Python: numba's fixed-width integers

        def get(self: PackedArray) -> int:
            return dt.type(scalar.unpack_from(self, at)[0])
    else:

        def get(self: PackedArray) -> int:
            return scalar.unpack_from(self, at)[0]

    def put(self: PackedArray, value: int) -> None:
        scalar.pack_into(self, at, value)

    return property(get, put, doc=f"The {name} scalar: {dt} at {where}.")


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

    field_types = {f: layout.field_type(f) for f in (*layout.names, *layout.views)}
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
        resty = field_types[attr]
        base = context.make_array(_WORDS)(context, builder, value)
        intp = context.get_value_type(types.intp)
        if attr in layout.views:  # compile-time constants
            view = layout.views[attr]
            dt = view.dtype
            if not view.shape:
                return builder.load(_pointer(context, builder, base, view.at, dt))
            offset, shape = intp(view.at), [intp(d) for d in view.shape]
        elif attr in layout.fixed:  # compile-time constants
            k, dt = layout.index[attr], layout.fields[layout.index[attr]][1]
            at, shape = layout.fixed[attr]
            offset, shape = intp(at), [intp(d) for d in shape]
        else:
            k = layout.index[attr]
            _, dt, dims, _ = layout.fields[k]

            def word(i):
                ptr = builder.gep(base.data, [intp(_META + _PER_FIELD * k + i)])
                return builder.load(ptr)

            offset = word(0)
            shape = [word(1 + i) for i in range(len(dims))]
        item = intp(dt.itemsize)
        strides = [item]
        for d in reversed(shape[1:]):
            strides.insert(0, builder.mul(strides[0], d))
        out = context.make_array(resty)(context, builder)
        data = builder.gep(builder.bitcast(base.data, cgutils.voidptr_t), [offset])
        context.populate_array(
            out,
            data=builder.bitcast(data, out.data.type),
            shape=shape,
            strides=strides,
            itemsize=item,
            meminfo=base.meminfo,
            parent=base.parent,
        )
        return impl_ret_borrowed(context, builder, resty, out._getvalue())

    @lower_setattr_generic(cls)
    def _setattr(context, builder, sig, args, attr):
        view = layout.views.get(attr)
        if view is None or view.shape:
            raise NotImplementedError(
                f"{layout.name}.{attr} cannot be assigned (only a scalar view can)"
            )
        target, value = args  # (value: already cast to the view's type)
        base = context.make_array(_WORDS)(context, builder, target)
        builder.store(value, _pointer(context, builder, base, view.at, view.dtype))


def _pointer(context, builder, base, at: int, dt: np.dtype):
    """A pointer to the `dt` item at byte `at` of the buffer `base`."""
    intp = context.get_value_type(types.intp)
    data = builder.gep(builder.bitcast(base.data, cgutils.voidptr_t), [intp(at)])
    return builder.bitcast(data, context.get_data_type(from_dtype(dt)).as_pointer())


def _make_cast(layout: Packed):
    """An intrinsic: a 1-D C-contiguous int64 array (a row of a 2-D buffer of packed
    buffers) as a `layout` buffer."""
    if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: plain Python
        return layout.adopt

    @intrinsic
    def cast(typingctx, words):
        if (
            isinstance(words, types.Array)
            and words.ndim == 1
            and words.layout == "C"
            and words.mutable
            and words.dtype == types.int64
        ):

            def codegen(context, builder, sig, args):  # the same array structure
                return impl_ret_borrowed(context, builder, sig.return_type, args[0])

            return layout.numba_type(words), codegen
        return None

    return cast
