"""tessera.language.extra: what triton.language.extra has, the device
library's math functions (`libdevice`, also under `cuda` and `hip`)."""

from . import cuda, hip, libdevice

__all__ = ["cuda", "hip", "libdevice"]
