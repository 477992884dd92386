"""Tensor descriptors (host `TensorDescriptor` arguments and
`tl.make_tensor_descriptor`) and block pointers (`tl.make_block_ptr`,
`tl.advance`), with Triton's semantics: blocks at element offsets, elements
outside the tensor read as the padding and are not written."""

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.tools.tensor_descriptor import TensorDescriptor

# ----------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------


@triton.jit
def scale_desc(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    out_desc.store([m, n], in_desc.load([m, n]) * 2)


@triton.jit
def padded_block(x_ptr, out_ptr, M, N, row, col, BM: tl.constexpr, BN: tl.constexpr,
                 PADDING: tl.constexpr):
    """The block at (row, col) as the descriptor reads it, padding included."""
    d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN],
                                  padding_option=PADDING)
    block = d.load([row, col])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, block)


@triton.jit
def add_into(desc, value_ptr, BM: tl.constexpr, BN: tl.constexpr):
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    desc.atomic_add([tl.program_id(0) * BM, 0], tl.load(value_ptr + offs))


@triton.jit
def matmul_desc(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, WARP_SPECIALIZE: tl.constexpr = False):
    """C = A @ B with A and B read through descriptors and C made in the
    kernel (`tl.make_tensor_descriptor`)."""
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=WARP_SPECIALIZE):
        acc = tl.dot(a_desc.load([pm, k * BK]), b_desc.load([k * BK, pn]), acc)
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    c_desc.store([pm, pn], acc)


@triton.jit
def matmul_in_kernel_desc(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
    """C = A @ B through descriptors made in the kernel (tutorial 09's form);
    C through pointers."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pm, k * BK]), b_desc.load([k * BK, pn]), acc)
    rows = pm + tl.arange(0, BM)[:, None]
    cols = pn + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


@triton.jit
def persistent_matmul(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr, NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr,
                      EPILOGUE_SUBTILE: tl.constexpr = False):
    """Tutorial 09's persistent form: NUM_SMS programs loop over the tiles,
    C stored whole or in two halves."""
    num_pid_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * num_pid_n
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pm = tile_id // num_pid_n * BM
        pn = tile_id % num_pid_n * BN
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pm, k * BK]), b_desc.load([k * BK, pn]), acc)
        if EPILOGUE_SUBTILE:
            halves = tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1))
            lo, hi = tl.split(halves)
            c_desc.store([pm, pn], lo.to(tl.float16))
            c_desc.store([pm, pn + BN // 2], hi.to(tl.float16))
        else:
            c_desc.store([pm, pn], acc.to(tl.float16))


@triton.jit
def _attention_blocks(q, k_desc, v_desc, acc, l_i, m_i, lo, hi, offs_m, sm_scale,
                      BN: tl.constexpr, MASKED: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    for start_n in tl.range(lo, hi, BN, warp_specialize=WARP_SPECIALIZE):
        qk = tl.dot(q, tl.trans(k_desc.load([start_n, 0]))) * sm_scale
        if MASKED:
            mask = offs_m[:, None] >= (start_n + tl.arange(0, BN))[None, :]
            qk = tl.where(mask, qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v_desc.load([start_n, 0]), acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attention_desc(q_desc, k_desc, v_desc, o_ptr, N, sm_scale, D: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, WARP_SPECIALIZE: tl.constexpr = False,
                   CAUSAL: tl.constexpr = False):
    """Flash attention's forward through descriptors (tutorial 06's form):
    causal, the blocks left of the diagonal, then the diagonal's, masked."""
    start_m = tl.program_id(0) * BM
    q = q_desc.load([start_m, 0])
    offs_m = start_m + tl.arange(0, BM)
    m_i = tl.zeros([BM], tl.float32) - float("inf")
    l_i = tl.zeros([BM], tl.float32) + 1.0
    acc = tl.zeros([BM, D], tl.float32)
    acc, l_i, m_i = _attention_blocks(q, k_desc, v_desc, acc, l_i, m_i, 0,
                                      start_m if CAUSAL else N, offs_m, sm_scale, BN, False,
                                      WARP_SPECIALIZE)
    if CAUSAL:
        acc, l_i, m_i = _attention_blocks(q, k_desc, v_desc, acc, l_i, m_i, start_m,
                                          start_m + BM, offs_m, sm_scale, BN, True,
                                          WARP_SPECIALIZE)
    tl.store(o_ptr + offs_m[:, None] * D + tl.arange(0, D)[None, :], acc / l_i[:, None])


