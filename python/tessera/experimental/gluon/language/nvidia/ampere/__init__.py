"""Ampere (sm_80 and later): mma.sync and cp.async."""

from tessera.language.core import CompilationError, _unwrap, tensor
from tessera.language.standard import _call, _t
from .._mma import check_mma_operands
from . import async_copy

__all__ = ["async_copy", "mma_v2"]


def mma_v2(a, b, acc, input_precision=None):
    """acc + a @ b on the tensor cores (mma.sync): acc in an
    NVMMADistributedLayout of version [2, 0], a and b in DotOperandLayouts
    (operand_index 0 and 1) with it as parent."""
    a, b, acc = _t(a), _t(b), _t(acc)
    check_mma_operands("mma_v2", a, b, acc, version=2)
    precision = _unwrap(input_precision)
    if precision is None:
        precision = "tf32" if a.dtype.name == "float32" else "ieee"
    return tensor(_call("dot", a.handle, b.handle, acc.handle, precision, "", 0))
