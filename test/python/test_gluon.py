"""The explicit level, tessera.experimental.gluon: layouts as values,
tensors that carry them, shared memory, async copies and mma_v2."""

import re

import numpy as np
import pytest

import tessera
from tessera.experimental import gluon
from tessera.experimental.gluon import language as gl
from tessera.experimental.gluon.language.amd import AMDMFMALayout, AMDWMMALayout, cdna3, rdna3
from tessera.experimental.gluon.language.nvidia.ampere import async_copy, mma_v2
from tessera.runtime.errors import OutOfResources


# The layouts here are for 32-lane warps (test_examples_compile_for_amd
# compiles 64-lane ones).
pytestmark = pytest.mark.lanes(32)


@pytest.fixture
def own_targets(monkeypatch):
    """For tests that compile for the targets they name (kernels for another
    warp size, or made to fail): no --compile-for check of their own."""
    monkeypatch.delenv("TESSERA_COMPILE_CHECK", raising=False)


def line_of(snippet):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if snippet in line and "line_of" not in line)


BLOCKED_1D = gl.BlockedLayout([4], [32], [4], [0])
ROWS = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
COLUMNS = gl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
MMA = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])


# ----------------------------------------------------------------------------
# Layouts as values
# ----------------------------------------------------------------------------

def test_layouts_compare_by_their_fields():
    assert gl.BlockedLayout([4], [32], [4], [0]) == BLOCKED_1D
    assert hash(gl.BlockedLayout([4], [32], [4], [0])) == hash(BLOCKED_1D)
    assert gl.BlockedLayout([2], [32], [4], [0]) != BLOCKED_1D
    assert gl.SliceLayout(1, ROWS) == gl.SliceLayout(1, ROWS)
    assert gl.SliceLayout(1, ROWS) != gl.SliceLayout(0, ROWS)
    assert "size_per_thread=[4]" in repr(BLOCKED_1D)


@pytest.mark.parametrize("make, message", [
    (lambda: gl.BlockedLayout([1, 4], [32], [4], [0]), "one entry per dimension"),
    (lambda: gl.BlockedLayout([3], [32], [4], [0]), "powers of two"),
    (lambda: gl.BlockedLayout([1, 1], [4, 8], [4, 1], [0, 0]), "permutation"),
    (lambda: gl.SliceLayout(2, ROWS), "out of range"),
    (lambda: gl.DotOperandLayout(2, MMA, 2), "operand_index"),
    (lambda: gl.NVMMADistributedLayout([2, 0], [4, 1], [16, 16]), "needs instr_shape"),
    (lambda: gl.NVMMASharedLayout(48, 16), "swizzle_byte_width"),
    (lambda: AMDMFMALayout(3, [32, 16, 8], True, [2, 2]), "instr_shape"),
    (lambda: AMDWMMALayout(3, False, [2, 2]), "version"),
])
def test_layout_arguments_are_checked(make, message):
    with pytest.raises(tessera.CompilationError, match=message):
        make()


@pytest.mark.parametrize("shape, dtype, transposed, width", [
    ([128, 64], gl.float16, False, 128),
    ([128, 32], gl.float16, False, 64),
    ([64, 16], gl.float16, False, 32),
    ([64, 8], gl.float16, False, 0),
    ([16, 128], gl.float8e4nv, True, 0),
    ([64, 128], gl.float8e4nv, True, 64),
])
def test_nvmma_shared_default(shape, dtype, transposed, width):
    layout = gl.NVMMASharedLayout.get_default_for(shape, dtype, transposed)
    assert layout.swizzle_byte_width == width
    assert layout.element_bitwidth == dtype.primitive_bitwidth
    assert layout.transposed == transposed


# ----------------------------------------------------------------------------
# Tensors carry layouts
# ----------------------------------------------------------------------------

@gluon.jit
def copy_kernel(src, dst, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout)
    mask = offsets < n
    gl.store(dst + offsets, gl.load(src + offsets, mask) * 2.0 + 1.0, mask)


@pytest.mark.parametrize("layout", [BLOCKED_1D, gl.BlockedLayout([1], [32], [4], [0]),
                                    gl.DistributedLinearLayout(
                                        reg_bases=[[1], [2]], lane_bases=[[4], [8], [16], [32],
                                                                          [64]],
                                        warp_bases=[[128], [256]], block_bases=[], shape=[512])])
def test_elementwise_kernel(device, rng, layout):
    x = rng.random(1000, dtype=np.float32)
    out = np.zeros_like(x)
    copy_kernel[(2,)](x, out, x.size, 512, layout)
    np.testing.assert_array_equal(out, x * 2 + 1)


_SEEN = {}


def record(x, total, zeros, transposed):
    _SEEN.update(x=x.type.layout, total=total.type.layout, zeros=zeros.type.layout,
                 transposed=transposed.type.layout)


def test_tensors_know_their_layout():
    @gluon.jit
    def kernel(x_ptr, layout: gl.constexpr):
        rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
        cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
        x = gl.load(x_ptr + rows[:, None] * 64 + cols[None, :])
        total = gl.sum(x, axis=0)
        record(x, total, gl.zeros_like(x), gl.permute(x, [1, 0]))
        gl.store(x_ptr + cols, total)

    x = np.zeros((32, 64), np.float32)
    kernel.warmup(x, ROWS, grid=(1,))
    assert _SEEN["x"] == ROWS
    assert _SEEN["total"] == gl.SliceLayout(0, ROWS)
    assert _SEEN["zeros"] == ROWS
    assert _SEEN["transposed"] == gl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])


