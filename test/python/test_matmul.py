"""tl.dot as Triton's tutorials use it: a tiled matmul (tutorial 03) over
dtypes, odd shapes, blocks, warps, layouts, pipelining and fused epilogues,
and a flash-attention forward pass (tutorial 06), against numpy in float64.

The host interpreter and the CPU backend (`--device=cpu`) run the small
cases; `--device=cuda` runs them and the large ones on the GPU. bf16 and fp8
operands travel as their bits (uint16, uint8: numpy has neither type) and the
kernel bitcasts them, so they run on both; where torch is installed, they
are also passed as torch tensors of those types.
"""

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

# ----------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, A_TYPE: tl.constexpr = None,
                  B_TYPE: tl.constexpr = None, ACC_TYPE: tl.constexpr = tl.float32,
                  PRECISION: tl.constexpr = "ieee", A_TRANS: tl.constexpr = False,
                  B_TRANS: tl.constexpr = False, HAS_BIAS: tl.constexpr = False,
                  ACTIVATION: tl.constexpr = "",
                  LOOP_STAGES: tl.constexpr = None):
    """C = act(A @ B + bias), tutorial 03's kernel with masks on every edge.
    A_TYPE/B_TYPE: the type to bitcast loaded bits to (None: as loaded);
    A_TRANS/B_TRANS: load the tile transposed and tl.trans it back."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if A_TRANS:
        a_ptrs = a_ptr + (offs_k[:, None] * stride_ak + offs_m[None, :] * stride_am)
    else:
        a_ptrs = a_ptr + (offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
    if B_TRANS:
        b_ptrs = b_ptr + (offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk)
    else:
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=LOOP_STAGES):
        k_left = K - k * BLOCK_K
        if A_TRANS:
            a = tl.load(a_ptrs, mask=(offs_k[:, None] < k_left) & (offs_m[None, :] < M), other=0)
            a = tl.trans(a)
        else:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0)
        if B_TRANS:
            b = tl.load(b_ptrs, mask=(offs_n[:, None] < N) & (offs_k[None, :] < k_left), other=0)
            b = tl.trans(b)
        else:
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        if A_TYPE is not None:
            a = a.to(A_TYPE, bitcast=True)
        if B_TYPE is not None:
            b = b.to(B_TYPE, bitcast=True)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    if HAS_BIAS:
        acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]
    if ACTIVATION == "relu":
        acc = tl.maximum(acc, 0.0)
    elif ACTIVATION == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + stride_cm * offs_m[:, None] + stride_cn * offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def two_dots_kernel(a_ptr, b_ptr, d_ptr, e_ptr, c_in_ptr, c_ptr,
                    M: tl.constexpr, N: tl.constexpr, K1: tl.constexpr, K2: tl.constexpr,
                    OUT_TYPE: tl.constexpr):
    """C = C_in + A @ B + D @ E in one tile: the second dot and the first
    take their accumulators through `acc=`, in OUT_TYPE (`out_dtype=`)."""
    m, n = tl.arange(0, M), tl.arange(0, N)
    k1, k2 = tl.arange(0, K1), tl.arange(0, K2)
    a = tl.load(a_ptr + m[:, None] * K1 + k1[None, :])
    b = tl.load(b_ptr + k1[:, None] * N + n[None, :])
    d = tl.load(d_ptr + m[:, None] * K2 + k2[None, :])
    e = tl.load(e_ptr + k2[:, None] * N + n[None, :])
    acc = tl.load(c_in_ptr + m[:, None] * N + n[None, :]).to(OUT_TYPE)
    acc = tl.dot(a, b, acc=acc, out_dtype=OUT_TYPE)
    acc = tl.dot(d, e, acc=acc, out_dtype=OUT_TYPE)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def dot_out_dtype_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                         K: tl.constexpr, OUT_TYPE: tl.constexpr):
    """C = A @ B with `out_dtype=` and no accumulator: its type is the dot's."""
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    c = tl.dot(a, b, out_dtype=OUT_TYPE)
    tl.static_assert(c.dtype == OUT_TYPE)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


