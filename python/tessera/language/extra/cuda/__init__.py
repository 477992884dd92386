"""triton.language.extra.cuda: the device library, `libdevice`."""

from .. import libdevice

__all__ = ["libdevice"]
