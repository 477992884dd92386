"""fp8 conversions, checked exhaustively against an exact reference: every
code decodes to its value, and floats round to the nearest code (ties to
even), saturating at the largest finite value. The OCP formats (e4m3, e5m2)
and AMD's FNUZ ones (e4m3fnuz, e5m2fnuz: no infinities, no negative zero,
NaN the code 0x80)."""

import math
from fractions import Fraction

import numpy as np
import pytest

import tessera
import tessera.language as tl

# name: (dtype, mantissa bits, exponent bias, has infinities, FNUZ)
FORMATS = {"e4m3": (tl.float8e4nv, 3, 7, False, False),
           "e5m2": (tl.float8e5, 2, 15, True, False),
           "e4m3fnuz": (tl.float8e4b8, 3, 8, False, True),
           "e5m2fnuz": (tl.float8e5b16, 2, 16, False, True)}
TORCH_NAMES = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "e4m3fnuz": "float8_e4m3fnuz",
               "e5m2fnuz": "float8_e5m2fnuz"}


def decode(code, mantissa, bias, has_inf, fnuz):
    """The value of an fp8 code, as a Fraction (or nan / inf as floats)."""
    sign = -1 if code & 0x80 else 1
    e, m = (code >> mantissa) & ((1 << (7 - mantissa)) - 1), code & ((1 << mantissa) - 1)
    top = (1 << (7 - mantissa)) - 1
    if fnuz and code == 0x80:
        return float("nan")
    if has_inf and e == top:
        return sign * float("inf") if m == 0 else float("nan")
    if not has_inf and not fnuz and (code & 0x7F) == 0x7F:
        return float("nan")
    if e == 0:
        return sign * Fraction(m, 1 << mantissa) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << mantissa)) * Fraction(2) ** (e - bias)


def round_to(x, *fmt):
    """The value x rounds to: nearest, ties to the even code, saturating;
    zero without a sign in the FNUZ formats."""
    if np.isnan(x):
        return float("nan")
    finite = sorted((decode(c, *fmt), c) for c in range(0x80)
                    if isinstance(decode(c, *fmt), Fraction))
    largest = finite[-1][0]
    magnitude = abs(Fraction(x)) if np.isfinite(x) else largest
    best = min(finite, key=lambda vc: (abs(vc[0] - magnitude), vc[1] & 1))
    if best[0] == 0 and fmt[-1]:
        return 0.0
    return math.copysign(float(min(best[0], largest)), x)


@tessera.jit
def decode_kernel(code_ptr, y_ptr, FMT: tl.constexpr):
    offs = tl.arange(0, 256)
    code = tl.load(code_ptr + offs)
    tl.store(y_ptr + offs, code.to(FMT, bitcast=True).to(tl.float32))


@tessera.jit
def round_kernel(x_ptr, y_ptr, N: tl.constexpr, FMT: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x.to(FMT).to(tl.float32))


def test_fp8_dtypes_answer_tritons_predicates():
    assert [name for name in FORMATS if FORMATS[name][0].is_fp8()] == list(FORMATS)
    assert tl.float8e4b8.is_fp8e4b8() and tl.float8e5b16.is_fp8e5b16()
    assert tl.float8e4nv.is_fp8e4nv() and tl.float8e5.is_fp8e5() and tl.float8e4b15.is_fp8e4b15()
    assert not tl.float8e4nv.is_fp8e4b8() and not tl.float16.is_fp8()
    assert tl.float8e4b8.primitive_bitwidth == 8 and tl.float8e5b16.exponent_bias == 16
    assert tl.str_to_ty("*fp8e4b8").element_ty is tl.float8e4b8


@pytest.mark.parametrize("name", FORMATS)
def test_every_code_decodes(device, name):
    dtype, *fmt = FORMATS[name]
    codes = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.float32)
    decode_kernel[(1,)](codes, y, FMT=dtype)
    expected = np.array([float(decode(c, *fmt)) for c in range(256)], np.float32)
    np.testing.assert_array_equal(y, expected)
    assert not np.signbit(y[0])
    assert np.isnan(y[0x80]) if fmt[-1] else np.signbit(y[0x80])


def probes(fmt):
    """Every finite value, the midpoints between neighbours and points just
    beside them, beyond the largest value, infinities and NaN."""
    values = sorted({decode(c, *fmt) for c in range(0x80)} - {float("nan")},
                    key=lambda v: float(v))
    values = [v for v in values if isinstance(v, Fraction)]
    points = []
    for lo, hi in zip(values, values[1:]):
        mid = float((lo + hi) / 2)
        points += [float(lo), mid, np.nextafter(mid, -1, dtype=np.float32),
                   np.nextafter(mid, 2 * mid + 1, dtype=np.float32)]
    largest = float(values[-1])
    points += [largest * 1.03, largest * 1.2, 1e30, float("inf"), float("nan"), 1e-30]
    points = np.array(points, np.float32)
    return np.concatenate([points, -points])


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("source", ["float16", "float32", "float64"])
def test_floats_round_to_nearest_even_and_saturate(device, name, source):
    dtype, *fmt = FORMATS[name]
    with np.errstate(over="ignore"):
        x = probes(fmt).astype(source)
    n = 1 << (len(x) - 1).bit_length()
    x = np.concatenate([x, np.zeros(n - len(x), source)])
    y = np.zeros(n, np.float32)
    round_kernel[(1,)](x, y, N=n, FMT=dtype)
    expected = np.array([round_to(float(v), *fmt) for v in x], np.float32)
    np.testing.assert_array_equal(y, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(y[numbers]), np.signbit(expected[numbers]))


