"""Tessera's profiler, with the interface of Triton's Proton: where
`import triton.profiler as proton` was, `import tessera.profiler as proton`.

    session = proton.start("matmul", hook="triton")
    with proton.scope("gemm"):
        matmul_kernel[grid](...)
    proton.finalize()  # matmul.hatchet, matmul.chrome_trace

Kernel launches are timed with device events on the GPU and with the host's
clock on the host interpreter; vendor activity tracing (CUPTI, roctracer) is
not used. `python -m tessera.profiler.viewer -m time/ms,tflop/s FILE` shows
a profile.
"""

from . import mode
from .session import activate, deactivate, finalize, profile, start
from .scope import enter_scope, exit_scope, scope

__all__ = ["activate", "deactivate", "enter_scope", "exit_scope", "finalize", "mode",
           "profile", "scope", "start"]
