"""tl.histogram: counts of the integers of a 1-D tensor in bins of width 1
from 0."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def histogram_kernel(x_ptr, out_ptr, n, N: tl.constexpr, BINS: tl.constexpr,
                     MASKED: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if MASKED:
        h = tl.histogram(x, BINS, mask=offs < n)
    else:
        h = x.histogram(BINS)
    tl.store(out_ptr + tl.arange(0, BINS), h)


def expected(x, bins, n=None):
    x = x[:n]
    return np.bincount(x[(x >= 0) & (x < bins)], minlength=bins).astype(np.int32)


@pytest.mark.parametrize("n,bins", [(2048, 2), (1024, 8), (1024, 128), (256, 512), (32, 512),
                                    (8, 2), (16, 1)])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_histogram(device, rng, n, bins, dtype):
    x = rng.integers(0, min(bins, 256), n).astype(dtype)
    out = np.zeros(bins, np.int32)
    histogram_kernel[(1,)](x, out, n, n, bins, False)
    np.testing.assert_array_equal(out, expected(x.astype(np.int64), bins))


@pytest.mark.parametrize("n,bins", [(1024, 64), (64, 1024)])
def test_values_outside_the_bins_and_masked_elements_are_not_counted(device, rng, n, bins):
    x = rng.integers(-bins, 2 * bins, n).astype(np.int32)
    out = np.zeros(bins, np.int32)
    histogram_kernel[(1,)](x, out, n, n, bins, False)
    np.testing.assert_array_equal(out, expected(x, bins))
    histogram_kernel[(1,)](x, out, n // 3, n, bins, True)
    np.testing.assert_array_equal(out, expected(x, bins, n // 3))


def test_histogram_mistakes_are_named():
    x, out = np.zeros(64, np.float32), np.zeros(8, np.int32)
    with pytest.raises(tessera.CompilationError,
                       match=r"histogram counts a 1-D tensor of integers, got float32\[64\]"):
        histogram_kernel[(1,)](x, out, 64, 64, 8, False)
    with pytest.raises(tessera.CompilationError,
                       match="histogram's num_bins must be a power of two, got 6"):
        histogram_kernel[(1,)](x.astype(np.int32), out, 64, 64, 6, False)
