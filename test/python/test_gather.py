"""tl.gather: elements of a tensor picked along one axis by a tensor of
indices (numpy's take_along_axis)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def gather_2d_kernel(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                     IM: tl.constexpr, IN: tl.constexpr, AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    offs = tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :]
    out = tl.gather(src, tl.load(idx_ptr + offs), AXIS)
    tl.store(out_ptr + offs, out)


@tessera.jit
def gather_1d_kernel(src_ptr, idx_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, N))
    offs = tl.arange(0, K)
    tl.store(out_ptr + offs, tl.gather(src, tl.load(idx_ptr + offs), 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("axis,shape,index_shape", [
    (0, (32, 16), (64, 16)), (1, (32, 16), (32, 4)), (0, (128, 64), (16, 64)),
    (1, (8, 256), (8, 256))])
def test_gather_2d(device, rng, dtype, index_dtype, axis, shape, index_shape):
    src = (rng.standard_normal(shape) * 50).astype(dtype)
    index = rng.integers(0, shape[axis], index_shape).astype(index_dtype)
    out = np.zeros(index_shape, dtype)
    gather_2d_kernel[(1,)](src, index, out, *shape, *index_shape, axis)
    np.testing.assert_array_equal(out, np.take_along_axis(src, index, axis))


@pytest.mark.parametrize("n,k", [(16, 16), (512, 64), (64, 1024)])
def test_gather_1d(device, rng, n, k):
    src = rng.standard_normal(n).astype(np.float32)
    src[0] = -0.0  # picked bit for bit
    index = rng.integers(0, n, k).astype(np.int32)
    index[:4] = 0
    out = np.zeros(k, np.float32)
    gather_1d_kernel[(1,)](src, index, out, n, k)
    np.testing.assert_array_equal(out.view(np.int32), src[index].view(np.int32))


def test_gather_mistakes_are_named():
    src, index = np.zeros((32, 16), np.float32), np.zeros((64, 8), np.int32)
    with pytest.raises(tessera.CompilationError,
                       match=r"gather's indices \[64, 8\] must match the source \[32, 16\] in "
                             r"every dimension but the axis 0"):
        gather_2d_kernel[(1,)](src, index, np.zeros((64, 8), np.float32), 32, 16, 64, 8, 0)
    with pytest.raises(tessera.CompilationError, match="gather's axis 2 is not a dimension"):
        gather_2d_kernel[(1,)](src, np.zeros((32, 16), np.int32), src, 32, 16, 32, 16, 2)
    with pytest.raises(tessera.CompilationError, match="gather's indices must be integers"):
        gather_2d_kernel[(1,)](src, np.zeros((32, 16), np.float32), src, 32, 16, 32, 16, 1)


def test_an_index_outside_the_source_is_an_error_on_the_interpreter():
    src, index = np.zeros(16, np.float32), np.full(16, 16, np.int32)
    with pytest.raises(Exception, match=r"gather index 16 is outside \[0, 16\) along axis 0"):
        gather_1d_kernel[(1,)](src, index, np.zeros(16, np.float32), 16, 16)
