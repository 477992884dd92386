"""Vector add, fp32: GB/s of Tessera, PyTorch and upstream Triton."""

import torch

from common import bench, kernels, report


def main():
    ours, theirs = kernels("tessera"), kernels("triton")
    for n in [2**20, 2**24, 2**28]:
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        z = torch.empty_like(x)
        block = 4096
        grid = ((n + block - 1) // block,)
        run = lambda k: k.add_kernel[grid](x, y, z, n, BLOCK=block, num_warps=8)
        run(ours)
        torch.testing.assert_close(z, x + y)
        gbs = lambda ms: 3 * n * 4 / ms / 1e6
        refs = {"torch": gbs(bench(lambda: torch.add(x, y, out=z)))}
        if theirs is not None:
            refs["triton"] = gbs(bench(lambda: run(theirs)))
        report(f"vector add fp32 n=2^{n.bit_length() - 1}", "GB/s", gbs(bench(lambda: run(ours))),
               refs)


if __name__ == "__main__":
    main()
