"""Kernels on the GPU: compiling for the device's architecture, loading the
binary, and launching on the caller's stream.

Arrays in host memory (numpy) run on the host interpreter, unless
TESSERA_DEVICE=cuda asks for them to be staged: copied to the GPU for the
launch and back after it (for code written against numpy, such as tests).
"""

from __future__ import annotations

import os
import sys

from .. import _tessera

_available = None
_arch = {}
_current_device = None


def available():
    """Whether a CUDA device can run kernels here."""
    global _available
    if _available is None:
        try:
            _available = _tessera.cuda_device_count() > 0
        except _tessera.DriverError:
            _available = False
    return _available


def staging():
    """Whether host arrays are run on the GPU (TESSERA_DEVICE=cuda)."""
    return os.environ.get("TESSERA_DEVICE", "").lower() == "cuda"


def target(device):
    """The compile target of a device: "cuda:90"."""
    arch = _arch.get(device)
    if arch is None:
        arch = _arch[device] = _tessera.cuda_arch(device)
    return "cuda:" + arch[len("sm_"):]


def set_device(device):
    global _current_device
    if device != _current_device:
        _tessera.cuda_set_device(device)
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
        """The device address standing for a host pointer."""
        for host, device, nbytes in self._copies:
            if host <= pointer.address < host + max(nbytes, 1) and host == pointer.base:
                return device + (pointer.address - host)
        device = _tessera.cuda_allocate(max(pointer.nbytes, 1))
        _tessera.cuda_copy_to_device(device, pointer.base, pointer.nbytes)
        self._copies.append((pointer.base, device, pointer.nbytes))
        return device + (pointer.address - pointer.base)

    def finish(self):
        """Waits for the launch and copies every buffer back."""
        try:
            _tessera.cuda_synchronize()
            for host, device, nbytes in self._copies:
                _tessera.cuda_copy_to_host(host, device, nbytes)
        finally:
            for _, device, _ in self._copies:
                _tessera.cuda_release(device)
            self._copies = []
