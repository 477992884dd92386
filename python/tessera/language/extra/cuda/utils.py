"""NVIDIA-only helpers of triton.language.extra.cuda: special registers read
with PTX, the launch's thread count, and fp8e4b15 conversions."""

from ... import core
from ...standard import inline_asm_elementwise


def globaltimer():
    """The GPU's nanosecond timer (%globaltimer), an int64 scalar read anew
    at each call."""
    return inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=core.int64,
                                  is_pure=False, pack=1)


def smid():
    """The streaming multiprocessor the program runs on (%smid), int32."""
    return inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=core.int32,
                                  is_pure=True, pack=1)


def _launch_options():
    options = getattr(core._state, "options", None)
    if options is None:
        raise core.CompilationError(
            "tessera.language functions can only be called inside a @tessera.jit function")
    return options


def num_warps():
    """The launch's num_warps, a constexpr."""
    return core.constexpr(_launch_options()["num_warps"])


def num_threads():
    """Threads in a program (num_warps * 32), a constexpr."""
    return core.constexpr(_launch_options()["num_warps"] * 32)


def convert_custom_float8_sm80(arg, dst_ty, fp_downcast_rounding=None):
    """fp8e4b15 to fp16/fp32 or back (Triton's conversion, bit for bit;
    `fp_downcast_rounding` is ignored, as there)."""
    return core._unwrap(arg).to(core._unwrap(dst_ty).scalar)


convert_custom_float8_sm90 = convert_custom_float8_sm80
