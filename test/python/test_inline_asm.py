"""tl.inline_asm_elementwise: PTX run on groups of elements, on the GPU
(the host interpreter cannot execute it, and says so)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.language.extra import cuda

# The assembly is PTX: AMD targets cannot assemble it.
pytestmark = pytest.mark.not_on_amd


@tessera.jit
def shift_bytes_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # Four bytes per 32-bit register: mask each, then shift all four.
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;",
                                  "=r,r", [x], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(y_ptr + offs, y)


@tessera.jit
def two_results_kernel(x_ptr, y_ptr, sum_ptr, diff_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    s, d = tl.inline_asm_elementwise("add.f32 $0, $2, $3; sub.f32 $1, $2, $3;", "=f,=f,f,f",
                                     [x, y], dtype=(tl.float32, tl.float32), is_pure=True,
                                     pack=1)
    tl.store(sum_ptr + offs, s)
    tl.store(diff_ptr + offs, d)


@tessera.jit
def half_pairs_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # Two halves per register, doubled by one packed add; a scalar operand
    # is broadcast to every element.
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1; add.rn.f16x2 $0, $0, $2;",
                                  "=r,r,r", [x, tl.cast(1.0, tl.float16)], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(y_ptr + offs, y)


@tessera.jit
def load_through_asm_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # Not pure: the assembly reads memory through the pointers it is given.
    y = tl.inline_asm_elementwise("ld.global.b32 $0, [$1];", "=r,l", [x_ptr + offs],
                                  dtype=tl.int32, is_pure=False, pack=1)
    tl.store(y_ptr + offs, y + 1)


def test_the_interpreter_says_it_cannot_run_assembly():
    x, y = np.zeros(128, np.uint8), np.zeros(128, np.int8)
    with pytest.raises(Exception, match="inline_asm_elementwise runs GPU assembly, which the "
                                        "host interpreter cannot execute"):
        shift_bytes_kernel[(1,)](x, y, BLOCK=128)


def test_the_assembly_reaches_the_ptx():
    kernel = tessera.compile(shift_bytes_kernel, {"x_ptr": "*u8:16", "y_ptr": "*i8:16"},
                             "cuda:90", constexprs={"BLOCK": 512})
    assert "and.b32" in kernel.asm["ptx"] and "0x1F1F1F1F" in kernel.asm["ptx"]
    assert "inline_asm" in kernel.asm["tile"]


def test_arguments_are_checked():
    @tessera.jit
    def bad_pack(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32,
                                  is_pure=True, pack=0)

    with pytest.raises(tessera.CompilationError, match="pack must be from 1 to 16, got 0"):
        tessera.compile(bad_pack, {"x_ptr": "*i32"}, "cuda:90", constexprs={"BLOCK": 64})


def on_gpu(device):
    if device in ("interpreter", "cpu"):
        pytest.skip("inline assembly runs on GPUs only")


def test_packed_bytes(device, rng):
    on_gpu(device)
    x = rng.integers(0, 256, 512, dtype=np.uint8)
    y = np.zeros(512, np.int8)
    shift_bytes_kernel[(1,)](x, y, BLOCK=512)
    np.testing.assert_array_equal(y, ((x & 0x1F) << 3).astype(np.int8))


@pytest.mark.parametrize("block", [1, 64, 1024])
def test_several_results(device, rng, block):
    on_gpu(device)
    x, y = rng.standard_normal(block).astype(np.float32), rng.standard_normal(block).astype(np.float32)
    s, d = np.zeros_like(x), np.zeros_like(x)
    two_results_kernel[(1,)](x, y, s, d, BLOCK=block)
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_array_equal(d, x - y)


@pytest.mark.parametrize("block", [1, 256])
def test_half_pairs_and_a_broadcast_scalar(device, rng, block):
    on_gpu(device)
    # One element per thread: the second of each pair is padding.
    x = rng.standard_normal(block).astype(np.float16)
    y = np.zeros_like(x)
    half_pairs_kernel[(1,)](x, y, BLOCK=block)
    np.testing.assert_array_equal(y, x + x + np.float16(1))


def test_assembly_that_reads_memory(device):
    on_gpu(device)
    x = np.arange(128, dtype=np.int32) * 3
    y = np.zeros_like(x)
    load_through_asm_kernel[(1,)](x, y, BLOCK=128)
    np.testing.assert_array_equal(y, x + 1)


@tessera.jit
def special_registers_kernel(out_ptr):
    start = cuda.globaltimer()
    sm = cuda.smid()
    end = cuda.globaltimer()
    tl.store(out_ptr + 0, cuda.num_threads())
    tl.store(out_ptr + 1, cuda.num_warps())
    tl.store(out_ptr + 2, sm)
    tl.store(out_ptr + 3, end - start)


def test_special_registers_reach_the_ptx():
    kernel = tessera.compile(special_registers_kernel, {"out_ptr": "*i64"}, "cuda:90",
                             num_warps=8)
    ptx = kernel.asm["ptx"]
    # The timer is read twice (not pure: never merged), the SM id once.
    assert ptx.count("%globaltimer") == 2 and ptx.count("%smid") == 1
    # num_threads and num_warps are constants of the launch.
    tile = kernel.asm["tile"]
    assert "arith.constant 256 : i64" in tile and "arith.constant 8 : i64" in tile


def test_launch_constants_follow_num_warps():
    for warps in (1, 4):
        tile = tessera.compile(special_registers_kernel, {"out_ptr": "*i64"}, "cuda:90",
                               num_warps=warps).asm["tile"]
        assert f"arith.constant {32 * warps} : i64" in tile


def test_special_registers_on_the_gpu(device):
    on_gpu(device)
    out = np.full(4, -1, np.int64)
    special_registers_kernel[(1,)](out, num_warps=2)
    assert out[0] == 64 and out[1] == 2
    assert 0 <= out[2] < 1024
    assert out[3] >= 0


def test_custom_float8_conversions_are_casts(device):
    @tessera.jit
    def round_trip(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        f8 = cuda.convert_custom_float8_sm80(x, tl.float8e4b15, "rtne")
        tl.store(y_ptr + offs, cuda.convert_custom_float8_sm90(f8, tl.float32, None))

    # Values that fp8e4b15 holds exactly come back unchanged.
    x = np.array([0.0, 0.5, -1.25, 1.75, 0.0078125, -0.25, 1.0, -1.75], np.float32)
    y = np.zeros_like(x)
    round_trip[(1,)](x, y, BLOCK=8)
    np.testing.assert_array_equal(y, x)
