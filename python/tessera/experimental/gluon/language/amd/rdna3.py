"""RDNA3 (gfx11): WMMA."""

from ._matrix import matrix_dot

__all__ = ["wmma"]


def wmma(a, b, acc):
    """acc + a @ b with WMMA instructions: acc in an AMDWMMALayout, a and b
    in DotOperandLayouts with it as parent."""
    from . import AMDWMMALayout
    return matrix_dot("wmma", AMDWMMALayout, a, b, acc)
