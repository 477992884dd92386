"""Scans over every way a layout can spread the axis: registers, lanes, warps
and register blocks past them, forwards and in reverse, with a combiner that
does not commute (so any element combined out of order shows)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def _affine(a1, b1, a2, b2):
    # x -> a1 * x + b1, then x -> a2 * x + b2: associative, not commutative.
    return a1 * a2, a2 * b1 + b2


@tessera.jit
def scan_2d_kernel(a_ptr, b_ptr, s_ptr, fa_ptr, fb_ptr, M: tl.constexpr, N: tl.constexpr,
                   AXIS: tl.constexpr, REVERSE: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(s_ptr + offs, tl.cumsum(b, AXIS, reverse=REVERSE))
    fa, fb = tl.associative_scan((a, b), AXIS, _affine, reverse=REVERSE)
    tl.store(fa_ptr + offs, fa)
    tl.store(fb_ptr + offs, fb)


def affine_scan(a, b, axis, reverse):
    """The reference: compositions of the maps in scan order, int32 wrapping."""
    a, b = np.moveaxis(a, axis, -1).astype(np.int64), np.moveaxis(b, axis, -1).astype(np.int64)
    if reverse:
        a, b = a[..., ::-1], b[..., ::-1]
    fa, fb = a.copy(), b.copy()
    for i in range(1, a.shape[-1]):
        fa[..., i] = (fa[..., i - 1] * a[..., i]) & 0xFFFFFFFF
        fb[..., i] = (a[..., i] * fb[..., i - 1] + b[..., i]) & 0xFFFFFFFF
    if reverse:
        fa, fb = fa[..., ::-1], fb[..., ::-1]
    wrap = lambda v: np.moveaxis(v.astype(np.uint32).view(np.int32), -1, axis)
    return wrap(fa), wrap(fb)


@pytest.mark.parametrize("shape", [(1, 2), (1, 32), (1, 128), (1, 1024), (1, 4096), (4, 256),
                                   (64, 8), (32, 64)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_scan_orders_elements(device, shape, axis, reverse, num_warps):
    rng = np.random.default_rng(hash((shape, axis)) % 2**32)
    a = rng.integers(-3, 4, shape).astype(np.int32)
    b = rng.integers(-100, 100, shape).astype(np.int32)
    s, fa, fb = (np.zeros(shape, np.int32) for _ in range(3))
    scan_2d_kernel[(1,)](a, b, s, fa, fb, M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse,
                         num_warps=num_warps)
    expected_s = np.flip(np.cumsum(np.flip(b, axis), axis), axis) if reverse else np.cumsum(b, axis)
    np.testing.assert_array_equal(s, expected_s.astype(np.int32))
    expected_a, expected_b = affine_scan(a, b, axis, reverse)
    np.testing.assert_array_equal(fa, expected_a)
    np.testing.assert_array_equal(fb, expected_b)


@tessera.jit
def scan_float_kernel(x_ptr, s_ptr, m_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(s_ptr + offs, tl.cumsum(x, 0))
    tl.store(m_ptr + offs, tl.associative_scan(x, 0, _maximum))


@tessera.jit
def _maximum(a, b):
    return tl.maximum(a, b)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_scans(device, dtype):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, 2048).astype(dtype)
    s, m = np.zeros_like(x), np.zeros_like(x)
    scan_float_kernel[(1,)](x, s, m, N=2048)
    # Sums accumulate in the input's type, in an order the target picks.
    tol = {"float16": 1.0, "float32": 1e-4, "float64": 1e-10}[dtype]
    np.testing.assert_allclose(s.astype(np.float64), np.cumsum(x.astype(np.float64)),
                               atol=tol)
    np.testing.assert_array_equal(m, np.maximum.accumulate(x))


@tessera.jit
def bf16_scans_kernel(x_ptr, sum_ptr, prod_ptr, max_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N)).to(tl.bfloat16)
    total = tl.cumsum(x)
    product = tl.cumprod(x)
    largest = tl.max(x)
    tl.static_assert(total.dtype == tl.float32)
    tl.static_assert(product.dtype == tl.float32)
    tl.static_assert(largest.dtype == tl.float32)
    tl.static_assert(tl.min(x, 0, return_indices=True)[0].dtype == tl.float32)
    tl.store(sum_ptr + tl.arange(0, N), total)
    tl.store(prod_ptr + tl.arange(0, N), product)
    tl.store(max_ptr, largest)


def test_bf16_scans_and_reductions_compute_in_fp32(device):
    # As Triton's: bf16 is promoted to fp32 first. A cumsum of 1024 ones in
    # bf16 would stop at 256 (257 is not a bf16 value).
    n = 1024
    x = np.ones(n, np.float32)
    x[1::2] = 1.0078125  # 1 + 2^-7, a bf16 value
    sums, products = np.zeros(n, np.float32), np.zeros(n, np.float32)
    largest = np.zeros(1, np.float32)
    bf16_scans_kernel[(1,)](x, sums, products, largest, N=n)
    np.testing.assert_allclose(sums, np.cumsum(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(products, np.cumprod(x.astype(np.float64)), rtol=1e-4)
    assert largest[0] == np.float32(1.0078125)
