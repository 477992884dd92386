"""tl.dot_scaled against a float64 reference: microscaling operands (fp4
e2m1 packed two a byte, fp8 e4m3/e5m2) with uint8 exponent scales, one per
32 elements along K, against an unscaled bf16, fp16 or fp8 operand, each
upcast exactly, scaled, and multiplied with fp32 accumulation."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

FP4 = [0, 0.5, 1, 1.5, 2, 3, 4, 6]


def fp4_values(codes):
    """The e2m1 values of uint8 `codes` (low nibble first) along the last axis."""
    def nibble(n):
        magnitude = np.array(FP4)[n & 7]
        return np.where(n & 8, -magnitude, magnitude)
    lo, hi = nibble(codes & 15), nibble(codes >> 4)
    return np.stack([lo, hi], axis=-1).reshape(*codes.shape[:-1], -1)


def fp8_values(codes, mantissa, bias):
    e = (codes.astype(np.int64) >> mantissa) & ((1 << (7 - mantissa)) - 1)
    m = codes.astype(np.int64) & ((1 << mantissa) - 1)
    value = np.where(e == 0, m / 2.0**mantissa * 2.0**(1 - bias),
                     (1 + m / 2.0**mantissa) * 2.0**(e - bias))
    return np.where(codes & 0x80, -value, value)


def operand(rng, fmt, rows, k, packed_along_k=True, compute="bf16"):
    """(the array passed to the kernel, its values as float64 [rows, K]);
    fp8 values that scaled would pass fp16's range are left out where the
    product is computed in fp16."""
    if fmt == "e2m1":
        shape = (rows, k // 2) if packed_along_k else (rows // 2, k)
        codes = rng.integers(0, 256, shape).astype(np.uint8)
        if packed_along_k:
            return codes, fp4_values(codes)
        return codes, fp4_values(codes.T.copy()).T
    if fmt in ("e4m3", "e5m2"):
        codes = rng.integers(0, 256, (rows, k)).astype(np.uint8)
        if fmt == "e4m3":
            codes[(codes & 0x7F) == 0x7F] = 0x3C
            return codes, fp8_values(codes, 3, 7)
        codes[(codes & 0x7C) == 0x7C] = 0x3C
        if compute == "fp16":
            codes &= 0xBF  # exponents below 16: magnitudes below 2
        return codes, fp8_values(codes, 2, 15)
    values = rng.standard_normal((rows, k))
    if fmt == "fp16":
        halves = values.astype(np.float16)
        return halves, halves.astype(np.float64)
    bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # bf16
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@tessera.jit
def scaled_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                  AK: tl.constexpr, AM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr,
                  K: tl.constexpr, A_FMT: tl.constexpr, B_FMT: tl.constexpr,
                  LHS_K_PACK: tl.constexpr, FAST: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, AM)[:, None] * AK + tl.arange(0, AK)[None, :])
    b = tl.load(b_ptr + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :])
    sa = None
    if sa_ptr is not None:
        sa = tl.load(sa_ptr + tl.arange(0, M)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    sb = None
    if sb_ptr is not None:
        sb = tl.load(sb_ptr + tl.arange(0, N)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, sa, A_FMT, b, sb, B_FMT, lhs_k_pack=LHS_K_PACK, fast_math=FAST)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def scale_values(scales, compute):
    """2^(s - 127) as Triton builds it: 0 for s = 0 in bf16; in fp16, the
    fp32 value rounded to fp16."""
    values = 2.0 ** (scales.astype(np.float64) - 127)
    if compute == "bf16":
        return np.where(scales == 0, 0.0, values)
    return values.astype(np.float32).astype(np.float16).astype(np.float64)


# Small tiles: the dot of the CUDA-core path (AMD's until it has matrix
# cores) takes minutes to compile for gfx1100 from 32x32 on.
def run(rng, mx, normal, rhs_scaled, M=16, N=16, K=64, lhs_k_pack=True, fast=False,
        nan_scale=False):
    compute = "fp16" if "fp16" in (mx, normal) else "bf16"
    a_fmt, b_fmt = (normal, mx) if rhs_scaled else (mx, normal)
    a, a_values = operand(rng, a_fmt, M, K, lhs_k_pack, compute)
    b, b_values = operand(rng, b_fmt, N, K, compute=compute)  # rows N, K along the row
    b, b_values = (np.ascontiguousarray(b.T), b_values.T)
    low, high = (124, 131) if compute == "fp16" else (0, 142)
    scales = rng.integers(low, high, ((N if rhs_scaled else M), K // 32)).astype(np.uint8)
    if nan_scale:
        scales[0, 0] = 0xFF
    factor = np.repeat(scale_values(scales, compute), 32, axis=1)
    if rhs_scaled:
        b_values = b_values * factor.T
    else:
        a_values = a_values * factor
    c = np.zeros((M, N), np.float32)
    scaled_kernel[(1,)](a, None if rhs_scaled else scales, b, scales if rhs_scaled else None, c,
                        M, N, a.shape[1], a.shape[0], b.shape[0], b.shape[1], K, a_fmt, b_fmt,
                        lhs_k_pack, fast)
    return c, a_values @ b_values


@pytest.mark.parametrize("mx", ["e2m1", "e4m3", "e5m2"])
@pytest.mark.parametrize("normal", ["e4m3", "bf16", "fp16"])
@pytest.mark.parametrize("rhs_scaled", [False, True])
def test_dot_scaled_matches_the_upcast_product(device, mx, normal, rhs_scaled):
    c, expected = run(np.random.default_rng(0), mx, normal, rhs_scaled)
    np.testing.assert_allclose(c, expected, rtol=1e-2, atol=1e-5 * np.abs(expected).max())


def test_fp4_packed_along_m_and_nan_scales(device):
    c, expected = run(np.random.default_rng(1), "e2m1", "bf16", False, N=32, lhs_k_pack=False)
    np.testing.assert_allclose(c, expected, rtol=1e-2, atol=1e-5 * np.abs(expected).max())
    # A scale of 0xFF makes its 32 elements NaN, and with them the row.
    c, _ = run(np.random.default_rng(2), "e4m3", "bf16", False, nan_scale=True)
    assert np.isnan(c[0]).all() and not np.isnan(c[1:]).any()


@tessera.jit
def bad_dot_scaled(a_ptr, FMT: tl.constexpr, OUT: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.dot_scaled(a, None, FMT, a, None, "e4m3", out_dtype=OUT)


@pytest.mark.parametrize("fmt, out, message", [
    ("e3m2", tl.float32, "NYI: lhs_format 'e3m2'"),
    ("e4m3", tl.float16, "Only float32 is supported for out_dtype"),
    ("bf16", tl.float32, "lhs in format 'bf16' must be of uint16 or bfloat16, got uint8"),
])
def test_dot_scaled_errors_name_the_argument(fmt, out, message):
    with pytest.raises(tessera.CompilationError, match=message) as info:
        bad_dot_scaled[(1,)](np.zeros((32, 32), np.uint8), fmt, out)
    assert info.value.lineno is not None
