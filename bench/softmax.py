"""Row softmax, fp32: GB/s of Tessera, PyTorch and upstream Triton."""

import torch

from common import bench, kernels, report


def main():
    ours, theirs = kernels("tessera"), kernels("triton")
    for cols in [1024, 4096, 16384]:
        rows = 4096
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        warps = 4 if cols <= 1024 else 8 if cols <= 4096 else 16
        run = lambda k: k.softmax_kernel[(rows,)](y, x, x.stride(0), cols, BLOCK=cols,
                                                  num_warps=warps)
        run(ours)
        torch.testing.assert_close(y, torch.softmax(x, dim=1))
        gbs = lambda ms: 2 * x.numel() * 4 / ms / 1e6
        refs = {"torch": gbs(bench(lambda: torch.softmax(x, dim=1)))}
        if theirs is not None:
            refs["triton"] = gbs(bench(lambda: run(theirs)))
        report(f"softmax fp32 {rows}x{cols}", "GB/s", gbs(bench(lambda: run(ours))), refs)


if __name__ == "__main__":
    main()
