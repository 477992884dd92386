"""tl.dot_scaled: a dot of microscaling (MX) operands.

Each operand is upcast to bf16 (fp16 where either is fp16), multiplied by
its scale and the product computed as an ordinary dot with fp32
accumulation, as Triton does where the chip has no scaled matrix
instruction. Formats: "e2m1" (two fp4 values a byte, the first in the low
nibble, packed along K unless `*_k_pack` is false), "e4m3", "e5m2", "bf16",
"fp16". A scale is a uint8 tensor of exponents (2^(s - 127)), one per 32
(or 16) elements along K: [M, K / 32] for lhs, [N, K / 32] for rhs; None
leaves the operand unscaled. A scale of 0xFF makes its elements NaN unless
`fast_math`.
"""

from __future__ import annotations

import builtins

from . import standard as _std
from .core import (CompilationError, _unwrap, bfloat16, float8e4nv, float8e5, float16, float32,
                   tensor, uint8, uint16, uint32)

# format: (element dtypes it may come as, the dtype a uint it comes as is
# reinterpreted as).
_FORMATS = {"e2m1": ((uint8,), None), "e4m3": ((uint8, float8e4nv), float8e4nv),
            "e5m2": ((uint8, float8e5), float8e5), "bf16": ((uint16, bfloat16), bfloat16),
            "fp16": ((uint16, float16), float16)}


def _fp4_values(codes):
    """The e2m1 values of the low nibbles of `codes` (s|ee|m: 0, 0.5, 1,
    1.5, 2, 3, 4, 6 and their negatives), as fp32."""
    exponent, mantissa = (codes >> 1) & 3, codes & 1
    # Twice the magnitude, an integer: m, or (2 + m) * 2^(e - 1).
    twice = _std.where(exponent == 0, mantissa, ((2 + mantissa) << exponent) >> 1)
    magnitude = twice.to(float32) * 0.5
    return _std.where((codes & 8) != 0, -magnitude, magnitude)


def _interleave(lo, hi, dim):
    """lo and hi alternating along `dim` (lo first): twice its length."""
    shape = [d.value for d in lo.shape]
    joined = _std.join(lo, hi)  # [..., 2]
    rank = len(shape)
    order = list(builtins.range(dim + 1)) + [rank] + list(builtins.range(dim + 1, rank))
    joined = _std.permute(joined, *order)
    shape[dim] *= 2
    return _std.reshape(joined, shape)


def _upcast(x, fmt, compute, packed_dim, side):
    allowed, reinterpret = _FORMATS[fmt]
    if x.dtype not in allowed:
        raise CompilationError(f"dot_scaled: {side} in format '{fmt}' must be of "
                               f"{' or '.join(d.name for d in allowed)}, got {x.dtype.name}")
    if fmt == "e2m1":
        codes = x.to(uint32)
        return _interleave(_fp4_values(codes), _fp4_values(codes >> 4), packed_dim).to(compute)
    if x.dtype != reinterpret:
        x = x.to(reinterpret, bitcast=True)
    return x.to(compute)


def _scale_values(scale, compute):
    """2^(s - 127) in the compute type, as Triton builds it from the
    exponent bits: s = 0 is 0 and s = 255 infinity in bf16; in fp16 the fp32
    value rounded."""
    if compute == bfloat16:
        return (scale.to(uint16) << 7).to(bfloat16, bitcast=True)
    return (scale.to(uint32) << 23).to(float32, bitcast=True).to(float16)


