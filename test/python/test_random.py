"""tl.randint/rand/randn (Philox4x32-10), tl.umulhi, and the dropout kernel of
the Triton tutorials."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


def philox_reference(seed, counters, rounds=10):
    """Philox4x32 in plain Python integers: the first output word. A counter
    gives the first word its low 32 bits, the second its high bits."""
    m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
    out = []
    for counter in counters:
        c = [counter & 0xFFFFFFFF, (counter >> 32) & 0xFFFFFFFF, 0, 0]
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


def uniform_reference(ints):
    """Triton's uint_to_uniform_float: the bits read as an int32, folded onto
    the non-negative values, times the largest scale keeping them below 1."""
    x = ints.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


@tessera.jit
def random_4x_kernel(uniform_ptr, normal_ptr, single_ptr, int_ptr, seed, base,
                     BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK)
    u = tl.rand4x(seed, offs)
    n = tl.randn4x(seed, offs)
    out = tl.arange(0, BLOCK)
    for i in tl.static_range(4):
        tl.store(uniform_ptr + i * BLOCK + out, u[i])
        tl.store(normal_ptr + i * BLOCK + out, n[i])
    tl.store(single_ptr + out, tl.rand(seed, offs))
    tl.store(single_ptr + BLOCK + out, tl.randn(seed, offs))
    tl.store(int_ptr + out, tl.randint(seed, offs))


@pytest.mark.parametrize("base", [0, 2**31 + 5, 3 * 2**32 + 7])
def test_uniform_floats_are_tritons(device, base):
    """rand maps Philox's words to floats bit for bit as Triton does; rand4x
    and randn4x give four streams whose first is rand's and randn's; 64-bit
    offsets carry their high word into the counter."""
    n, seed = 1024, 2**40 + 17
    uniform, normal = np.zeros((4, n), np.float32), np.zeros((4, n), np.float32)
    single, ints = np.zeros((2, n), np.float32), np.zeros(n, np.uint32)
    random_4x_kernel[(1,)](uniform, normal, single, ints, seed, base, BLOCK=n)
    np.testing.assert_array_equal(ints, philox_reference(seed, range(base, base + n)))
    np.testing.assert_array_equal(single[0], uniform_reference(ints))
    np.testing.assert_array_equal(uniform[0], single[0])
    np.testing.assert_array_equal(normal[0], single[1])
    assert 0.0 <= uniform.min() and uniform.max() < 1.0
    assert abs(uniform.mean() - 0.5) < 0.02 and abs(normal.std() - 1.0) < 0.05
    # Four different streams.
    assert len({tuple(row[:8]) for row in uniform}) == 4


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
