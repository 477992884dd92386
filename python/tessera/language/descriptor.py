"""Tensor descriptors and block pointers: a tensor in global memory read and
written a block at a time (`tl.make_tensor_descriptor`, `tl.make_block_ptr`).

Both build `tile.make_tensor_descriptor`; a target with a tensor memory
accelerator may copy their blocks with it, others use masked loads.
"""

from __future__ import annotations

import builtins
import re

from .core import CompilationError, _dtype_of, _unwrap, constexpr, int32, tensor
from .standard import _call, _const_int, _t

_MAX_RANK = 5


def _block_shape(block_shape):
    shape = [_const_int(d, "a block dimension") for d in _unwrap(block_shape)]
    if not 1 <= len(shape) <= _MAX_RANK:
        raise CompilationError(f"a block has 1 to {_MAX_RANK} dimensions, got {len(shape)}")
    return shape


def _tensors(values, what, rank):
    values = list(_unwrap(values))
    if len(values) != rank:
        raise CompilationError(f"{what} needs {rank} entries (one per dimension), got "
                               f"{len(values)}")
    return [_t(v) for v in values]


def _padding_is_nan(padding_option):
    padding = _unwrap(padding_option) or "zero"
    if padding not in ("zero", "nan"):
        raise CompilationError(f"padding_option must be 'zero' or 'nan', got {padding!r}")
    return padding == "nan"


class tensor_descriptor:
    """A tensor in global memory, loaded and stored in blocks of
    `block_shape` at element offsets (`tl.tensor_descriptor`)."""

    def __init__(self, handle, shape, strides):
        self.handle = handle
        self.dtype = _dtype_of(handle.dtype)
        self.block_shape = [constexpr(d) for d in handle.shape]
        self.shape = shape
        self.strides = strides

    def __repr__(self):
        return f"tensor_descriptor({self.dtype}, block {list(self.handle.shape)})"

    def _offsets(self, offsets):
        return [h.handle for h in _tensors(offsets, "a descriptor's offsets",
                                           len(self.block_shape))]

    def load(self, offsets):
        """The block whose first element is at `offsets`; elements outside
        the tensor read as the padding (zero or NaN)."""
        return tensor(_call("descriptor_load", self.handle, self._offsets(offsets), None, "", ""))

    def store(self, offsets, value):
        """Stores `value` as the block at `offsets`, except its elements
        outside the tensor."""
        _call("descriptor_store", self.handle, self._offsets(offsets), _t(value).handle, None)

    def _reduce(self, kind, offsets, value):
        _call("descriptor_reduce", kind, self.handle, self._offsets(offsets), _t(value).handle)

    def atomic_add(self, offsets, value): self._reduce("add", offsets, value)
    def atomic_min(self, offsets, value): self._reduce("min", offsets, value)
    def atomic_max(self, offsets, value): self._reduce("max", offsets, value)
    def atomic_and(self, offsets, value): self._reduce("and", offsets, value)
    def atomic_or(self, offsets, value): self._reduce("or", offsets, value)
    def atomic_xor(self, offsets, value): self._reduce("xor", offsets, value)


def _descriptor(base, shape, strides, block_shape, nan, aligned=False):
    handle = _call("make_tensor_descriptor", _t(base).handle, [s.handle for s in shape],
                   [s.handle for s in strides], block_shape, nan, aligned)
    return tensor_descriptor(handle, shape, strides)


def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """A descriptor of the tensor at `base` with `shape` and `strides` (in
    elements; the last must be 1), accessed in blocks of `block_shape`."""
    block = _block_shape(block_shape)
    shape = _tensors(shape, "a descriptor's shape", len(block))
    strides_list = list(_unwrap(strides))
    last = _unwrap(strides_list[-1]) if strides_list else None
    if isinstance(last, tensor) or last != 1:
        raise CompilationError("a tensor descriptor's last stride must be the constant 1")
    strides = _tensors(strides_list, "a descriptor's strides", len(block))
    element = _t(base).dtype
    if not element.is_ptr():
        raise CompilationError(f"a tensor descriptor's base must be a pointer, got {element}")
    size = element.element_ty.primitive_bitwidth // 8
    if block[-1] * size < 16:
        # Triton's error (a ValueError, the CompilationError's cause).
        raise ValueError("Descriptor block shape must have at least 16 bytes in the last "
                         f"dimension, but got {block[-1]} * {size} = {block[-1] * size} bytes")
    # Triton asks of it what a TMA copy needs: a 16-byte aligned base and
    # strides of 16-byte multiples.
    return _descriptor(base, shape, strides, block, _padding_is_nan(padding_option),
                       aligned=True)


def load_tensor_descriptor(desc, offsets):
    return desc.load(offsets)


