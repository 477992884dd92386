"""triton.language.extra.hip: the device library, `libdevice`."""

from .. import libdevice

__all__ = ["libdevice"]
