"""The CPU backend plugin (examples/backend-plugin), built out of tree and
named by TESSERA_CPU_PLUGIN (test/plugins/out-of-tree.sh builds and names
it): kernels on numpy arrays with TESSERA_DEVICE=cpu, against numpy and the
host interpreter. Skipped where the plugin is not built."""

import json
import os

import numpy as np
import pytest

import tessera
import tessera.language as tl
import tessera.profiler as proton
from tessera.runtime import gpu


@pytest.fixture
def cpu(monkeypatch):
    plugin = os.environ.get("TESSERA_CPU_PLUGIN")
    if not plugin:
        pytest.skip("TESSERA_CPU_PLUGIN names no CPU backend plugin")
    assert "cpu" in tessera.load_backend(plugin)
    monkeypatch.setenv("TESSERA_DEVICE", "cpu")
    monkeypatch.setattr(gpu, "_platform", None)
    monkeypatch.setattr(gpu, "_available", None)
    assert gpu.platform() == "cpu" and gpu.available() and gpu.staging()
    assert gpu.target(0).startswith("cpu:")
    return plugin


@tessera.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def test_vector_add(cpu):
    rng = np.random.default_rng(0)
    n = 100_003  # a partial last block
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.zeros_like(x)
    add_kernel[(tessera.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    np.testing.assert_array_equal(out, x + y)


@tessera.jit
def volatile_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.0, volatile=True)
    tl.store(out_ptr + offs, x)


def test_volatile_loads_of_an_unaligned_view(cpu):
    # Element by element: an element's alignment only, each lane masked.
    x = np.arange(65, dtype=np.float32)[1:]
    assert x.ctypes.data % 16 != 0
    out = np.zeros(32, np.float32)
    volatile_copy_kernel[(1,)](x, out, 29, BLOCK=32)
    np.testing.assert_array_equal(out, np.where(np.arange(32) < 29, x[:32], -1.0))


@tessera.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


def test_softmax_rows(cpu):
    rows = np.random.default_rng(1).standard_normal((37, 100)).astype(np.float32)
    out = np.empty_like(rows)
    softmax_kernel[(37,)](out, rows, 100, 100, BLOCK=128)
    e = np.exp(rows - rows.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


@tessera.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def test_matmul_over_a_2d_grid(cpu):
    rng = np.random.default_rng(2)
    a = rng.random((64, 48), dtype=np.float32)
    b = rng.random((48, 80), dtype=np.float32)
    c = np.empty((64, 80), np.float32)
    matmul_kernel[(4, 5)](a, b, c, 64, 80, 48, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@tessera.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               BATCH: tl.constexpr):
    b = tl.arange(0, BATCH)[:, None, None]
    m = tl.arange(0, M)[None, :, None]
    n = tl.arange(0, N)[None, None, :]
    k = tl.arange(0, K)
    x = tl.load(a_ptr + b * M * K + m * K + k[None, None, :])
    y = tl.load(b_ptr + b * K * N + k[None, :, None] * N + n)
    if BATCH == 1:
        tl.store(c_ptr + m * N + n, tl.expand_dims(tl.dot(tl.reshape(x, (M, K)),
                                                          tl.reshape(y, (K, N))), 0))
    else:
        tl.store(c_ptr + b * M * N + m * N + n, tl.dot(x, y))


@pytest.mark.parametrize("dtype, batch", [(np.float32, 1), (np.float16, 1), (np.int8, 1),
                                          (np.float32, 2)])
def test_dots_are_loops(cpu, dtype, batch):
    rng = np.random.default_rng(4)
    m, n, k = 32, 64, 32
    a = (rng.integers(-8, 8, (batch, m, k)) if dtype == np.int8
         else rng.standard_normal((batch, m, k))).astype(dtype)
    b = (rng.integers(-8, 8, (batch, k, n)) if dtype == np.int8
         else rng.standard_normal((batch, k, n))).astype(dtype)
    acc = np.int32 if dtype == np.int8 else np.float32
    c = np.zeros((batch, m, n), acc)
    compiled = dot_kernel[(1,)](a, b, c, M=m, N=n, K=k, BATCH=batch)
    np.testing.assert_allclose(c, a.astype(acc) @ b.astype(acc), rtol=1e-5, atol=1e-4)
    # A loop nest, not the M*N*K multiply-adds of the unrolled dot.
    llir = compiled.asm["llir"]
    assert llir.count("phi ") >= 3
    assert llir.count("fma") + llir.count(" mul ") < 500


@tessera.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.device_print("x:", tl.load(x_ptr + tl.arange(0, BLOCK)))


def test_kernels_print(cpu, capfd):
    print_kernel[(2,)](np.arange(4, dtype=np.int32), BLOCK=4)
    out = capfd.readouterr().out
    for pid in range(2):
        for i in range(4):
            assert f"pid ({pid}, 0, 0) idx ({i})x: {i}\n" in out


@tessera.jit
def asm_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, tl.inline_asm_elementwise("mov.b32 $0, $1;", "=f,f", [x],
                                                     dtype=tl.float32, is_pure=True, pack=1))


def test_inline_assembly_is_refused(cpu):
    with pytest.raises(tessera.CompilationError,
                       match="(?s)kernel has inline assembly.*does not take inline assembly"):
        asm_kernel[(1,)](np.zeros(16, np.float32), BLOCK=16)


@tessera.jit
def histogram_kernel(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(bins_ptr + tl.load(x_ptr + offs, mask=mask), 1, mask=mask)


def test_atomics_across_programs(cpu):
    x = np.random.default_rng(3).integers(0, 16, 50_000).astype(np.int32)
    bins = np.zeros(16, np.int32)
    histogram_kernel[(tessera.cdiv(x.size, 256),)](x, bins, x.size, BLOCK=256)
    np.testing.assert_array_equal(bins, np.bincount(x, minlength=16))


@tessera.jit
def scan_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


def test_scan(cpu):
    x = np.arange(64, dtype=np.int32)
    out = np.zeros_like(x)
    scan_kernel[(1,)](x, out, BLOCK=64)
    np.testing.assert_array_equal(out, np.cumsum(x))


@tessera.jit
def checked_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.device_assert(tl.load(x_ptr + offs, mask=offs < n, other=0) >= 0, "negative")


def test_a_failed_assert_fails_the_launch(cpu):
    checked_kernel[(2,)](np.ones(8, np.float32), 8, BLOCK=8)  # holds
    with pytest.raises(RuntimeError, match="device-side assertion failed: negative"):
        checked_kernel[(2,)](np.array([1, -1, 1, 1], np.float32), 4, BLOCK=8)


def test_the_backend_compiles_for_the_host_ahead_of_time(cpu):
    compiled = tessera.compile(add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                      "out_ptr": "*fp32", "n": "i32"},
                               constexprs={"BLOCK": 64}, target="cpu:native")
    assert compiled.asm["obj"][:4] == b"\x7fELF"
    assert "add_kernel:" in compiled.asm["asm"]
    assert compiled.metadata["warp_size"] == 1


def test_launches_are_profiled_with_events(cpu, tmp_path):
    x = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(x)
    # No tracer traces the CPU: asking for one says so, and events time it.
    with pytest.warns(RuntimeWarning, match="backend 'cupti' is not available "
                                            r"\(it traces NVIDIA GPUs, this is cpu\)"):
        proton.start(str(tmp_path / "cpu"), backend="cupti")
    with proton.scope("add"):
        add_kernel[(1,)](x, x, out, 1000, BLOCK=1024)
    proton.finalize()
    np.testing.assert_array_equal(out, 2 * x)
    with open(tmp_path / "cpu.hatchet") as f:
        profile = json.load(f)
    kernel = profile[0]["children"][0]["children"][0]
    assert kernel["frame"]["name"] == "add_kernel"
    assert kernel["metrics"]["device_type"] == "CPU" and kernel["metrics"]["count"] == 1
    device = profile[1]["CPU"][kernel["metrics"]["device_id"]]
    assert device["timing"] == "events" and device["name"].startswith("host CPU")