@triton.jit
def matmul_block_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                     stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr):
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pm, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pn), (BK, BN), (0, 1))
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)), acc)
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, [BK, 0])
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pm, pn), (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


@triton.jit
def row_sums(x_ptr, out_ptr, M, N, CHECK: tl.constexpr, PADDING: tl.constexpr,
             BM: tl.constexpr, BN: tl.constexpr):
    """Sums of rows through a block pointer moved along them, checked on the
    dimensions in CHECK; the result is stored through a 1-D block pointer."""
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM,), tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        acc += tl.sum(tl.load(p, boundary_check=CHECK, padding_option=PADDING), 1)
        p = p.advance((0, BN))
    out = tl.make_block_ptr(out_ptr, (M,), (1,), (tl.program_id(0) * BM,), (BM,), (0,))
    tl.store(out, acc, boundary_check=(0,))


@triton.jit
def block_ptr_branch(x_ptr, out_ptr, N, FLIP, BN: tl.constexpr):
    """A block pointer chosen in a branch on a runtime value."""
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    if FLIP > 0:
        p = tl.advance(p, (BN,))
    tl.store(out_ptr + tl.arange(0, BN), tl.load(p, boundary_check=(0,)))


# ----------------------------------------------------------------------------
# Tensor descriptors
# ----------------------------------------------------------------------------


def test_host_descriptor_copy(device, rng):
    """Blocks that overhang the edges read zeros and write nothing there."""
    x = rng.standard_normal((50, 70)).astype(np.float32)
    y = np.full_like(x, -1)
    scale_desc[(4, 3)](TensorDescriptor.from_tensor(x, [16, 32]),
                       TensorDescriptor.from_tensor(y, [16, 32]), 16, 32)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("BN", [16, 32, 64, 128])
def test_descriptor_store_swizzles(device, rng, BN):
    """fp16 rows of 32, 64, 128 and 256 bytes: on sm_90a stores through TMA
    in each swizzle (two boxes for 256); overhanging blocks write nothing
    past the tensor, here the columns of the array beyond it."""
    M, N, wide = 72, 208, 256
    x = rng.standard_normal((M, wide)).astype(np.float16)
    y = np.full((M, wide), -1, np.float16)
    scale_desc[(triton.cdiv(M, 32), triton.cdiv(N, BN))](
        TensorDescriptor(x, [M, N], [wide, 1], [32, BN]),
        TensorDescriptor(y, [M, N], [wide, 1], [32, BN]), 32, BN)
    np.testing.assert_array_equal(y[:, :N], 2 * x[:, :N])
    np.testing.assert_array_equal(y[:, N:], -1)


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("row,col", [(0, 0), (40, 56), (-8, -16), (60, 0)])
def test_descriptor_padding(device, rng, padding, row, col):
    M, N, BM, BN = 48, 64, 16, 32
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((BM, BN), np.float32)
    padded_block[(1,)](x, out, M, N, row, col, BM, BN, padding)
    expected = np.full((BM, BN), np.nan if padding == "nan" else 0, np.float32)
    rows = np.arange(row, row + BM)
    cols = np.arange(col, col + BN)
    inside_r = (rows >= 0) & (rows < M)
    inside_c = (cols >= 0) & (cols < N)
    expected[np.ix_(inside_r, inside_c)] = x[np.ix_(rows[inside_r], cols[inside_c])]
    np.testing.assert_array_equal(out, expected)


def test_descriptor_atomic_add(device, rng):
    acc = np.ones((24, 32), np.float32)
    value = rng.standard_normal((16, 32)).astype(np.float32)
    add_into[(2,)](TensorDescriptor.from_tensor(acc, [16, 32]), value, 16, 32)
    expected = np.ones((24, 32), np.float32)
    expected[:16] += value
    expected[16:] += value[:8]
    np.testing.assert_allclose(acc, expected, rtol=1e-6)


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (40, 72, 56)])
def test_matmul_through_descriptors(device, rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    BM = BN = BK = 32
    matmul_desc[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
        c, M, N, K, BM, BN, BK)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2,
                               atol=1e-2)


def skip_large_tiles_on_cpu(device, rows, columns):
    """The CPU backend compiles tiles of over 64x64 slowly: a program's
    tile is one thread's registers."""
    if device == "cpu" and rows * columns > 64 * 64:
        pytest.skip(f"{rows}x{columns} tiles compile slowly on the CPU backend")


