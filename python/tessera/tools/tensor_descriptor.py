"""Host-side tensor descriptors (`triton.tools.tensor_descriptor`): a tensor
in global memory that a kernel reads and writes in blocks of `block_shape`.
A kernel takes one as an argument and calls `desc.load`/`desc.store`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List

_MAX_RANK = 5


def _strides_of(tensor):
    """A tensor's strides in elements (torch: stride(); numpy: bytes)."""
    if hasattr(tensor, "stride") and callable(tensor.stride):
        return list(tensor.stride())
    itemsize = tensor.dtype.itemsize
    return [s // itemsize for s in tensor.strides]


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        self.shape, self.strides = [int(s) for s in self.shape], [int(s) for s in self.strides]
        rank = len(self.shape)
        if not 1 <= rank <= _MAX_RANK:
            raise ValueError(f"a tensor descriptor has 1 to {_MAX_RANK} dimensions, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"a rank-{rank} tensor descriptor needs {rank} strides and block "
                             f"dimensions, got {len(self.strides)} and {len(self.block_shape)}")
        if self.strides[-1] != 1:
            raise ValueError(f"a tensor descriptor's last dimension must be contiguous "
                             f"(stride 1), got strides {self.strides}")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"padding must be 'zero' or 'nan', got {self.padding!r}")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding="zero"):
        return TensorDescriptor(tensor, list(tensor.shape), _strides_of(tensor), block_shape,
                                padding)
