"""The runtime: the JIT, the autotuner, GPUs, and `driver` (Triton's
`triton.runtime.driver`)."""

from .driver import driver

__all__ = ["driver"]
