"""The C++ launch path: launches of a compiled specialisation with torch CUDA
tensors go from kernel[grid](...) to the driver in one call, and behave as
the Python path does (specialisation, recompiling after edits, streams)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device here", allow_module_level=True)

OFFSET = tl.constexpr(0)


@tessera.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y + OFFSET, mask=mask)


def tensors(n, dtype=torch.float32):
    x = torch.arange(n, device="cuda", dtype=dtype)
    return x, torch.ones_like(x), torch.empty_like(x)


def test_repeated_launches_take_the_cpp_path():
    axpy_kernel._launcher.clear()
    x, y, out = tensors(1000)
    for a in (2.0, 3.0, 4.0):
        axpy_kernel[(4,)](x, y, out, a, 1000)
        torch.testing.assert_close(out, a * x + y)
    assert len(axpy_kernel._launcher) == 1


def test_specialisations_get_their_own_entries():
    axpy_kernel._launcher.clear()
    for n in (1000, 1024, 1):  # 1024: divisible by 16; 1: a constant
        x, y, out = tensors(n)
        axpy_kernel[(triton_cdiv(n, 256),)](x, y, out, 2.0, n)
        torch.testing.assert_close(out, 2 * x + y)
    x, y, out = tensors(1000, torch.float16)
    axpy_kernel[(4,)](x, y, out, 2.0, 1000)
    torch.testing.assert_close(out, 2 * x + y)
    # A view one element in is not 16-byte aligned.
    x, y, out = tensors(1001)
    axpy_kernel[(4,)](x[1:], y[1:], out[1:], 2.0, 1000)
    torch.testing.assert_close(out[1:], 2 * x[1:] + y[1:])
    assert len(axpy_kernel._launcher) == 5


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_grid_callables_keywords_and_defaults():
    x, y, out = tensors(3000)
    grid = lambda meta: (triton_cdiv(meta["n"], meta["BLOCK"]),)
    for block in (128, 512):
        out.zero_()
        axpy_kernel[grid](x, y, out, n=3000, a=0.5, BLOCK=block, num_warps=2)
        torch.testing.assert_close(out, 0.5 * x + y)


def test_changing_a_global_recompiles_on_the_cpp_path():
    global OFFSET
    x, y, out = tensors(256)
    axpy_kernel[(1,)](x, y, out, 1.0, 256)
    axpy_kernel[(1,)](x, y, out, 1.0, 256)
    try:
        OFFSET = tl.constexpr(5)
        axpy_kernel[(1,)](x, y, out, 1.0, 256)
        torch.testing.assert_close(out, x + y + 5)
    finally:
        OFFSET = tl.constexpr(0)
    axpy_kernel[(1,)](x, y, out, 1.0, 256)
    torch.testing.assert_close(out, x + y)


@tessera.jit
def ints_kernel(out_ptr, a, b, c, flag):
    tl.store(out_ptr, a.to(tl.int64))
    tl.store(out_ptr + 1, b.to(tl.int64))
    tl.store(out_ptr + 2, c)
    tl.store(out_ptr + 3, flag.to(tl.int64))


def test_integer_widths_and_bools():
    out = torch.zeros(4, dtype=torch.int64, device="cuda")
    for args in [(-7, 3_000_000_000, -2**40, True), (16, 2**32 - 1, 2**62, False)]:
        for _ in range(2):
            ints_kernel[(1,)](out, *args)
            assert out.tolist() == [args[0], args[1], args[2], int(args[3])]


def test_launches_run_on_torchs_current_stream():
    x, y, out = tensors(1 << 20)
    stream = torch.cuda.Stream()
    for _ in range(2):
        out.zero_()
        torch.cuda.synchronize()
        with torch.cuda.stream(stream):
            axpy_kernel[(4096,)](x, y, out, 2.0, 1 << 20)
        stream.synchronize()
        torch.testing.assert_close(out, 2 * x + y)


def test_mixed_memory_is_still_an_error():
    x, y, out = tensors(256)
    axpy_kernel[(1,)](x, y, out, 1.0, 256)
    with pytest.raises(ValueError, match="some arrays are on a GPU"):
        axpy_kernel[(1,)](x, y, np.zeros(256, np.float32), 1.0, 256)


def test_empty_grid_launches_nothing():
    x, y, out = tensors(256)
    out.fill_(7)
    axpy_kernel[(0,)](x, y, out, 1.0, 256)
    assert bool((out == 7).all())


def test_grids_past_the_limits_are_refused_on_the_cpp_path_too():
    x, y, out = tensors(256)
    axpy_kernel[(1,)](x, y, out, 1.0, 256)  # registered with the C++ path
    out.fill_(7)
    for grid, axis in (((1, 1 << 16), 1), ((1, 1, 1 << 16), 2), ((1 << 31,), 0)):
        with pytest.raises(ValueError, match=f"along axis {axis}; a launch has at most"):
            axpy_kernel[grid](x, y, out, 1.0, 256)
    with pytest.raises(TypeError, match="1.0 is a float"):
        axpy_kernel[(1.0,)](x, y, out, 1.0, 256)
    torch.cuda.synchronize()
    assert bool((out == 7).all())
    axpy_kernel[(1, (1 << 16) - 1)](x, y, out, 1.0, 256)  # the largest y
    torch.testing.assert_close(out, x + y)


@tessera.jit
def grid_barrier_kernel(counter_ptr, out_ptr, PROGRAMS: tl.constexpr):
    # Every program arrives, then waits for all the others: this finishes
    # only when the whole grid is resident at once.
    tl.atomic_add(counter_ptr, 1)
    while tl.atomic_add(counter_ptr, 0) < PROGRAMS:
        pass
    tl.store(out_ptr + tl.program_id(0), tl.atomic_add(counter_ptr, 0))


def test_launch_options_reach_the_gpu():
    x, y, out = tensors(1000)
    axpy_kernel[(4,)](x, y, out, 2.0, 1000, maxnreg=32, enable_fp_fusion=False)
    torch.testing.assert_close(out, 2 * x + y)
    capped = axpy_kernel.warmup(x, y, out, 2.0, 1000, grid=(4,), maxnreg=32)
    capped._init_handles()
    assert ".maxnreg 32" in capped.asm["ptx"] and capped.n_regs <= 32
    programs = torch.cuda.get_device_properties(0).multi_processor_count
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    seen = torch.zeros(programs, device="cuda", dtype=torch.int32)
    for _ in range(2):  # the Python path, then the C++ one
        counter.zero_()
        grid_barrier_kernel[(programs,)](counter, seen, PROGRAMS=programs,
                                         launch_cooperative_grid=True)
        torch.cuda.synchronize()
        assert (seen == programs).all()
    # More programs than fit at once: a cooperative launch refuses them.
    x, y, out = tensors(1 << 24)
    with pytest.raises(Exception, match="cuLaunchCooperativeKernel"):
        axpy_kernel[(1 << 16,)](x, y, out, 2.0, 1 << 24, launch_cooperative_grid=True)
