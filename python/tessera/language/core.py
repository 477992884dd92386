"""Types and values of the Tessera language: dtypes, constexpr, tensor.

Names and semantics follow `triton.language`. A `tensor` wraps a value of the
kernel being compiled; its operators call the IR builder of the compilation in
progress, which applies Triton's promotion and broadcasting rules.
"""

from __future__ import annotations

import builtins
import threading

_state = threading.local()


class TesseraError(Exception):
    """The base of the errors Tessera raises (Triton's TritonError)."""


TritonError = TesseraError


class CompilationError(TesseraError):
    """A mistake in a kernel, pointing at its source line."""

    def __init__(self, message, *, filename=None, lineno=None, col=None, source_line=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self):
        if self.filename is None:
            return self.message
        text = f"{self.filename}:{self.lineno}:{self.col + 1}: {self.message}"
        if self.source_line is not None:
            text += "\n    " + self.source_line.rstrip() + "\n    " + " " * self.col + "^"
        return text


def _builder():
    b = getattr(_state, "builder", None)
    if b is None:
        raise CompilationError(
            "tessera.language functions can only be called inside a @tessera.jit function")
    return b


def _frontend_error(error):
    # The code generator adds the source location.
    return CompilationError(str(error))


# ----------------------------------------------------------------------------
# dtypes
# ----------------------------------------------------------------------------

class dtype:
    """An element type: `tl.float32`, `tl.int8`, `tl.pointer_type(tl.float16)`..."""

    def __init__(self, name):
        # Triton's short names ("fp16", "bf16") name the same types.
        self.name = _SHORT_NAMES.get(name, name)

    def __eq__(self, other):
        return isinstance(other, dtype) and self.name == other.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name

    __str__ = __repr__

    # Triton's predicates.
    def is_floating(self):
        return self.name.startswith(("float", "bfloat"))

    def is_int(self):
        return self.name.startswith(("int", "uint"))

    def is_int_signed(self):
        return self.name.startswith("int") and self.name != "int1"

    def is_int_unsigned(self):
        return self.name.startswith("uint")

    def is_bool(self):
        return self.name == "int1"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    def is_fp16(self):
        return self.name == "float16"

    def is_bf16(self):
        return self.name == "bfloat16"

    def is_fp32(self):
        return self.name == "float32"

    def is_fp64(self):
        return self.name == "float64"

    def is_fp8(self):
        return self.name.startswith("float8")

    def is_fp8e4nv(self):
        return self.name == "float8e4nv"

    def is_fp8e4b8(self):
        return self.name == "float8e4b8"

    def is_fp8e4b15(self):
        return self.name == "float8e4b15"

    def is_fp8e5(self):
        return self.name == "float8e5"

    def is_fp8e5b16(self):
        return self.name == "float8e5b16"

    @property
    def primitive_bitwidth(self):
        if self.name == "int1":
            return 1
        digits = "".join(c for c in self.name.split("e")[0] if c.isdigit())
        return int(digits) if digits else 64

    @property
    def scalar(self):
        return self

    def _float_format(self):
        """(explicit mantissa bits, exponent bias) of a floating-point type."""
        formats = {"float8e4nv": (3, 7), "float8e5": (2, 15), "float8e4b15": (3, 15),
                   "float8e4b8": (3, 8), "float8e5b16": (2, 16),
                   "float16": (10, 15),
                   "bfloat16": (7, 127), "float32": (23, 127), "float64": (52, 1023)}
        if self.name not in formats:
            raise TypeError(f"{self.name} is not a floating-point type")
        return formats[self.name]

    @property
    def fp_mantissa_width(self):
        return self._float_format()[0]

    @property
    def exponent_bias(self):
        return self._float_format()[1]

    # Triton's short names of the element types, by kind.
    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP_TYPES = ("fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                "fp64")
    STANDARD_FP_TYPES = ("fp16", "bf16", "fp32", "fp64")
    OTHER_TYPES = ("void",)


# Triton's short names of floating-point types, for dtype(name).
_SHORT_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b15": "float8e4b15",
                "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16"}


