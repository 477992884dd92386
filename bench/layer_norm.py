"""Layer norm forward, fp16 (Triton's tutorial kernel): GB/s of Tessera,
PyTorch and upstream Triton."""

import torch

from common import bench, kernels, report


def main():
    ours, theirs = kernels("tessera"), kernels("triton")
    rows, eps = 4096, 1e-5
    for cols in [1024, 8192]:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        w = torch.rand(cols, device="cuda", dtype=torch.float16)
        b = torch.rand(cols, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        mean = torch.empty(rows, device="cuda", dtype=torch.float32)
        rstd = torch.empty_like(mean)
        # The tutorial's choice of block and warps.
        block = min(65536 // x.element_size(), 1 << (cols - 1).bit_length())
        warps = min(max(block // 256, 1), 8)
        run = lambda k: k.layer_norm_fwd_kernel[(rows,)](
            x, y, w, b, mean, rstd, x.stride(0), cols, eps, BLOCK_SIZE=block, num_warps=warps)
        run(ours)
        torch.testing.assert_close(
            y, torch.nn.functional.layer_norm(x, (cols,), w, b, eps), atol=1e-2, rtol=0)
        gbs = lambda ms: 2 * x.numel() * x.element_size() / ms / 1e6
        torch_ln = lambda: torch.nn.functional.layer_norm(x, (cols,), w, b, eps)
        refs = {"torch": gbs(bench(torch_ln))}
        if theirs is not None:
            refs["triton"] = gbs(bench(lambda: run(theirs)))
        report(f"layer norm fwd fp16 {rows}x{cols}", "GB/s", gbs(bench(lambda: run(ours))), refs)


if __name__ == "__main__":
    main()
