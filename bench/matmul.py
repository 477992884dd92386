"""Matrix multiplication on tensor cores: TFLOP/s of Tessera, cuBLAS
(torch.matmul; torch._scaled_mm for fp8) and upstream Triton, running one
kernel source (Triton's tutorial 03 matmul) autotuned by each DSL over the
tutorial's CUDA configs; fp16 and bf16 at 1024^3, 4096^3, 8192^3 and
16384x1024x1024, fp8 e4m3 at 4096^3 with B K-major as the tutorial passes it;
the same matmul through host tensor descriptors (fp16 and bf16 at 4096^3 and
8192^3, each DSL's best of the tutorial's fp16 configs), and its persistent
form (tutorial 09: one program per multiprocessor looping over the tiles
with `tl.range(..., flatten=True)`, C stored whole or in two subtiles, with
and without `warp_specialize`, over the tutorial's 8-warp configs); then the cold compile (the first launch
in a fresh process, empty cache) of the tutorial's first config.

Both DSLs on mma.sync are timed too, each by a child process of this script
(a line "... on mma.sync" after each pointer row): Tessera with
TESSERA_DISABLE_MMA_V3=1, upstream Triton with TRITON_OVERRIDE_ARCH=sm80,
which Triton reads when it compiles. An sm_80 binary may not load on a newer
GPU; then Triton's child runs again with DISABLE_MMA_V3=1, which keeps its
target and takes mma.sync in place of wgmma, and the column says
"triton-mmav2".

    python3 bench/matmul.py            # the table
    python3 bench/matmul.py --quick    # fp16 1024^3 only
    python3 bench/matmul.py --check    # the kernel on the host interpreter
    python3 bench/matmul.py --profile matmul   # matmul.hatchet: Tessera and cuBLAS
"""

import argparse
import functools
import itertools
import importlib
import json
import os
import sys
import tempfile
import warnings

from common import child_ms, kernels, mma_sync_child

# The kernel is written once, as Triton users write it; kernels_of(dsl) runs
# this file again as a module with `tl` and `jit` bound to Tessera's or to
# upstream Triton's (common.kernels). Run as a script, they are Tessera's.
if "jit" not in globals():
    try:
        import tessera.language as tl
        from tessera import jit
    except ImportError as e:
        sys.exit(f"bench/matmul.py: cannot import Tessera ({e}); "
                 "set PYTHONPATH=build/<preset>/python")


@jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    # Tutorial 03's kernel; C is stored in its own element type.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@jit
def matmul_kernel_descriptor(a_desc, b_desc, c_desc, M, N, K,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                             WARP_SPECIALIZE: tl.constexpr = False):
    # The same matmul through host tensor descriptors (tutorial 09's form).
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = pid_m * BLOCK_SIZE_M
    offs_bn = pid_n * BLOCK_SIZE_N
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
        b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
        accumulator = tl.dot(a, b, accumulator)
    c_desc.store([offs_am, offs_bn], accumulator.to(c_desc.dtype))


