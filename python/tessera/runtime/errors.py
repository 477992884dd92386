"""The errors of running kernels, with the names of Triton's
`triton.runtime.errors`."""

from ..language.core import CompilationError, TesseraError


class InterpreterError(TesseraError, RuntimeError):
    """A kernel failed on the host interpreter: an access out of bounds, a
    failed device assert, an op it cannot run. The message names the
    kernel's source line."""


class InterpretedCompilationError(CompilationError, InterpreterError):
    """A kernel that does not compile, launched where kernels are
    interpreted (TRITON_INTERPRET=1): Triton's interpreter raises
    InterpreterError there, compiled launches CompilationError; this is
    both, with the same message and cause."""

    @classmethod
    def of(cls, error):
        return cls(error.message, filename=error.filename, lineno=error.lineno,
                   col=error.col, source_line=error.source_line)


class OutOfResources(CompilationError, RuntimeError):
    """A kernel needs more of a resource (shared memory) than a block of the
    target has: raised when it compiles for the target, or at launch where
    the GPU has less. The autotuner skips such configs."""
