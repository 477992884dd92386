"""Tessera's profiler, with the interface of Triton's Proton: where
`import triton.profiler as proton` was, `import tessera.profiler as proton`.

    session = proton.start("matmul", hook="triton")
    with proton.scope("gemm"):
        matmul_kernel[grid](...)
    proton.finalize()  # matmul.hatchet, matmul.chrome_trace

On a GPU, the vendor's activity tracing (CUPTI, roctracer, opened at first
use) times every kernel, Tessera's and other libraries' (cuBLAS through
PyTorch), each under the scope it was launched in; where it cannot be
used, Tessera's launches are timed with device events. Launches on the
host interpreter are timed with the host's clock. `python -m
tessera.profiler.viewer -m time/ms,tflop/s FILE` shows a profile.
"""

from . import mode
from .session import activate, deactivate, finalize, profile, start
from .scope import enter_scope, exit_scope, scope

__all__ = ["activate", "deactivate", "enter_scope", "exit_scope", "finalize", "mode",
           "profile", "scope", "start"]
