"""Counter-based random numbers: Philox4x32-10 (Salmon et al., "Parallel
random numbers: as easy as 1, 2, 3", SC 2011), as `tl.rand`, `tl.randn`,
`tl.randint` and `tl.randint4x` of triton.language.

The same (seed, offset) always gives the same numbers, wherever it runs.
"""

from ..runtime.jit import jit
from . import core as tl
from . import standard

# The Philox4x32 multipliers and Weyl key increments.
_M0 = tl.constexpr(0xD2511F53)
_M1 = tl.constexpr(0xCD9E8D57)
_W0 = tl.constexpr(0x9E3779B9)
_W1 = tl.constexpr(0xBB67AE85)
N_ROUNDS_DEFAULT = tl.constexpr(10)


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox4x32 of the counter (c0, c1, c2, c3) under a 64-bit seed."""
    seed = standard.full([], seed, tl.uint64) if isinstance(seed, int) else seed.to(tl.uint64)
    k0 = (seed & 0xFFFFFFFF).to(tl.uint32)
    k1 = (seed >> 32).to(tl.uint32)
    c0 = c0.to(tl.uint32, bitcast=True)
    c1 = c1.to(tl.uint32, bitcast=True)
    c2 = c2.to(tl.uint32, bitcast=True)
    c3 = c3.to(tl.uint32, bitcast=True)
    for _ in standard.static_range(n_rounds):
        hi0 = standard.umulhi(c0, _M0)
        lo0 = c0 * _M0
        hi1 = standard.umulhi(c2, _M1)
        lo1 = c2 * _M1
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 = k0 + _W0
        k1 = k1 + _W1
    return c0, c1, c2, c3


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for each offset: its low 32 bits are the
    counter's first word, its high bits (of a 64-bit offset) the second."""
    offset = standard.to_tensor(offset)
    low = offset.to(tl.uint32)
    zero = low * 0
    if tl.constexpr(offset.dtype.primitive_bitwidth > 32):
        high = (offset >> 32).to(tl.uint32)
    else:
        high = zero
    return philox(seed, low, high, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32 for each offset."""
    r, _, _, _ = randint4x(seed, offset, n_rounds)
    return r


@jit
def uint_to_uniform_float(x):
    """A random 32- or 64-bit integer to a float32 in [0, 1), as Triton maps
    it (the same floats for the same bits): read as signed, folded onto the
    non-negative values (x < 0 -> -x - 1) and scaled by the largest factor
    that keeps the maximum below 1."""
    if tl.constexpr(x.dtype.primitive_bitwidth == 32):
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        standard.static_assert(x.dtype.primitive_bitwidth == 64,
                               "uint_to_uniform_float takes 32- or 64-bit integers")
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = standard.where(x < 0, -x - 1, x)
    return x * scale


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Uniform float32 in [0, 1) for each offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four uniform float32 in [0, 1) for each offset."""
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3),
            uint_to_uniform_float(i4))


@jit
def pair_uniform_to_normal(u1, u2):
    """Two independent standard normals from two uniforms (Box-Muller)."""
    u1 = standard.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = standard.sqrt(-2.0 * standard.log(u1))
    return r * standard.cos(th), r * standard.sin(th)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Standard normal float32 for each offset."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four standard normal float32 for each offset."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
