"""The builtins of the Tessera language, with `triton.language`'s names.

Each creates IR through the builder of the compilation in progress; Python
values (ints, floats, constexprs) given where a tensor is expected become
constants.
"""

from __future__ import annotations

import builtins
import enum

from .. import knobs
from .core import (CompilationError, _binary, _builder, _dtype_argument, _frontend_error, _state,
                   _unwrap, bfloat16, float32, int1, tensor, to_tensor)


def _call(method, *args):
    try:
        return getattr(_builder(), method)(*args)
    except CompilationError:
        raise
    except Exception as e:  # FrontendError from the C++ builder
        raise _frontend_error(e) from None


def _t(value):
    try:
        return to_tensor(value)
    except CompilationError:
        raise
    except Exception as e:
        raise _frontend_error(e) from None


def _const_int(value, what):
    value = _unwrap(value)
    if isinstance(value, tensor) or not isinstance(value, builtins.int):
        raise CompilationError(f"{what} must be a constexpr integer, got {value!r}")
    return value


def _handle_or_none(value):
    """The handle of an optional operand (a mask, an `other`)."""
    value = _unwrap(value)
    return None if value is None else _t(value).handle


def _shape(shape):
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return [_const_int(d, "a shape dimension") for d in shape]


def _axis(value):
    value = _unwrap(value)
    return value if value is None else _const_int(value, "axis")


# ----------------------------------------------------------------------------
# Program identity and construction
# ----------------------------------------------------------------------------

def _grid_axis(axis, what):
    axis = _const_int(axis, f"{what}'s axis")
    if axis not in (0, 1, 2):
        raise ValueError(f"{what} axis must be 0, 1, or 2 but got {axis}")
    return axis


def program_id(axis):
    return tensor(_call("program_id", _grid_axis(axis, "program_id")))


def num_programs(axis):
    return tensor(_call("num_programs", _grid_axis(axis, "num_programs")))


def arange(start, end):
    return tensor(_call("arange", _const_int(start, "arange's start"), _const_int(end, "arange's end")))


def full(shape, value, dtype):
    return _full(shape, value, dtype)


def _full(shape, value, dtype, layout=""):
    """tl.full, with the explicit level's layout (attribute text; "" where
    the compiler chooses)."""
    dtype = _dtype_argument(dtype, "full's dtype")
    shape = _shape([shape])
    value = _unwrap(value)
    if isinstance(value, tensor):
        scalar = value.to(dtype)
    elif dtype.is_floating():
        scalar = tensor(_call("float_constant", float(value), dtype.name))
    else:
        scalar = tensor(_call("int_constant", int(value), dtype.name))
    return tensor(_call("full", shape, scalar.handle, layout))


def zeros(shape, dtype):
    return full(shape, 0, dtype)


def zeros_like(input):
    return zeros([d.value for d in input.shape], input.dtype)


def full_like(input, value):
    return full([d.value for d in input.shape], value, input.dtype)


