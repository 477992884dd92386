"""The IR the frontend builds for key constructs (kernel.asm["tile"])."""

import re

import numpy as np

import tessera
import tessera.language as tl


@tessera.jit
def loop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(n):
        acc += tl.load(x_ptr + i * BLOCK + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), acc)


def test_loop_carries_the_accumulator():
    ir = loop_kernel.warmup(np.zeros(64, np.float32), 4, BLOCK=16).asm["tile"]
    assert re.search(r"scf\.for .* iter_args\(%\w+ = %\w+\) -> \(tensor<16xf32>\)", ir), ir
    assert "scf.yield" in ir


@tessera.jit
def branch_kernel(x_ptr, flag):
    x = tl.load(x_ptr)
    if flag > 0:
        x = x * 2
    else:
        x = x - 1
    tl.store(x_ptr, x)


def test_runtime_if_yields_the_value():
    ir = branch_kernel.warmup(np.zeros(1, np.float32), 3).asm["tile"]
    assert re.search(r"= scf\.if %\w+ -> \(f32\)", ir), ir


@tessera.jit
def masked_reduce_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr, tl.sum(x, axis=0))


def test_masked_load_and_reduction():
    ir = masked_reduce_kernel.warmup(np.zeros(16, np.float32), np.zeros(1, np.float32), 10,
                                     BLOCK=16).asm["tile"]
    assert re.search(r"tile\.load %\w+, %\w+, %\w+ : tensor<16x!tile\.ptr<f32>>", ir), ir
    assert re.search(r"tile\.reduce\(%\w+\) axis = 0 : \(tensor<16xf32>\) -> f32", ir), ir
    assert "arith.addf" in ir


@tessera.jit
def static_loop_kernel(x_ptr):
    for i in tl.static_range(3):
        tl.store(x_ptr + i, i)


def test_static_range_unrolls():
    ir = static_loop_kernel.warmup(np.zeros(3, np.int32)).asm["tile"]
    assert "scf.for" not in ir
    assert ir.count("tile.store") == 3


def test_the_layout_stage_coalesces_accesses():
    asm = masked_reduce_kernel.warmup(np.zeros(1024, np.float32), np.zeros(1, np.float32), 10,
                                      BLOCK=1024).asm
    layout = asm["tile-layout"]
    assert "#tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]" in layout
    assert "tile.convert_layout" not in layout
    assert "module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32}" in layout
    eight = masked_reduce_kernel.warmup(np.zeros(1024, np.float32), np.zeros(1, np.float32), 10,
                                        BLOCK=1024, num_warps=8).asm["tile-layout"]
    assert "warpsPerCTA = [8]" in eight


@tessera.jit
def divide_kernel(x_ptr, h_ptr, out_ptr, hout_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    h = tl.load(h_ptr + tl.arange(0, 4))
    tl.store(out_ptr + tl.arange(0, 4), x / 3.0 + tl.math.div_rn(x, 3.0)
             + tl.fdiv(x, 7.0, ieee_rounding=True))
    tl.store(hout_ptr + tl.arange(0, 4), h / h)


def test_division_is_approximate_only_where_triton_is():
    # fp32 `/` may be 2 ulp off on GPUs (div.full.f32), as in Triton;
    # div_rn, fdiv(ieee_rounding=True) and fp16 division are rounded.
    x, h = np.ones(4, np.float32), np.ones(4, np.float16)
    ir = divide_kernel.warmup(x, h, x, h).asm["tile"]
    divisions = re.findall(r"arith\.divf [^:]*: tensor<4x(f32|f16)>", ir)
    assert len(divisions) == 4, ir
    approximate = [d for d in re.findall(r"arith\.divf [^\n]*", ir) if "arcp" in d]
    assert len(approximate) == 1 and "f32" in approximate[0], ir


def test_division_results_agree(device):
    x = np.linspace(1, 100, 4, dtype=np.float32)
    h = np.array([1, 2, 3, 4], np.float16)
    out, hout = np.zeros_like(x), np.zeros_like(h)
    divide_kernel[(1,)](x, h, out, hout)
    expected = x / np.float32(3) + x / np.float32(3) + x / np.float32(7)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    np.testing.assert_array_equal(hout, np.ones(4, np.float16))


@tessera.jit
def sqrt_kernel(x_ptr, h_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    h = tl.load(h_ptr + tl.arange(0, 4))
    tl.store(x_ptr + tl.arange(0, 4), tl.sqrt(x) + tl.sqrt_rn(x))
    tl.store(h_ptr + tl.arange(0, 4), tl.sqrt(h))


def test_sqrt_is_approximate_only_where_triton_is():
    # tl.sqrt in fp32 (fp16 is computed in fp32, then rounded) may be
    # approximate (sqrt.approx.ftz.f32 on NVIDIA); tl.sqrt_rn is exact.
    x, h = np.ones(4, np.float32), np.ones(4, np.float16)
    ir = sqrt_kernel.warmup(x, h).asm["tile"]
    roots = re.findall(r"math\.sqrt [^\n]*", ir)
    assert len(roots) == 3, ir
    assert [r for r in roots if "afn" not in r] == [roots[1]], ir


def test_sqrt_results_agree(device):
    x = np.array([0.25, 2.0, 9.0, 1e6], np.float32)
    h = np.array([4, 9, 16, 2], np.float16)
    expected_x, expected_h = 2 * np.sqrt(x), np.sqrt(h)
    sqrt_kernel[(1,)](x, h)
    np.testing.assert_allclose(x, expected_x, rtol=2e-6)
    np.testing.assert_allclose(h, expected_h, rtol=1e-3)
