"""tl.randint/rand/randn (Philox4x32-10), tl.umulhi, and the dropout kernel of
the Triton tutorials."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


def philox_reference(seed, counters, rounds=10):
    """Philox4x32 in plain Python integers: the first output word."""
    m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
    out = []
    for counter in counters:
        c = [counter & 0xFFFFFFFF, 0, 0, 0]
        k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
        for _ in range(rounds):
            p0, p1 = m0 * c[0], m1 * c[2]
            c = [((p1 >> 32) ^ c[1] ^ k0) & 0xFFFFFFFF, p1 & 0xFFFFFFFF,
                 ((p0 >> 32) ^ c[3] ^ k1) & 0xFFFFFFFF, p0 & 0xFFFFFFFF]
            k0, k1 = (k0 + w0) & 0xFFFFFFFF, (k1 + w1) & 0xFFFFFFFF
        out.append(c[0])
    return np.array(out, dtype=np.uint32)


@tessera.jit
def random_kernel(int_ptr, uniform_ptr, normal_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(int_ptr + offs, tl.randint(seed, offs))
    tl.store(uniform_ptr + offs, tl.rand(seed, offs))
    tl.store(normal_ptr + offs, tl.randn(seed, offs))


@pytest.mark.parametrize("seed", [1, 12345, 2**31 - 1])
def test_random_streams(device, seed):
    n = 4096
    ints, uniform, normal = np.zeros(n, np.uint32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    random_kernel[(1,)](ints, uniform, normal, seed, BLOCK=n)
    np.testing.assert_array_equal(ints, philox_reference(seed, range(n)))
    assert uniform.min() >= 0.0 and uniform.max() < 1.0
    assert abs(uniform.mean() - 0.5) < 0.02
    assert abs(normal.mean()) < 0.1 and abs(normal.std() - 1.0) < 0.1
    again = np.zeros(n, np.float32)
    random_kernel[(1,)](ints, again, normal, seed, BLOCK=n)
    np.testing.assert_array_equal(again, uniform)  # same seed, same numbers


@tessera.jit
def mulhi_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(c_ptr + offs, tl.umulhi(tl.load(a_ptr + offs), tl.load(b_ptr + offs)))


@pytest.mark.parametrize("dtype", ["uint32", "int32"])
def test_umulhi(device, dtype):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, 64, dtype=np.int64).astype(dtype)
    b = rng.integers(info.min, info.max, 64, dtype=np.int64).astype(dtype)
    c = np.zeros(64, dtype)
    mulhi_kernel[(1,)](a, b, c, BLOCK=64)
    expected = (a.astype(object) * b.astype(object)) >> 32
    np.testing.assert_array_equal(c, np.array([int(v) for v in expected]).astype(dtype))


@tessera.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def test_seeded_dropout(device):
    n, p = 10000, 0.3
    x = np.random.default_rng(0).uniform(1, 2, n).astype(np.float32)
    out1, out2 = np.zeros_like(x), np.zeros_like(x)
    grid = (tessera.cdiv(n, 1024),)
    _seeded_dropout[grid](x, out1, n, p, 123, BLOCK_SIZE=1024)
    _seeded_dropout[grid](x, out2, n, p, 123, BLOCK_SIZE=1024)
    np.testing.assert_array_equal(out1, out2)
    kept = out1 != 0
    assert abs(kept.mean() - (1 - p)) < 0.02
    np.testing.assert_allclose(out1[kept], x[kept] / (1 - p), rtol=1e-6)
