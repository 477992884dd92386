"""Vector add, fp32: GB/s of Tessera, PyTorch and upstream Triton."""

import torch

import tessera
import tessera.language as tl
from common import bench, report


@tessera.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def triton_add():
    try:
        import triton
        import triton.language as ttl
    except ImportError:
        return None

    @triton.jit
    def kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        mask = offs < n
        ttl.store(z_ptr + offs, ttl.load(x_ptr + offs, mask=mask)
                  + ttl.load(y_ptr + offs, mask=mask), mask=mask)
    return kernel


def main():
    for n in [2**20, 2**24, 2**28]:
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        z = torch.empty_like(x)
        block = 4096
        grid = (tessera.cdiv(n, block),)
        add_kernel[grid](x, y, z, n, BLOCK=block, num_warps=8)
        torch.testing.assert_close(z, x + y)
        gbs = lambda ms: 3 * n * 4 / ms / 1e6
        refs = {"torch": gbs(bench(lambda: torch.add(x, y, out=z)))}
        t = triton_add()
        if t is not None:
            refs["triton"] = gbs(bench(lambda: t[grid](x, y, z, n, BLOCK=block, num_warps=8)))
        report(f"vector add fp32 n=2^{n.bit_length() - 1}", "GB/s",
               gbs(bench(lambda: add_kernel[grid](x, y, z, n, BLOCK=block, num_warps=8))),
               refs)


if __name__ == "__main__":
    main()