@triton.jit
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


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale,
                    stride_qz, stride_qh, stride_qm, stride_qk,
                    stride_kz, stride_kh, stride_kn, stride_kk,
                    stride_vz, stride_vh, stride_vn, stride_vk,
                    stride_oz, stride_oh, stride_om, stride_ok,
                    H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    """Tutorial 06's forward pass: online softmax, two dots a step. STAGE is
    3 when causal, 1 when not; N_CTX is a multiple of BLOCK_M."""
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


# ----------------------------------------------------------------------------
# Operands and references
# ----------------------------------------------------------------------------

def bf16_bits(x):
    """The bits of x rounded to bfloat16 (to nearest, ties to even)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


# name: (mantissa bits, exponent bias)
FP8 = {"e4m3": (3, 7), "e5m2": (2, 15)}


def fp8_values(name):
    """The value of each of the 256 codes of an fp8 format, as the normal or
    subnormal number its bits spell (the codes of NaN and inf are never
    drawn)."""
    mantissa, bias = FP8[name]
    codes = np.arange(256)
    e = (codes >> mantissa) & ((1 << (7 - mantissa)) - 1)
    m = (codes & ((1 << mantissa) - 1)) / (1 << mantissa)
    magnitude = np.where(e == 0, m * 2.0 ** (1 - bias), (1 + m) * 2.0 ** (e - bias))
    return np.where(codes & 0x80, -magnitude, magnitude)


def fp8_codes(rng, name, shape):
    """Random codes of values of magnitude at most 4."""
    values = fp8_values(name)
    pool = np.flatnonzero(np.abs(values) <= 4).astype(np.uint8)
    codes = rng.choice(pool, size=shape).astype(np.uint8)
    return codes, values[codes]


# name: (language type the bits are bitcast to or None, accumulator, input
# precision, tolerance; 0: exact)
DTYPES = {
    "float16": (None, tl.float32, "ieee", 1e-2),
    "bfloat16": (tl.bfloat16, tl.float32, "ieee", 1e-2),
    "float32-tf32": (None, tl.float32, "tf32", 1e-2),
    "float32-tf32x3": (None, tl.float32, "tf32x3", 1e-4),
    # Two or three bf16 parts of each fp32 operand (Triton's bf16x3, bf16x6).
    "float32-bf16x3": (None, tl.float32, "bf16x3", 1e-3),
    "float32-bf16x6": (None, tl.float32, "bf16x6", 1e-4),
    "float32-ieee": (None, tl.float32, "ieee", 1e-4),
    "int8": (None, tl.int32, "ieee", 0),
    "e4m3": (tl.float8e4nv, tl.float32, "ieee", 1e-2),
    "e5m2": (tl.float8e5, tl.float32, "ieee", 1e-2),
}


def operand(rng, name, shape):
    """(what the kernel is given, its values in float64) for a dtype name."""
    if name == "float16":
        x = rng.standard_normal(shape).astype(np.float16)
        return x, x.astype(np.float64)
    if name == "bfloat16":
        bits = bf16_bits(rng.standard_normal(shape))
        return bits, bf16_values(bits).astype(np.float64)
    if name.startswith("float32"):
        x = rng.standard_normal(shape).astype(np.float32)
        return x, x.astype(np.float64)
    if name == "int8":
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        return x, x.astype(np.float64)
    return fp8_codes(rng, name, shape)


def laid_out(x, major):
    """x (rows x cols) stored row-major ("row") or column-major ("col")."""
    return np.ascontiguousarray(x) if major == "row" else np.asfortranarray(x)


def check(out, ref, tol):
    """|out - ref| <= tol * (|ref| + rms(ref)); exact where tol is 0."""
    out = np.asarray(out, np.float64)
    if tol == 0:
        np.testing.assert_array_equal(out, ref)
        return
    scale = max(np.sqrt(np.mean(ref ** 2)), 1e-6)
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol * scale)


def run_matmul(a, b, c, M, N, K, block=(32, 32, 32), group=4, bias=None, **options):
    """Launches matmul_kernel on arrays (or tensors) a (MxK), b (KxN) and c
    (MxN) of any strides; options go to the kernel (constexprs and launch
    options)."""
    bm, bn, bk = block
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    matmul_kernel[grid](a, b, c, bias, M, N, K, *strides_of(a), *strides_of(b), *strides_of(c),
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_SIZE_M=group,
                        HAS_BIAS=bias is not None, **options)


def strides_of(x):
    """A numpy array's or a torch tensor's strides, in elements."""
    if hasattr(x, "stride") and callable(x.stride):
        return list(x.stride())
    return [s // x.itemsize for s in x.strides]


# Where kernels run on the host: the interpreter, and the CPU backend, whose
# one thread a program compiles large tiles slowly.
HOST = ("interpreter", "cpu")


def gpu_only(device, what):
    """Skips on the host: the host suite, the CPU backend's, and the CI's
    compile of its kernels for GPUs (--compile-for), keep to the smaller
    cases."""
    if device in HOST:
        pytest.skip(f"{what} run on the GPU only (--device=cuda)")


# M, N, K: none a multiple of the block, a single row, one block, K=256, and
# several programs each way.
SMALL = [(127, 93, 61), (1, 8, 16), (33, 17, 256), (16, 16, 16), (130, 200, 100)]
LARGE = [(512, 512, 512), (1000, 777, 333), (2048, 1024, 256), (96, 4096, 1024)]


# ----------------------------------------------------------------------------
# Matmul
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SMALL + LARGE, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", DTYPES)
def test_matmul_dtypes(device, rng, name, shape):
    if shape in LARGE:
        gpu_only(device, "large shapes")
    if name not in ("float16", "int8") and shape not in SMALL[:2]:
        gpu_only(device, "more shapes of this type")
    M, N, K = shape
    bits_type, acc, precision, tol = DTYPES[name]
    a, a64 = operand(rng, name, (M, K))
    b, b64 = operand(rng, name, (K, N))
    out_dtype = np.int32 if name == "int8" else np.float32
    c = np.full((M, N), -1, out_dtype)  # stale values must not survive
    block = (64, 64, 32) if device not in HOST else (32, 32, 32)
    run_matmul(a, b, c, M, N, K, block=block, A_TYPE=bits_type, B_TYPE=bits_type,
               ACC_TYPE=acc, PRECISION=precision)
    check(c, a64 @ b64, tol)


@pytest.mark.parametrize("names", [("e4m3", "e5m2"), ("e5m2", "e4m3")], ids="x".join)
def test_matmul_mixed_fp8(device, rng, names):
    M, N, K = 45, 70, 96
    a, a64 = operand(rng, names[0], (M, K))
    b, b64 = operand(rng, names[1], (K, N))
    c = np.zeros((M, N), np.float32)
    run_matmul(a, b, c, M, N, K, A_TYPE=DTYPES[names[0]][0], B_TYPE=DTYPES[names[1]][0])
    check(c, a64 @ b64, 1e-2)


# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps)
BLOCKS = [(16, 16, 16, 1), (16, 32, 16, 2), (32, 32, 32, 4), (64, 32, 64, 4), (32, 64, 16, 8),
          (64, 64, 32, 4), (128, 64, 32, 4), (64, 128, 64, 8), (128, 128, 32, 8),
          (128, 128, 64, 4), (128, 16, 128, 2)]


@pytest.mark.parametrize("config", BLOCKS, ids=lambda c: "{}x{}x{}-w{}".format(*c))
@pytest.mark.parametrize("name", ["float16", "int8"])
def test_matmul_blocks_and_warps(device, rng, name, config):
    *block, warps = config
    bm, bn, bk = block
    if (bm * bn + bm * bk + bk * bn) // warps > 3072:
        gpu_only(device, "tiles of over 3072 elements a warp")  # slow to compile for AMD
    shapes = [(127, 93, 61)] + ([(300, 257, 190)] if device not in HOST else [])
    if device in HOST and bm * bn > 64 * 64:
        shapes = [(67, 45, 40)]  # one or two programs
    for M, N, K in shapes:
        a, a64 = operand(rng, name, (M, K))
        b, b64 = operand(rng, name, (K, N))
        c = np.zeros((M, N), np.int32 if name == "int8" else np.float32)
        run_matmul(a, b, c, M, N, K, block=tuple(block), group=8, num_warps=warps,
                   ACC_TYPE=tl.int32 if name == "int8" else tl.float32)
        check(c, a64 @ b64, DTYPES[name][3])


LAYOUTS = [("row", "row", False, False), ("col", "row", False, False),
           ("row", "col", False, False), ("col", "col", False, False),
           ("row", "row", True, False), ("row", "row", False, True),
           ("col", "col", True, True), ("row", "col", False, True)]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: "A{}{}-B{}{}".format(
    l[0], "-trans" if l[2] else "", l[1], "-trans" if l[3] else ""))
@pytest.mark.parametrize("name", ["float16", "float32-ieee", "int8", "e4m3"])
def test_matmul_layouts(device, rng, name, layout):
    """A and B stored row- or column-major (for A, K-major or M-major; for
    B, N-major or K-major), passed by their strides; a "trans" operand is
    loaded as its transpose and turned with tl.trans in the kernel."""
    a_major, b_major, a_trans, b_trans = layout
    if name in ("float32-ieee", "e4m3") and b_major == "row":
        gpu_only(device, "more layouts of this type")
    M, N, K = (127, 93, 61) if device in HOST else (700, 500, 300)
    bits_type, acc, precision, tol = DTYPES[name]
    a, a64 = operand(rng, name, (M, K))
    b, b64 = operand(rng, name, (K, N))
    a, b = laid_out(a, a_major), laid_out(b, b_major)
    c = np.zeros((M, N), np.int32 if name == "int8" else np.float32)
    run_matmul(a, b, c, M, N, K, A_TYPE=bits_type, B_TYPE=bits_type, ACC_TYPE=acc,
               PRECISION=precision, A_TRANS=a_trans, B_TRANS=b_trans)
    check(c, a64 @ b64, tol)


def test_matmul_output_strides(device, rng):
    """C written through its strides: column-major, and a strided view."""
    M, N, K = 50, 70, 40
    a, a64 = operand(rng, "float16", (M, K))
    b, b64 = operand(rng, "float16", (K, N))
    col = np.asfortranarray(np.zeros((M, N), np.float32))
    run_matmul(a, b, col, M, N, K)
    check(col, a64 @ b64, 1e-2)
    wide = np.zeros((M, 2 * N), np.float32)
    run_matmul(a, b, wide[:, ::2], M, N, K)
    check(wide[:, ::2], a64 @ b64, 1e-2)
    assert not wide[:, 1::2].any()


@pytest.mark.parametrize("activation", ["", "relu", "leaky_relu"])
@pytest.mark.parametrize("bias", [False, True], ids=["no-bias", "bias"])
@pytest.mark.parametrize("out", ["float16", "float32"])
def test_matmul_fused_epilogue(device, rng, out, bias, activation):
    """Bias add, relu or leaky relu, and a cast to fp16, after the loop."""
    M, N, K = (77, 51, 64) if device in HOST else (1000, 500, 256)
    a, a64 = operand(rng, "float16", (M, K))
    b, b64 = operand(rng, "float16", (K, N))
    bias_values = rng.standard_normal(N).astype(np.float32) * 4 if bias else None
    c = np.zeros((M, N), out)
    run_matmul(a, b, c, M, N, K, bias=bias_values, ACTIVATION=activation)
    ref = a64 @ b64 + (bias_values if bias else 0)
    if activation == "relu":
        ref = np.maximum(ref, 0)
    elif activation == "leaky_relu":
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    check(c, ref.astype(out).astype(np.float64), 1e-2)


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("where", ["launch", "loop"])
def test_matmul_num_stages(device, rng, where, stages):
    """num_stages, as a launch option or on tl.range, changes the schedule
    of the loop and not one bit of its result."""
    M, N, K = (64, 48, 160) if device in HOST else (512, 384, 2048)
    a, a64 = operand(rng, "float16", (M, K))
    b, b64 = operand(rng, "float16", (K, N))
    results = {}
    for s in (1, stages):
        c = np.zeros((M, N), np.float32)
        options = {"num_stages": s} if where == "launch" else {"LOOP_STAGES": s}
        run_matmul(a, b, c, M, N, K, block=(32, 32, 16), **options)
        results[s] = c
    check(results[stages], a64 @ b64, 1e-2)
    np.testing.assert_array_equal(results[stages], results[1])


def test_matmul_shared_memory_over_the_limit(device, rng):
    """Four stages of 256x64 and 64x256 fp16 tiles need 256 KiB of shared
    memory, more than an sm_80/sm_90 block can have: the launch says so
    (the autotuner skips such configs on the same error)."""
    if device != "cuda":
        pytest.skip("the CUDA driver's shared-memory limit (--device=cuda)")
    M = N = K = 256
    a, _ = operand(rng, "float16", (M, K))
    b, _ = operand(rng, "float16", (K, N))
    c = np.zeros((M, N), np.float32)
    with pytest.raises(RuntimeError, match=r"out of resources: kernel 'matmul_kernel' needs "
                                           r"\d+ bytes of shared memory, .* has \d+"):
        run_matmul(a, b, c, M, N, K, block=(256, 256, 64), num_stages=4, num_warps=8)


@pytest.mark.parametrize("name", ["float16", "int8"])
def test_dot_acc_chaining(device, rng, name):
    """acc= carries one dot's result into the next, from a loaded C."""
    M, N, K1, K2 = 32, 64, 16, 64
    a, a64 = operand(rng, name, (M, K1))
    b, b64 = operand(rng, name, (K1, N))
    d, d64 = operand(rng, name, (M, K2))
    e, e64 = operand(rng, name, (K2, N))
    acc = np.int32 if name == "int8" else np.float32
    c_in = rng.integers(-1000, 1000, (M, N)).astype(acc)
    c = np.zeros((M, N), acc)
    two_dots_kernel[(1,)](a, b, d, e, c_in, c, M=M, N=N, K1=K1, K2=K2,
                          OUT_TYPE=tl.int32 if name == "int8" else tl.float32)
    check(c, c_in + a64 @ b64 + d64 @ e64, 0 if name == "int8" else 1e-4)