# Blocks and warps that Hopper's wgmma computes: on sm_90a the descriptor
# loads become TMA copies, pipelined, in every swizzle (rows of 32, 64, 128
# bytes and wider); blocks past the end read zeros.
@pytest.mark.parametrize("M,N,K,BM,BN,BK,warps,stages",
                         [(128, 128, 64, 128, 64, 32, 4, 3), (200, 144, 80, 128, 128, 64, 8, 3),
                          (256, 64, 320, 64, 64, 64, 4, 4), (130, 80, 48, 64, 256, 32, 4, 2),
                          (64, 96, 16, 64, 32, 64, 4, 1), (192, 48, 96, 64, 16, 16, 4, 3)])
@pytest.mark.parametrize("warp_specialize", [False, True])
def test_matmul_through_bulk_copies(device, rng, M, N, K, BM, BN, BK, warps, stages,
                                    warp_specialize):
    skip_large_tiles_on_cpu(device, BM, BN)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    c = np.zeros((M, N), np.float32)
    matmul_desc[grid](TensorDescriptor.from_tensor(a, [BM, BK]),
                      TensorDescriptor.from_tensor(b, [BK, BN]), c, M, N, K, BM, BN, BK,
                      warp_specialize, num_warps=warps, num_stages=stages)
    np.testing.assert_allclose(c, expected, rtol=1e-2, atol=1e-2)
    if warp_specialize:
        return
    c = np.zeros((M, N), np.float32)
    matmul_in_kernel_desc[grid](a, b, c, M, N, K, BM, BN, BK, num_warps=warps,
                                num_stages=stages)
    np.testing.assert_allclose(c, expected, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("warp_specialize,subtile", [(False, False), (True, False),
                                                     (False, True)])
@pytest.mark.parametrize("K", [144, 64, 16])
def test_persistent_matmul(device, rng, warp_specialize, subtile, K):
    """The tile loop and the K loop fuse into one (flatten=True): tiles
    partly outside C, one K step per tile, a step partly outside A and B.
    On sm_90a the accumulator restarts by the wgmma's scale-d, and C is
    stored by TMA in the fused loop; split into halves, the accumulator
    stays in its registers."""
    skip_large_tiles_on_cpu(device, 128, 128)
    M, N = 320, 384
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    args = (TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b, [64, 128]),
            TensorDescriptor.from_tensor(c, [128, 64 if subtile else 128]), M, N, K, 128, 128,
            64)
    meta = dict(NUM_SMS=3, WARP_SPECIALIZE=warp_specialize, EPILOGUE_SUBTILE=subtile,
                num_warps=8)
    persistent_matmul[(3,)](*args, **meta)
    np.testing.assert_allclose(c.astype(np.float64), a.astype(np.float64) @ b.astype(np.float64),
                               rtol=2e-2, atol=2e-2)
    if device == "interpreter":
        binary = persistent_matmul.warmup(*args, **meta, grid=(3,)).binary_for("cuda:90")
        assert " useC " in binary.tile_layout
        assert "async_tma_copy_local_to_global" in binary.tile_layout
        if subtile:
            assert "tile.reshape %" in binary.tile_layout
            assert "tensor<128x2x64xf32, #linear" in binary.tile_layout
            # The halves' buffers, one at a time, not the whole tile's.
            whole = persistent_matmul.warmup(*args[:2], TensorDescriptor.from_tensor(
                c, [128, 128]), *args[3:], **dict(meta, EPILOGUE_SUBTILE=False),
                grid=(3,)).binary_for("cuda:90")
            assert binary.shared_bytes == whole.shared_bytes - 128 * 64 * 2