class const:
    """The annotation of a parameter pointing at memory the kernel only
    reads (Triton's tl.const)."""


class pointer_type(dtype):
    def __init__(self, element_ty, address_space=1):
        element_ty = _unwrap(element_ty)
        self.element_ty = element_ty
        self.address_space = address_space
        super().__init__(f"pointer<{element_ty.name}>")

    def is_ptr(self):
        return True

    @property
    def primitive_bitwidth(self):
        return 64


class block_type(dtype):
    """The type of a block (Triton's): its elements' type and its shape."""

    def __init__(self, element_ty, shape, layout_ir=""):
        self.element_ty = _unwrap(element_ty)
        self.shape = [_unwrap(d) for d in shape]
        self._layout_ir = layout_ir  # the explicit level's layout, as IR text
        super().__init__(f"<{self.shape}, {self.element_ty.name}>")

    @property
    def layout(self):
        """The block's layout at the explicit level (gluon): a layout object,
        or None while the compiler is to choose it."""
        if not self._layout_ir:
            return None
        from ..experimental.gluon.language._layouts import _from_ir
        return _from_ir(self._layout_ir)

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def get_block_shapes(self):
        return self.shape


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("float16")
bfloat16 = dtype("bfloat16")
float32 = dtype("float32")
float64 = dtype("float64")
float8e4nv = dtype("float8e4nv")
float8e5 = dtype("float8e5")
# Triton's fp8 with exponent bias 15 and no infinities or NaN: converted to
# and from fp16 and fp32 as Triton does, computed on as fp16.
float8e4b15 = dtype("float8e4b15")
# The FNUZ fp8 formats of AMD's CDNA3 (gfx942): no infinities, no negative
# zero, NaN the code 0x80; exponent bias 8 and 16.
float8e4b8 = dtype("float8e4b8")
float8e5b16 = dtype("float8e5b16")
float8_e4m3 = float8e4nv
float8_e5m2 = float8e5
void = dtype("void")

# Triton's type strings ("i32", "fp16", "*bf16") and the names of dtype.
_SHORT_TYPES = {"i1": int1, "u1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64,
                "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64, "fp16": float16,
                "bf16": bfloat16, "fp32": float32, "fp64": float64, "fp8e4nv": float8e4nv,
                "fp8e5": float8e5, "fp8e4b15": float8e4b15, "fp8e4b8": float8e4b8,
                "fp8e5b16": float8e5b16, "void": void}


def str_to_ty(name, c=None):
    """The dtype a Triton type string names: "fp16", "i32", "u8", "*fp32" (a
    pointer), or a dtype's own name ("float16")."""
    name = _unwrap(name)
    if name.startswith("*"):
        return pointer_type(str_to_ty(name[1:]))
    if name.startswith("const "):
        return str_to_ty(name[len("const "):])
    ty = _SHORT_TYPES.get(name) or _DTYPES.get(name)
    if ty is None:
        raise TypeError(f"unknown type string '{name}'")
    return ty

_DTYPES = {d.name: d for d in (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                float16, bfloat16, float32, float64, float8e4nv, float8e5,
                                float8e4b15, float8e4b8, float8e5b16)}


def _dtype_of(name: str) -> dtype:
    if name.startswith("pointer<"):
        return pointer_type(_dtype_of(name[len("pointer<"):-1]))
    return _DTYPES[name]


# ----------------------------------------------------------------------------
# constexpr
# ----------------------------------------------------------------------------

