"""The peak rates of GPUs, from the device properties a profile records, for
the viewer's `util`.

The peak FLOP/s are those of dense matrix (tensor core, matrix core)
operations: the operations one SM (CU) completes per clock on 8-bit
operands, times the SMs and the clock, halved each time the operand width
doubles (as Proton counts them). The peak bandwidth is that of the memory
bus: two transfers per memory clock over its width.
"""

from __future__ import annotations

import re

# Dense 8-bit matrix operations per clock per SM (CU), by (device type,
# architecture).
OPS_PER_CLOCK_8BIT = {
    ("CUDA", "80"): 4096,    # A100
    ("CUDA", "86"): 2048,    # A10, RTX 30
    ("CUDA", "89"): 2048,    # L40S, RTX 40
    ("CUDA", "90"): 8192,    # H100, H200
    ("CUDA", "100"): 16384,  # B200
    ("HIP", "gfx90a"): 2048,  # MI200
    ("HIP", "gfx942"): 4096,  # MI300
}


def base_arch(device_type, arch):
    """The architecture without its feature suffixes: "90a" -> "90",
    "gfx942:sramecc+" -> "gfx942"."""
    pattern = r"gfx[0-9a-f]+" if device_type == "HIP" else r"\d+"
    match = re.match(pattern, str(arch or ""))
    return match.group(0) if match else None


def max_flops(device_type, device, width):
    """The peak FLOP/s on `width`-bit operands of a device (its entry in a
    profile's device info), or None where it is unknown."""
    per_clock = OPS_PER_CLOCK_8BIT.get((device_type, base_arch(device_type,
                                                               device.get("arch"))))
    sms, clock_khz = device.get("num_sms"), device.get("clock_rate")
    if per_clock is None or not sms or not clock_khz:
        return None
    return per_clock * sms * clock_khz * 1e3 / (width / 8)


def max_bytes_per_second(device):
    """The peak memory bandwidth of a device in bytes/s, or None where it is
    unknown."""
    bus_bits, clock_khz = device.get("bus_width"), device.get("memory_clock_rate")
    if not bus_bits or not clock_khz:
        return None
    return 2 * bus_bits * clock_khz * 1e3 / 8
