"""CDNA3 (gfx942): MFMA."""

from ._matrix import matrix_dot

__all__ = ["mfma"]


def mfma(a, b, acc):
    """acc + a @ b with MFMA instructions: acc in an AMDMFMALayout, a and b
    in DotOperandLayouts with it as parent."""
    from . import AMDMFMALayout
    return matrix_dot("mfma", AMDMFMALayout, a, b, acc)