@gluon.jit
def sums_kernel(x_ptr, rows_out, cols_out, M: gl.constexpr, N: gl.constexpr,
                layout: gl.constexpr):
    rows = gl.arange(0, M, gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    gl.store(rows_out + rows, gl.sum(x, axis=1))
    gl.store(cols_out + cols, gl.max(x, axis=0))


@pytest.mark.parametrize("layout", [ROWS, COLUMNS])
def test_reductions_land_in_the_slice(device, rng, layout):
    x = rng.random((32, 64), dtype=np.float32)
    rows, cols = np.zeros(32, np.float32), np.zeros(64, np.float32)
    sums_kernel[(1,)](x, rows, cols, 32, 64, layout)
    np.testing.assert_allclose(rows, x.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(cols, x.max(axis=0))


@gluon.jit
def convert_kernel(x_ptr, out_ptr, src: gl.constexpr, dst: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, src))
    cols = gl.arange(0, 64, gl.SliceLayout(0, src))
    x = gl.load(x_ptr + rows[:, None] * 64 + cols[None, :])
    y = gl.convert_layout(x, dst)
    out_rows = gl.arange(0, 32, gl.SliceLayout(1, dst))
    out_cols = gl.arange(0, 64, gl.SliceLayout(0, dst))
    gl.store(out_ptr + out_rows[:, None] * 64 + out_cols[None, :], y)


def test_convert_layout(device, rng):
    x = rng.random((32, 64), dtype=np.float32)
    out = np.zeros_like(x)
    convert_kernel[(1,)](x, out, ROWS, COLUMNS)
    np.testing.assert_array_equal(out, x)
    tile = convert_kernel.warmup(x, out, ROWS, COLUMNS, grid=(1,)).asm["tile"]
    assert "tile.convert_layout" in tile


@gluon.jit
def auto_layout_kernel(x_ptr, out_ptr, layout: gl.constexpr):
    offsets = gl.arange(0, 512, gl.AutoLayout())
    offsets = gl.set_auto_layout(offsets, layout)
    gl.store(out_ptr + offsets, gl.load(x_ptr + offsets) + 1)


def test_auto_layout_takes_the_layout_it_is_given(device, rng):
    x = rng.integers(0, 100, 512).astype(np.int32)
    out = np.zeros_like(x)
    auto_layout_kernel[(1,)](x, out, BLOCKED_1D)
    np.testing.assert_array_equal(out, x + 1)


@gluon.jit
def fma_dot_kernel(a_ptr, b_ptr, c_ptr, layout: gl.constexpr):
    a_layout: gl.constexpr = gl.DotOperandLayout(0, layout, 0)
    b_layout: gl.constexpr = gl.DotOperandLayout(1, layout, 0)
    rows = gl.arange(0, 16, gl.SliceLayout(1, layout))
    cols = gl.arange(0, 16, gl.SliceLayout(0, layout))
    offsets = rows[:, None] * 16 + cols[None, :]
    a = gl.convert_layout(gl.load(a_ptr + offsets), a_layout)
    b = gl.convert_layout(gl.load(b_ptr + offsets), b_layout)
    acc = gl.zeros([16, 16], gl.float32, layout)
    gl.store(c_ptr + offsets, gl.dot_fma(a, b, acc))


def test_dot_fma(device, rng):
    a = rng.random((16, 16), dtype=np.float32)
    b = rng.random((16, 16), dtype=np.float32)
    c = np.zeros_like(a)
    fma_dot_kernel[(1,)](a, b, c, gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


# ----------------------------------------------------------------------------
# Located errors
# ----------------------------------------------------------------------------

@gluon.jit
def mismatch_kernel(x_ptr):
    a = gl.arange(0, 128, gl.BlockedLayout([1], [32], [4], [0]))
    b = gl.arange(0, 128, gl.BlockedLayout([4], [32], [1], [0]))
    gl.store(x_ptr + a, a + b)


def test_layout_mismatch_names_both_layouts(device):
    x = np.zeros(128, np.int32)
    with pytest.raises(tessera.CompilationError) as e:
        mismatch_kernel[(1,)](x)
    text = str(e.value)
    assert f"test_gluon.py:{line_of('gl.store(x_ptr + a, a + b)')}:" in text
    assert "layout mismatch" in text
    assert "sizePerThread = [1]" in text and "sizePerThread = [4]" in text


@gluon.jit
def bad_expand_kernel(x_ptr):
    a = gl.arange(0, 32, gl.BlockedLayout([1], [32], [4], [0]))
    gl.store(x_ptr + a[:, None], 1.0)


def test_expand_dims_needs_a_slice(device):
    with pytest.raises(tessera.CompilationError, match="needs its operand in a SliceLayout"):
        bad_expand_kernel[(1,)](np.zeros(32, np.float32))


@gluon.jit
def unresolved_kernel(x_ptr):
    offsets = gl.arange(0, 128, gl.AutoLayout())
    gl.store(x_ptr + offsets, 1.0)


def test_an_unresolved_auto_layout_is_an_error(device):
    with pytest.raises(tessera.CompilationError) as e:
        unresolved_kernel[(1,)](np.zeros(128, np.float32))
    assert "never gets a layout" in str(e.value)
    assert f"test_gluon.py:{line_of('offsets = gl.arange(0, 128, gl.AutoLayout())')}" \
        in str(e.value)


def test_set_auto_layout_needs_an_auto_tensor():
    @gluon.jit
    def kernel(x_ptr):
        a = gl.arange(0, 128, BLOCKED_1D)
        gl.store(x_ptr + gl.set_auto_layout(a, BLOCKED_1D), 1)

    with pytest.raises(tessera.CompilationError, match="needs a tensor in AutoLayout"):
        kernel.warmup(np.zeros(128, np.int32), grid=(1,))


def test_warp_size_is_checked_against_the_target(own_targets):
    kernel = copy_kernel.warmup(np.zeros(8, np.float32), np.zeros(8, np.float32), 8, 512,
                                BLOCKED_1D, grid=(1,))
    kernel.compile_for("cuda:90")
    with pytest.raises(tessera.CompilationError) as e:
        kernel.compile_for("hip:gfx942")
    assert "threads per warp that multiply to 32" in str(e.value)
    assert "64 lanes" in str(e.value)
    assert f"test_gluon.py:{line_of('gl.load(src + offsets, mask) * 2.0')}:" in str(e.value)


def test_warps_are_checked_against_num_warps(own_targets):
    kernel = copy_kernel.warmup(np.zeros(8, np.float32), np.zeros(8, np.float32), 8, 512,
                                BLOCKED_1D, grid=(1,), num_warps=8)
    with pytest.raises(tessera.CompilationError, match="num_warps=8"):
        kernel.compile_for("cuda:90")


COALESCED = gl.CoalescedLayout()


@gluon.jit
def coalesced_kernel(x_ptr, out_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr):
    rows = gl.arange(0, BM, COALESCED)
    cols = gl.arange(0, BN, COALESCED)
    offsets = rows[:, None] * N + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = gl.load(x_ptr + offsets, mask, other=0.0)
    gl.store(out_ptr + offsets, gl.maximum(x, 0.5), mask)
    # The sums come in the slice of the tile's layout; the store of a range
    # wants its own, which the conversion to CoalescedLayout lets it have.
    sums = gl.convert_layout(gl.sum(x, axis=1), COALESCED)
    gl.store(out_ptr + M * N + rows, sums, rows < M)


def test_coalesced_layout(device, rng, own_targets):
    x = rng.random((30, 64), dtype=np.float32)
    out = np.zeros(30 * 64 + 30, np.float32)
    coalesced_kernel[(1,)](x, out, 30, 64, 32, 64)
    np.testing.assert_array_equal(out[:-30].reshape(30, 64), np.maximum(x, 0.5))
    np.testing.assert_allclose(out[-30:], x.sum(axis=1), rtol=1e-5)
    kernel = coalesced_kernel.warmup(x, out, 30, 64, 32, 64, grid=(1,))
    assert "#tile.coalesced" in kernel.asm["tile"]
    # The target's warps choose the layout: 16-byte vectors along the rows.
    for target, lanes in [("cuda:90", 32), ("hip:gfx942", 64)]:
        kernel.compile_for(target)
        laid_out = kernel.asm["tile-layout"]
        assert "#tile.coalesced" not in laid_out
        assert (f"#tile.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [{lanes // 16}, 16], "
                "warpsPerCTA = [4, 1], order = [1, 0]}>") in laid_out
        assert (f"#tile.blocked<{{sizePerThread = [1], threadsPerWarp = [{lanes}], "
                "warpsPerCTA = [4], order = [0]}>") in laid_out


@gluon.jit
def tensor_of_coalesced_kernel(x_ptr):
    x = gl.full([64], 1.0, gl.float32, gl.CoalescedLayout())
    gl.static_assert(x.type.layout == gl.CoalescedLayout())
    gl.store(x_ptr + gl.arange(0, 64, gl.CoalescedLayout()), x)


def test_coalesced_layout_is_a_layout_value(device):
    with pytest.raises(ValueError, match="no rank"):
        gl.CoalescedLayout().rank
    x = np.zeros(64, np.float32)
    tensor_of_coalesced_kernel[(1,)](x)
    np.testing.assert_array_equal(x, 1.0)


@gluon.jit
def coalesced_conflict_kernel(x_ptr, y_ptr):
    offsets = gl.arange(0, 512, gl.CoalescedLayout())
    x = gl.load(x_ptr + offsets)
    gl.store(y_ptr + offsets, x)


def test_coalesced_layouts_that_conflict_are_an_error(own_targets):
    # x is 16-byte aligned and y only 4: its load and store want two layouts.
    x = np.zeros(1024, np.float32)
    kernel = coalesced_conflict_kernel.warmup(x[:512], x[1:513], grid=(1,))
    with pytest.raises(tessera.CompilationError) as e:
        kernel.compile_for("cuda:90")
    message = str(e.value)
    assert "a tensor in CoalescedLayout gets two layouts" in message
    assert f"test_gluon.py:{line_of('x = gl.load(x_ptr + offsets)')}:" in message
    assert f"test_gluon.py:{line_of('gl.store(y_ptr + offsets, x)')}:" in message


@gluon.jit
def coalesced_and_blocked_kernel(x_ptr):
    a = gl.arange(0, 512, gl.CoalescedLayout())
    b = gl.arange(0, 512, gl.BlockedLayout([4], [32], [4], [0]))
    gl.store(x_ptr + a, a + b)


def test_coalesced_and_another_layout_do_not_mix():
    with pytest.raises(tessera.CompilationError, match="layout mismatch"):
        coalesced_and_blocked_kernel.warmup(np.zeros(512, np.int32), grid=(1,))


@gluon.jit
def wrong_mma_operand_kernel(x_ptr):
    a = gl.zeros([32, 16], gl.float16, gl.DotOperandLayout(1, MMA, 2))
    b = gl.zeros([16, 32], gl.float16, gl.DotOperandLayout(1, MMA, 2))
    acc = gl.zeros([32, 32], gl.float32, MMA)
    acc = mma_v2(a, b, acc)


def test_mma_v2_checks_operand_layouts():
    with pytest.raises(tessera.CompilationError, match="operand a in DotOperandLayout"):
        wrong_mma_operand_kernel.warmup(np.zeros(1, np.float32), grid=(1,))


# ----------------------------------------------------------------------------
# Shared memory, async copies, mma_v2
# ----------------------------------------------------------------------------

SHARED = gl.SwizzledSharedLayout(vec=4, per_phase=1, max_phase=8, order=[1, 0])


@gluon.jit
def shared_kernel(x_ptr, out_ptr, t_ptr, layout: gl.constexpr, shared: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
    cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + rows[:, None] * 64 + cols[None, :])
    smem = gl.allocate_shared_memory(gl.float32, [2, 32, 64], shared)
    smem.index(1).store(x)
    gl.thread_barrier()
    y = smem.index(1).load(layout)
    gl.store(out_ptr + rows[:, None] * 64 + cols[None, :], y)
    # The right half of the buffer, transposed: 32x32.
    t_layout: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    half = smem.index(1).slice(32, 32, dim=1).permute([1, 0]).load(t_layout)
    t_rows = gl.arange(0, 32, gl.SliceLayout(1, t_layout))
    t_cols = gl.arange(0, 32, gl.SliceLayout(0, t_layout))
    gl.store(t_ptr + t_rows[:, None] * 32 + t_cols[None, :], half)


# Row-major 32x64 with each row's groups of 4 columns XORed with the row
# (offset bits 0-5 the column, bits 6-10 the row and the swizzle).
SHARED_LINEAR = gl.SharedLinearLayout(
    [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 32],
     [16, 0]])


# Row-major 32x64 with 4 elements of padding after every row.
PADDED = gl.PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0])