@pytest.mark.parametrize("warp_specialize", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("D,BM,BN,warps", [(64, 64, 64, 4), (128, 128, 64, 8)])
def test_attention_through_descriptors(device, rng, D, BM, BN, warps, causal, warp_specialize):
    """Chained dots on wgmma (p from registers), K and V copied by TMA on
    sm_90a, K transposed in shared memory; with warp_specialize, by a
    warpgroup of their own, for both loops when causal."""
    skip_large_tiles_on_cpu(device, BM, D)
    N = 256
    q, k, v = (rng.standard_normal((N, D)).astype(np.float16) for _ in range(3))
    o = np.zeros((N, D), np.float32)
    descs = [TensorDescriptor.from_tensor(t, [BM if t is q else BN, D]) for t in (q, k, v)]
    args = (*descs, o, N, 1 / np.sqrt(D), D, BM, BN, warp_specialize, causal)
    attention_desc[(N // BM,)](*args, num_warps=warps)
    s = q.astype(np.float64) @ k.astype(np.float64).T / np.sqrt(D)
    if causal:
        s[np.triu_indices(N, 1)] = -np.inf
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(o, (p / p.sum(1, keepdims=True)) @ v.astype(np.float64),
                               rtol=2e-2, atol=2e-2)
    if device == "interpreter":
        binary = attention_desc.warmup(*args, num_warps=warps).binary_for("cuda:90")
        assert len(binary.tensor_maps) == 3
        assert "wgmma.mma_async" in binary.assembly
        assert binary.num_warps == warps + 4 * warp_specialize
        if warp_specialize:
            # One partition copies for both loops, through one set of buffers.
            partition = binary.tile_layout.split("} partitions {")[1]
            assert partition.count("scf.for") == 1 + causal
            assert binary.tile_layout.count("tile.warp_specialize {") == 1


def test_warp_specialized_copies():
    """tl.range(..., warp_specialize=True) on sm_90a: a warpgroup of its own
    issues the TMA copies, the block launches with it (12 warps), and with
    8 computing warps it gives them its registers. Where the target has no
    TMA (sm_80), or the copies need what only the computing warps have,
    the loop is pipelined as without it."""
    a = np.zeros((256, 128), np.float16)
    b = np.zeros((128, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    args = (TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b, [64, 128]),
            c, 256, 256, 128, 128, 128, 64)
    compiled = matmul_desc.warmup(*args, WARP_SPECIALIZE=True, num_warps=8, grid=(2, 2))
    binary = compiled.compile_for("cuda:90")
    assert binary.num_warps == 12
    assert "tile.warp_specialize" in binary.tile_layout
    ptx = compiled.asm["ptx"]
    assert ".reqntid 384, 1, 1" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx
    assert "bar.sync 1, 256;" in ptx
    plain = matmul_desc.warmup(*args, WARP_SPECIALIZE=False, num_warps=8, grid=(2, 2))
    assert plain.compile_for("cuda:90").num_warps == 8
    assert compiled.binary_for("cuda:80").num_warps == 8
    assert "warp_specialize" not in compiled.binary_for("cuda:80").tile_layout
    four = matmul_desc.warmup(*args, WARP_SPECIALIZE=True, num_warps=4, grid=(2, 2))
    assert four.compile_for("cuda:90").num_warps == 8
    assert "setmaxnreg" not in four.asm["ptx"]


def test_bulk_copies_on_hopper():
    """On sm_90a the loads and the store of matmul_desc are TMA copies: the
    kernel takes a tensor map per descriptor after its parameters (encoded
    at launch from the arguments named), B's 128-column block in two
    64-column boxes (the 128-byte swizzle), C's (fp32) in four; not before
    sm_90a, nor for AOT launchers."""
    a = np.zeros((256, 128), np.float16)
    b = np.zeros((128, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    compiled = matmul_desc.warmup(TensorDescriptor.from_tensor(a, [128, 64]),
                                  TensorDescriptor.from_tensor(b, [64, 128]), c, 256, 256, 128,
                                  BM=128, BN=128, BK=64, num_warps=8)
    binary = compiled.compile_for("cuda:90")
    assert binary.tensor_maps == [
        "base=arg0 shape=arg1/32,arg2/32 strides=arg3/64 box=128,64 dtype=fp16 swizzle=128 nan=0",
        "base=arg4 shape=arg5/32,arg6/32 strides=arg7/64 box=64,64 dtype=fp16 swizzle=128 nan=0",
        "base=arg8 shape=arg9/32,arg10/32 strides=arg10/32 box=128,32 dtype=fp32 swizzle=128 "
        "nan=0"]
    ptx = compiled.asm["ptx"]
    assert ptx.count(".param .align 64 .b8") == 3
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier" in ptx
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 4
    assert "mbarrier.try_wait.parity" in ptx
    assert "tile.bulk_copy" not in binary.tile_layout
    assert compiled.binary_for("cuda:80").tensor_maps == []
    assert compiled.binary_for("cuda:90", bulk_copies=False).tensor_maps == []
    in_kernel = matmul_in_kernel_desc.warmup(a, b, c, 256, 256, 128, BM=128, BN=128, BK=64,
                                             num_warps=8)
    assert in_kernel.binary_for("cuda:90").tensor_maps == [
        "base=arg0 shape=arg3/32,arg5/32 strides=arg5/32 box=128,64 dtype=fp16 swizzle=128 nan=0",
        "base=arg1 shape=arg5/32,arg4/32 strides=arg4/32 box=64,64 dtype=fp16 swizzle=128 nan=0"]


def test_descriptor_specialisation(device):
    """Block shape and padding are part of the kernel's type; the shape and
    strides are values (with Triton's divisibility hints)."""
    x = np.zeros((32, 64), np.float32)
    kernel = scale_desc.warmup(TensorDescriptor.from_tensor(x, [16, 32]),
                               TensorDescriptor(x, [32, 64], [64, 1], [16, 32], "nan"),
                               16, 32, grid=(1,))
    ir = kernel.asm["tile"]
    assert ir.count("tile.make_tensor_descriptor") == 2
    assert "nan_padding" in ir
    assert "tile.divisibility = 16" in ir


# ----------------------------------------------------------------------------
# Block pointers
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("a_order", ["C", "F"])
def test_matmul_through_block_pointers(device, rng, a_order):
    M, N, K = 40, 48, 72
    a = np.asarray(rng.standard_normal((M, K)), np.float16, order=a_order)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    s = a.itemsize
    matmul_block_ptr[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
        a, b, c, M, N, K, a.strides[0] // s, a.strides[1] // s, N, 1, N, 1, 32, 32, 32)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2,
                               atol=1e-2)


def test_block_pointer_boundary_checks(device, rng):
    M, N = 32, 40
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros(M, np.float32)
    row_sums[(2,)](x, out, M, N, (0, 1), "zero", 16, 16)
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-5)
    # NaN padding past the last column reaches every row's sum.
    row_sums[(2,)](x, out, M, N, (1,), "nan", 16, 16)
    assert np.isnan(out).all()


@pytest.mark.parametrize("flip", [0, 1])
def test_block_pointer_in_branch(device, rng, flip):
    x = rng.standard_normal(24).astype(np.float32)
    out = np.full(16, 7, np.float32)
    block_ptr_branch[(1,)](x, out, 24, flip, 16)
    expected = x[:16] if not flip else np.concatenate([x[16:], np.zeros(8, np.float32)])
    np.testing.assert_array_equal(out, expected)


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


def test_host_descriptor_errors():
    x = np.zeros((8, 16), np.float32)
    with pytest.raises(ValueError, match="contiguous"):
        TensorDescriptor(x, [8, 16], [1, 8], [8, 16])
    with pytest.raises(ValueError, match="padding"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 16], padding="one")
    with pytest.raises(ValueError, match="2 strides"):
        TensorDescriptor(x, [8, 16], [16], [8, 16])


def _compile_error(kernel, *args):
    with pytest.raises(triton.CompilationError) as info:
        kernel.warmup(*args, grid=(1,))
    return info.value


@triton.jit
def strided_last(x_ptr, N):
    d = tl.make_tensor_descriptor(x_ptr, [N, N], [1, N], [16, 16])
    d.store([0, 0], d.load([0, 0]))


@triton.jit
def narrow_block(x_ptr, N):
    d = tl.make_tensor_descriptor(x_ptr, [N, N], [N, 1], [16, 2])
    d.store([0, 0], d.load([0, 0]))


@triton.jit
def wrong_offsets(desc):
    desc.load([0])


@triton.jit
def masked_block_ptr(x_ptr, N):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (16,), (0,))
    tl.load(p, mask=tl.arange(0, 16) < N)


@triton.jit
def bad_boundary(x_ptr, N):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (16,), (0,))
    tl.load(p, boundary_check=(1,))


def test_kernel_errors():
    x = np.zeros((16, 16), np.float32)
    error = _compile_error(strided_last, x, 16)
    assert "last stride must be the constant 1" in str(error)
    assert "make_tensor_descriptor" in error.source_line
    narrow = _compile_error(narrow_block, x, 16)
    assert "Descriptor block shape must have at least 16 bytes" in str(narrow.__cause__)
    assert "needs 2 entries" in str(
        _compile_error(wrong_offsets, TensorDescriptor.from_tensor(x, [16, 16])))
    assert "boundary_check and padding_option, not mask" in str(
        _compile_error(masked_block_ptr, x, 16))
    assert "dimension 1 of a rank-1" in str(_compile_error(bad_boundary, x, 16))


def test_interpreted_launches_raise_the_interpreters_error_too():
    """Where kernels are interpreted (TRITON_INTERPRET=1), Triton raises
    InterpreterError for a kernel that Triton's compiler would refuse with
    CompilationError: the error is both, with the same cause."""
    from tessera.runtime.errors import InterpreterError
    x = np.zeros((16, 16), np.float32)
    with triton.knobs.runtime.scope():
        triton.knobs.runtime.interpret = True
        with pytest.raises(InterpreterError) as info:
            narrow_block[(1,)](x, 16)
    assert isinstance(info.value, triton.CompilationError)
    assert "Descriptor block shape must have at least 16 bytes" in str(info.value.__cause__)
    assert "make_tensor_descriptor" in info.value.source_line
    # Compiled launches keep CompilationError alone.
    assert not isinstance(_compile_error(narrow_block, x, 16), InterpreterError)


def test_descriptor_signature_for_aot():
    kernel = triton.compile(
        scale_desc, {"in_desc": "tensordesc<fp32[16, 32]>", "out_desc": "tensordesc<fp32[16,32]>"},
        "cuda:80", constexprs={"BM": 16, "BN": 32})
    assert "tile.descriptor_load" in kernel.asm["tile"]
    assert "ld.global" in kernel.asm["ptx"]
    with pytest.raises(TypeError, match="element type is unknown"):
        triton.compile(scale_desc, {"in_desc": "tensordesc<fp99[16]>", "out_desc": "i32"},
                       "cuda:80", constexprs={"BM": 16, "BN": 32})


def _set_blocks(nargs):
    nargs["in_desc"].block_shape = [nargs["BM"], nargs["BN"]]
    nargs["out_desc"].block_shape = [nargs["BM"], nargs["BN"]]


def test_autotuned_descriptor_blocks(device, rng):
    """Each config's pre_hook sets the descriptors' blocks before the config
    is compiled and run (tutorial 09's pattern)."""
    tuned = triton.autotune(
        [triton.Config({"BM": 16, "BN": 32}, pre_hook=_set_blocks),
         triton.Config({"BM": 32, "BN": 16}, pre_hook=_set_blocks)],
        key=[])(scale_desc)
    x = rng.standard_normal((50, 70)).astype(np.float32)
    y = np.zeros_like(x)
    grid = lambda m: (triton.cdiv(50, m["BM"]), triton.cdiv(70, m["BN"]))
    tuned[grid](TensorDescriptor.from_tensor(x, [1, 1]), TensorDescriptor.from_tensor(y, [1, 1]))
    np.testing.assert_array_equal(y, 2 * x)


@triton.jit
def descriptor_from_address(table_ptr, out_ptr, x_ptr, M: tl.constexpr, N: tl.constexpr,
                            BM: tl.constexpr, BN: tl.constexpr):
    # A descriptor made in the kernel over an address from a table (tutorial
    # 08's grouped GEMM): its base and row stride are 16-byte multiples, as
    # tl.make_tensor_descriptor requires. (x_ptr only tells the interpreter
    # about the array.)
    base = tl.load(table_ptr).to(tl.pointer_type(tl.float32))
    row_stride = tl.load(table_ptr + 1)
    desc = tl.make_tensor_descriptor(base, shape=[M, N], strides=[row_stride, 1],
                                     block_shape=[BM, BN])
    block = desc.load([tl.program_id(0) * BM, 0])
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    tl.store(out_ptr + rows * N + tl.arange(0, BN)[None, :], block)


def test_descriptors_made_in_kernels_are_aligned(device):
    if device != "interpreter":
        pytest.skip("the host arrays' addresses are host addresses")
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    table = np.array([x.ctypes.data, 32], np.int64)
    out = np.zeros_like(x)
    descriptor_from_address[(4,)](table, out, x, 64, 32, 16, 32, num_warps=1)
    np.testing.assert_array_equal(out, x)
    # Nothing else says the address is aligned: the descriptor does.
    binary = descriptor_from_address.warmup(table, out, x, 64, 32, 16, 32, num_warps=1,
                                            grid=(4,)).compile_for("cuda:80")
    assert "ld.global.v4.b32" in binary.assembly
