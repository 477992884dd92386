"""The CPU backend plugin (examples/backend-plugin) against Tessera's host
interpreter and numpy: vector add of 2^24 fp32, softmax of 4096x1024 fp32
rows, and a 512^3 fp32 matmul, each a Triton-style kernel on numpy arrays.
Needs no GPU; the plugin is built out of tree against the installed package:

    cmake --install build/release --prefix build/sdk
    cmake -S examples/backend-plugin -B build/cpu-plugin \\
      -DTessera_DIR=$PWD/build/sdk/lib/cmake/Tessera
    cmake --build build/cpu-plugin
    python3 bench/cpu.py build/cpu-plugin/libtessera_cpu.so

Each figure is the median of the runs' wall time (after one run that
compiles); the line gives the plugin's, the interpreter's and numpy's, and
the ratios (above 1: the plugin is faster).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

try:
    import tessera
    import tessera.language as tl
except ImportError as e:
    sys.exit(f"bench/cpu.py: cannot import Tessera ({e}); set PYTHONPATH=build/<preset>/python")


@tessera.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@tessera.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@tessera.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def median_ms(fn, runs):
    fn()  # compiles
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def cases(rng):
    n = 1 << 24
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.empty_like(x)
    yield ("vector add 2^24 fp32",
           lambda: add_kernel[(n // 1024,)](x, y, out, n, BLOCK=1024),
           lambda: np.add(x, y, out=out), lambda: (out, x + y), 5)

    rows = rng.random((4096, 1024), dtype=np.float32)
    probs = np.empty_like(rows)

    def numpy_softmax():
        e = np.exp(rows - rows.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    yield ("softmax 4096x1024 fp32",
           lambda: softmax_kernel[(4096,)](probs, rows, 1024, 1024, BLOCK=1024),
           numpy_softmax, lambda: (probs, numpy_softmax()), 5)

    size = 512
    a = rng.random((size, size), dtype=np.float32)
    b = rng.random((size, size), dtype=np.float32)
    c = np.empty((size, size), np.float32)
    yield ("matmul 512^3 fp32",
           lambda: matmul_kernel[(size // 32, size // 32)](a, b, c, size, size, size, BLOCK_M=32,
                                                            BLOCK_N=32, BLOCK_K=32),
           lambda: a @ b, lambda: (c, a @ b), 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plugin", help="the CPU backend plugin (libtessera_cpu.so)")
    parser.add_argument("--no-interpreter", action="store_true",
                        help="leave out the host interpreter (the slowest)")
    args = parser.parse_args()
    names = tessera.load_backend(args.plugin)
    if "cpu" not in names:
        sys.exit(f"bench/cpu.py: {args.plugin} registers {names}, not the cpu backend")
    print(f"# {os.cpu_count()} CPUs; numpy {np.__version__}", flush=True)
    for name, ours, reference, check, runs in cases(np.random.default_rng(0)):
        os.environ["TESSERA_DEVICE"] = "cpu"
        plugin = median_ms(ours, runs)
        result, expected = check()
        np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-4)
        interpreter = None
        if not args.no_interpreter:
            os.environ["TESSERA_DEVICE"] = ""
            interpreter = median_ms(ours, 1)
        numpy_ms = median_ms(reference, runs)
        line = f"{name:<26} cpu plugin {plugin:9.2f} ms"
        if interpreter is not None:
            line += f" | interpreter {interpreter:9.2f} ms (x{interpreter / plugin:.2f})"
        line += f" | numpy {numpy_ms:9.2f} ms (x{numpy_ms / plugin:.2f})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
