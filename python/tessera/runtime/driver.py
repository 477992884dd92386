"""The GPU driver a program runs on, with the names of `triton.runtime.driver`:
`driver.active.get_current_target()`, `.get_active_torch_device()`,
`.utils.get_device_properties(device)` and the rest Triton's tutorials use.
Without a GPU, the active driver is the host's: its torch device is the CPU,
where kernels run on the interpreter.
"""

from __future__ import annotations

import dataclasses

from . import gpu


@dataclasses.dataclass(frozen=True)
class GPUTarget:
    """What kernels compile for: backend "cuda" (arch the compute capability,
    90) or "hip" (arch the gfx name, "gfx942"), or "cpu" without a GPU."""
    backend: str
    arch: int | str
    warp_size: int


def _torch():
    import torch
    return torch


class _Utils:
    def __init__(self, active):
        self._active = active

    def get_device_properties(self, device):
        """The device's multiprocessor_count, max_shared_mem (per block,
        opted in), max_num_regs (per block), warpSize, sm_clock_rate and
        mem_clock_rate (kHz), mem_bus_width (bits) and total_memory."""
        if not gpu.available():
            raise RuntimeError("get_device_properties: there is no GPU on this machine")
        return gpu.driver().device_properties(self._active._index(device))


class ActiveDriver:
    """The platform's runtime, or the host's where there is no GPU."""

    def __init__(self):
        self.utils = _Utils(self)

    @property
    def backend(self):
        return gpu.platform() if gpu.available() else "cpu"

    def is_active(self):
        return True

    def get_current_device(self):
        """The current device's index: PyTorch's where it runs on the GPU."""
        if not gpu.available():
            return 0
        torch = gpu.torch_gpu()
        return torch.cuda.current_device() if torch is not None else gpu.current_device()

    def set_current_device(self, device):
        device = self._index(device)
        if gpu.available():
            torch = gpu.torch_gpu()
            if torch is not None:
                torch.cuda.set_device(device)
            gpu.set_device(device)

    def get_current_stream(self, device=None):
        if not gpu.available():
            return 0
        return gpu.current_stream(self.get_current_device() if device is None
                                  else self._index(device))

    def get_current_target(self):
        if not gpu.available():
            return GPUTarget("cpu", 0, 1)
        backend, arch = gpu.target(self.get_current_device()).split(":")
        if backend == "cuda":
            return GPUTarget("cuda", int(arch), 32)
        warp = gpu.driver().device_properties(self.get_current_device())["warpSize"]
        return GPUTarget("hip", arch, warp)

    def get_active_torch_device(self):
        """torch.device("cuda", current) on a GPU (ROCm's PyTorch names its
        GPUs "cuda" too), else torch.device("cpu")."""
        torch = _torch()
        if not gpu.available():
            return torch.device("cpu")
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self):
        """PyTorch's module for the device: torch.cuda."""
        return _torch().cuda

    def get_empty_cache_for_benchmark(self):
        """A buffer larger than the L2 cache, for clear_cache to write."""
        torch = _torch()
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int,
                           device=self.get_active_torch_device())

    def clear_cache(self, cache):
        cache.zero_()

    @staticmethod
    def _index(device):
        """A device index from an int or a torch.device (None: current)."""
        index = getattr(device, "index", device)
        return 0 if index is None else int(index)


class DriverConfig:
    """`driver.active`: the driver in use (the default one unless
    set_active chose another); reset_active goes back to the default."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            self._default = ActiveDriver()
        return self._default

    @property
    def active(self):
        return self._active if self._active is not None else self.default

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = None


driver = DriverConfig()
