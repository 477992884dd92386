"""Flash attention forward, fp16: TFLOP/s of Tessera, PyTorch
(scaled_dot_product_attention) and upstream Triton, running one kernel source
(the forward pass of Triton's tutorial 06) autotuned by each DSL over the same
configs; B=4 H=32 N=4096, head dim 64 and 128, causal and not. FLOPs are
4*B*H*N^2*D, halved when causal. Two forms of the kernel: with pointers, and
with tensor descriptors as the tutorial has it (TMA copies on Hopper), tuned
with and without `warp_specialize`. Both DSLs on mma.sync are timed too, the
pointer form in child processes as in bench/matmul.py (common.mma_sync_child).
Then the cold compile of the kernel: its
first launch in a fresh process with an empty cache (TESSERA_CACHE_DIR,
TRITON_CACHE_DIR), Python start-up and imports excluded, as bench/compile.py
times the vector add.

    python3 bench/attention.py            # the table
    python3 bench/attention.py --quick    # B=1 H=8 N=1024 D=64, not causal
    python3 bench/attention.py --check    # the kernel on the host interpreter
"""

import argparse
import functools
import importlib
import json
import math
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
        sys.exit(f"bench/attention.py: cannot import Tessera ({e}); "
                 "set PYTHONPATH=build/<preset>/python")


@jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    offs_m, offs_n, N_CTX):
    # STAGE 1: the blocks left of the diagonal; 2: the diagonal one, masked;
    # 3: every block (not causal).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vn
    for start_n in range(lo, hi, BLOCK_N):
        k = tl.load(k_ptrs)
        qk = tl.dot(q, tl.trans(k))
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale,
                    stride_qz, stride_qh, stride_qm, stride_qk,
                    stride_kz, stride_kh, stride_kn, stride_kk,
                    stride_vz, stride_vh, stride_vn, stride_vk,
                    stride_oz, stride_oh, stride_om, stride_ok,
                    H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    # Tutorial 06's forward pass with pointers in place of tensor
    # descriptors: STAGE is 3 when causal, 1 when not; N_CTX is a multiple
    # of BLOCK_M, and BLOCK_M of BLOCK_N.
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh \
        + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    k_ptrs = K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh \
        + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kk
    v_ptrs = V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh \
        + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk
    o_ptrs = Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh \
        + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp2 in place of exp
    q = tl.load(q_ptrs)
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn,
                                        start_m, qk_scale, BLOCK_M, BLOCK_N, 4 - STAGE,
                                        offs_m, offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn,
                                        start_m, qk_scale, BLOCK_M, BLOCK_N, 2,
                                        offs_m, offs_n, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty))


