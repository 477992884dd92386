"""Kernels on the GPU: compiling for the device's architecture, loading the
binary, and launching on the caller's stream, through CUDA (NVIDIA) or HIP
(AMD).

Arrays in host memory (numpy) run on the host interpreter, unless
TESSERA_DEVICE=cuda, hip or gpu asks for them to be staged: copied to the GPU
for the launch and back after it (for code written against numpy, such as
tests). The platform is the one TESSERA_DEVICE names, else HIP under a ROCm
build of PyTorch, CUDA under any other, and without PyTorch CUDA where it has
a device, else HIP.
"""

from __future__ import annotations

import os
import sys

from .. import _tessera

_platform = None
_available = None
_arch = {}
_names = {}
_current_device = None


def _count(platform):
    try:
        return _tessera.driver(platform).device_count()
    except _tessera.DriverError:
        return 0


def _chosen():
    """The device TESSERA_DEVICE names: "gpu", "cuda", "hip" or a backend
    plugin's platform ("cpu"); "" where it names none (the platform and
    drivers are asked only when it names something)."""
    chosen = os.environ.get("TESSERA_DEVICE", "").lower()
    if chosen in ("gpu", "cuda", "hip") or (chosen and chosen in _tessera.drivers()):
        return chosen
    return ""


def platform():
    """"cuda" or "hip": the runtime GPU kernels launch through; or the
    platform of a backend plugin's driver that TESSERA_DEVICE names
    ("cpu")."""
    global _platform
    if _platform is None:
        chosen = _chosen()
        torch = sys.modules.get("torch")
        if chosen not in ("", "gpu"):
            _platform = chosen
        elif torch is not None and getattr(torch.version, "hip", None):
            _platform = "hip"
        elif torch is not None and getattr(torch.version, "cuda", None):
            _platform = "cuda"
        else:
            _platform = "cuda" if _count("cuda") > 0 or _count("hip") == 0 else "hip"
    return _platform


def driver():
    """The platform's runtime (DriverError where it cannot be opened)."""
    return _tessera.driver(platform())


def available():
    """Whether a GPU can run kernels here."""
    global _available
    if _available is None:
        _available = _count(platform()) > 0
    return _available


def staging():
    """Whether host arrays are run on the GPU (TESSERA_DEVICE=gpu, cuda or
    hip), or on a plugin's device (TESSERA_DEVICE=cpu)."""
    return bool(_chosen())


def target(device):
    """The compile target of a device: "cuda:90", "hip:gfx942"; for a
    plugin's platform, its backend's ("cpu:skylake")."""
    arch = _arch.get(device)
    if arch is None:
        arch = _arch[device] = driver().arch(device)
    if platform() == "cuda":
        return "cuda:" + arch[len("sm_"):]
    if platform() != "hip":
        return f"{platform()}:{arch}"
    if not arch:
        raise RuntimeError(
            f"cannot tell the architecture of HIP device {device} (no KFD topology "
            "under /sys/class/kfd): set TESSERA_HIP_ARCH, e.g. TESSERA_HIP_ARCH=gfx942")
    return "hip:" + arch


def device_name(device):
    """The GPU's name: "NVIDIA H100 80GB HBM3"."""
    name = _names.get(device)
    if name is None:
        name = _names[device] = driver().device_name(device)
    return name


def torch_gpu():
    """torch, where it is imported and has a GPU; else None."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch
    return None


def current_device():
    """The device launches last went to (0 before any)."""
    return _current_device or 0


def set_device(device):
    global _current_device
    if device != _current_device:
        driver().set_device(device)
        _current_device = device


def current_stream(device):
    """PyTorch's current stream on `device` where torch is in use, else the
    default stream."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return 0
    return torch.cuda.current_stream(device).cuda_stream


class Staging:
    """Device copies of host buffers for one launch."""

    def __init__(self):
        self._copies = []  # (host base, device base, bytes)

    def address(self, pointer):
        """The device address standing for a host pointer: itself on a
        device that runs on host memory (the CPU backend plugin's)."""
        if driver().shares_host_memory:
            return pointer.address
        for host, device, nbytes in self._copies:
            if host <= pointer.address < host + max(nbytes, 1) and host == pointer.base:
                return device + (pointer.address - host)
        device = driver().allocate(max(pointer.nbytes, 1))
        driver().copy_to_device(device, pointer.base, pointer.nbytes)
        self._copies.append((pointer.base, device, pointer.nbytes))
        return device + (pointer.address - pointer.base)

    def finish(self):
        """Waits for the launch and copies every buffer back."""
        try:
            driver().synchronize()
            for host, device, nbytes in self._copies:
                driver().copy_to_host(host, device, nbytes)
        finally:
            for _, device, _ in self._copies:
                driver().release(device)
            self._copies = []
