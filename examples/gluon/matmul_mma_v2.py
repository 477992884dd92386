"""A matmul written at the explicit level: operand tiles copied into
shared memory with cp.async, STAGES deep, read back in the operand layouts
of mma.sync (ldmatrix, through a swizzle without bank conflicts) and
multiplied on the tensor cores (mma_v2)."""

import numpy as np

from tessera.experimental import gluon
from tessera.experimental.gluon import language as gl
from tessera.experimental.gluon.language.nvidia.ampere import async_copy, mma_v2


@gluon.constexpr_function
def operand_swizzle(row_elements, element_bits):
    """The XOR swizzle that lets ldmatrix read 8 rows of 16 bytes at once
    without bank conflicts: 16-byte vectors, rows of a 128-byte line
    sharing a phase."""
    row_bytes = row_elements * element_bits // 8
    vec = 128 // element_bits
    per_phase = max(1, 128 // row_bytes)
    max_phase = max(1, min(8, row_bytes // 16))
    return gl.SwizzledSharedLayout(vec, per_phase, max_phase, [1, 0])


@gluon.constexpr_function
def copy_layout(columns, num_warps):
    """Each thread copies 8 consecutive halves (16 bytes) of a row; a warp's
    threads cover whole rows of `columns` (no thread copies what another
    does)."""
    across = min(32, columns // 8)
    return gl.BlockedLayout([1, 8], [32 // across, across], [num_warps, 1], [1, 0])


@gluon.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                  BLOCK_K: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr = 8):
    a_copy: gl.constexpr = copy_layout(BLOCK_K, gl.num_warps())
    b_copy: gl.constexpr = copy_layout(BLOCK_N, gl.num_warps())
    # Warps tile the block 2 along N, the rest along M.
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[2, 0],
                                                  warps_per_cta=[gl.num_warps() // 2, 2],
                                                  instr_shape=[16, 8])
    a_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma, k_width=2)
    b_layout: gl.constexpr = gl.DotOperandLayout(operand_index=1, parent=mma, k_width=2)
    a_shared: gl.constexpr = operand_swizzle(BLOCK_K, 16)
    b_shared: gl.constexpr = operand_swizzle(BLOCK_N, 16)

    # Programs walk GROUP_M rows of tiles column by column, so that the
    # tiles of A and B they share stay in L2.
    pid = gl.program_id(0)
    tiles_m = gl.cdiv(M, BLOCK_M)
    tiles_n = gl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % group_m
    pid_n = (pid % (GROUP_M * tiles_n)) // group_m
    rows = pid_m * BLOCK_M + gl.arange(0, BLOCK_M, gl.SliceLayout(1, a_copy))
    cols = pid_n * BLOCK_N + gl.arange(0, BLOCK_N, gl.SliceLayout(0, b_copy))
    ks_a = gl.arange(0, BLOCK_K, gl.SliceLayout(0, a_copy))
    ks_b = gl.arange(0, BLOCK_K, gl.SliceLayout(1, b_copy))
    a_ptrs = a_ptr + rows[:, None] * K + ks_a[None, :]
    b_ptrs = b_ptr + ks_b[:, None] * N + cols[None, :]

    a_smem = gl.allocate_shared_memory(gl.float16, [STAGES, BLOCK_M, BLOCK_K], a_shared)
    b_smem = gl.allocate_shared_memory(gl.float16, [STAGES, BLOCK_K, BLOCK_N], b_shared)
    steps = gl.cdiv(K, BLOCK_K)
    # The first STAGES - 1 tiles are in flight before the loop starts.
    # Elements outside the matrices (and tiles past the last) are zeros.
    for s in gl.static_range(STAGES - 1):
        k_left = K - s * BLOCK_K
        async_copy.async_copy_global_to_shared(
            a_smem.index(s), a_ptrs + s * BLOCK_K,
            mask=(rows[:, None] < M) & (ks_a[None, :] < k_left))
        async_copy.async_copy_global_to_shared(
            b_smem.index(s), b_ptrs + s * BLOCK_K * N,
            mask=(ks_b[:, None] < k_left) & (cols[None, :] < N))
        async_copy.commit_group()

    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, mma)
    for k in range(steps):
        # Tile k has landed once at most STAGES - 2 later groups are in
        # flight; after the barrier every thread also has done with the
        # buffer tile k - 1 used, which tile k + STAGES - 1 refills.
        async_copy.wait_group(STAGES - 2)
        gl.thread_barrier()
        ahead = k + STAGES - 1
        k_left = K - ahead * BLOCK_K
        # Masked rather than branched: the copies interleave with the MMAs.
        async_copy.async_copy_global_to_shared(
            a_smem.index(ahead % STAGES), a_ptrs + ahead * BLOCK_K,
            mask=(rows[:, None] < M) & (ks_a[None, :] < k_left))
        async_copy.async_copy_global_to_shared(
            b_smem.index(ahead % STAGES), b_ptrs + ahead * BLOCK_K * N,
            mask=(ks_b[:, None] < k_left) & (cols[None, :] < N))
        async_copy.commit_group()
        a = a_smem.index(k % STAGES).load(a_layout)
        b = b_smem.index(k % STAGES).load(b_layout)
        acc = mma_v2(a, b, acc)

    out_rows = pid_m * BLOCK_M + gl.arange(0, BLOCK_M, gl.SliceLayout(1, mma))
    out_cols = pid_n * BLOCK_N + gl.arange(0, BLOCK_N, gl.SliceLayout(0, mma))
    gl.store(c_ptr + out_rows[:, None] * N + out_cols[None, :], acc.to(gl.float16),
             mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


def matmul(a, b, block_m=128, block_n=128, block_k=32, stages=3, num_warps=4):
    M, K = a.shape
    N = b.shape[1]
    c = np.empty((M, N), np.float16) if isinstance(a, np.ndarray) else a.new_empty((M, N))
    grid = (((M + block_m - 1) // block_m) * ((N + block_n - 1) // block_n),)
    matmul_kernel[grid](a, b, c, M, N, K, block_m, block_n, block_k, stages,
                        num_warps=num_warps)
    return c


def main():
    rng = np.random.default_rng(0)
    M, N, K = 160, 96, 80  # not multiples of the blocks
    a = (rng.random((M, K), dtype=np.float32) - 0.5).astype(np.float16)
    b = (rng.random((K, N), dtype=np.float32) - 0.5).astype(np.float16)
    c = matmul(a, b, 64, 64, 32, 2)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), expected, atol=2e-2, rtol=2e-2)
    print(f"gluon mma_v2 matmul: {M}x{N}x{K} float16 matches numpy")


if __name__ == "__main__":
    main()
