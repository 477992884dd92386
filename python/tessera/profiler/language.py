"""Scopes inside a kernel, with the names of Proton's
(`triton.profiler.language`):

    import tessera.profiler.language as pl

    @tessera.jit
    def kernel(...):
        pl.enter_scope("load")
        a = tl.load(...)
        pl.exit_scope("load")

While a session started with `backend="instrumentation"` is active, the
kernels it launches are compiled with these calls: the first lane of each
warp records the time it enters and leaves each scope, and the profile shows
them per warp (the Chrome trace) and per scope under the kernel (the hatchet
tree). Otherwise they compile to nothing: the kernel is the same as without
them.
"""

from __future__ import annotations

from ..language import core
from ..language.core import CompilationError, _unwrap

__all__ = ["enter_scope", "exit_scope"]


def _scope(name, end):
    codegen = getattr(core._state, "codegen", None)
    if codegen is None:
        raise CompilationError("tessera.profiler.language scopes are for use in a kernel")
    name = _unwrap(name)
    if not isinstance(name, str):
        raise CompilationError(f"a scope's name must be a string known at compile time, "
                               f"got {name!r}")
    codegen.profile_scope(name, end)


def enter_scope(name):
    """Each warp records the time it enters scope `name`."""
    _scope(name, False)


def exit_scope(name):
    """Each warp records the time it leaves scope `name`."""
    _scope(name, True)
