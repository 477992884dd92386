"""The device library's math functions by their names in Triton's
`triton.language.extra.libdevice`: on NVIDIA GPUs libdevice's (`__nv_asinf`
...), on AMD GPUs LLVM's, on the host the C library's. Integers are computed
in fp32, fp16 and bf16 in fp32 and rounded back.
"""

from .. import standard as _standard
from ..standard import _math, _math2
from ..standard import (abs, ceil, cos, div_rn, erf, exp, exp2, floor, fma, log, log2,  # noqa: F401
                        rsqrt, sin, sqrt, sqrt_rn)

acos = _math("acos")
acosh = _math("acosh")
asin = _math("asin")
asinh = _math("asinh")
atan = _math("atan")
atanh = _math("atanh")
cbrt = _math("cbrt")
cosh = _math("cosh")
erfc = _math("erfc")
expm1 = _math("expm1")
log10 = _math("log10")
log1p = _math("log1p")
rint = _math("rint")
nearbyint = rint
round = _math("round")
sinh = _math("sinh")
tan = _math("tan")
tanh = _math("tanh")
trunc = _math("trunc")
fabs = abs
atan2 = _math2("atan2")
fmod = _math2("fmod")
pow = _math2("pow")
fmin = _standard.minimum
fmax = _standard.maximum


def isnan(x):
    x = _standard._t(x)
    return x != x


def isinf(x):
    return abs(_standard._t(x)) == float("inf")


def signbit(x):
    """Whether the sign bit of each float is set (-0.0 and -nan too)."""
    x = _standard._t(x)
    bits = x.dtype.primitive_bitwidth
    from ..core import int16, int32, int64
    signed = {16: int16, 32: int32, 64: int64}[bits]
    return x.to(signed, bitcast=True) < 0