class constexpr:
    """A compile-time value; also the annotation of compile-time parameters."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return self.value

    def __bool__(self):
        return builtins.bool(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __eq__(self, other):
        return _unwrap(self) == _unwrap(other)

    def __hash__(self):
        return hash(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)


def _unwrap(value):
    return value.value if isinstance(value, constexpr) else value


def _dtype_argument(value, what):
    """`value` (a dtype, or a constexpr of one), or the error naming `what`
    takes one: as in Triton, a name ("float32") is not a dtype."""
    value = _unwrap(value)
    if not isinstance(value, dtype):
        raise CompilationError(f"{what} must be a tl.dtype (tl.float32, tl.int32, ...), "
                               f"got {type(value).__name__} {value!r}")
    return value


# ----------------------------------------------------------------------------
# tensor
# ----------------------------------------------------------------------------

def _is_scalar_literal(value):
    return isinstance(value, (builtins.int, builtins.float, builtins.bool)) and not isinstance(value, tensor)


def _literal_dtype(value):
    if isinstance(value, builtins.bool):
        return int1
    if isinstance(value, builtins.int):
        if -2**31 <= value < 2**31:
            return int32
        if 2**31 <= value < 2**32:
            return uint32
        if -2**63 <= value < 2**63:
            return int64
        if 2**63 <= value < 2**64:
            return uint64
        raise CompilationError(f"integer literal {value} does not fit in 64 bits")
    return float32


def to_tensor(value, b=None):
    """A tensor for a Python scalar (a 'weak' literal) or a tensor itself."""
    value = _unwrap(value)
    if isinstance(value, tensor):
        return value
    b = b or _builder()
    if isinstance(value, builtins.bool):
        return tensor(b.int_constant(int(value), "int1"))
    if isinstance(value, builtins.int):
        return tensor(b.int_constant(value, _literal_dtype(value).name))
    if isinstance(value, builtins.float):
        return tensor(b.float_constant(value, "float32"))
    raise CompilationError(f"cannot use a value of type {type(value).__name__} in a kernel")


def _binary(op, a, b, reverse=False):
    if reverse:
        a, b = b, a
    weak_a, weak_b = _is_scalar_literal(_unwrap(a)), _is_scalar_literal(_unwrap(b))
    bld = _builder()
    try:
        return tensor(bld.binary(op, to_tensor(a, bld).handle, to_tensor(b, bld).handle, weak_a, weak_b))
    except Exception as e:  # FrontendError
        raise _frontend_error(e) from None


def _unary(op, a):
    try:
        return tensor(_builder().unary(op, to_tensor(a).handle))
    except Exception as e:
        raise _frontend_error(e) from None


class tensor:
    """A value of a kernel: a scalar or a block of elements."""

    def __init__(self, handle, type=None):
        self.handle = handle
        self.dtype = _dtype_of(handle.dtype)
        self.shape = [constexpr(d) for d in handle.shape]
        # A scalar's type is its dtype, a block's a block_type.
        self.type = (block_type(self.dtype, handle.shape, handle.layout) if handle.shape
                     else self.dtype)

    @property
    def scalar(self):
        return self.dtype

    @property
    def numel(self):
        n = 1
        for d in self.handle.shape:
            n *= d
        return constexpr(n)

    def __repr__(self):
        return f"tensor({self.dtype}, {list(self.handle.shape)})"

    def __bool__(self):
        raise CompilationError(
            "the truth value of a tensor is only known when the kernel runs; "
            "use a constexpr for conditions known at compile time")

    def __iter__(self):
        raise CompilationError("tensors cannot be iterated in Python")

    # Arithmetic.
    def __add__(self, other): return _binary("add", self, other)
    def __radd__(self, other): return _binary("add", self, other, True)
    def __sub__(self, other): return _binary("sub", self, other)
    def __rsub__(self, other): return _binary("sub", self, other, True)
    def __mul__(self, other): return _binary("mul", self, other)
    def __rmul__(self, other): return _binary("mul", self, other, True)
    def __truediv__(self, other): return _binary("truediv", self, other)
    def __rtruediv__(self, other): return _binary("truediv", self, other, True)
    def __floordiv__(self, other): return _binary("floordiv", self, other)
    def __rfloordiv__(self, other): return _binary("floordiv", self, other, True)
    def __mod__(self, other): return _binary("mod", self, other)
    def __rmod__(self, other): return _binary("mod", self, other, True)
    def __and__(self, other): return _binary("and", self, other)
    def __rand__(self, other): return _binary("and", self, other, True)
    def __or__(self, other): return _binary("or", self, other)
    def __ror__(self, other): return _binary("or", self, other, True)
    def __xor__(self, other): return _binary("xor", self, other)
    def __rxor__(self, other): return _binary("xor", self, other, True)
    def __lshift__(self, other): return _binary("lshift", self, other)
    def __rlshift__(self, other): return _binary("lshift", self, other, True)
    def __rshift__(self, other): return _binary("rshift", self, other)
    def __rrshift__(self, other): return _binary("rshift", self, other, True)
    def __neg__(self): return _unary("neg", self)
    def __pos__(self): return self
    def __invert__(self): return _unary("invert", self)
    def __abs__(self): return _unary("abs", self)

    # Comparisons.
    def __eq__(self, other): return _binary("eq", self, other)
    def __ne__(self, other): return _binary("ne", self, other)
    def __lt__(self, other): return _binary("lt", self, other)
    def __le__(self, other): return _binary("le", self, other)
    def __gt__(self, other): return _binary("gt", self, other)
    def __ge__(self, other): return _binary("ge", self, other)
    __hash__ = None

    def logical_and(self, other): return _binary("logical_and", self, other)
    def logical_or(self, other): return _binary("logical_or", self, other)
    def logical_not(self): return _unary("not", self)

    # Indexing: None adds a dimension, ':' keeps one.
    def __getitem__(self, slices):
        if not isinstance(slices, tuple):
            slices = (slices,)
        result = self
        dim = 0
        for s in slices:
            s = _unwrap(s)
            if s is None:
                result = _std.expand_dims(result, dim)
                dim += 1
            elif isinstance(s, slice) and s.start is None and s.stop is None and s.step is None:
                dim += 1
            else:
                raise CompilationError(f"unsupported tensor index {s!r}: only None and ':' are allowed")
        return result

    # Conversions and shapes.
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        dtype = _dtype_argument(dtype, "the dtype of a cast")
        try:
            if bitcast:
                return tensor(_builder().bitcast(self.handle, dtype.name))
            return tensor(_builder().cast(self.handle, dtype.name))
        except Exception as e:
            raise _frontend_error(e) from None

    @property
    def T(self):
        return _std.trans(self)

    def reshape(self, *shape, can_reorder=False):
        return _std.reshape(self, *shape, can_reorder=can_reorder)

    def view(self, *shape):
        return _std.view(self, *shape)

    def broadcast_to(self, *shape):
        return _std.broadcast_to(self, *shape)

    def expand_dims(self, axis):
        return _std.expand_dims(self, axis)

    def trans(self, *dims):
        return _std.trans(self, *dims)

    def permute(self, *dims):
        return _std.permute(self, *dims)

    def ravel(self):
        return _std.ravel(self)

    def item(self):
        return _std.item(self)

    def split(self):
        return _std.split(self)

    def flip(self, dim=None):
        return _std.flip(self, dim)

    def sort(self, dim=None, descending=False):
        return _std.sort(self, dim, descending)

    def abs(self):
        return _std.abs(self)

    def gather(self, index, axis):
        return _std.gather(self, index, axis)

    def histogram(self, num_bins, mask=None):
        return _std.histogram(self, num_bins, mask)

    def cast(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return self.to(dtype, fp_downcast_rounding=fp_downcast_rounding, bitcast=bitcast)

    # Reductions as methods.
    def sum(self, axis=None, keep_dims=False):
        return _std.sum(self, axis, keep_dims=keep_dims)

    def max(self, axis=None, return_indices=False, keep_dims=False):
        return _std.max(self, axis, return_indices=return_indices, keep_dims=keep_dims)

    def min(self, axis=None, return_indices=False, keep_dims=False):
        return _std.min(self, axis, return_indices=return_indices, keep_dims=keep_dims)

    def argmax(self, axis, keep_dims=False):
        return _std.argmax(self, axis, keep_dims=keep_dims)

    def argmin(self, axis, keep_dims=False):
        return _std.argmin(self, axis, keep_dims=keep_dims)

    def cumsum(self, axis=0, reverse=False):
        return _std.cumsum(self, axis, reverse)


pi32_t = pointer_type(int32)

# The builtins operate on tensors; they are defined in standard.py, which
# imports this module, so the methods above look them up when called.
from . import standard as _std  # noqa: E402
