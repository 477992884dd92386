"""tl.map_elementwise: a function of scalars, which may branch on them,
applied to every element of broadcast tensors, with several results and
with `pack` elements at a time."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@tessera.jit
def compare_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    z = tl.map_elementwise(compare, tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    tl.store(z_ptr + offs, z)


def test_branches_on_scalars(device, rng):
    x = rng.integers(-5, 5, 128).astype(np.int32)
    y = rng.integers(-5, 5, 128).astype(np.int32)
    z = np.zeros(128, np.int32)
    compare_kernel[(1,)](x, y, z, BLOCK=128)
    np.testing.assert_array_equal(z, (x > y).astype(np.int32) - (y > x))


@tessera.jit
def divmod_(a, b):
    return a // b, a % b


@tessera.jit
def divmod_pair(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@tessera.jit
def divmod_kernel(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr, PACK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b = tl.load(a_ptr + offs), tl.load(b_ptr + offs)
    if PACK == 1:
        c, d = tl.map_elementwise(divmod_, a, b)
    else:
        c, d = tl.map_elementwise(divmod_pair, a, b, pack=PACK)
    tl.store(c_ptr + offs, c)
    tl.store(d_ptr + offs, d)


@pytest.mark.parametrize("pack", [1, 2])
def test_several_results_and_packs(device, rng, pack):
    a = rng.integers(0, 2**32, 512, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(1, 2**32, 512, dtype=np.uint64).astype(np.uint32)
    c, d = np.zeros_like(a), np.zeros_like(a)
    divmod_kernel[(1,)](a, b, c, d, BLOCK=512, PACK=pack)
    np.testing.assert_array_equal(c, a // b)
    np.testing.assert_array_equal(d, a % b)


@tessera.jit
def clamp_sum(x, y, LIMIT: tl.constexpr = 6):
    s = x + y
    if s > LIMIT:
        s = LIMIT
    return s


@tessera.jit
def broadcast_kernel(x_ptr, y_ptr, z_ptr):
    rows = tl.arange(0, 8)
    x = tl.load(x_ptr + rows)[:, None]  # float32 column
    y = tl.load(y_ptr + rows)[None, :]  # int32 row
    z = tl.map_elementwise(clamp_sum, x, y)
    tl.store(z_ptr + rows[:, None] * 8 + rows[None, :], z)


def test_arguments_broadcast_and_keep_their_dtypes(device):
    x = np.linspace(-2, 5, 8).astype(np.float32)
    y = np.arange(8, dtype=np.int32)
    z = np.zeros((8, 8), np.float32)
    broadcast_kernel[(1,)](x, y, z)
    np.testing.assert_array_equal(z, np.minimum(x[:, None] + y[None, :], 6).astype(np.float32))


@tessera.jit
def storing(x, p):
    tl.store(p, x)
    return x


@tessera.jit
def store_kernel(x_ptr):
    offs = tl.arange(0, 16)
    tl.map_elementwise(storing, tl.load(x_ptr + offs), x_ptr + offs)


@tessera.jit
def pack3_kernel(x_ptr):
    offs = tl.arange(0, 16)
    tl.map_elementwise(compare, tl.load(x_ptr + offs), tl.load(x_ptr + offs), pack=3)


@tessera.jit
def halve_until_small(x):
    while x > 1:
        x = x // 2
    return x


@tessera.jit
def loop_kernel(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.map_elementwise(halve_until_small, tl.load(x_ptr + offs)))


def test_writes_loops_and_bad_packs_are_located_errors():
    with pytest.raises(tessera.CompilationError,
                       match="a while loop on an elementwise condition is not supported"):
        loop_kernel[(1,)](np.zeros(16, np.int32))
    x = np.zeros(16, np.int32)
    with pytest.raises(tessera.CompilationError,
                       match="Stores are not supported inside map_elementwise") as info:
        store_kernel[(1,)](x)
    assert info.value.lineno is not None
    with pytest.raises(tessera.CompilationError, match="pack must be a power of 2, got 3"):
        pack3_kernel[(1,)](x)
