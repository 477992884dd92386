"""Host time per launch of a tiny kernel, cache warm (lower is better):
Tessera, PyTorch (an add of one element) and upstream Triton.

Launches are timed in batches short enough that the GPU's queue never fills,
so the figure is the host's work, not the GPU's. The three take turns over
several rounds (the machine's noise drifts), and each keeps its best round."""

import statistics
import time

import torch

from common import kernels, report


def host_us(launch, batches=50, per_batch=200):
    launch()
    torch.cuda.synchronize()
    samples = []
    for _ in range(batches):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(per_batch):
            launch()
        samples.append((time.perf_counter() - start) / per_batch * 1e6)
    torch.cuda.synchronize()
    return statistics.median(samples)


def main():
    ours, theirs = kernels("tessera"), kernels("triton")
    x = torch.ones(1, device="cuda")
    y = torch.empty_like(x)
    ours.tiny_kernel[(1,)](x, y, 1000, 2.0)
    torch.testing.assert_close(y, x + 1002)
    launches = {
        "tessera": lambda: ours.tiny_kernel[(1,)](x, y, 1000, 2.0),
        "torch": lambda: torch.add(x, 2.0, out=y),
    }
    if theirs is not None:
        launches["triton"] = lambda: theirs.tiny_kernel[(1,)](x, y, 1000, 2.0)
    best = {}
    for _ in range(5):
        for name, launch in launches.items():
            best[name] = min(best.get(name, float("inf")), host_us(launch, batches=20))
    tessera = best.pop("tessera")
    report("launch of a tiny kernel (host)", "us", tessera, best)


if __name__ == "__main__":
    main()