@jit
def matmul_kernel_persistent(a_desc, b_desc, c_desc, M, N, K,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                             NUM_SMS: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr,
                             WARP_SPECIALIZE: tl.constexpr = False):
    # Tutorial 09's persistent kernel through host tensor descriptors; with
    # EPILOGUE_SUBTILE, C goes out in two halves of BLOCK_SIZE_N / 2.
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([offs_am, ki * BLOCK_SIZE_K])
            b = b_desc.load([ki * BLOCK_SIZE_K, offs_bn])
            accumulator = tl.dot(a, b, accumulator)
        if EPILOGUE_SUBTILE:
            acc = tl.reshape(accumulator, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2))
            acc = tl.permute(acc, (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c_desc.store([offs_am, offs_bn], acc0.to(c_desc.dtype))
            c_desc.store([offs_am, offs_bn + BLOCK_SIZE_N // 2], acc1.to(c_desc.dtype))
        else:
            c_desc.store([offs_am, offs_bn], accumulator.to(c_desc.dtype))


# Triton's tutorial 03, get_cuda_autotune_config():
# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages, num_warps), GROUP_SIZE_M 8.
CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
           (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
           # the tutorial's configs for fp8 inputs
           (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4),
           (64, 256, 128, 4, 4), (128, 128, 128, 4, 4), (128, 64, 64, 4, 4),
           (64, 128, 64, 4, 4), (128, 32, 64, 4, 4)]

# Tutorial 03's fp16 configs, for the descriptor kernel.
DESCRIPTOR_CONFIGS = 8
# Tutorial 09's space for the persistent kernel, 8 warps and BLOCK_SIZE_K 64:
# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages, num_warps, EPILOGUE_SUBTILE,
# WARP_SPECIALIZE).
PERSISTENT_CONFIGS = [(128, n, 64, s, 8, subtile, ws) for n in (128, 256) for s in (3, 4)
                      for subtile in (False, True) for ws in (False, True)]

SHAPES = [(1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 8192), (16384, 1024, 1024)]
# The kernel through tensor descriptors: (name, dtype, shapes).
DESCRIPTOR_CASES = [("fp16", "float16", [(4096, 4096, 4096), (8192, 8192, 8192)]),
                    ("bf16", "bfloat16", [(4096, 4096, 4096), (8192, 8192, 8192)])]
# (name, dtype, shapes); fp8 is e4m3 with B K-major
CASES = [("fp16", "float16", SHAPES), ("bf16", "bfloat16", SHAPES),
         ("fp8e4m3", "float8_e4m3fn", [(4096, 4096, 4096)])]
QUICK = [("fp16", "float16", [(1024, 1024, 1024)])]


def kernels_of(dsl):
    """This file's kernel with `tl` and `jit` of "tessera" or "triton", and
    `tuned`, the kernel under that DSL's autotune over CONFIGS; None where
    the DSL is not installed."""
    module = kernels(dsl, os.path.abspath(__file__))
    if module is None:
        return None
    package = importlib.import_module(dsl)
    configs = [package.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k,
                               "GROUP_SIZE_M": 8}, num_stages=s, num_warps=w)
               for m, n, k, s, w in CONFIGS]
    module.tuned = package.autotune(configs, key=["M", "N", "K"])(module.matmul_kernel)
    module.TensorDescriptor = importlib.import_module(
        dsl + ".tools.tensor_descriptor").TensorDescriptor
    descriptor_configs = [package.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n,
                                          "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                                         num_stages=s, num_warps=w, pre_hook=set_blocks)
                          for m, n, k, s, w in CONFIGS[:DESCRIPTOR_CONFIGS]]
    module.tuned_descriptor = package.autotune(descriptor_configs, key=["M", "N", "K"])(
        module.matmul_kernel_descriptor)
    persistent_configs = [package.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n,
                                          "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8,
                                          "EPILOGUE_SUBTILE": subtile, "WARP_SPECIALIZE": ws},
                                         num_stages=s, num_warps=w, pre_hook=set_blocks)
                          for m, n, k, s, w, subtile, ws in PERSISTENT_CONFIGS]
    module.tuned_persistent = package.autotune(persistent_configs, key=["M", "N", "K"])(
        module.matmul_kernel_persistent)
    return module