@pytest.mark.parametrize("shared", [SHARED, SHARED_LINEAR, PADDED],
                         ids=["swizzled", "linear", "padded"])
def test_shared_memory(device, rng, shared):
    x = rng.random((32, 64), dtype=np.float32)
    out, t = np.zeros_like(x), np.zeros((32, 32), np.float32)
    shared_kernel[(1,)](x, out, t, ROWS, shared)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(t, x[:, 32:].T)


def test_padded_shared_layout_values():
    assert PADDED.offset_bases[:7] == [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0]]
    assert PADDED.shape == [32, 64] and PADDED.rank == 2
    assert PADDED == gl.PaddedSharedLayout([[64, 4]], PADDED.offset_bases, [], [32, 64])
    assert PADDED == gl.PaddedSharedLayout([[64, 4]], PADDED.offset_bases, block_bases=[],
                                           shape=[32, 64])
    column_major = gl.PaddedSharedLayout.with_identity_for([[32, 1]], [32, 64], [0, 1])
    assert column_major.offset_bases[:6] == [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1]]
    assert column_major != PADDED


@pytest.mark.parametrize("make, message", [
    (lambda: gl.PaddedSharedLayout([], [[1]], [], [2]), "at least one interval-padding pair"),
    (lambda: gl.PaddedSharedLayout([[6, 2]], [[1]], [], [2]), "interval values must all be power"),
    (lambda: gl.PaddedSharedLayout([[4, 3]], [[1]], [], [2]), "padding values must all be power"),
    (lambda: gl.PaddedSharedLayout([[4, 1], [4, 2]], [[1]], [], [2]), "must be unique"),
    (lambda: gl.PaddedSharedLayout([[4, 1]], [[1, 1]], [], [2, 2]), "move one dimension"),
    (lambda: gl.PaddedSharedLayout([[4, 1]], [[0, 1]], [], [4, 2]), "lay out [1, 2]"),
    (lambda: gl.PaddedSharedLayout.with_identity_for([[4, 1]], [6, 4], [1, 0]), "powers of two"),
])
def test_padded_shared_layout_arguments_are_checked(make, message):
    with pytest.raises(tessera.CompilationError, match=re.escape(message)):
        make()


