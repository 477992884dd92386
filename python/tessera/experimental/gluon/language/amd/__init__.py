"""AMD's layouts and matrix instructions at the explicit level."""

from tessera.language.core import CompilationError, _unwrap
from .._layouts import DistributedLayout, _ints
from . import cdna3, rdna3

__all__ = ["AMDMFMALayout", "AMDWMMALayout", "cdna3", "rdna3"]


class AMDMFMALayout(DistributedLayout):
    """The result of CDNA's MFMA instructions: instr_shape [M, N, K] one
    instruction computes, waves arranged by warps_per_cta; `transposed`
    gives each lane consecutive columns."""

    _fields = ("version", "instr_shape", "transposed", "warps_per_cta", "element_bitwidth",
               "tiles_per_warp", "cga_layout")

    def __init__(self, version, instr_shape, transposed, warps_per_cta, element_bitwidth=None,
                 tiles_per_warp=None, cga_layout=None):
        self.version = int(_unwrap(version))
        self.instr_shape = _ints(instr_shape, "instr_shape")
        self.transposed = bool(_unwrap(transposed))
        self.warps_per_cta = _ints(warps_per_cta, "warps_per_cta")
        self.element_bitwidth = _unwrap(element_bitwidth) or 32
        self.tiles_per_warp = _unwrap(tiles_per_warp) or [1] * len(self.warps_per_cta)
        self.cga_layout = _unwrap(cga_layout) or []
        if self.version not in (2, 3, 4):
            raise CompilationError(f"AMDMFMALayout's version must be 2, 3 or 4, got {self.version}")
        if len(self.instr_shape) != 3 or self.instr_shape[0] != self.instr_shape[1] \
                or self.instr_shape[0] not in (16, 32):
            raise CompilationError("AMDMFMALayout's instr_shape must be [32, 32, K] or "
                                   f"[16, 16, K], got {self.instr_shape}")
        if any(t != 1 for t in self.tiles_per_warp) or self.cga_layout:
            raise CompilationError("AMDMFMALayout: tiles_per_warp and cga_layout are not supported")

    @property
    def rank(self):
        return len(self.warps_per_cta)

    def _ir(self):
        warps = ", ".join(map(str, self.warps_per_cta))
        shape = ", ".join(map(str, self.instr_shape))
        transposed = ", isTransposed = true" if self.transposed else ""
        return (f"#tile_amd.mfma<{{version = {self.version}, warpsPerCTA = [{warps}], "
                f"instrShape = [{shape}]{transposed}}}>")


class AMDWMMALayout(DistributedLayout):
    """The result of RDNA's WMMA instructions (16x16x16); version 1 is
    gfx11's, 2 gfx12's."""

    _fields = ("version", "transposed", "warps_per_cta", "instr_shape", "tiles_per_warp",
               "cga_layout")

    def __init__(self, version, transposed, warps_per_cta, instr_shape=(16, 16, 16),
                 tiles_per_warp=None, cga_layout=None):
        self.version = int(_unwrap(version))
        self.transposed = bool(_unwrap(transposed))
        self.warps_per_cta = _ints(warps_per_cta, "warps_per_cta")
        self.instr_shape = _ints(instr_shape, "instr_shape")
        self.tiles_per_warp = _unwrap(tiles_per_warp) or [1] * len(self.warps_per_cta)
        self.cga_layout = _unwrap(cga_layout) or []
        if self.version not in (1, 2):
            raise CompilationError(f"AMDWMMALayout's version must be 1 or 2, got {self.version}")
        if self.transposed or self.instr_shape != [16, 16, 16]:
            raise CompilationError("AMDWMMALayout: only instr_shape [16, 16, 16], not "
                                   "transposed, is supported")
        if any(t != 1 for t in self.tiles_per_warp) or self.cga_layout:
            raise CompilationError("AMDWMMALayout: tiles_per_warp and cga_layout are not supported")

    @property
    def rank(self):
        return len(self.warps_per_cta)

    def _ir(self):
        warps = ", ".join(map(str, self.warps_per_cta))
        return f"#tile_amd.wmma<{{version = {self.version}, warpsPerCTA = [{warps}]}}>"