def set_blocks(nargs):
    """Gives the descriptors the blocks of the config being run."""
    m, n, k = nargs["BLOCK_SIZE_M"], nargs["BLOCK_SIZE_N"], nargs["BLOCK_SIZE_K"]
    nargs["a_desc"].block_shape = [m, k]
    nargs["b_desc"].block_shape = [k, n]
    nargs["c_desc"].block_shape = [m, n // 2 if nargs.get("EPILOGUE_SUBTILE") else n]


def matmul_descriptor(module, a, b, c, persistent=0):
    """c = a @ b through host tensor descriptors, autotuned; with
    `persistent` (the multiprocessors), the persistent kernel."""
    M, K = a.shape
    N = b.shape[1]
    # Blocks are set by each config's pre_hook.
    descs = [module.TensorDescriptor.from_tensor(t, [1, 1]) for t in (a, b, c)]
    tiles = lambda m: (((M + m["BLOCK_SIZE_M"] - 1) // m["BLOCK_SIZE_M"])
                       * ((N + m["BLOCK_SIZE_N"] - 1) // m["BLOCK_SIZE_N"]))
    if persistent:
        module.tuned_persistent[lambda m: (min(persistent, tiles(m)),)](
            *descs, M, N, K, NUM_SMS=persistent)
    else:
        module.tuned_descriptor[lambda m: (tiles(m),)](*descs, M, N, K)
    return c


def matmul(kernel, a, b, c, **meta):
    """c = a @ b; `meta` gives the blocks and launch options where `kernel`
    is not autotuned."""
    M, K = a.shape
    N = b.shape[1]
    grid = lambda m: (((M + m["BLOCK_SIZE_M"] - 1) // m["BLOCK_SIZE_M"])
                      * ((N + m["BLOCK_SIZE_N"] - 1) // m["BLOCK_SIZE_N"]),)
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), **meta)
    return c


def operands(torch, dtype, M, N, K):
    """A (MxK), B (KxN) and C (MxN); for fp8, B is K-major (column-major) and
    C fp16, as in the tutorial."""
    torch.manual_seed(0)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    if dtype.startswith("float8"):
        fp8 = getattr(torch, dtype)
        b = torch.randn((N, K), device="cuda", dtype=torch.float16).T
        return a.to(fp8), b.to(fp8), torch.empty((M, N), device="cuda", dtype=torch.float16)
    dt = getattr(torch, dtype)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    return a.to(dt), b.to(dt), torch.empty((M, N), device="cuda", dtype=dt)


def reference(torch, a, b):
    """torch.matmul in the inputs' type (fp16 for fp8 inputs)."""
    if a.dtype in (torch.float16, torch.bfloat16):
        return torch.matmul(a, b)
    return torch.matmul(a.to(torch.float16), b.to(torch.float16))


def check(torch, name, c, ref):
    error = (c.float() - ref.float()).abs().max().item() / max(ref.float().abs().max().item(),
                                                              1e-6)
    if error > 1e-2:
        raise AssertionError(f"{name}: the result differs from torch.matmul "
                             f"(max error {error:.2e} of the largest value)")


def cublas(torch, a, b):
    """A function running cuBLAS on a and b, or None (fp8 without
    torch._scaled_mm)."""
    if a.dtype in (torch.float16, torch.bfloat16):
        return lambda: torch.matmul(a, b)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    # Triton's fp8 dot on sm_90 accumulates in wgmma's precision, with no
    # promotion: cuBLAS's fast accumulation is the like for like.
    run = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16,
                                   use_fast_accum=True)
    try:
        run()
    except (AttributeError, RuntimeError, TypeError):
        return None
    return run


# The fixed config whose cold compile is timed: the tutorial's first.
COLD_CONFIG = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
               "num_stages": 3, "num_warps": 8}

COLD_CHILD = r"""
import sys, time
sys.path.insert(0, {bench!r})
import torch
from matmul import COLD_CONFIG, kernels_of, matmul, operands, reference, check
k = kernels_of({dsl!r})
if k is None:
    sys.exit(3)  # not installed
a, b, c = operands(torch, "float16", 512, 512, 512)
torch.cuda.synchronize()
start = time.perf_counter()
matmul(k.matmul_kernel, a, b, c, **COLD_CONFIG)
torch.cuda.synchronize()
print((time.perf_counter() - start) * 1e3)
check(torch, "cold compile", c, reference(torch, a, b))
"""


def cold_compile_ms(dsl):
    """The first launch's milliseconds of the fp16 kernel in COLD_CONFIG, in
    a fresh process with an empty cache; None where `dsl` is not
    installed."""
    code = COLD_CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), dsl=dsl)
    with tempfile.TemporaryDirectory() as cache:
        return child_ms(dsl, code, cache)


def tflops(M, N, K, ms):
    return 2 * M * N * K / ms / 1e9


def name_of(label, M, N, K):
    return f"matmul {label} {M}x{N}x{K}"


def run_child(dsl, cases):
    """The child: `dsl` only (common.report_to_parent)."""
    import torch
    from common import bench, report_to_parent
    warnings.filterwarnings("ignore", message="tessera: autotuning")
    theirs = kernels_of(dsl)

    def measure(label, dtype, M, N, K):
        a, b, c = operands(torch, dtype, M, N, K)
        check(torch, name_of(label, M, N, K), matmul(theirs.tuned, a, b, c),
              reference(torch, a, b))
        return tflops(M, N, K, bench(lambda: matmul(theirs.tuned, a, b, c)))

    report_to_parent((name_of(label, M, N, K), functools.partial(measure, label, dtype, M, N, K))
                     for label, dtype, shapes in cases for M, N, K in shapes)


def self_check():
    """The kernel, plain and autotuned, on Tessera's host interpreter, fp16,
    against numpy."""
    import numpy as np

    class Array(np.ndarray):
        def stride(self, dim=None):  # torch's, in elements
            strides = tuple(s // self.itemsize for s in self.strides)
            return strides if dim is None else strides[dim]

    ours = kernels_of("tessera")
    rng = np.random.default_rng(0)
    for M, N, K in [(64, 48, 80), (33, 70, 40)]:
        a = rng.standard_normal((M, K)).astype(np.float16).view(Array)
        b = np.asfortranarray(rng.standard_normal((K, N)).astype(np.float16)).view(Array)
        ref = np.asarray(a, np.float32) @ np.asarray(b, np.float32)
        for kernel, meta in [(ours.matmul_kernel, dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
                                                       BLOCK_SIZE_K=32, GROUP_SIZE_M=8)),
                             (ours.tuned, {})]:
            c = np.zeros((M, N), np.float16).view(Array)
            matmul(kernel, a, b, c, **meta)
            np.testing.assert_allclose(np.asarray(c, np.float32), ref, rtol=1e-2, atol=2e-2)
        print(f"matmul fp16 {M}x{N}x{K} (B K-major) on the host interpreter, plain and "
              f"autotuned: matches numpy")
    a = rng.standard_normal((64, 96)).astype(np.float16).view(Array)
    b = rng.standard_normal((96, 80)).astype(np.float16).view(Array)
    for form, persistent in [("", 0), (" (persistent, 3 programs)", 3)]:
        c = np.zeros((64, 80), np.float16).view(Array)
        matmul_descriptor(ours, a, b, c, persistent)
        np.testing.assert_allclose(np.asarray(c, np.float32),
                                   np.asarray(a, np.float32) @ np.asarray(b, np.float32),
                                   rtol=1e-2, atol=2e-2)
        print(f"matmul fp16 64x80x96 through tensor descriptors{form}, autotuned, on the "
              "host interpreter: matches numpy")


def profile(name, cases):
    """--profile: Tessera's autotuned fp16 kernel and cuBLAS on the shapes
    of `cases`, each launch under a scope holding its flops, profiled with
    tessera.profiler (CUPTI times both, where it can be opened); writes
    <name>.hatchet and prints the viewer's tree."""
    import torch
    import tessera.profiler as proton
    from tessera.profiler import viewer
    ours = kernels_of("tessera")
    shapes = [shape for _, dtype, shapes in cases if dtype == "float16" for shape in shapes]
    runs = []
    for M, N, K in shapes:
        a, b, c = operands(torch, "float16", M, N, K)
        check(torch, name_of("fp16", M, N, K), matmul(ours.tuned, a, b, c),
              reference(torch, a, b))  # tuned before the session
        runs.append(((M, N, K), lambda a=a, b=b, c=c: matmul(ours.tuned, a, b, c),
                     cublas(torch, a, b)))
    torch.cuda.synchronize()
    proton.start(name)
    for (M, N, K), tessera_run, cublas_run in runs:
        flops = {"flops16": 2 * M * N * K}
        for _ in range(10):
            with proton.scope(f"tessera {M}x{N}x{K}", flops):
                tessera_run()
            with proton.scope(f"cublas {M}x{N}x{K}", flops):
                cublas_run()
    proton.finalize()
    viewer.main(["-m", "time/ms,tflop16/s,util", name + ".hatchet"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fp16 1024^3 only")
    parser.add_argument("--check", action="store_true",
                        help="run the kernel on Tessera's host interpreter (no GPU needed)")
    parser.add_argument("--profile", metavar="NAME",
                        help="profile Tessera's fp16 kernel and cuBLAS with tessera.profiler "
                             "into NAME.hatchet and print the tree")
    parser.add_argument("--child", nargs=2, metavar=("DSL", "CASES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TESSERA_CACHE_DIR"] = cache  # tuning results stay out of ~/.cache
            return self_check()
    try:
        import torch
    except ImportError:
        sys.exit("bench/matmul.py: needs PyTorch with CUDA (--check runs without it)")
    if not torch.cuda.is_available():
        sys.exit("bench/matmul.py: PyTorch sees no CUDA GPU (--check runs without one)")
    if args.child:
        return run_child(args.child[0], json.loads(args.child[1]))
    if args.profile:
        warnings.filterwarnings("ignore", message="tessera: autotuning")
        return profile(args.profile, QUICK if args.quick else CASES)
    from common import bench_in_turn, report
    # Configs a chip cannot hold (shared memory) are skipped by both tuners.
    warnings.filterwarnings("ignore", message="tessera: autotuning")
    cases = QUICK if args.quick else CASES
    ours, theirs = kernels_of("tessera"), kernels_of("triton")
    versions = f"torch {torch.__version__}"
    if theirs is not None:
        versions += f", triton {importlib.import_module('triton').__version__}"
    print(f"# {torch.cuda.get_device_name()}, {versions}", flush=True)
    # Both DSLs on mma.sync too (Tessera's own figures are on wgmma where
    # the GPU has it), each in a child process.
    ours_sync, ours_column = mma_sync_child(os.path.abspath(__file__), cases, "tessera")
    mma_sync, column = {}, "triton-sm80"
    if theirs is None:
        print("# upstream Triton is not installed: only Tessera and cuBLAS", flush=True)
    else:
        mma_sync, column = mma_sync_child(os.path.abspath(__file__), cases)
    for label, dtype, shapes in cases:
        for M, N, K in shapes:
            name = name_of(label, M, N, K)
            a, b, c = operands(torch, dtype, M, N, K)
            check(torch, name, matmul(ours.tuned, a, b, c), reference(torch, a, b))
            if theirs is not None:
                check(torch, name, matmul(theirs.tuned, a, b, c), reference(torch, a, b))
            ms = bench_in_turn({
                "tessera": lambda: matmul(ours.tuned, a, b, c),
                "cublas": cublas(torch, a, b),
                "triton": None if theirs is None else lambda: matmul(theirs.tuned, a, b, c)})
            refs = {ref: tflops(M, N, K, ms[ref]) for ref in ("cublas", "triton")
                    if ms[ref] is not None}
            report(name, "TFLOP/s", tflops(M, N, K, ms["tessera"]), refs)
            if ours_sync.get(name) is not None:
                report(f"{name} on mma.sync ({ours_column})", "TFLOP/s", ours_sync[name],
                       {column: mma_sync.get(name)})
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for label, dtype, shapes in ([] if args.quick else DESCRIPTOR_CASES):
        for (M, N, K), (form, persistent) in itertools.product(
                shapes, [("tensor descriptors", 0), ("persistent", sms)]):
            name = f"{name_of(label, M, N, K)} ({form})"
            a, b, c = operands(torch, dtype, M, N, K)
            run = lambda module: matmul_descriptor(module, a, b, c, persistent)
            check(torch, name, run(ours), reference(torch, a, b))
            if theirs is not None:
                check(torch, name, run(theirs), reference(torch, a, b))
            ms = bench_in_turn({"tessera": lambda: run(ours), "cublas": cublas(torch, a, b),
                                "triton": None if theirs is None else lambda: run(theirs)})
            refs = {ref: tflops(M, N, K, ms[ref]) for ref in ("cublas", "triton")
                    if ms[ref] is not None}
            report(name, "TFLOP/s", tflops(M, N, K, ms["tessera"]), refs)
    report("cold compile + first launch, fp16 128x256x64", "ms", cold_compile_ms("tessera"),
           {"triton": cold_compile_ms("triton") if theirs is not None else None})


if __name__ == "__main__":
    main()
