"""triton.language.extra.cuda: the device library, `libdevice`, and NVIDIA's
special registers and launch constants."""

from .. import libdevice
from .utils import (convert_custom_float8_sm80, convert_custom_float8_sm90, globaltimer,
                    num_threads, num_warps, smid)

__all__ = ["libdevice", "globaltimer", "num_threads", "num_warps", "smid",
           "convert_custom_float8_sm80", "convert_custom_float8_sm90"]