@gluon.jit
def padded_kernel(x_ptr, out_ptr, shared: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, ROWS))
    cols = gl.arange(0, 64, gl.SliceLayout(0, ROWS))
    smem = gl.allocate_shared_memory(gl.float32, [32, 64], shared,
                                     gl.load(x_ptr + rows[:, None] * 64 + cols[None, :]))
    gl.static_assert(smem.layout == shared)
    gl.static_assert(smem.permute([1, 0]).layout.interval_padding_pairs == [[64, 4]])
    gl.store(out_ptr + rows[:, None] * 64 + cols[None, :], smem.load(ROWS) + 1)


def test_padded_buffers_span_their_padding(device, rng, own_targets):
    x = rng.random((32, 64), dtype=np.float32)
    out = np.zeros_like(x)
    padded_kernel[(1,)](x, out, PADDED)
    np.testing.assert_array_equal(out, x + 1)
    # 2048 elements and 31 rows' padding of 4, in f32: 8688 bytes.
    kernel = padded_kernel.warmup(x, out, PADDED, grid=(1,))
    kernel.compile_for("cuda:80")
    assert kernel.metadata["shared"] == (2048 + 31 * 4) * 4


@gluon.jit
def async_copy_kernel(x_ptr, out_ptr, n, layout: gl.constexpr, shared: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
    cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
    offsets = rows[:, None] * 64 + cols[None, :]
    smem = gl.allocate_shared_memory(gl.float32, [32, 64], shared)
    async_copy.async_copy_global_to_shared(smem, x_ptr + offsets, mask=offsets < n)
    async_copy.commit_group()
    async_copy.wait_group(0)
    gl.store(out_ptr + offsets, smem.load(layout))


@pytest.mark.parametrize("shared", [SHARED, PADDED], ids=["swizzled", "padded"])
def test_async_copy(device, rng, shared):
    x = rng.random((32, 64), dtype=np.float32)
    out = np.ones_like(x)
    async_copy_kernel[(1,)](x, out, 1000, ROWS, shared)
    expected = x.copy().reshape(-1)
    expected[1000:] = 0
    np.testing.assert_array_equal(out.reshape(-1), expected)


def test_async_copy_compiles_to_cp_async(own_targets):
    x = np.zeros((32, 64), np.float32)
    kernel = async_copy_kernel.warmup(x, x, 1000, ROWS, SHARED, grid=(1,))
    kernel.compile_for("cuda:80")
    assert "cp.async" in kernel.asm["ptx"]


def test_shared_memory_overflow_names_the_bytes(own_targets):
    @gluon.jit
    def kernel(x_ptr, layout: gl.constexpr, shared: gl.constexpr):
        rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
        cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
        smem = gl.allocate_shared_memory(gl.float32, [256, 32, 64], shared)
        smem.index(3).store(gl.load(x_ptr + rows[:, None] * 64 + cols[None, :]))

    compiled = kernel.warmup(np.zeros((32, 64), np.float32), ROWS, SHARED, grid=(1,))
    with pytest.raises(OutOfResources) as e:
        compiled.compile_for("cuda:90")
    assert "needs 2097152 bytes of shared memory, sm_90a has 232448" in str(e.value)
    assert isinstance(e.value, tessera.CompilationError) and isinstance(e.value, RuntimeError)


@pytest.mark.not_on_amd  # mma_v2 is an NVIDIA instruction
def test_mma_v2_matmul(device):
    example = _example("matmul_mma_v2")
    rng = np.random.default_rng(1)
    a = (rng.random((128, 64), dtype=np.float32) - 0.5).astype(np.float16)
    b = (rng.random((64, 128), dtype=np.float32) - 0.5).astype(np.float16)
    c = example.matmul(a, b, 64, 64, 32, 2)
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               atol=2e-2, rtol=2e-2)
    kernel = example.matmul_kernel.warmup(a, b, c, 128, 128, 64, 64, 64, 32, 2, num_warps=4,
                                          grid=(2, 2))
    kernel.compile_for("cuda:80")
    ptx = kernel.asm["ptx"]
    assert "mma.sync.aligned.m16n8k16" in ptx and "cp.async" in ptx and "ldmatrix" in ptx