@tessera.jit
def memory_kernel(x_ptr, fp8_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(fp8_ptr + offs, tl.load(x_ptr + offs).to(fp8_ptr.dtype.element_ty))
    tl.debug_barrier()
    tl.store(y_ptr + offs, tl.load(fp8_ptr + offs).to(tl.float32))


@pytest.mark.parametrize("name", FORMATS)
def test_fp8_tensors_in_memory(device, name):
    torch = pytest.importorskip("torch")  # numpy has no fp8 arrays
    dtype, *fmt = FORMATS[name]
    x = np.array([0.0, -0.0, 1.0, -1.5, 3.25, 1e6, -1e6, 0.001] * 8, np.float32)
    where = "cpu" if device == "interpreter" else "cuda"  # torch calls ROCm GPUs cuda too
    fp8 = torch.zeros(64, dtype=getattr(torch, TORCH_NAMES[name]), device=where)
    y = torch.zeros(64, dtype=torch.float32, device=where)
    memory_kernel[(1,)](torch.from_numpy(x).to(where), fp8, y, N=64)
    expected = np.array([round_to(float(v), *fmt) for v in x], np.float32)
    np.testing.assert_array_equal(y.cpu().numpy(), expected)
    codes = fp8.view(torch.uint8).cpu().tolist()
    np.testing.assert_array_equal([float(decode(c, *fmt)) for c in codes], expected)


# fp8e4b15: Triton's fp8 of exponent bias 15 with no infinities or NaN. Codes
# decode exactly (0x7F is 1.875); floats become fp16 rounding toward zero,
# then their magnitude is clamped to 1.75 (infinities and NaN too) and
# rounded to 3 mantissa bits, halves away from zero.

def e4b15_value(code):
    code = int(code)
    e, m = (code >> 3) & 15, code & 7
    value = Fraction(m, 8) * Fraction(2) ** -14 if e == 0 else \
        (1 + Fraction(m, 8)) * Fraction(2) ** (e - 15)
    return -value if code & 0x80 else value


def e4b15_code(x):
    """The code Triton's conversion gives the float x (fp16, fp32, fp64)."""
    if isinstance(x, np.float16):
        half = x
    else:
        x32 = np.float32(x)
        with np.errstate(over="ignore"):
            half = np.float16(x32)
        if np.isfinite(x32) and abs(np.float32(half)) > abs(x32):  # toward zero
            half = (np.frombuffer(half.tobytes(), np.uint16) - 1).view(np.float16)[0]
    bits = int(np.frombuffer(np.float16(half).tobytes(), np.uint16)[0])
    magnitude = min(bits & 0x7FFF, 0x3F00)
    return ((magnitude + 0x40) >> 7) | ((bits >> 8) & 0x80)


def test_float8e4b15_codes_decode_exactly(device):
    codes = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.float32)
    decode_kernel[(1,)](codes, y, FMT=tl.float8e4b15)
    np.testing.assert_array_equal(y, [float(e4b15_value(c)) for c in range(256)])
    assert np.signbit(y[0x80])


@pytest.mark.parametrize("source", ["float16", "float32", "float64"])
def test_floats_round_to_float8e4b15_as_triton_does(device, source):
    values = sorted({e4b15_value(c) for c in range(0x7F)})
    points = []
    for lo, hi in zip(values, values[1:]):
        mid = (lo + hi) / 2
        points += [float(lo), float(mid), float(mid) * (1 - 2**-12), float(mid) * (1 + 2**-12)]
    points += [1.75, 1.8, 1.875, 2.0, 1e4, 1e30, float("inf"), float("nan"), 1e-30, 2**-18]
    with np.errstate(over="ignore"):
        x = np.array(points + [-p for p in points], source)
    n = 1 << (len(x) - 1).bit_length()
    x = np.concatenate([x, np.zeros(n - len(x), source)])
    y = np.zeros(n, np.float32)
    round_kernel[(1,)](x, y, N=n, FMT=tl.float8e4b15)
    expected = np.array([float(e4b15_value(e4b15_code(v))) for v in x], np.float32)
    # NaN becomes 1.75 of either sign (GPUs convert NaN to fp16 without it).
    nan = np.isnan(x)
    np.testing.assert_array_equal(y[~nan], expected[~nan])
    np.testing.assert_array_equal(np.abs(y[nan]), 1.75)