def _apply_scale(x, scale, compute, k_dim, side, fast_math):
    """x (K along `k_dim`) times `scale` ([rows, K / group], rows the
    other dimension of x), each scale over `group` consecutive elements."""
    if scale.dtype != uint8:
        raise CompilationError(f"dot_scaled: {side}_scale must be uint8 exponents, "
                               f"got {scale.dtype.name}")
    shape = [d.value for d in x.shape]
    rank = len(shape)
    k = shape[k_dim]
    rows_dim = rank - 1 if k_dim == rank - 2 else rank - 2
    groups = scale.shape[-1].value
    expected = shape[:-2] + [shape[rows_dim], groups]
    if [d.value for d in scale.shape] != expected or k % groups or k // groups not in (16, 32):
        raise CompilationError(f"dot_scaled: {side}_scale has shape "
                               f"{[d.value for d in scale.shape]}; for {side} of shape {shape} it "
                               f"must be {shape[:-2] + [shape[rows_dim], k // 32]} (one scale per "
                               "32 elements along K)")
    # Each scale over its group: [..., rows, groups, group] -> [..., rows, K].
    codes = _std.broadcast_to(_std.expand_dims(scale, rank), *(expected + [k // groups]))
    codes = _std.reshape(codes, shape[:-2] + [shape[rows_dim], k])
    if k_dim == rank - 2:  # rhs: scales are [N, K]
        codes = _std.permute(codes, *(list(builtins.range(rank - 2)) + [rank - 1, rank - 2]))
    scaled = x * _scale_values(codes, compute)
    if not fast_math:
        scaled = _std.where(codes == 0xFF, float("nan"), scaled)
    return scaled.to(compute)


def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None,
               fast_math=False, lhs_k_pack=True, rhs_k_pack=True, out_dtype=float32):
    """lhs @ rhs of scaled operands, with fp32 accumulation (see the module)."""
    lhs, rhs = _std._t(lhs), _std._t(rhs)
    formats = [_unwrap(lhs_format), _unwrap(rhs_format)]
    for side, fmt in zip(("lhs", "rhs"), formats):
        if fmt not in _FORMATS:
            raise CompilationError(f"dot_scaled: NYI: {side}_format {fmt!r}; the formats are "
                                   f"{', '.join(_FORMATS)}")
    if _unwrap(out_dtype) != float32:
        raise CompilationError("dot_scaled: Only float32 is supported for out_dtype at the moment")
    rank = len(lhs.shape)
    if rank not in (2, 3) or len(rhs.shape) != rank:
        raise CompilationError("dot_scaled: lhs and rhs must both be 2-D (or 3-D, batched), got "
                               f"shapes {[d.value for d in lhs.shape]} and "
                               f"{[d.value for d in rhs.shape]}")
    k_packs = [builtins.bool(_unwrap(lhs_k_pack)), builtins.bool(_unwrap(rhs_k_pack))]
    for side, fmt, k_pack in zip(("lhs", "rhs"), formats, k_packs):
        if not k_pack and fmt != "e2m1":
            raise CompilationError(f"dot_scaled: only mxfp4 inputs can be packed along a "
                                   f"dimension different than K ({side} is {fmt})")
    compute = float16 if "fp16" in formats else bfloat16
    # Which dimension e2m1 pairs are packed along: K, else M (lhs) / N (rhs).
    lhs_packed = rank - 1 if k_packs[0] else rank - 2
    rhs_packed = rank - 2 if k_packs[1] else rank - 1
    a = _upcast(lhs, formats[0], compute, lhs_packed, "lhs")
    b = _upcast(rhs, formats[1], compute, rhs_packed, "rhs")
    if a.shape[-1].value != b.shape[-2].value:
        raise CompilationError("dot_scaled: Reduction dimension should pack the same number of "
                               f"elements; lhs has {a.shape[-1].value}, rhs {b.shape[-2].value}")
    fast_math = builtins.bool(_unwrap(fast_math))
    if _unwrap(lhs_scale) is not None:
        a = _apply_scale(a, _std._t(lhs_scale), compute, rank - 1, "lhs", fast_math)
    if _unwrap(rhs_scale) is not None:
        b = _apply_scale(b, _std._t(rhs_scale), compute, rank - 2, "rhs", fast_math)
    return _std.dot(a, b, acc, out_dtype=float32)


__all__ = ["dot_scaled"]
