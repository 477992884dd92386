"""The errors of running kernels, with the names of Triton's
`triton.runtime.errors`."""

from ..language.core import TesseraError


class InterpreterError(TesseraError, RuntimeError):
    """A kernel failed on the host interpreter: an access out of bounds, a
    failed device assert, an op it cannot run. The message names the
    kernel's source line."""