@tessera.jit
def e4b15_compute_kernel(code_ptr, out_ptr, dot_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(code_ptr + offs).to(tl.float8e4b15, bitcast=True)
    tl.static_assert((x + x).dtype == tl.float16)  # computed as fp16
    tl.store(out_ptr + offs, (x * 2 + 1).to(tl.float32))
    tl.store(out_ptr + 16 + offs, tl.abs(x).to(tl.float32))
    tl.store(out_ptr + 32 + offs, tl.full([16], 0.3, tl.float8e4b15).to(tl.float32))
    tl.store(out_ptr + 48, tl.sum(x.to(tl.float32), 0))
    tl.store(out_ptr + 49, tl.max(x, 0).to(tl.float32))
    tl.static_assert(tl.abs(x).dtype == tl.float8e4b15)
    a = tl.reshape(tl.load(code_ptr + tl.arange(0, 256)).to(tl.float8e4b15, bitcast=True),
                   [16, 16])
    rows = tl.arange(0, 16)
    tl.store(dot_ptr + rows[:, None] * 16 + rows[None, :], tl.dot(a, a))


def test_float8e4b15_computes_as_fp16(device):
    codes = np.random.default_rng(0).integers(0, 256, 256).astype(np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0x3C
    out = np.zeros(64, np.float32)
    product = np.zeros((16, 16), np.float32)
    e4b15_compute_kernel[(1,)](codes, out, product)
    x = np.array([float(e4b15_value(c)) for c in codes], np.float32)
    np.testing.assert_array_equal(out[:16], (x[:16].astype(np.float16) * 2 + 1).astype(np.float32))
    np.testing.assert_array_equal(out[16:32], np.abs(x[:16]))
    np.testing.assert_array_equal(out[32:48], float(e4b15_value(e4b15_code(0.3))))
    np.testing.assert_allclose(out[48], x[:16].sum(), rtol=1e-6)
    assert out[49] == x[:16].max()
    a = x.reshape(16, 16).astype(np.float64)
    np.testing.assert_allclose(product, a @ a, rtol=2e-3, atol=1e-5)


@tessera.jit
def imprecise_matmul_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr, LOW: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        # e4m3 codes, as bytes.
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]).to(tl.float8e4nv, bitcast=True)
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :]).to(tl.float8e4nv,
                                                                        bitcast=True)
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=LOW)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)


@pytest.mark.parametrize("low", [0, 32, 64, 128])
def test_max_num_imprecise_acc_adds_in_fp32(low):
    # On Hopper, fp8 wgmmas sum at most `low` products of K in the tensor
    # cores' precision, then add in fp32: one add.f32 per accumulator
    # register a thread holds, per group of `low` (as Triton's).
    block_m, block_n, block_k, warps = 64, 128, 128, 4
    kernel = tessera.compile(
        imprecise_matmul_kernel, {"a_ptr": "*u8:16", "b_ptr": "*u8:16",
                                  "c_ptr": "*fp32:16", "K": "i32:16"}, "cuda:90",
        constexprs={"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "LOW": low},
        num_warps=warps)
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
    groups = block_k // low if low else 0
    assert ptx.count("add.f32") == block_m * block_n // (32 * warps) * groups


@pytest.mark.parametrize("low", [32, 64])
def test_max_num_imprecise_acc_results(device, low):
    rng = np.random.default_rng(low)
    M, N, K = 64, 128, 256
    a = rng.integers(-4, 5, (M, K)).astype(np.float32)
    b = rng.integers(-4, 5, (K, N)).astype(np.float32)
    codes = {float(decode(c, 3, 7, False, False)): c for c in range(256) if c not in (0x7F, 0xFF)}
    a8 = np.vectorize(codes.get)(a).astype(np.uint8)
    b8 = np.vectorize(codes.get)(b).astype(np.uint8)
    c = np.zeros((M, N), np.float32)
    imprecise_matmul_kernel[(1,)](a8, b8, c, K, BLOCK_M=M, BLOCK_N=N, BLOCK_K=128, LOW=low)
    np.testing.assert_array_equal(c, a @ b)


@tessera.jit
def abs_kernel(x_ptr, y_ptr, FMT: tl.constexpr):
    offs = tl.arange(0, 256)
    x = tl.load(x_ptr + offs).to(FMT, bitcast=True)
    tl.store(y_ptr + offs, tl.abs(x).to(tl.uint8, bitcast=True))


@pytest.mark.parametrize("name", FORMATS)
def test_abs_clears_the_sign_bit(device, name):
    # As Triton's: every code, NaNs too, keeps its bits but the sign; the
    # FNUZ formats' NaN (0x80) stays NaN.
    codes = np.arange(256, dtype=np.uint8)
    out = np.zeros(256, np.uint8)
    abs_kernel[(1,)](codes, out, FMT=FORMATS[name][0])
    expected = codes & 0x7F
    if FORMATS[name][-1]:
        expected[0x80] = 0x80
    np.testing.assert_array_equal(out, expected)
