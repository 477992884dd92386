"""Tessera: a retargetable compiler for GPU tile kernels.

Kernels are written with `tessera.language` (the names and semantics of
`triton.language`) and compiled with `@tessera.jit`; `@tessera.autotune`
and `@tessera.heuristics` choose their meta-parameters, and
`tessera.testing` benchmarks them.
"""

import os as _os

from . import _tessera, knobs, language, testing
from ._tessera import BackendPluginError
from .language.core import CompilationError, TesseraError, TritonError
from .runtime._allocation import set_allocator
from .runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .runtime.jit import CompiledKernel, JITFunction, TensorWrapper, compile, jit, reinterpret

__version__ = "0.1.0"


def cdiv(x, y):
    """Ceiling division, for grids: cdiv(10, 4) == 3."""
    return (x + y - 1) // y


def load_backend(path):
    """Loads the backend plugin at `path` (a shared library built against
    this Tessera with TESSERA_BACKEND_PLUGIN; docs/backend-plugins.md) and
    returns the names of the backends it registered, which targets then
    name ("<backend>:<arch>"); a backend of a built-in's name replaces it.
    Raises BackendPluginError saying why a library cannot be loaded: not a
    plugin, built against another Tessera or LLVM, registering nothing.
    TESSERA_BACKEND_PLUGINS (paths, ':'-separated) loads plugins at
    import."""
    return _tessera.load_backend(_os.fspath(path))


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = ["Autotuner", "BackendPluginError", "CompilationError", "CompiledKernel", "Config",
           "Heuristics", "TesseraError", "TritonError", "JITFunction", "TensorWrapper",
           "autotune", "cdiv", "compile", "heuristics", "jit", "knobs", "language",
           "load_backend", "next_power_of_2", "reinterpret", "set_allocator", "testing"]
