"""acc + a @ b on AMD's matrix cores, in the layouts the kernel gave."""

from tessera.language.core import CompilationError, tensor
from tessera.language.standard import _call, _t
from .._layouts import DotOperandLayout


def matrix_dot(name, layout_class, a, b, acc):
    a, b, acc = _t(a), _t(b), _t(acc)
    layout = acc.type.layout
    if not isinstance(layout, layout_class):
        raise CompilationError(f"{name} needs acc in an {layout_class.__name__}, got {layout!r}")
    for index, operand in enumerate((a, b)):
        operand_layout = operand.type.layout
        if not (isinstance(operand_layout, DotOperandLayout)
                and operand_layout.operand_index == index and operand_layout.parent == layout):
            raise CompilationError(f"{name} needs operand {'ab'[index]} in "
                                   f"DotOperandLayout(operand_index={index}, parent=acc's "
                                   f"layout, ...), got {operand_layout!r}")
    precision = "tf32" if a.dtype.name == "float32" else "ieee"
    return tensor(_call("dot", a.handle, b.handle, acc.handle, precision, "", 0))
