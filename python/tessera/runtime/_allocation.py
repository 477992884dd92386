"""The allocator of global scratch memory for kernels that need it
(`triton.runtime._allocation`): `set_allocator(fn)` sets the function
`fn(size, alignment, stream)` that returns it; until one is set, the
`NullAllocator` raises."""


class NullAllocator:
    """The allocator before `set_allocator`: asking it for memory is an
    error naming what to do."""

    def __call__(self, size, alignment, stream):
        raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator "
                           "was set. Use tessera.set_allocator (triton.set_allocator) to "
                           "specify an allocator.")


_allocator = NullAllocator()


def set_allocator(allocator):
    """Sets the function `allocator(size, alignment, stream)` that returns
    global scratch memory for kernels that need it (`triton.set_allocator`).
    Tensor descriptors made inside kernels need none today; the function is
    kept for kernels that will."""
    global _allocator
    if not callable(allocator):
        raise TypeError(f"set_allocator takes a function (size, alignment, stream), "
                        f"got {type(allocator).__name__}")
    _allocator = allocator


def get_allocator():
    """The allocator set last (a NullAllocator where none was)."""
    return _allocator
