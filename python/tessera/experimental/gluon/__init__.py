"""tessera.experimental.gluon: the explicit level, with the names of
Triton's Gluon. A kernel gives each tensor its layout, manages its shared
memory and issues its copies and matrix instructions; the compiler does
what it is told. `@gluon.jit` kernels launch, tune, cache and compile ahead
of time as `@tessera.jit` ones do.
"""

from . import language
from ._runtime import GluonJITFunction, constexpr_function, jit

__all__ = ["GluonJITFunction", "constexpr_function", "jit", "language"]
