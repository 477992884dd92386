"""The core of the explicit level: constructors that take a layout, layout
conversion, shared memory, and what a kernel asks of its launch.

Every other `gl` function is the `tessera.language` one: with explicit
layouts the compiler derives each result's layout from its operands (Gluon's
rules), so they need nothing more here.
"""

from __future__ import annotations

from ....language import core, standard
from ....language.core import CompilationError, _dtype_argument, _state, _unwrap, tensor
from ....language.standard import _call, _const_int, _shape, _t
from ._layouts import (AutoLayout, DistributedLayout, DistributedLinearLayout, SharedLayout,
                       SharedLinearLayout, _from_ir)

__all__ = ["allocate_shared_memory", "arange", "bank_conflicts", "convert_layout",
           "distributed_type", "dot_fma", "full", "full_like", "num_ctas", "num_warps",
           "set_auto_layout", "shared_memory_descriptor", "thread_barrier", "to_linear_layout",
           "zeros", "zeros_like"]


def _distributed(layout, what):
    layout = _unwrap(layout)
    if layout is None:
        return ""
    if not isinstance(layout, DistributedLayout):
        raise CompilationError(f"{what} needs a distributed layout, got {layout!r}")
    return layout._to_ir()


def _shared(layout, what):
    layout = _unwrap(layout)
    if not isinstance(layout, SharedLayout):
        raise CompilationError(f"{what} needs a shared layout, got {layout!r}")
    return layout._to_ir()


def arange(start, end, layout=None):
    """[start, end) in `layout` (AutoLayout where None)."""
    return tensor(_call("arange", _const_int(start, "arange's start"),
                        _const_int(end, "arange's end"), _distributed(layout, "arange")))


def full(shape, value, dtype, layout=None):
    return standard._full(shape, value, dtype, _distributed(layout, "full"))


def zeros(shape, dtype, layout=None):
    return full(shape, 0, dtype, layout)


def _like(input, shape, dtype, layout):
    shape = [d.value for d in input.shape] if _unwrap(shape) is None else shape
    dtype = input.dtype if _unwrap(dtype) is None else dtype
    layout = input.type.layout if _unwrap(layout) is None else layout
    return shape, dtype, layout


def full_like(input, value, shape=None, dtype=None, layout=None):
    shape, dtype, layout = _like(input, shape, dtype, layout)
    return full(shape, value, dtype, layout)


def zeros_like(input, shape=None, dtype=None, layout=None):
    return full_like(input, 0, shape, dtype, layout)


def convert_layout(value, layout, assert_trivial=False):
    """`value` in `layout`; with assert_trivial, an error unless no data
    moves between threads."""
    value = _t(value)
    return tensor(_call("convert_layout", value.handle, _distributed(layout, "convert_layout"),
                        bool(_unwrap(assert_trivial))))


def set_auto_layout(value, layout):
    """Gives a tensor in AutoLayout (and what it was computed from) `layout`."""
    value = _t(value)
    if isinstance(_unwrap(layout), AutoLayout):
        raise CompilationError("set_auto_layout needs a concrete layout, got AutoLayout")
    return tensor(_call("set_auto_layout", value.handle, _distributed(layout, "set_auto_layout")))


def _layout_query(call, *args):
    from .... import _tessera
    try:
        return getattr(_tessera, call)(*args)
    except Exception as e:  # FrontendError
        raise CompilationError(str(e)) from None


def to_linear_layout(layout, shape):
    """`layout` over a tensor (a buffer) of `shape` in its linear form: a
    DistributedLinearLayout, or a SharedLinearLayout of its offset bases."""
    layout = _unwrap(layout)
    shape = [int(_unwrap(d)) for d in _unwrap(shape)]
    if not isinstance(layout, (DistributedLayout, SharedLayout)):
        raise CompilationError(f"to_linear_layout needs a layout, got {layout!r}")
    bases = dict(_layout_query("linear_layout_bases", layout._to_ir(), shape))
    if isinstance(layout, SharedLayout):
        return SharedLinearLayout(bases.get("offset", []))
    return DistributedLinearLayout(bases.get("register", []), bases.get("lane", []),
                                   bases.get("warp", []), bases.get("block", []), shape)


class distributed_type(core.block_type):
    """The type of a tensor in registers: elements, shape and layout."""

    def __init__(self, element_ty, shape, layout):
        super().__init__(element_ty, shape, _unwrap(layout)._to_ir())
        self._layout = _unwrap(layout)

    @property
    def layout(self):
        return self._layout


