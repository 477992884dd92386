"""Row softmax, fp32: GB/s of Tessera, PyTorch and upstream Triton."""

import torch

import tessera
import tessera.language as tl
from common import bench, report


@tessera.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=mask)


def triton_softmax():
    try:
        import triton
        import triton.language as ttl
    except ImportError:
        return None

    @triton.jit
    def kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: ttl.constexpr):
        row = ttl.program_id(0)
        offs = ttl.arange(0, BLOCK)
        mask = offs < n_cols
        x = ttl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
        x = x - ttl.max(x, axis=0)
        num = ttl.exp(x)
        ttl.store(out_ptr + row * stride + offs, num / ttl.sum(num, axis=0), mask=mask)
    return kernel


def main():
    for cols in [1024, 4096, 16384]:
        rows = 4096
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        warps = 4 if cols <= 1024 else 8 if cols <= 4096 else 16
        run = lambda: softmax_kernel[(rows,)](y, x, x.stride(0), cols, BLOCK=cols,
                                              num_warps=warps)
        run()
        torch.testing.assert_close(y, torch.softmax(x, dim=1))
        gbs = lambda ms: 2 * x.numel() * 4 / ms / 1e6
        refs = {"torch": gbs(bench(lambda: torch.softmax(x, dim=1)))}
        t = triton_softmax()
        if t is not None:
            refs["triton"] = gbs(bench(lambda: t[(rows,)](y, x, x.stride(0), cols, BLOCK=cols,
                                                          num_warps=warps)))
        report(f"softmax fp32 {rows}x{cols}", "GB/s", gbs(bench(run)), refs)


if __name__ == "__main__":
    main()