def _example(name):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parents[2] / "examples" / "gluon" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"gluon_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target, lanes", [("cuda:90", 32), ("hip:gfx942", 64),
                                           ("hip:gfx1100", 32)])
def test_examples_compile_for_nvidia_and_amd(own_targets, target, lanes):
    x = np.zeros((64, 64), np.float32)
    memcpy = _example("memcpy").memcpy_kernel.warmup(x, x, x.size, 1024, lanes, grid=(1,))
    layouts = _example("layouts")
    copies = [layouts.copy_2d_kernel.warmup(x, x, 16, 64, layout(lanes), grid=(1,))
              for layout in (layouts.row_major, layouts.column_major)]
    scale = _example("async_copy").scale_kernel.warmup(x, x, 2.0, 64, 64, 16, 4, 3, lanes,
                                                       grid=(1,))
    for kernel in [memcpy, scale] + copies:
        binary = kernel.compile_for(target)
        assert binary.warp_size == lanes
    if target.startswith("cuda"):
        assert "cp.async" in scale.asm["ptx"]


# ----------------------------------------------------------------------------
# Layout queries, reshapes, helpers
# ----------------------------------------------------------------------------

def test_to_linear_layout():
    linear = gl.to_linear_layout(gl.BlockedLayout([1, 4], [4, 8], [2, 2], [1, 0]), [16, 64])
    assert isinstance(linear, gl.DistributedLinearLayout)
    assert linear.reg_bases[:2] == [[0, 1], [0, 2]]
    assert linear.lane_bases == [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]
    assert linear.warp_bases == [[0, 32], [4, 0]]
    # Registers repeat the block down the rows.
    assert linear.reg_bases[2:] == [[8, 0]]
    shared = gl.to_linear_layout(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), [4, 8])
    assert shared.offset_bases == [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]


