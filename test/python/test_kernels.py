"""Kernels as Triton users write them, end to end through the interpreter."""

import numpy as np

import tessera as triton
import tessera.language as tl

@triton.jit
def attn_kernel(Q, K, V, O, stride_m, N_CTX, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * stride_m + offs_d[None, :])
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(K + offs_n[:, None] * stride_m + offs_d[None, :])
        v = tl.load(V + offs_n[:, None] * stride_m + offs_d[None, :])
        qk = tl.dot(q, tl.trans(k)) * scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc += tl.dot(p.to(v.dtype), v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(O.dtype.element_ty))


def test_attention_forward(device):
    N, D = 128, 32
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((N, D)).astype(np.float16) for _ in range(3))
    o = np.zeros((N, D), np.float16)
    scale = 1.0 / np.sqrt(D)  # a numpy float64 scalar: passed as a number
    attn_kernel[(N // 32,)](q, k, v, o, D, N, scale, BLOCK_M=32, BLOCK_N=32, D=D)
    s = (q.astype(np.float32) @ k.astype(np.float32).T) * scale
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref = p @ v.astype(np.float32)
    np.testing.assert_allclose(o.astype(np.float32), ref, atol=2e-3, rtol=1e-2)
