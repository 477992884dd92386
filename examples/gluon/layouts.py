"""How a layout choice changes what a kernel does: the same 2-D copy with
a row-contiguous BlockedLayout (each thread reads 16 consecutive bytes, a
warp whole rows) and a column-major one (neighbouring threads 4 KB apart),
and a reduction whose result lands in the slice of its operand's layout."""

import numpy as np

from tessera.experimental import gluon
from tessera.experimental.gluon import language as gl


@gluon.jit
def copy_2d_kernel(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, layout: gl.constexpr):
    # The layout of the indices along each dimension is the slice of the
    # 2-D one along the other: expanding them gives back `layout`.
    rows = gl.program_id(0) * M + gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    offsets = rows[:, None] * N + cols[None, :]
    gl.store(out_ptr + offsets, gl.load(in_ptr + offsets))


@gluon.jit
def row_sums_kernel(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, layout: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    x = gl.load(in_ptr + rows[:, None] * N + cols[None, :])
    total = gl.sum(x, axis=1)  # in SliceLayout(1, layout), as `rows`
    gl.store(out_ptr + rows, total)


def row_major(warp_size=32, num_warps=4):
    """Each thread 4 consecutive elements of a row, 8 threads a 32-element
    run of it: a warp reads whole 128-byte lines."""
    return gl.BlockedLayout([1, 4], [warp_size // 8, 8], [num_warps, 1], [1, 0])


def column_major(warp_size=32, num_warps=4):
    """Each thread 4 elements down a column: a warp's neighbouring threads
    read different rows, a line each."""
    return gl.BlockedLayout([4, 1], [8, warp_size // 8], [1, num_warps], [0, 1])


def main():
    rng = np.random.default_rng(0)
    M, N = 64, 128
    x = rng.random((4 * M, N), dtype=np.float32)
    for layout in (row_major(), column_major()):
        out = np.empty_like(x)
        copy_2d_kernel[(4,)](x, out, M, N, layout)
        np.testing.assert_array_equal(out, x)
    sums = np.empty(M, np.float32)
    row_sums_kernel[(1,)](x, sums, M, N, row_major())
    np.testing.assert_allclose(sums, x[:M].sum(axis=1), rtol=1e-5)
    print("gluon layouts: row- and column-major copies exact, row sums match numpy")


if __name__ == "__main__":
    main()