@pytest.mark.parametrize("shared, conflicts", [
    (gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), True),
    (gl.SwizzledSharedLayout(4, 1, 8, [1, 0]), False),
])
def test_bank_conflicts(shared, conflicts):
    # A warp's 32 lanes store 16 bytes each, one row apart, into a row-major
    # buffer of 32 floats (128 bytes) a row: unswizzled, all in the same 4
    # banks; XOR-swizzled by the row, 8 rows fill all 32.
    column = gl.BlockedLayout([1, 4], [32, 1], [1, 4], [1, 0])
    distr = gl.distributed_type(gl.float32, [64, 32], column)
    count = gl.bank_conflicts(distr, _SharedType(gl.float32, [64, 32], shared))
    assert (count > 0) == conflicts, count


def test_bank_conflicts_of_a_padded_layout_say_so():
    distr = gl.distributed_type(gl.float32, [32, 64], ROWS)
    with pytest.raises(tessera.CompilationError, match="does not measure padded layouts"):
        gl.bank_conflicts(distr, _SharedType(gl.float32, [32, 64], PADDED))


class _SharedType:
    """What bank_conflicts reads of a shared memory descriptor."""

    def __init__(self, dtype, shape, layout):
        self.element_ty, self.shape, self.layout = dtype, shape, layout


@gluon.jit
def reshape_kernel(x_ptr, out_ptr, layout: gl.constexpr):
    offsets = gl.arange(0, 512, layout)
    x = gl.reshape(gl.load(x_ptr + offsets), [16, 32])
    total = gl.sum(x, axis=1)
    rows = gl.arange(0, 16, total.type.layout)
    gl.store(out_ptr + rows, total)


def test_reshape_keeps_each_element_where_it_is(device, rng):
    x = rng.random(512, dtype=np.float32)
    out = np.zeros(16, np.float32)
    reshape_kernel[(1,)](x, out, BLOCKED_1D)
    np.testing.assert_allclose(out, x.reshape(16, 32).sum(axis=1), rtol=1e-5)
    kernel = reshape_kernel.warmup(x, out, BLOCKED_1D, grid=(1,))
    assert "tile.convert_layout" not in kernel.asm["tile"]
    # The sum's slice of a linear layout lowers too.
    kernel.compile_for("cuda:90")


@gluon.constexpr_function
def rows_layout(num_warps):
    return gl.BlockedLayout([1, 4], [4, 8], [num_warps, 1], [1, 0])


@gluon.jit
def add_one(x):
    return x + 1


@gluon.jit
def helper_kernel(x_ptr, N: gl.constexpr):
    layout: gl.constexpr = rows_layout(gl.num_warps())
    gl.static_assert(N % 32 == 0)
    offsets = gl.arange(0, 16, gl.SliceLayout(1, layout))[:, None] * N + \
        gl.arange(0, N, gl.SliceLayout(0, layout))[None, :]
    for _ in gl.static_range(2):
        gl.store(x_ptr + offsets, add_one(gl.load(x_ptr + offsets)))


def test_helpers_constexpr_functions_and_static_range(device):
    x = np.zeros((16, 64), np.float32)
    helper_kernel[(gl.cdiv(16, 16),)](x, 64, num_warps=2)
    np.testing.assert_array_equal(x, 2)


@gluon.jit
def tuned_kernel(x_ptr, n, XBLOCK: gl.constexpr):
    offsets = gl.program_id(0) * XBLOCK + gl.arange(
        0, XBLOCK, gl.BlockedLayout([1], [32], [gl.num_warps()], [0]))
    gl.store(x_ptr + offsets, gl.load(x_ptr + offsets, offsets < n) * 3, offsets < n)


def test_autotune_heuristics_warmup_asm_and_compile(device, rng):
    tuned = tessera.autotune(configs=[tessera.Config({"XBLOCK": 128}, num_warps=4),
                                      tessera.Config({"XBLOCK": 256}, num_warps=8)],
                             key=["n"], restore_value=["x_ptr"])(tuned_kernel)
    x = rng.random(1000, dtype=np.float32)
    expected = x * 3
    tuned[lambda meta: (tessera.cdiv(1000, meta["XBLOCK"]),)](x, 1000)
    np.testing.assert_allclose(x, expected, rtol=1e-6)
    assert tuned.best_config.kwargs["XBLOCK"] in (128, 256)

    @tessera.heuristics({"XBLOCK": lambda args: 256})
    @gluon.jit
    def heuristic_kernel(x_ptr, n, XBLOCK: gl.constexpr):
        offsets = gl.arange(0, XBLOCK, gl.BlockedLayout([1], [32], [gl.num_warps()], [0]))
        gl.store(x_ptr + offsets, XBLOCK + offsets * 0, offsets < n)

    y = np.zeros(256, np.int32)
    heuristic_kernel[(1,)](y, 256)
    assert (y == 256).all()

    compiled = tuned_kernel.warmup(x, 1000, 128, grid=(1,), num_warps=4)
    assert "#tile.blocked" in compiled.asm["tile"]
    ahead = tessera.compile(tuned_kernel, {"x_ptr": "*fp32:16", "n": "i32"}, "cuda:90",
                            constexprs={"XBLOCK": 128})
    assert "ld.global" in ahead.asm["ptx"]