def bank_conflicts(distr_ty, shared_ty):
    """The shared-memory wavefronts a warp's store of a tensor of `distr_ty`
    into a buffer of `shared_ty` takes beyond the fewest it could (0:
    conflict-free)."""
    distr_ty, shared_ty = _unwrap(distr_ty), _unwrap(shared_ty)
    distr_ty = getattr(distr_ty, "type", distr_ty)  # a tensor gives its type
    if not isinstance(distr_ty.layout, DistributedLayout) or \
            not isinstance(shared_ty.layout, SharedLayout):
        raise CompilationError("bank_conflicts needs a distributed type and a shared memory "
                               f"type, got {distr_ty!r} and {shared_ty!r}")
    shape = [int(_unwrap(d)) for d in distr_ty.shape]
    if shape != [int(_unwrap(d)) for d in shared_ty.shape]:
        raise CompilationError(f"bank_conflicts: shapes {shape} and {list(shared_ty.shape)} differ")
    return _layout_query("bank_conflicts", distr_ty.layout._to_ir(), shared_ty.layout._to_ir(),
                         shape, distr_ty.element_ty.primitive_bitwidth)


def num_warps():
    """The warps of the kernel's programs (its num_warps option)."""
    return core.constexpr(_state.options["num_warps"])


def num_ctas():
    return core.constexpr(1)


def thread_barrier():
    """Waits for every thread of the program; shared-memory writes before it
    are seen by reads after it."""
    _call("barrier")


def dot_fma(a, b, acc):
    """acc + a @ b on the CUDA cores: a and b in DotOperandLayout with acc's
    layout (a BlockedLayout) as parent."""
    return tensor(_call("dot", _t(a).handle, _t(b).handle, _t(acc).handle, "ieee", "", 0))


class shared_memory_descriptor:
    """A buffer, or a view of one, in the program's shared memory."""

    def __init__(self, handle, layout):
        self.handle = handle
        self.dtype = core._dtype_of(handle.dtype)
        self.shape = [core.constexpr(d) for d in handle.shape]
        self.layout = layout

    @property
    def type(self):
        return self

    @property
    def element_ty(self):
        return self.dtype

    @property
    def rank(self):
        return len(self.shape)

    @property
    def numel(self):
        n = 1
        for d in self.handle.shape:
            n *= d
        return core.constexpr(n)

    def __repr__(self):
        return f"shared_memory_descriptor({self.dtype}, {list(self.handle.shape)}, {self.layout})"

    def _view(self, handle, layout=None):
        return shared_memory_descriptor(handle, self.layout if layout is None else layout)

    def load(self, layout):
        """The buffer's contents as a tensor in `layout`."""
        return tensor(_call("local_load", self.handle, _distributed(layout, "load")))

    def store(self, value):
        _call("local_store", self.handle, _t(value).handle)

    def index(self, index):
        """Buffer `index` of the first dimension."""
        return self._view(_call("memdesc_index", self.handle, _t(index).handle))

    def slice(self, start, length, dim=0):
        return self._view(_call("memdesc_slice", self.handle, _const_int(start, "slice's start"),
                                _const_int(length, "slice's length"),
                                _const_int(dim, "slice's dim")))

    def permute(self, order):
        order = [_const_int(d, "permute's order") for d in _unwrap(order)]
        handle = _call("memdesc_permute", self.handle, order)
        return self._view(handle, _from_ir(handle.layout))

    def reshape(self, shape):
        """The buffer as `shape`, each element where it was (its layout the
        reshaped linear form)."""
        shape = [_const_int(d, "reshape's shape") for d in _unwrap(shape)]
        if shape == [d.value for d in self.shape]:
            return self
        handle = _call("memdesc_reshape", self.handle, shape)
        return self._view(handle, _from_ir(handle.layout))

    def _reinterpret(self, dtype, shape, layout):
        """The buffer's bytes as a buffer of `dtype` and `shape` laid out by
        `layout`."""
        dtype = _dtype_argument(dtype, "_reinterpret's dtype")
        shape = [_const_int(d, "_reinterpret's shape") for d in _unwrap(shape)]
        layout = _unwrap(layout)
        handle = _call("memdesc_reinterpret", self.handle, dtype.name, shape,
                       _shared(layout, "_reinterpret"))
        return shared_memory_descriptor(handle, layout)

    def _keep_alive(self):
        pass


def allocate_shared_memory(element_ty, shape, layout, value=None):
    """A buffer of `shape` elements in shared memory laid out by `layout`,
    holding `value` where given."""
    element_ty = _dtype_argument(element_ty, "allocate_shared_memory's element_ty")
    shape = _shape([shape])
    layout = _unwrap(layout)
    text = _shared(layout, "allocate_shared_memory")
    value = _unwrap(value)
    handle = _call("local_alloc", element_ty.name, shape, text,
                   _t(value).handle if value is not None else None)
    return shared_memory_descriptor(handle, layout)
