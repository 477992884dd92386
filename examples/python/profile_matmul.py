"""Scopes inside a kernel: where a pipelined matmul's warps spend their time.

The kernel marks its loads and its dot with tessera.profiler.language
scopes. Profiled with backend="instrumentation", every warp records when it
enters and leaves each scope; the profile holds each scope's time per warp
under the kernel, and its Chrome trace a timeline per warp
(chrome://tracing or https://ui.perfetto.dev). Without an instrumenting
session the scopes compile to nothing.

    python examples/python/profile_matmul.py [--size 4096] [--out DIR]
"""

import argparse
import json
import os
import sys
import tempfile

import numpy as np

import tessera
import tessera.language as tl
import tessera.profiler as proton
import tessera.profiler.language as pl
from tessera.profiler import viewer


@tessera.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3):
        pl.enter_scope("load")
        ks = k * BLOCK_K + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * K + ks[None, :],
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + offs_n[None, :],
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        pl.exit_scope("load")
        pl.enter_scope("dot")
        acc = tl.dot(a, b, acc)
        pl.exit_scope("dot")
    pl.enter_scope("store")
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
    pl.exit_scope("store")


def profile(size, out):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    c = np.empty((size, size), np.float16)
    block = 128 if size >= 1024 else 32
    grid = (tessera.cdiv(size, block), tessera.cdiv(size, block))
    name = os.path.join(out, "matmul")
    proton.start(name, backend="instrumentation")
    matmul_kernel[grid](a, b, c, size, size, size, BLOCK_M=block, BLOCK_N=block, BLOCK_K=32)
    proton.finalize()
    if size <= 256:
        expected = a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_allclose(c.astype(np.float32), expected, rtol=2e-2, atol=2e-1)
    return name


def timeline(name, warps=2):
    """The first warps' scopes, in order: (warp, scope, begin, end) in µs
    from the warp's first record."""
    with open(name + ".chrome_trace") as f:
        events = json.load(f)["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e["name"] == "thread_name" and e["pid"] == 1}
    lines = []
    for tid in sorted(threads)[:warps]:
        spans = sorted((e["ts"], e["dur"], e["name"]) for e in events
                       if e.get("cat") == "scope" and e["tid"] == tid and e["pid"] == 1)
        start = spans[0][0]
        lines += [f"{threads[tid]}: {scope} {ts - start:.3f}..{ts - start + dur:.3f} us"
                  for ts, dur, scope in spans[:8]]
    return lines


def main(argv=()):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--out", help="where the profile goes (a temporary folder otherwise)")
    args = parser.parse_args(list(argv))
    with tempfile.TemporaryDirectory() as tmp:
        name = profile(args.size, args.out or tmp)
        viewer.main(["-m", "time/us,scope_time/us", name + ".hatchet"])
        print("\n".join(timeline(name)))


if __name__ == "__main__":
    main(sys.argv[1:])
