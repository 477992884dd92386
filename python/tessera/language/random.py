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
    """Four blocks of random uint32 for each offset (int32 or uint32)."""
    zero = offset * 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32 for each offset."""
    r, _, _, _ = randint4x(seed, offset, n_rounds)
    return r


@jit
def uint_to_uniform_float(x):
    """A uint32 to a float32 in [0, 1): its top 24 bits as a fraction."""
    return (x >> 8).to(tl.float32) * 5.9604644775390625e-08


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Uniform float32 in [0, 1) for each offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Standard normal float32 for each offset (Box-Muller)."""
    a, b, _, _ = randint4x(seed, offset, n_rounds)
    u1 = standard.maximum(uint_to_uniform_float(a), 1.0e-7)
    u2 = uint_to_uniform_float(b)
    return standard.sqrt(-2.0 * standard.log(u1)) * standard.cos(6.283185307179586 * u2)