@jit
def _attn_fwd_inner_desc(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                         offs_m, offs_n, N_CTX, WARP_SPECIALIZE: tl.constexpr):
    # _attn_fwd_inner through descriptors: K and V rows from offset_y on.
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    offsetk_y = offset_y + lo
    offsetv_y = offset_y + lo
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        k = desc_k.load([offsetk_y, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offsetv_y, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
        offsetk_y += BLOCK_N
        offsetv_y += BLOCK_N
    return acc, l_i, m_i


@jit
def attn_fwd_desc_kernel(sm_scale, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX,
                         HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         STAGE: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    # Tutorial 06's forward pass: Q, K, V and O as (Z * H * N_CTX, HEAD_DIM)
    # descriptors.
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = desc_q.load([qo_offset_y, 0])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner_desc(acc, l_i, m_i, q, desc_k, desc_v, offset_y,
                                             start_m, qk_scale, BLOCK_M, BLOCK_N, 4 - STAGE,
                                             offs_m, offs_n, N_CTX, WARP_SPECIALIZE)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner_desc(acc, l_i, m_i, q, desc_k, desc_v, offset_y,
                                             start_m, qk_scale, BLOCK_M, BLOCK_N, 2,
                                             offs_m, offs_n, N_CTX, WARP_SPECIALIZE)
    acc = acc / l_i[:, None]
    desc_o.store([qo_offset_y, 0], acc.to(desc_o.dtype))


# (BLOCK_M, BLOCK_N, num_stages, num_warps): tutorial 06's space with
# BLOCK_M a multiple of BLOCK_N, less its own prune on sm_90 (8 warps for
# tiles under 128x128).
CONFIGS = [(bm, bn, s, w) for bm in (64, 128) for bn in (32, 64, 128) for s in (2, 3, 4)
           for w in (4, 8) if bm % bn == 0 and not (bm * bn < 128 * 128 and w == 8)]
# The fixed config whose cold compile is timed.
COLD_CONFIG = {"BLOCK_M": 128, "BLOCK_N": 64, "num_stages": 3, "num_warps": 4}
# The descriptor kernel's: CONFIGS' blocks from 64 and up to 3 stages, with 8
# warps also with warp_specialize (with 4, upstream Triton 3.6 fails to
# compile some on sm_90).
DESC_CONFIGS = [(bm, bn, s, w, ws) for bm, bn, s, w in CONFIGS if bn >= 64 and s <= 3
                for ws in ((False, True) if w == 8 else (False,))]

SHAPE, QUICK_SHAPE = (4, 32, 4096), (1, 8, 1024)  # B, H, N
VARIANTS, QUICK_VARIANTS = [(64, False), (64, True), (128, False), (128, True)], [(64, False)]


def kernels_of(dsl):
    """This file's kernels with `tl` and `jit` of "tessera" or "triton", and
    `tuned`, the attention kernel under that DSL's autotune over CONFIGS;
    None where the DSL is not installed."""
    module = kernels(dsl, os.path.abspath(__file__))
    if module is None:
        return None
    package = importlib.import_module(dsl)
    configs = [package.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
               for bm, bn, s, w in CONFIGS]
    module.tuned = package.autotune(configs, key=["N_CTX", "HEAD_DIM", "STAGE"])(
        module.attn_fwd_kernel)
    desc_configs = [package.Config({"BLOCK_M": bm, "BLOCK_N": bn, "WARP_SPECIALIZE": ws},
                                   num_stages=s, num_warps=w, pre_hook=set_blocks)
                    for bm, bn, s, w, ws in DESC_CONFIGS]
    module.tuned_desc = package.autotune(desc_configs, key=["N_CTX", "HEAD_DIM", "STAGE"])(
        module.attn_fwd_desc_kernel)
    module.TensorDescriptor = importlib.import_module(
        dsl + ".tools.tensor_descriptor").TensorDescriptor
    return module


def set_blocks(nargs):
    """Gives the descriptors the blocks of the config being run."""
    m, n, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    for name, rows in (("desc_q", m), ("desc_k", n), ("desc_v", n), ("desc_o", m)):
        nargs[name].block_shape = [rows, d]


def attention(kernel, q, k, v, o, causal, **meta):
    """o = softmax(q k^T / sqrt(D)) v over (B, H, N, D) tensors (or arrays
    with torch-like `stride()`); `meta` gives the blocks and launch options
    where `kernel` is not autotuned."""
    B, H, N, D = q.shape
    grid = lambda m: ((N + m["BLOCK_M"] - 1) // m["BLOCK_M"], B * H, 1)
    kernel[grid](q, k, v, o, 1.0 / math.sqrt(D), *q.stride(), *k.stride(), *v.stride(),
                 *o.stride(), H, N, HEAD_DIM=D, STAGE=3 if causal else 1, **meta)
    return o


def attention_desc(module, q, k, v, o, causal):
    """attention() through the descriptor kernel, autotuned: each tensor as
    a (B * H * N, D) descriptor (contiguous (B, H, N, D) tensors or arrays)."""
    B, H, N, D = q.shape
    descs = [module.TensorDescriptor(t.reshape(B * H * N, D), [B * H * N, D], [D, 1], [1, 1])
             for t in (q, k, v, o)]
    grid = lambda m: ((N + m["BLOCK_M"] - 1) // m["BLOCK_M"], B * H, 1)
    module.tuned_desc[grid](1.0 / math.sqrt(D), B, H, *descs, N, HEAD_DIM=D,
                            STAGE=3 if causal else 1)
    return o


def flops(B, H, N, D, causal):
    return 4 * B * H * N * N * D * (0.5 if causal else 1.0)


COLD_CHILD = r"""
import sys, time
sys.path.insert(0, {bench!r})
import torch
from attention import attention, kernels_of, COLD_CONFIG
k = kernels_of({dsl!r})
if k is None:
    sys.exit(3)  # not installed
q, kk, v = (torch.randn(({B}, {H}, {N}, {D}), device="cuda", dtype=torch.float16) for _ in "qkv")
o = torch.empty_like(q)
torch.cuda.synchronize()
start = time.perf_counter()
attention(k.attn_fwd_kernel, q, kk, v, o, {causal}, **COLD_CONFIG)
torch.cuda.synchronize()
print((time.perf_counter() - start) * 1e3)
ref = torch.nn.functional.scaled_dot_product_attention(q, kk, v, is_causal={causal})
torch.testing.assert_close(o, ref, atol=1e-2, rtol=1e-2)
"""


def cold_compile_ms(dsl, D, causal):
    """The first launch's milliseconds in a fresh process with an empty
    cache; None where `dsl` is not installed."""
    code = COLD_CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), dsl=dsl,
                             B=1, H=2, N=256, D=D, causal=causal)
    with tempfile.TemporaryDirectory() as cache:
        return child_ms(dsl, code, cache)


def name_of(B, H, N, D, causal):
    return f"attention fwd fp16 B{B} H{H} N{N} D{D}{' causal' if causal else ''}"


def operands(torch, B, H, N, D):
    torch.manual_seed(0)
    return tuple(torch.randn((B, H, N, D), device="cuda", dtype=torch.float16)
                 for _ in range(3))


def run_child(dsl, cases):
    """The child: `dsl` only, over `cases` ([B, H, N, D, causal])
    (common.report_to_parent)."""
    import torch
    from common import bench, report_to_parent
    warnings.filterwarnings("ignore", message="tessera: autotuning")
    theirs = kernels_of(dsl)

    def measure(B, H, N, D, causal):
        q, k, v = operands(torch, B, H, N, D)
        o = torch.empty_like(q)
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(attention(theirs.tuned, q, k, v, o, causal), ref,
                                   atol=1e-2, rtol=1e-2)
        return flops(B, H, N, D, causal) / bench(lambda: attention(theirs.tuned, q, k, v, o,
                                                                   causal)) / 1e9

    report_to_parent((name_of(*case), functools.partial(measure, *case)) for case in cases)


def self_check():
    """The kernel, plain and autotuned, on Tessera's host interpreter, fp16,
    against numpy."""
    import numpy as np

    class Array(np.ndarray):
        def stride(self):  # torch's, in elements
            return tuple(s // self.itemsize for s in self.strides)

    ours = kernels_of("tessera")
    rng = np.random.default_rng(0)
    B, H, N = 1, 2, 128
    for D, causal in [(64, False), (64, True), (128, True)]:
        q, k, v = (rng.standard_normal((B, H, N, D)).astype(np.float16).view(Array)
                   for _ in range(3))
        s = np.asarray(q, np.float64) @ np.asarray(k, np.float64).swapaxes(-1, -2) / np.sqrt(D)
        if causal:
            s = np.where(np.tril(np.ones((N, N), bool)), s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        ref = (p / p.sum(-1, keepdims=True)) @ np.asarray(v, np.float64)
        for kernel, meta in [(ours.attn_fwd_kernel, dict(BLOCK_M=64, BLOCK_N=32)),
                             (ours.tuned, {})]:
            o = np.zeros_like(q)
            attention(kernel, q, k, v, o, causal, **meta)
            np.testing.assert_allclose(np.asarray(o, np.float64), ref, rtol=1e-2, atol=1e-2)
        o = np.zeros_like(q)
        attention_desc(ours, q, k, v, o, causal)
        np.testing.assert_allclose(np.asarray(o, np.float64), ref, rtol=1e-2, atol=1e-2)
        print(f"{name_of(B, H, N, D, causal)} on the host interpreter, plain, autotuned and "
              "through descriptors: matches numpy")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="B=1 H=8 N=1024 D=64, not causal")
    parser.add_argument("--check", action="store_true",
                        help="run the kernel on Tessera's host interpreter (no GPU needed)")
    parser.add_argument("--child", nargs=2, metavar=("DSL", "CASES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TESSERA_CACHE_DIR"] = cache  # tuning results stay out of ~/.cache
            return self_check()
    try:
        import torch
    except ImportError:
        sys.exit("bench/attention.py: needs PyTorch with CUDA (--check runs without it)")
    if not torch.cuda.is_available():
        sys.exit("bench/attention.py: PyTorch sees no CUDA GPU (--check runs without one)")
    if args.child:
        return run_child(args.child[0], json.loads(args.child[1]))
    from common import bench_in_turn, report
    # Configs a chip cannot hold (shared memory) are skipped by both tuners.
    warnings.filterwarnings("ignore", message="tessera: autotuning")

    def attention_ptr(module, q, k, v, o, causal):
        return attention(module.tuned, q, k, v, o, causal)

    (B, H, N), variants = (QUICK_SHAPE, QUICK_VARIANTS) if args.quick else (SHAPE, VARIANTS)
    ours, theirs = kernels_of("tessera"), kernels_of("triton")
    versions = f"torch {torch.__version__}"
    if theirs is not None:
        versions += f", triton {importlib.import_module('triton').__version__}"
    else:
        versions += ", upstream Triton not installed: only Tessera and PyTorch"
    print(f"# {torch.cuda.get_device_name()}, {versions}", flush=True)
    # Both DSLs on mma.sync too (Tessera's own figures are on wgmma where
    # the GPU has it), each in a child process.
    cases = [[B, H, N, D, causal] for D, causal in variants]
    ours_sync, ours_column = mma_sync_child(os.path.abspath(__file__), cases, "tessera")
    mma_sync, column = {}, "triton-sm80"
    if theirs is not None:
        mma_sync, column = mma_sync_child(os.path.abspath(__file__), cases)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for D, causal in variants:
        q, k, v = operands(torch, B, H, N, D)
        o = torch.empty_like(q)
        ref = sdpa(q, k, v, is_causal=causal)
        tflops = lambda ms: flops(B, H, N, D, causal) / ms / 1e9
        for run in [ours] + ([theirs] if theirs is not None else []):
            for form in (attention_ptr, attention_desc):
                torch.testing.assert_close(form(run, q, k, v, o, causal), ref,
                                           atol=1e-2, rtol=1e-2)
        # Each form against SDPA and Triton's same form, measured in turn.
        for form, suffix in [(attention_ptr, ""), (attention_desc, " descriptors")]:
            ms = bench_in_turn({
                "tessera": lambda: form(ours, q, k, v, o, causal),
                "torch-sdpa": lambda: sdpa(q, k, v, is_causal=causal),
                "triton": None if theirs is None else lambda: form(theirs, q, k, v, o, causal)})
            refs = {ref: tflops(ms[ref]) for ref in ("torch-sdpa", "triton")
                    if ms[ref] is not None}
            report(name_of(B, H, N, D, causal) + suffix, "TFLOP/s", tflops(ms["tessera"]), refs)
        name = name_of(B, H, N, D, causal)
        if ours_sync.get(name) is not None:
            report(f"{name} on mma.sync ({ours_column})", "TFLOP/s", ours_sync[name],
                   {column: mma_sync.get(name)})
    for D, causal in variants:
        cold = cold_compile_ms("tessera", D, causal)
        triton = cold_compile_ms("triton", D, causal) if theirs is not None else None
        report(f"cold compile + first launch, D{D}{' causal' if causal else ''}", "ms", cold,
               {"triton": triton})


if __name__ == "__main__":
    main()