def test_aot_tool_compiles_a_gluon_example(tmp_path, capsys):
    import pathlib

    from tessera import aot
    path = pathlib.Path(__file__).parents[2] / "examples" / "gluon" / "memcpy.py"
    status = aot.main([str(path), "-n", "memcpy_kernel", "-s", "*fp32:16, *fp32:16, i32, 1024",
                       "--target", "cuda:90", "-o", str(tmp_path / "memcpy")])
    assert status in (0, None)
    assert any(p.suffix == ".c" for p in (tmp_path / "memcpy").iterdir())


PLAIN = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])


@gluon.jit
def reshape_buffer_kernel(x_ptr, flat_ptr, wide_ptr, layout: gl.constexpr,
                          shared: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
    cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
    smem = gl.allocate_shared_memory(gl.float32, [32, 64], shared)
    smem.store(gl.load(x_ptr + rows[:, None] * 64 + cols[None, :]))
    gl.thread_barrier()
    flat_layout: gl.constexpr = gl.BlockedLayout([4], [32], [4], [0])
    flat = smem.reshape([2048]).load(flat_layout)
    gl.store(flat_ptr + gl.arange(0, 2048, flat_layout), flat)
    wide = smem._reinterpret(gl.float32, [64, 32], gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    w_layout: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    w_rows = gl.arange(0, 64, gl.SliceLayout(1, w_layout))
    w_cols = gl.arange(0, 32, gl.SliceLayout(0, w_layout))
    gl.store(wide_ptr + w_rows[:, None] * 32 + w_cols[None, :], wide.load(w_layout))


@pytest.mark.parametrize("shared", [PLAIN, SHARED, PADDED], ids=["plain", "swizzled", "padded"])
def test_buffer_reshape_and_reinterpret(device, rng, shared):
    x = rng.random((32, 64), dtype=np.float32)
    flat, wide = np.zeros(2048, np.float32), np.zeros((64, 32), np.float32)
    reshape_buffer_kernel[(1,)](x, flat, wide, ROWS, shared)
    # reshape keeps each element where it is; _reinterpret reads the bytes
    # in its own layout, which are x's in row-major order when unswizzled.
    np.testing.assert_array_equal(flat, x.reshape(-1))
    if shared == PLAIN:
        np.testing.assert_array_equal(wide, x.reshape(64, 32))


@gluon.jit
def reinterpret_bits_kernel(x_ptr, out_ptr, layout: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
    cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
    offsets = rows[:, None] * 64 + cols[None, :]
    smem = gl.allocate_shared_memory(gl.float32, [32, 64], PLAIN)
    smem.store(gl.load(x_ptr + offsets))
    gl.thread_barrier()
    bits = smem._reinterpret(gl.int32, [32, 64], PLAIN).load(layout)
    gl.store(out_ptr + offsets, bits)


def test_reinterpret_as_another_type(device, rng):
    x = rng.random((32, 64), dtype=np.float32)
    out = np.zeros((32, 64), np.int32)
    if device == "interpreter":
        with pytest.raises(tessera.runtime.errors.InterpreterError,
                           match="another element type"):
            reinterpret_bits_kernel[(1,)](x, out, ROWS)
        return
    reinterpret_bits_kernel[(1,)](x, out, ROWS)
    np.testing.assert_array_equal(out, x.view(np.int32))


def test_reinterpret_cannot_grow_the_buffer():
    @gluon.jit
    def kernel(x_ptr):
        smem = gl.allocate_shared_memory(gl.float16, [32, 64], PLAIN)
        smem._reinterpret(gl.float32, [32, 64], PLAIN)

    with pytest.raises(tessera.CompilationError, match="4096 bytes cannot hold 8192"):
        kernel.warmup(np.zeros(1, np.float32), grid=(1,))


def test_a_shared_layout_of_another_rank_is_an_error():
    @gluon.jit
    def kernel(x_ptr):
        gl.allocate_shared_memory(gl.float32, [64], PLAIN)

    with pytest.raises(tessera.CompilationError, match="invalid shared memory buffer"):
        kernel.warmup(np.zeros(1, np.float32), grid=(1,))


# ----------------------------------------------------------------------------
# The rest of the surface
# ----------------------------------------------------------------------------

@gluon.jit
def trivial_convert_kernel(x_ptr, out_ptr, src: gl.constexpr, dst: gl.constexpr,
                           TRIVIAL: gl.constexpr):
    offsets = gl.arange(0, 512, src)
    y = gl.convert_layout(gl.load(x_ptr + offsets), dst, assert_trivial=TRIVIAL)
    gl.store(out_ptr + gl.convert_layout(offsets, dst), y)


def test_convert_layout_assert_trivial(device, rng):
    x = rng.random(512, dtype=np.float32)
    out = np.zeros_like(x)
    # The same placement of elements, spelt two ways: no data moves.
    linear = gl.to_linear_layout(BLOCKED_1D, [512])
    trivial_convert_kernel[(1,)](x, out, BLOCKED_1D, linear, True)
    np.testing.assert_array_equal(out, x)
    with pytest.raises(tessera.CompilationError, match="moves data between threads"):
        trivial_convert_kernel[(1,)](x, out, BLOCKED_1D, gl.BlockedLayout([1], [32], [4], [0]),
                                     True)


@gluon.jit
def alloc_with_value_kernel(x_ptr, out_ptr, layout: gl.constexpr):
    offsets = gl.arange(0, 512, layout)
    x = gl.load(x_ptr + offsets)
    smem = gl.allocate_shared_memory(gl.float32, [512], gl.SwizzledSharedLayout(1, 1, 1, [0]),
                                     value=x)
    y = gl.where(offsets % 2 == 0, smem.load(layout), gl.full_like(x, -1.0))
    gl.store(out_ptr + offsets, y + gl.zeros_like(x) * gl.num_ctas())


def test_allocate_with_a_value_where_and_full_like(device, rng):
    x = rng.random(512, dtype=np.float32)
    out = np.zeros_like(x)
    alloc_with_value_kernel[(1,)](x, out, BLOCKED_1D)
    np.testing.assert_array_equal(out, np.where(np.arange(512) % 2 == 0, x, -1))


@gluon.jit
def amd_dot_kernel(a_ptr, b_ptr, c_ptr, acc_layout: gl.constexpr, K_WIDTH: gl.constexpr,
                   WMMA: gl.constexpr, LANES: gl.constexpr):
    load: gl.constexpr = gl.BlockedLayout([1, 4], [LANES // 8, 8], [4, 1], [1, 0])
    rows = gl.arange(0, 32, gl.SliceLayout(1, load))
    cols = gl.arange(0, 32, gl.SliceLayout(0, load))
    offsets = rows[:, None] * 32 + cols[None, :]
    a = gl.convert_layout(gl.load(a_ptr + offsets), gl.DotOperandLayout(0, acc_layout, K_WIDTH))
    b = gl.convert_layout(gl.load(b_ptr + offsets), gl.DotOperandLayout(1, acc_layout, K_WIDTH))
    acc = gl.zeros([32, 32], gl.float32, acc_layout)
    if WMMA:
        acc = rdna3.wmma(a, b, acc)
    else:
        acc = cdna3.mfma(a, b, acc)
    gl.store(c_ptr + offsets, gl.convert_layout(acc, load))


@pytest.mark.lanes(64)
def test_mfma_on_gfx942(own_targets, rng):
    mfma = AMDMFMALayout(3, [32, 32, 8], True, [2, 2])
    a = rng.random((32, 32), dtype=np.float32).astype(np.float16)
    b = rng.random((32, 32), dtype=np.float32).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    kernel = amd_dot_kernel.warmup(a, b, c, mfma, 4, False, 64, grid=(1,))
    kernel.compile_for("hip:gfx942")
    assert "v_mfma_f32_32x32x8" in kernel.asm["amdgcn"]
    # The interpreter computes the same product whatever the layouts.
    amd_dot_kernel[(1,)](a, b, c, mfma, 4, False, 64)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-3)


def test_wmma_on_gfx1100(own_targets, rng):
    wmma = AMDWMMALayout(1, False, [2, 2])
    a = np.zeros((32, 32), np.float16)
    kernel = amd_dot_kernel.warmup(a, a, np.zeros((32, 32), np.float32), wmma, 16, True, 32,
                                   grid=(1,))
    kernel.compile_for("hip:gfx1100")
    assert "v_wmma_f32_16x16x16_f16" in kernel.asm["amdgcn"]


@gluon.jit
def control_flow_kernel(x_ptr, n, layout: gl.constexpr):
    offsets = gl.arange(0, 512, layout)
    x = gl.load(x_ptr + offsets)
    # Splats of Python scalars take the layout of what they meet, in
    # branches and loops too.
    if n > 3:
        y = x + 1.0
    else:
        y = x * 0.0
    i = 0
    while i < n:
        y = y + 1.0
        i += 1
    gl.atomic_add(x_ptr + offsets, y)


def test_branches_loops_and_atomics(device):
    x = np.ones(512, np.float32)
    control_flow_kernel[(1,)](x, 5, BLOCKED_1D)
    np.testing.assert_array_equal(x, 1 + (1 + 1 + 5))


@gluon.jit
def indices_and_scans_kernel(x_ptr, index_ptr, scan_ptr, layout: gl.constexpr):
    rows = gl.arange(0, 32, gl.SliceLayout(1, layout))
    cols = gl.arange(0, 64, gl.SliceLayout(0, layout))
    offsets = rows[:, None] * 64 + cols[None, :]
    x = gl.load(x_ptr + offsets)
    # The indices argmax makes internally take the operand's layout.
    _, index = gl.max(x, axis=1, return_indices=True)
    gl.store(index_ptr + rows, index)
    total = gl.sum(x, axis=1, keep_dims=True)
    gl.store(scan_ptr + offsets, gl.cumsum(x, axis=1) / total)


def test_argmax_keep_dims_and_scans(device, rng):
    x = rng.random((32, 64), dtype=np.float32)
    index, scan = np.zeros(32, np.int32), np.zeros_like(x)
    indices_and_scans_kernel[(1,)](x, index, scan, ROWS)
    np.testing.assert_array_equal(index, x.argmax(axis=1))
    np.testing.assert_allclose(scan, np.cumsum(x, axis=1) / x.sum(axis=1, keepdims=True),
                               rtol=1e-5)
