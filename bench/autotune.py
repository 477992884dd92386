"""Autotuning and benchmarking: what tuning a vector add costs in Tessera and
in upstream Triton (the same 15 configs, compiles included), what a restart
costs (Tessera reads its stored results; Triton tunes again), the tuned
kernel's GB/s against PyTorch's, do_bench against do_bench_cudagraph on a
small kernel, and a perf_report sweep written to $OUT (or bench/out)."""

import os
import subprocess
import sys
import tempfile
import time

import torch

from common import kernels, report

CONFIGS = [(block, warps) for block in (256, 512, 1024, 2048, 4096) for warps in (2, 4, 8)]
N = 2**26


def tuned(dsl):
    """The add kernel under `dsl`'s autotune, over CONFIGS, keyed by n."""
    package = __import__(dsl)
    module = kernels(dsl)
    if module is None:
        return None
    configs = [package.Config({"BLOCK": b}, num_warps=w) for b, w in CONFIGS]
    return package.autotune(configs, key=["n"])(module.add_kernel)


def first_launch_seconds(dsl):
    """Seconds the first launch of a tuned add takes in a fresh process."""
    script = f"""
import sys, time, torch
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
from autotune import tuned, N
kernel = tuned({dsl!r})
x = torch.rand(N, device="cuda"); y = torch.rand(N, device="cuda"); z = torch.empty_like(x)
torch.cuda.synchronize()
start = time.perf_counter()
kernel[lambda meta: ((N + meta["BLOCK"] - 1) // meta["BLOCK"],)](x, y, z, N)
torch.cuda.synchronize()
print(time.perf_counter() - start)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return float(done.stdout.strip().splitlines()[-1])


def tuning():
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TESSERA_CACHE_DIR"] = cache
        os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
        ms = lambda dsl: first_launch_seconds(dsl) * 1e3
        cold, restart = ms("tessera"), ms("tessera")
        triton = kernels("triton") is not None
        report(f"first launch, tuning {len(CONFIGS)} configs", "ms", cold,
               {"triton": ms("triton")} if triton else {})
        report("first launch after a restart", "ms", restart,
               {"triton": ms("triton")} if triton else {})


def tuned_bandwidth():
    import tessera.testing
    kernel = tuned("tessera")
    x, y = torch.rand(N, device="cuda"), torch.rand(N, device="cuda")
    z = torch.empty_like(x)
    grid = lambda meta: ((N + meta["BLOCK"] - 1) // meta["BLOCK"],)
    kernel[grid](x, y, z, N)
    torch.testing.assert_close(z, x + y)
    gbs = lambda ms: 3 * N * 4 / ms / 1e6
    ours = tessera.testing.do_bench(lambda: kernel[grid](x, y, z, N))
    refs = {"torch": gbs(tessera.testing.do_bench(lambda: torch.add(x, y, out=z)))}
    report(f"tuned vector add n=2^26 ({kernel.best_config})", "GB/s", gbs(ours), refs)


def graphs():
    import tessera.testing
    small = kernels("tessera")
    x, y = torch.rand(4096, device="cuda"), torch.rand(4096, device="cuda")
    z = torch.empty_like(x)
    run = lambda: small.add_kernel[(4,)](x, y, z, 4096, BLOCK=1024)
    plain = tessera.testing.do_bench(run) * 1e3
    graphed = tessera.testing.do_bench_cudagraph(run) * 1e3
    report("small add: do_bench_cudagraph (do_bench as ref)", "us", graphed, {"do_bench": plain})


def sweep():
    import tessera.testing
    ours = kernels("tessera")

    @tessera.testing.perf_report(tessera.testing.Benchmark(
        x_names=["n"], x_vals=[2**i for i in range(16, 27, 2)], line_arg="provider",
        line_vals=["tessera", "torch"], line_names=["Tessera", "PyTorch"],
        styles=[("blue", "-"), ("green", "--")], ylabel="GB/s", plot_name="vector-add",
        x_log=True))
    def bandwidth(n, provider):
        x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
        z = torch.empty_like(x)
        if provider == "tessera":
            fn = lambda: ours.add_kernel[((n + 4095) // 4096,)](x, y, z, n, BLOCK=4096,
                                                                num_warps=8)
        else:
            fn = lambda: torch.add(x, y, out=z)
        ms, low, high = tessera.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])
        gbs = lambda t: 3 * n * 4 / t / 1e6
        return gbs(ms), gbs(high), gbs(low)

    out = os.environ.get("OUT") or os.path.join(os.path.dirname(__file__), "out")
    bandwidth.run(print_data=True, save_path=out)


if __name__ == "__main__":
    start = time.perf_counter()
    tuning()
    tuned_bandwidth()
    graphs()
    sweep()
