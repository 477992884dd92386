"""tessera.language.math: the math functions (triton.language.math)."""

from .standard import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2,
                       rsqrt, sigmoid, sin, sqrt, sqrt_rn, umulhi)
from .standard import maximum as max  # noqa: F401
from .standard import minimum as min  # noqa: F401