def swizzle2d(i, j, size_i, size_j, size_g):
    """Renumbers a size_i x size_j grid so that consecutive programs walk
    groups of size_g rows column by column (better L2 reuse in matmuls)."""
    i, j, size_i, size_j, size_g = (_unwrap(v) for v in (i, j, size_i, size_j, size_g))
    ij = i * size_j + j
    group_size = size_g * size_j
    first_row = (ij // group_size) * size_g
    rows = size_i - first_row
    rows = minimum(rows, size_g) if isinstance(rows, tensor) else builtins.min(rows, size_g)
    within = ij % group_size
    return first_row + within % rows, within // rows


def cdiv(x, div):
    x, div = _unwrap(x), _unwrap(div)
    if isinstance(x, tensor) or isinstance(div, tensor):
        return (x + div - 1) // div
    return (x + div - 1) // div


# ----------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------

def broadcast_to(input, *shape):
    return tensor(_call("broadcast_to", _t(input).handle, _shape(shape)))


def broadcast(input, other):
    a, b = _call("broadcast_pair", _t(input).handle, _t(other).handle)
    return tensor(a), tensor(b)


def expand_dims(input, axis):
    axis = _unwrap(axis)
    axes = [_const_int(a, "expand_dims' axis")
            for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    result = _t(input)
    # Negative axes count from the end of the result.
    rank = len(result.shape) + len(axes)
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"invalid axis {a}. Expected {-rank} <= axis < {rank}")
    wrapped = [a % rank for a in axes]
    if len(set(wrapped)) != len(wrapped):
        raise ValueError(f"duplicate axes, normalized axes = {wrapped}")
    for a in sorted(wrapped):
        result = tensor(_call("expand_dims", result.handle, a))
    return result


def reshape(input, *shape, can_reorder=False):
    return tensor(_call("reshape", _t(input).handle, _shape(shape), builtins.bool(_unwrap(can_reorder))))


def view(input, *shape):
    return reshape(input, *shape, can_reorder=True)


def ravel(x, can_reorder=False):
    n = 1
    for d in x.shape:
        n *= d.value
    return reshape(x, [n], can_reorder=can_reorder)


def squeeze(x, dim):
    """x without its dimension `dim`, which must have size 1."""
    x = _t(x)
    dim = _const_int(_unwrap(dim), "squeeze's dim")
    shape = [d.value for d in x.shape]
    if not -len(shape) <= dim < len(shape):
        raise ValueError(f"invalid dim {dim} for a tensor of rank {len(shape)}")
    if shape[dim] != 1:
        raise ValueError(f"cannot squeeze dimension {dim % len(shape)} of size {shape[dim]}; "
                         f"it must be 1")
    del shape[dim]
    return reshape(x, shape)


def unsqueeze(x, dim):
    """x with a dimension of size 1 inserted at `dim` (expand_dims)."""
    return expand_dims(x, dim)


def permute(input, *dims):
    return tensor(_call("permute", _t(input).handle, _shape(dims)))


def trans(input, *dims):
    """Permutes input's dimensions by `dims`; without, swaps the last two
    (a transpose, batched where there are more), as Triton's."""
    x = _t(input)
    if not dims:
        rank = len(x.shape)
        if rank < 2:
            raise ValueError("tl.trans invoked with a 0- or 1-dimensional tensor")
        dims = list(builtins.range(rank - 2)) + [rank - 1, rank - 2]
    return permute(x, *dims)


def cat(input, other, can_reorder=False):
    return tensor(_call("cat", _t(input).handle, _t(other).handle))


def join(a, b):
    return tensor(_call("join", _t(a).handle, _t(b).handle))


def interleave(a, b):
    """The elements of a and b alternating along the last dimension."""
    joined = join(a, b)
    shape = [d.value for d in joined.shape]
    if len(shape) == 1:  # two scalars
        return joined
    return reshape(joined, shape[:-2] + [shape[-2] * 2])


def split(a):
    lo, hi = _call("split", _t(a).handle)
    return tensor(lo), tensor(hi)


def flip(x, dim=None):
    """x reversed along `dim` (the last by default): the bits of its index
    there, each a dimension of 2, have their halves swapped."""
    x = _t(x)
    shape = [d.value for d in x.shape]
    dim = len(shape) - 1 if _unwrap(dim) is None else _unwrap(dim) % len(shape)
    bits = shape[dim].bit_length() - 1  # lengths are powers of two
    y = reshape(x, shape[:dim] + [2] * bits + shape[dim + 1:])
    rank = len(shape) - 1 + bits
    for axis in builtins.range(dim, dim + bits):
        order = [d for d in builtins.range(rank) if d != axis] + [axis]
        lo, hi = split(permute(y, *order))
        y = permute(join(hi, lo), *[order.index(d) for d in builtins.range(rank)])
    return reshape(y, shape)


def _to_last(x, dim):
    """x with dimension `dim` (None: the last) moved last, and the order
    that moves it back."""
    rank = len(x.shape)
    dim = rank - 1 if _unwrap(dim) is None else _unwrap(dim) % rank
    order = [d for d in builtins.range(rank) if d != dim] + [dim]
    back = [order.index(d) for d in builtins.range(rank)]
    return (x if dim == rank - 1 else permute(x, *order)), back


def _pairs(y, stride):
    """The elements of y's last dimension `stride` apart in blocks of
    2 * stride: (first, second), each [..., n / (2 * stride), stride]."""
    shape = [d.value for d in y.shape]
    n = shape[-1]
    pairs = reshape(y, shape[:-1] + [n // (2 * stride), 2, stride])
    rank = len(shape) + 2
    return split(permute(pairs, *builtins.range(rank - 2), rank - 1, rank - 2))


def _unpair(first, second):
    joined = join(first, second)  # [..., blocks, stride, 2]
    shape = [d.value for d in joined.shape]
    rank = len(shape)
    unpaired = permute(joined, *builtins.range(rank - 3), rank - 3, rank - 1, rank - 2)
    return reshape(unpaired, shape[:-3] + [shape[-3] * shape[-2] * 2])


def sort(x, dim=None, descending=False):
    """x sorted along `dim` (the last by default) by a bitonic network: each
    step swaps the pairs of elements its stride apart that are out of the
    order their block goes in (values move, none is made or lost)."""
    y, back = _to_last(_t(x), dim)
    n = y.shape[-1].value
    descending = builtins.bool(_unwrap(descending))
    size = 2
    while size <= n:
        stride = size // 2
        while stride >= 1:
            first, second = _pairs(y, stride)
            blocks = n // (2 * stride)
            # Blocks of `size` elements go down where that bit of the index is
            # set (none in the last merge), all reversed for descending.
            down = ((arange(0, blocks) * (2 * stride)) & size) != 0
            if descending:
                down = down == 0
            swap = (first > second) != expand_dims(down, 1)
            y = _unpair(where(swap, second, first), where(swap, first, second))
            stride //= 2
        size *= 2
    rank = len(y.shape)
    return y if back == list(builtins.range(rank)) else permute(y, *back)


def topk(x, k, dim=None, descending=True):
    """The k largest elements of x along `dim` (the last by default), in
    descending order; with `descending` false, the k smallest in ascending
    order."""
    y, back = _to_last(sort(x, dim, descending=descending), dim)
    k = _unwrap(k)
    while y.shape[-1].value > k:
        y, _ = _pairs(y, y.shape[-1].value // 2)
        y = reshape(y, [d.value for d in y.shape[:-2]] + [y.shape[-1].value])
    rank = len(y.shape)
    return y if back == list(builtins.range(rank)) else permute(y, *back)


# ----------------------------------------------------------------------------
# Elementwise
# ----------------------------------------------------------------------------

def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    """input.to(dtype, ...)."""
    return _t(input).to(dtype, fp_downcast_rounding=fp_downcast_rounding, bitcast=bitcast)


def assume(condition):
    """A promise that `condition` holds, which the compiler may use; it is
    checked nowhere (Triton's tl.assume)."""
    return None


def where(condition, x, y):
    from .core import _is_scalar_literal
    weak_x, weak_y = _is_scalar_literal(_unwrap(x)), _is_scalar_literal(_unwrap(y))
    return tensor(_call("where", _t(condition).handle, _t(x).handle, _t(y).handle, weak_x, weak_y))


class PropagateNan(enum.Enum):
    """What tl.minimum, tl.maximum and tl.clamp give where a float operand
    is NaN: the other operand (NONE, the default) or NaN (ALL)."""
    NONE = 0
    ALL = 0xFFFF


def _nan_op(name, propagate_nan):
    propagate_nan = _unwrap(propagate_nan)
    if propagate_nan is None or propagate_nan == PropagateNan.NONE:
        return name[:3] + "num"
    if propagate_nan == PropagateNan.ALL:
        return name
    raise _frontend_error(f"{name}: propagate_nan must be a tl.PropagateNan, "
                          f"not {propagate_nan!r}")


def minimum(x, y, propagate_nan=PropagateNan.NONE):
    return _binary(_nan_op("minimum", propagate_nan), x, y)


def maximum(x, y, propagate_nan=PropagateNan.NONE):
    return _binary(_nan_op("maximum", propagate_nan), x, y)


def clamp(x, min, max, propagate_nan=PropagateNan.NONE):
    return minimum(maximum(x, min, propagate_nan), max, propagate_nan)


def fma(x, y, z):
    return tensor(_call("fma", _t(x).handle, _t(y).handle, _t(z).handle))


def _math(name):
    def fn(x, **kwargs):
        return tensor(_call("unary", name, _t(x).handle))
    fn.__name__ = name
    return fn


def _math2(name):
    def fn(x, y):
        return tensor(_call("math_binary", name, _t(x).handle, _t(y).handle))
    fn.__name__ = name
    return fn


exp = _math("exp")
exp2 = _math("exp2")
log = _math("log")
log2 = _math("log2")
sqrt = _math("sqrt")
sqrt_rn = _math("sqrt_rn")
rsqrt = _math("rsqrt")
sin = _math("sin")
cos = _math("cos")
erf = _math("erf")
floor = _math("floor")
ceil = _math("ceil")
abs = _math("abs")


def sigmoid(x):
    x = _t(x)
    if not x.dtype.is_floating():
        x = x.to(float32)
    return 1.0 / (1.0 + exp(-x))


def div_rn(x, y):
    """x / y rounded to nearest, as IEEE 754 says (`/` may be 2 ulp off)."""
    return _binary("div_rn", x, y)


def fdiv(x, y, ieee_rounding=False):
    return div_rn(x, y) if _unwrap(ieee_rounding) else _t(x) / y


def gather(src, index, axis):
    """`src` gathered along `axis` at `index`: out[i, j] = src[index[i, j], j]
    for axis 0. `index` has `src`'s rank and its other dimensions."""
    return tensor(_call("gather", _t(src).handle, _t(index).handle,
                        _const_int(axis, "gather's axis")))


def histogram(input, num_bins, mask=None):
    """How many elements of the 1-D integer tensor `input` fall in each of
    `num_bins` bins of width 1 starting at 0 (an int32 tensor); values
    outside them, and elements where `mask` is false, are not counted."""
    return tensor(_call("histogram", _t(input).handle,
                        _const_int(num_bins, "histogram's num_bins"), _handle_or_none(mask)))


def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Runs target assembly (PTX on NVIDIA, AMDGCN on AMD) on each group of
    `pack` elements of `args` (broadcast to one shape): operands narrower
    than 32 bits come packed into 32-bit registers. `constraints` are LLVM
    inline-asm constraints, results first ("=r,r"). `dtype` is the result's
    dtype, or a sequence of them for several results (then a tuple is
    returned)."""
    asm, constraints = _unwrap(asm), _unwrap(constraints)
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise CompilationError("inline_asm_elementwise takes the assembly and its constraints "
                               "as strings")
    dtype = _unwrap(dtype)
    several = isinstance(dtype, (list, tuple))
    dtypes = [_unwrap(d) for d in (dtype if several else [dtype])]
    handles = [_t(a).handle for a in _unwrap(args)]
    results = _call("inline_asm", asm, constraints, handles, [d.name for d in dtypes],
                    builtins.bool(_unwrap(is_pure)),
                    _const_int(pack, "inline_asm_elementwise's pack"))
    results = [tensor(r) for r in results]
    return tuple(results) if several else results[0]


def umulhi(x, y):
    """The high 32 (or 64) bits of the product of two integers."""
    return tensor(_call("mulhi", _t(x).handle, _t(y).handle))


def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    dim = len(x.shape) - 1 if dim is None else _unwrap(dim)
    z = x - max(x, dim, keep_dims=True)
    num = exp(z)
    den = sum(num, dim, keep_dims=True)
    return num / den


# ----------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------

def _check_fits(pointer, operand, what):
    """Triton's rule for a load's mask and other, and a store's or an
    atomic's value and mask: they broadcast to the pointers' shape, which
    takes none of theirs."""
    operand = _unwrap(operand)
    if operand is None:
        return
    shape = [d.value for d in _t(pointer).shape]
    theirs = [d.value for d in _t(operand).shape]
    if not theirs:
        return  # a scalar goes to every element
    if not shape:
        raise CompilationError(f"{what} cannot be a tensor ({theirs}) where the pointer is a "
                               "scalar")
    if len(theirs) != len(shape) or any(t not in (s, 1) for t, s in zip(theirs, shape)):
        raise CompilationError(f"{what} of shape {theirs} does not broadcast to the pointers' "
                               f"shape {shape}")


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    pointer = _unwrap(pointer)
    if isinstance(pointer, _descriptor.block_pointer):
        if _unwrap(mask) is not None or _unwrap(other) is not None:
            raise CompilationError("a load through a block pointer takes boundary_check and "
                                   "padding_option, not mask and other")
        return pointer.load(boundary_check, padding_option, _unwrap(cache_modifier) or "",
                            _unwrap(eviction_policy) or "")
    if _unwrap(other) is not None and _unwrap(mask) is None:
        raise CompilationError("load's 'other' needs a mask")
    _check_fits(pointer, mask, "load's mask")
    _check_fits(pointer, other, "load's 'other'")
    return tensor(_call("load", _t(pointer).handle, _handle_or_none(mask), _handle_or_none(other),
                        _unwrap(cache_modifier) or "", _unwrap(eviction_policy) or "",
                        builtins.bool(_unwrap(volatile))))


def _no_writes_in_map(what):
    codegen = getattr(_state, "codegen", None)
    if codegen is not None and codegen.elementwise_depth:
        raise CompilationError(f"{what} is not supported inside map_elementwise's function "
                               "(Stores are not supported inside map_elementwise)")


def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    _no_writes_in_map("a store")
    pointer = _unwrap(pointer)
    if isinstance(pointer, _descriptor.block_pointer):
        if _unwrap(mask) is not None:
            raise CompilationError("a store through a block pointer takes boundary_check, "
                                   "not mask")
        return pointer.store(value, boundary_check)
    _check_fits(pointer, value, "the stored value")
    _check_fits(pointer, mask, "store's mask")
    _call("store", _t(pointer).handle, _t(value).handle, _handle_or_none(mask),
          _unwrap(cache_modifier) or "", _unwrap(eviction_policy) or "")


def _atomic(kind):
    def fn(pointer, val, mask=None, sem=None, scope=None):
        _no_writes_in_map(f"atomic_{kind}")
        _check_fits(pointer, val, f"atomic_{kind}'s value")
        _check_fits(pointer, mask, f"atomic_{kind}'s mask")
        element = _t(pointer).dtype.element_ty
        if element.is_int() and element.primitive_bitwidth == 16:
            raise CompilationError(f"atomic_{kind} does not support {element}")  # as Triton
        return tensor(_call("atomic_rmw", kind, _t(pointer).handle, _t(val).handle,
                            _handle_or_none(mask),
                            _unwrap(sem) or "acq_rel", _unwrap(scope) or "gpu"))
    fn.__name__ = "atomic_" + kind
    return fn


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    return tensor(_call("atomic_cas", _t(pointer).handle, _t(cmp).handle, _t(val).handle,
                        _unwrap(sem) or "acq_rel", _unwrap(scope) or "gpu"))


# ----------------------------------------------------------------------------
# Dot, reductions, scans
# ----------------------------------------------------------------------------

def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32):
    precision = _unwrap(input_precision)
    if precision is None and _unwrap(allow_tf32) is None:
        precision = knobs.language.fp32_default or "tf32"
    elif precision is None:
        precision = "tf32" if _unwrap(allow_tf32) else "ieee"
    acc = _unwrap(acc)
    out = _unwrap(out_dtype)
    a, b = _t(input), _t(other)
    out_name = out.name if (a.dtype.is_floating() and out is not None) else ""
    rank = len(a.shape)
    if rank > 3 and len(b.shape) == rank:
        # Every dimension but the last two is a batch: one batch dimension
        # for the dot, then the shape back.
        batch = [d.value for d in a.shape[:-2]]
        count = 1
        for size in batch:
            count *= size
        flat = lambda x: reshape(x, [count] + [d.value for d in x.shape[-2:]])
        a, b = flat(a), flat(b)
        acc = flat(_t(acc)) if acc is not None else None
        d = dot(a, b, acc, precision, None, max_num_imprecise_acc, out_dtype)
        return reshape(d, batch + [d.shape[1].value, d.shape[2].value])
    imprecise = _unwrap(max_num_imprecise_acc)
    return tensor(_call("dot", a.handle, b.handle, _t(acc).handle if acc is not None else None,
                        precision, out_name, 0 if imprecise is None else imprecise))


def _keep(result, input, axis, keep_dims):
    if keep_dims and axis is not None:
        return expand_dims(result, axis)
    return result


def _reduce_builtin(kind, input, axis, keep_dims):
    x = _t(input)
    axis = _axis(axis)
    if axis is None:
        x = ravel(x)
        axis = 0
        result = tensor(_call("reduce", x.handle, axis, kind))
        if keep_dims:
            for _ in builtins.range(len(input.shape)):
                result = expand_dims(result, 0)
        return result
    return _keep(tensor(_call("reduce", x.handle, axis, kind)), x, axis, _unwrap(keep_dims))


def item(input):
    """The element of a one-element tensor, as a scalar."""
    x = _t(input)
    if not x.shape:
        return x
    if x.numel.value != 1:
        raise ValueError(f"can only unsplat single-element tensors, got shape "
                         f"{[d.value for d in x.shape]}")
    return tensor(_call("reduce", ravel(x).handle, 0, "first"))


def sum(input, axis=None, keep_dims=False, dtype=None):
    x = _t(input)
    dtype = _unwrap(dtype)
    if dtype is not None:
        x = x.to(dtype)
        if dtype == int1:
            # Sums of int1 wrap: the parity (booleans alone widen to int32).
            return _reduce_builtin("xor_sum", x, axis, keep_dims)
        if dtype.is_int():
            # They wrap in the dtype asked for; the int32 sum, narrowed,
            # is that sum.
            return _reduce_builtin("sum", x, axis, keep_dims).to(dtype)
    return _reduce_builtin("sum", x, axis, keep_dims)


def xor_sum(input, axis=None, keep_dims=False):
    return _reduce_builtin("xor_sum", input, axis, keep_dims)


def _promote_bfloat16(input):
    """bf16 values as fp32, as Triton's reductions and scans take them
    (their results are fp32)."""
    x = _t(input)
    return x.to(float32) if x.dtype == bfloat16 else x


def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    input = _promote_bfloat16(input)
    if _unwrap(return_indices):
        return (_reduce_builtin("max", input, axis, keep_dims),
                _reduce_builtin("argmax", input, axis, keep_dims))
    return _reduce_builtin("max", input, axis, keep_dims)


def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    input = _promote_bfloat16(input)
    if _unwrap(return_indices):
        return (_reduce_builtin("min", input, axis, keep_dims),
                _reduce_builtin("argmin", input, axis, keep_dims))
    return _reduce_builtin("min", input, axis, keep_dims)


def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _reduce_builtin("argmax", input, axis, keep_dims)


def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _reduce_builtin("argmin", input, axis, keep_dims)


def _combine(inputs, axis, combine_fn, is_scan, reverse):
    single = not isinstance(inputs, (tuple, list))
    values = [_t(inputs)] if single else [_t(v) for v in inputs]
    axis = _axis(axis)
    if axis is None:
        values = [ravel(v) for v in values]
        axis = 0
    args = _call("begin_combiner", [v.handle for v in values], axis, is_scan, builtins.bool(reverse))
    codegen = _state.codegen
    results = codegen.call_function(combine_fn, [tensor(a) for a in args])
    if not isinstance(results, (tuple, list)):
        results = [results]
    outs = _call("end_combiner", [_t(r).handle for r in results])
    outs = [tensor(o) for o in outs]
    return outs[0] if single else tuple(outs)


def map_elementwise(scalar_fn, *args, pack=1):
    """`scalar_fn` (a @jit function of scalars, which may branch on them)
    applied to each element of `args`, broadcast to one shape (each keeping
    its dtype): its result, or a tuple of its results. With `pack`, it takes
    `pack` elements of each argument at once, all of the first argument's,
    then the second's, and returns each of its results' `pack` values in
    turn. It runs on whole tensors, an if on its arguments taking both
    branches and selecting; it may not write memory."""
    pack = _unwrap(pack)
    if not isinstance(pack, builtins.int) or pack < 1 or pack & (pack - 1):
        raise CompilationError(f"map_elementwise: pack must be a power of 2, got {pack!r}")
    if not args:
        raise CompilationError("map_elementwise needs at least one tensor")
    values = [_t(a) for a in args]
    for i in builtins.range(1, len(values)):
        values[0], values[i] = broadcast(values[0], values[i])
    values = [broadcast(v, values[0])[0] for v in values]
    shape = [d.value for d in values[0].shape]
    numel = 1
    for d in shape:
        numel *= d
    if numel % pack:
        raise CompilationError(f"map_elementwise: pack {pack} must divide the {numel} elements")
    levels = pack.bit_length() - 1
    lanes_of = []
    for v in values:
        lanes = [reshape(ravel(v), [numel // pack] + [2] * levels)] if pack > 1 else [v]
        for _ in builtins.range(levels):
            lanes = [half for lane in lanes for half in split(lane)]
        lanes_of.append(lanes)
    codegen = _state.codegen
    codegen.elementwise_depth += 1
    try:
        results = codegen.call_function(scalar_fn, [lane for lanes in lanes_of for lane in lanes])
    finally:
        codegen.elementwise_depth -= 1
    single = not isinstance(results, tuple)
    results = [results] if single else list(results)
    if len(results) % pack:
        raise CompilationError(f"map_elementwise: with pack {pack}, {scalar_fn.__name__} must "
                               f"return a multiple of {pack} values, got {len(results)}")
    outputs = []
    for o in builtins.range(len(results) // pack):
        lanes = [broadcast_to(_t(r), *([numel // pack] if pack > 1 else shape))
                 for r in results[o * pack:(o + 1) * pack]]
        while len(lanes) > 1:
            lanes = [join(lanes[i], lanes[i + 1]) for i in builtins.range(0, len(lanes), 2)]
        outputs.append(reshape(lanes[0], shape) if pack > 1 else lanes[0])
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def reduce(input, axis, combine_fn, keep_dims=False):
    result = _combine(input, axis, combine_fn, False, False)
    if _unwrap(keep_dims) and _axis(axis) is not None:
        if isinstance(result, tuple):
            return tuple(expand_dims(r, _axis(axis)) for r in result)
        return expand_dims(result, _axis(axis))
    return result


def associative_scan(input, axis, combine_fn, reverse=False):
    return _combine(input, axis, combine_fn, True, _unwrap(reverse))


def cumsum(input, axis=0, reverse=False, dtype=None):
    x = _promote_bfloat16(input)
    if _unwrap(dtype) is not None:
        x = x.to(_unwrap(dtype))
    return tensor(_call("scan", x.handle, _axis(axis), "cumsum", builtins.bool(_unwrap(reverse))))


def cumprod(input, axis=0, reverse=False):
    return tensor(_call("scan", _promote_bfloat16(input).handle, _axis(axis), "cumprod",
                        builtins.bool(_unwrap(reverse))))


# ----------------------------------------------------------------------------
# Hints, assertions, printing
# ----------------------------------------------------------------------------

def _hint(name, input, values):
    values = _unwrap(values)
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    return tensor(_call("hint", _t(input).handle, name, [_const_int(v, name) for v in values]))


def multiple_of(input, values):
    return _hint("divisibility", input, values)


def max_contiguous(input, values):
    return _hint("contiguity", input, values)


def max_constancy(input, values):
    return _hint("constancy", input, values)


def static_assert(cond, msg=""):
    cond = _unwrap(cond)
    if isinstance(cond, tensor):
        raise CompilationError("static_assert needs a condition known at compile time")
    if not cond:
        raise CompilationError(f"static_assert failed: {_unwrap(msg)}")


def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    print(*[_unwrap(v) for v in values], sep=sep, end=end, file=file, flush=flush)


def device_print(prefix, *args, hex=False):
    _call("print", str(_unwrap(prefix)), [_t(a).handle for a in args], builtins.bool(_unwrap(hex)))


def device_assert(cond, msg="", mask=None):
    cond = _t(cond)
    mask = _unwrap(mask)
    if mask is not None:
        cond = cond | ~_t(mask).to(cond.dtype)
    _call("device_assert", cond.handle, str(_unwrap(msg)))


def debug_barrier():
    _call("barrier")


# ----------------------------------------------------------------------------
# Loops: range and static_range are recognised by the code generator.
# ----------------------------------------------------------------------------

class range:
    """A loop over a range evaluated when the kernel runs (`tl.range`).
    `flatten=True` fuses it with the loop inside it into one loop, which the
    pipeliner then runs across the outer iterations (a persistent kernel's
    tiles). `warp_specialize=True` has a warpgroup of its own issue the
    loop's tensor-descriptor copies (on Hopper), for the kernel's warps to
    wait on. `loop_unroll_factor`, `disallow_acc_multi_buffer` and
    `disable_licm` are accepted, as Triton's, and change nothing here."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False,
                 disable_licm=False):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step
        self.num_stages = num_stages
        self.flatten = flatten
        self.warp_specialize = warp_specialize


def condition(arg, disable_licm=False):
    """A while loop's condition, marked as Triton's `tl.condition` marks it
    (`disable_licm` is accepted and changes nothing here)."""
    return arg


class static_range:
    """A loop unrolled at compile time; its bounds are constexprs."""

    def __init__(self, arg1, arg2=None, step=None):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step


# Block pointers are built from the builtins above.
from . import descriptor as _descriptor  # noqa: E402
