"""fp8 conversions, checked exhaustively against an exact reference: every
code decodes to its value, and floats round to the nearest code (ties to
even), saturating at the largest finite value."""

import math
from fractions import Fraction

import numpy as np
import pytest

import tessera
import tessera.language as tl

# name: (dtype, mantissa bits, exponent bias, has infinities)
FORMATS = {"e4m3": (tl.float8e4nv, 3, 7, False), "e5m2": (tl.float8e5, 2, 15, True)}


def decode(code, mantissa, bias, has_inf):
    """The value of an fp8 code, as a Fraction (or nan / inf as floats)."""
    sign = -1 if code & 0x80 else 1
    e, m = (code >> mantissa) & ((1 << (7 - mantissa)) - 1), code & ((1 << mantissa) - 1)
    top = (1 << (7 - mantissa)) - 1
    if has_inf and e == top:
        return sign * float("inf") if m == 0 else float("nan")
    if not has_inf and (code & 0x7F) == 0x7F:
        return float("nan")
    if e == 0:
        return sign * Fraction(m, 1 << mantissa) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << mantissa)) * Fraction(2) ** (e - bias)


def round_to(x, mantissa, bias, has_inf):
    """The value x rounds to: nearest, ties to the even code, saturating."""
    if np.isnan(x):
        return float("nan")
    finite = sorted((decode(c, mantissa, bias, has_inf), c) for c in range(0x80)
                    if isinstance(decode(c, mantissa, bias, has_inf), Fraction))
    largest = finite[-1][0]
    magnitude = abs(Fraction(x)) if np.isfinite(x) else largest
    best = min(finite, key=lambda vc: (abs(vc[0] - magnitude), vc[1] & 1))
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


@pytest.mark.parametrize("name", FORMATS)
def test_every_code_decodes(device, name):
    dtype, *fmt = FORMATS[name]
    codes = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.float32)
    decode_kernel[(1,)](codes, y, FMT=dtype)
    expected = np.array([float(decode(c, *fmt)) for c in range(256)], np.float32)
    np.testing.assert_array_equal(y, expected)
    assert np.signbit(y[0x80]) and not np.signbit(y[0])


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
    fp8 = torch.zeros(64, dtype=getattr(torch, {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}[name]),
                      device=where)
    y = torch.zeros(64, dtype=torch.float32, device=where)
    memory_kernel[(1,)](torch.from_numpy(x).to(where), fp8, y, N=64)
    expected = np.array([round_to(float(v), *fmt) for v in x], np.float32)
    np.testing.assert_array_equal(y.cpu().numpy(), expected)
    codes = fp8.view(torch.uint8).cpu().tolist()
    np.testing.assert_array_equal([float(decode(c, *fmt)) for c in codes], expected)