def store_tensor_descriptor(desc, offsets, value):
    return desc.store(offsets, value)


class block_pointer:
    """A pointer to a block of a strided tensor (`tl.make_block_ptr`):
    `tl.load`, `tl.store` and `tl.advance` take it."""

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base, self.shape, self.strides, self.offsets = base, shape, strides, offsets
        self.block_shape, self.order = block_shape, order
        self.dtype = base.dtype

    def __repr__(self):
        return f"block_pointer({self.dtype}, block {self.block_shape})"

    # Carried through loops and branches as its tensors.
    def _flatten(self):
        return [self.base, *self.shape, *self.strides, *self.offsets]

    def _unflatten(self, values):
        rank = len(self.block_shape)
        base, rest = values[0], values[1:]
        return block_pointer(base, rest[:rank], rest[rank:2 * rank], rest[2 * rank:],
                             self.block_shape, self.order)

    def advance(self, offsets):
        return advance(self, offsets)

    def _checked(self, boundary_check):
        dims = [_const_int(d, "a boundary_check dimension") for d in _unwrap(boundary_check)]
        rank = len(self.block_shape)
        for d in dims:
            if not 0 <= d < rank:
                raise CompilationError(f"boundary_check names dimension {d} of a rank-{rank} "
                                       "block pointer")
        return dims

    def _descriptor(self, nan):
        return _descriptor(self.base, self.shape, self.strides, self.block_shape, nan)

    def load(self, boundary_check, padding_option, cache_modifier, eviction_policy):
        desc = self._descriptor(_padding_is_nan(padding_option))
        return tensor(_call("descriptor_load", desc.handle, [o.handle for o in self.offsets],
                            self._checked(boundary_check), cache_modifier, eviction_policy))

    def store(self, value, boundary_check):
        desc = self._descriptor(False)
        _call("descriptor_store", desc.handle, [o.handle for o in self.offsets],
              _t(value).handle, self._checked(boundary_check))


def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A pointer to the `block_shape` block at `offsets` of the tensor at
    `base` with `shape` and `strides` (in elements); `order` (the
    dimensions from fastest to slowest varying) is accepted as a hint."""
    block = _block_shape(block_shape)
    rank = len(block)
    order = [_const_int(d, "an order entry") for d in _unwrap(order)]
    if sorted(order) != list(builtins.range(rank)):
        raise CompilationError(f"order must be a permutation of the {rank} dimensions, "
                               f"got {order}")
    base = _t(base)
    if not base.dtype.is_ptr() or base.handle.shape:
        raise CompilationError(f"make_block_ptr's base must be a pointer, got {base}")
    return block_pointer(base, _tensors(shape, "make_block_ptr's shape", rank),
                         _tensors(strides, "make_block_ptr's strides", rank),
                         [o.to(int32) for o in _tensors(offsets, "make_block_ptr's offsets",
                                                        rank)],
                         block, order)


def advance(base, offsets):
    """The block pointer `base` moved by `offsets` elements."""
    if not isinstance(base, block_pointer):
        raise CompilationError(f"advance takes a block pointer, got {base!r}")
    moved = _tensors(offsets, "advance's offsets", len(base.block_shape))
    return block_pointer(base.base, base.shape, base.strides,
                         [(o + m).to(int32) for o, m in zip(base.offsets, moved)],
                         base.block_shape, base.order)


# ----------------------------------------------------------------------------
# Descriptor arguments: "tensordesc<float16[64, 64]>" (",nan" for NaN padding)
# ----------------------------------------------------------------------------

_DESCRIPTOR_TYPE = re.compile(r"tensordesc<\s*(\w+)\s*\[([\d,\s]+)\]\s*(,\s*nan\s*)?>$")


def descriptor_type_name(dtype, block_shape, nan):
    padding = ",nan" if nan else ""
    return f"tensordesc<{dtype}[{','.join(str(d) for d in block_shape)}]{padding}>"


def parse_descriptor_type(text):
    """(element dtype name, block shape, NaN padding) of a descriptor
    argument type, or None for other types."""
    match = _DESCRIPTOR_TYPE.match(str(text).strip())
    if not match:
        return None
    return match[1], [int(d) for d in match[2].split(",")], match[3] is not None


def descriptor_argument(handles, dtype, block_shape, nan):
    """The descriptor a kernel receives as `handles` (base, shape, strides
    but the last, which is 1)."""
    rank = len(block_shape)
    base = tensor(handles[0])
    shape = [tensor(h) for h in handles[1:1 + rank]]
    strides = [tensor(h) for h in handles[1 + rank:]] + [_t(1).to(_dtype_of("int64"))]
    return _descriptor(base, shape, strides, block_shape, nan)
