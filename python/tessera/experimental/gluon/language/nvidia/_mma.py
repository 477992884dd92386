"""Checks shared by the matrix-instruction functions."""

from tessera.language.core import CompilationError
from .._layouts import DotOperandLayout, NVMMADistributedLayout


def check_mma_operands(name, a, b, acc, version):
    layout = acc.type.layout if hasattr(acc.type, "layout") else None
    if not isinstance(layout, NVMMADistributedLayout) or layout.version[0] != version:
        raise CompilationError(f"{name} needs acc in an NVMMADistributedLayout of version "
                               f"[{version}, 0], got {layout!r}")
    for index, operand in enumerate((a, b)):
        operand_layout = operand.type.layout if hasattr(operand.type, "layout") else None
        if not (isinstance(operand_layout, DotOperandLayout)
                and operand_layout.operand_index == index and operand_layout.parent == layout):
            raise CompilationError(f"{name} needs operand {'ab'[index]} in "
                                   f"DotOperandLayout(operand_index={index}, parent={layout!r}, "
                                   f"...), got {operand_layout!r}")