@triton.jit
def optional_bias_kernel(a_ptr, c_ptr, bias_ptr, N: tl.constexpr):
    n = tl.arange(0, N)
    a = tl.load(a_ptr + n[:, None] * N + n[None, :])
    acc = tl.dot(a, a)
    if bias_ptr is not None:
        acc += tl.load(bias_ptr + n)[None, :]
    tl.store(c_ptr + n[:, None] * N + n[None, :], acc)


def test_matmul_optional_bias_pointer(device, rng):
    """Triton matmuls often take `bias_ptr=None` and test it with `is not None`."""
    a, a64 = operand(rng, "float16", (16, 16))
    bias = rng.standard_normal(16).astype(np.float32)
    for given in (None, bias):
        c = np.zeros((16, 16), np.float32)
        optional_bias_kernel[(1,)](a, c, given, N=16)
        check(c, a64 @ a64 + (0 if given is None else bias), 1e-4)


def test_dot_acc_chaining_in_fp16(device, rng):
    """out_dtype=float16: both dots accumulate in fp16."""
    M, N, K1, K2 = 32, 32, 32, 32
    a, a64 = operand(rng, "float16", (M, K1))
    b, b64 = operand(rng, "float16", (K1, N))
    d, d64 = operand(rng, "float16", (M, K2))
    e, e64 = operand(rng, "float16", (K2, N))
    c_in = rng.standard_normal((M, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    two_dots_kernel[(1,)](a, b, d, e, c_in, c, M=M, N=N, K1=K1, K2=K2, OUT_TYPE=tl.float16)
    check(c, c_in + a64 @ b64 + d64 @ e64, 2e-2)


# fp32 inputs multiply as tf32 unless input_precision says otherwise, as in
# Triton: tf32's tolerance.
@pytest.mark.parametrize("case", [("float16", tl.float16, np.float16, 1e-2),
                                  ("float16", tl.float32, np.float32, 1e-2),
                                  ("float32-ieee", tl.float32, np.float32, 2e-2)],
                         ids=["fp16-fp16", "fp16-fp32", "fp32-fp32"])
def test_dot_out_dtype(device, rng, case):
    name, out_type, out_np, tol = case
    M, N, K = 32, 16, 64
    a, a64 = operand(rng, name, (M, K))
    b, b64 = operand(rng, name, (K, N))
    c = np.zeros((M, N), out_np)
    dot_out_dtype_kernel[(1,)](a, b, c, M=M, N=N, K=K, OUT_TYPE=out_type)
    check(c, a64 @ b64, tol)


@triton.jit
def dot_type_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                    OUT_TYPE: tl.constexpr, RESULT: tl.constexpr):
    """C = A @ B asked for OUT_TYPE: the result is RESULT, as in Triton."""
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    c = tl.dot(a, b, out_dtype=OUT_TYPE, input_precision="ieee")
    tl.static_assert(c.dtype == RESULT)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


# As Triton: out_dtype only chooses between fp16 and fp32 for narrower
# floats; fp64 operands give fp64, fp32 operands fp32, integers int32.
@pytest.mark.parametrize("case", [(np.float64, tl.float32, tl.float64, np.float64),
                                  (np.float32, tl.float16, tl.float32, np.float32),
                                  (np.int8, tl.float32, tl.int32, np.int32)],
                         ids=["fp64", "fp32", "int8"])
def test_dot_result_type_follows_the_operands(device, rng, case):
    dtype, out_type, result, out_np = case
    M, N, K = 16, 16, 32
    a = rng.integers(-3, 4, (M, K)).astype(dtype)
    b = rng.integers(-3, 4, (K, N)).astype(dtype)
    c = np.zeros((M, N), out_np)
    dot_type_kernel[(1,)](a, b, c, M=M, N=N, K=K, OUT_TYPE=out_type, RESULT=result)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("shape", [(2, 2, 16), (1, 32, 32), (16, 1, 16), (4, 8, 2), (1, 1, 1),
                                   (64, 64, 4)])
@pytest.mark.parametrize("name", ["float16", "float32-ieee"])
def test_dot_of_small_shapes(device, rng, name, shape):
    # Below a matrix unit's shape, dots take the CUDA-core (FMA) path.
    M, N, K = shape
    a, a64 = operand(rng, name, (M, K))
    b, b64 = operand(rng, name, (K, N))
    c = np.zeros((M, N), np.float32)
    dot_out_dtype_kernel[(1,)](a, b, c, M=M, N=N, K=K, OUT_TYPE=tl.float32)
    check(c, a64 @ b64, 1e-2)


@triton.jit
def multidim_dot_kernel(X, Y, Z, RANK: tl.constexpr, TRANS_A: tl.constexpr,
                        TRANS_B: tl.constexpr):
    x = tl.load(X + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    y = tl.load(Y + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    if TRANS_A:
        x = tl.trans(x)
    if TRANS_B:
        y = tl.trans(y)
    tl.store(Z + tl.arange(0, 256 << RANK), tl.dot(x, y).reshape([256 << RANK]))


# As Triton: every dimension of a dot's operands but the last two is a
# batch dimension, and tl.trans without dims swaps the last two.
@pytest.mark.parametrize("rank", [2, 3, 4, 5])
@pytest.mark.parametrize("trans", [(False, False), (True, False), (False, True)],
                         ids=["NN", "TN", "NT"])
def test_dot_of_many_batch_dimensions(device, rng, rank, trans):
    shape = (2,) * (rank - 2) + (32, 32)
    a = rng.integers(-4, 5, shape).astype(np.float16)
    b = rng.integers(-4, 5, shape).astype(np.float16)
    c = np.zeros(shape, np.float32)
    multidim_dot_kernel[(1,)](a, b, c, RANK=rank, TRANS_A=trans[0], TRANS_B=trans[1])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    expected = (np.swapaxes(a64, -1, -2) if trans[0] else a64) @ \
        (np.swapaxes(b64, -1, -2) if trans[1] else b64)
    np.testing.assert_array_equal(c, expected)


def test_trans_of_one_dimension_is_an_error():
    @triton.jit
    def kernel(X):
        tl.store(X + tl.arange(0, 16), tl.trans(tl.arange(0, 16)))

    with pytest.raises(triton.CompilationError, match="0- or 1-dimensional"):
        kernel.warmup(np.zeros(16, np.int32), grid=(1,))


def torch_where(device):
    torch = pytest.importorskip("torch")
    if device not in HOST and not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here")
    return torch, "cpu" if device in HOST else "cuda"


TORCH_TYPES = {"bfloat16": "bfloat16", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}


@pytest.mark.parametrize("b_major", ["row", "col"])
@pytest.mark.parametrize("name", TORCH_TYPES)
def test_matmul_torch_tensors(device, rng, name, b_major):
    """bf16 and fp8 operands as torch tensors of those types (no bitcast);
    B column-major is K-major, as Triton's tutorial passes fp8."""
    torch, where = torch_where(device)
    M, N, K = (70, 50, 96) if device in HOST else (1000, 1000, 1024)
    _, a64 = operand(rng, name, (M, K))
    _, b64 = operand(rng, name, (K, N))
    dtype = getattr(torch, TORCH_TYPES[name])
    a = torch.from_numpy(a64).to(where).to(dtype)  # exact: the values are of the type
    b = torch.from_numpy(b64).to(where).to(dtype)
    if b_major == "col":
        b = b.T.contiguous().T
    c = torch.zeros((M, N), dtype=torch.float32, device=where)
    run_matmul(a, b, c, M, N, K)
    check(c.cpu().numpy(), a64 @ b64, 1e-2)
    if where == "cuda":
        ref = torch.matmul(a.float(), b.float())
        torch.testing.assert_close(c, ref, rtol=1e-2, atol=1e-2 * ref.pow(2).mean().sqrt().item())


# ----------------------------------------------------------------------------
# Attention
# ----------------------------------------------------------------------------

def attention_reference(q, k, v, causal, scale):
    s = q @ k.swapaxes(-1, -2) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ v


def run_attention(q, k, v, o, causal, scale, block_m, block_n, **options):
    Z, H, N, D = q.shape
    grid = (N // block_m, Z * H, 1)
    attn_fwd_kernel[grid](q, k, v, o, scale, *strides_of(q), *strides_of(k), *strides_of(v),
                          *strides_of(o), H, N, HEAD_DIM=D, BLOCK_M=block_m, BLOCK_N=block_n,
                          STAGE=3 if causal else 1, **options)


@pytest.mark.parametrize("blocks", [(32, 32), (64, 32), (128, 64)],
                         ids=lambda b: "{}x{}".format(*b))
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flash_attention_forward(device, rng, causal, head_dim, blocks):
    block_m, block_n = blocks
    if device in HOST:
        if block_m > 32:
            gpu_only(device, "query blocks of over 32 rows")  # slow to compile for AMD
        Z, H, N = 1, 2, 128
    else:
        Z, H, N = 2, 4, 1024
    q, k, v = (rng.standard_normal((Z, H, N, head_dim)).astype(np.float16) for _ in range(3))
    o = np.zeros_like(q)
    scale = 1.0 / np.sqrt(head_dim)
    run_attention(q, k, v, o, causal, scale, block_m, block_n,
                  num_warps=4 if block_m < 128 else 8, num_stages=3)
    ref = attention_reference(*(x.astype(np.float64) for x in (q, k, v)), causal, scale)
    np.testing.assert_allclose(o.astype(np.float64), ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flash_attention_strided_heads(device, rng, causal):
    """Q, K, V and O as (Z, N, H, D) storage seen as (Z, H, N, D)."""
    Z, H, N, D = (1, 2, 64, 64) if device in HOST else (2, 8, 512, 128)
    q, k, v = (rng.standard_normal((Z, N, H, D)).astype(np.float16).transpose(0, 2, 1, 3)
               for _ in range(3))
    o = np.zeros((Z, N, H, D), np.float16).transpose(0, 2, 1, 3)
    scale = 0.5
    run_attention(q, k, v, o, causal, scale, 32, 32)
    ref = attention_reference(*(x.astype(np.float64) for x in (q, k, v)), causal, scale)
    np.testing.assert_allclose(o.astype(np.float64), ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flash_attention_bf16_torch(device, rng, causal):
    torch, where = torch_where(device)
    Z, H, N, D = (1, 1, 64, 64) if device in HOST else (2, 4, 1024, 128)
    q, k, v = (torch.from_numpy(rng.standard_normal((Z, H, N, D))).to(where).to(torch.bfloat16)
               for _ in range(3))
    o = torch.zeros_like(q)
    scale = 1.0 / np.sqrt(D)
    run_attention(q, k, v, o, causal, scale, 64 if where == "cuda" else 32, 32)
    ref = attention_reference(*(x.double().cpu().numpy() for x in (q, k, v)), causal, scale)
    np.testing.assert_allclose(o.double().cpu().numpy(), ref, rtol=2e-2, atol=2e-2)
