"""tessera.knobs: Triton's knob names over Tessera's environment variables,
set, restored and scoped; the knobs that change compiled code make kernels
compile again."""

import os

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _tessera, knobs


@pytest.fixture(autouse=True)
def clean_knobs(monkeypatch):
    """Each test starts and ends with no knob set in Python."""
    for name in ("TESSERA_F32_DEFAULT", "TESSERA_DEFAULT_FP_FUSION", "TESSERA_PRINT_AUTOTUNING",
                 "TESSERA_CACHE_AUTOTUNING", "TESSERA_ALWAYS_COMPILE", "TESSERA_INTERPRET",
                 "TRITON_INTERPRET", "TESSERA_DISABLE_MMA_V3", "DISABLE_MMA_V3"):
        monkeypatch.delenv(name, raising=False)
    groups = (knobs.cache, knobs.compilation, knobs.runtime, knobs.autotuning, knobs.language,
              knobs.nvidia)
    for group in groups:
        group.reset()
    yield
    for group in groups:
        group.reset()


@tessera.jit
def square_dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    # c = a @ b for NxN matrices of whatever element type the pointers have.
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))


@tessera.jit
def fma_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * x + 1.0, mask=offs < n)


def test_a_knob_reads_its_variable_until_set_and_restores_it(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "a"))
    assert knobs.cache.dir == str(tmp_path / "a")
    knobs.cache.dir = str(tmp_path / "b")
    assert os.environ["TESSERA_CACHE_DIR"] == str(tmp_path / "b")
    assert knobs.cache.knobs == {"dir": str(tmp_path / "b")}
    del knobs.cache.dir
    assert os.environ["TESSERA_CACHE_DIR"] == str(tmp_path / "a")
    knobs.autotuning.print = True
    assert os.environ["TESSERA_PRINT_AUTOTUNING"] == "1" and knobs.autotuning.print is True
    knobs.autotuning.print = knobs.env
    assert "TESSERA_PRINT_AUTOTUNING" not in os.environ and knobs.autotuning.print is False
    monkeypatch.setenv("TESSERA_INTERPRET", "true")
    assert knobs.runtime.interpret is True
    monkeypatch.delenv("TESSERA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert knobs.cache.dir == str(tmp_path / "tessera")


def test_scope_restores_the_knobs_and_their_variables():
    knobs.language.default_fp_fusion = False
    with knobs.language.scope():
        knobs.language.fp32_default = "ieee"
        knobs.language.default_fp_fusion = True
        assert os.environ["TESSERA_F32_DEFAULT"] == "ieee"
    assert knobs.language.knobs == {"fp32_default": None, "default_fp_fusion": False}
    assert "TESSERA_F32_DEFAULT" not in os.environ
    assert os.environ["TESSERA_DEFAULT_FP_FUSION"] == "0"
    copy = knobs.language.copy()
    assert copy.default_fp_fusion is False
    knobs.language.reset()
    assert "TESSERA_DEFAULT_FP_FUSION" not in os.environ and copy.default_fp_fusion is False


def test_bad_values_and_names_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="TESSERA_F32_DEFAULT='fast': expected tf32, tf32x3"):
        knobs.language.fp32_default = "fast"
    assert "TESSERA_F32_DEFAULT" not in os.environ
    monkeypatch.setenv("TESSERA_CACHE_AUTOTUNING", "maybe")
    with pytest.raises(ValueError, match="TESSERA_CACHE_AUTOTUNING='maybe': expected 1 or 0"):
        knobs.autotuning.cache
    with pytest.raises(AttributeError, match="knobs.runtime has no knob 'debugging'; it has "
                                             "interpret"):
        knobs.runtime.debugging = True


def test_fp32_default_sets_the_precision_of_dots_and_recompiles():
    a = np.ones((16, 16), np.float32)
    c = np.zeros((16, 16), np.float32)
    assert "precision = tf32" in square_dot.warmup(a, a, c, 16, grid=(1,)).asm["tile"]
    knobs.language.fp32_default = "ieee"  # the dot's default form: no attribute
    assert "precision" not in square_dot.warmup(a, a, c, 16, grid=(1,)).asm["tile"]
    square_dot[(1,)](a, a, c, 16)
    np.testing.assert_array_equal(c, np.full((16, 16), 16, np.float32))
    del knobs.language.fp32_default
    assert "precision = tf32" in square_dot.warmup(a, a, c, 16, grid=(1,)).asm["tile"]


def test_default_fp_fusion_is_the_launch_default():
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    assert fma_kernel.warmup(x, y, 8, BLOCK=8, grid=(1,)).metadata.enable_fp_fusion is True
    knobs.language.default_fp_fusion = False
    assert fma_kernel.warmup(x, y, 8, BLOCK=8, grid=(1,)).metadata.enable_fp_fusion is False
    explicit = fma_kernel.warmup(x, y, 8, BLOCK=8, grid=(1,), enable_fp_fusion=True)
    assert explicit.metadata.enable_fp_fusion is True


def test_default_fp_fusion_is_the_ahead_of_time_default():
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}
    fused = tessera.compile(fma_kernel, signature, "cuda:90", constexprs={"BLOCK": 64})
    assert "fma.rn.f32" in fused.asm["ptx"]
    knobs.language.default_fp_fusion = False
    apart = tessera.compile(fma_kernel, signature, "cuda:90", constexprs={"BLOCK": 64})
    assert "fma.rn.f32" not in apart.asm["ptx"]
    explicit = tessera.compile(fma_kernel, signature, "cuda:90", constexprs={"BLOCK": 64},
                               enable_fp_fusion=True)
    assert "fma.rn.f32" in explicit.asm["ptx"]


def test_disable_mma_v3_keeps_hopper_dots_on_mma_sync(cache_dir, monkeypatch):
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}
    compile = lambda: tessera.compile(square_dot, signature, "cuda:90", constexprs={"N": 64})
    assert "wgmma.mma_async" in compile().asm["ptx"]
    knobs.nvidia.disable_mma_v3 = True
    ptx = compile().asm["ptx"]
    assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx
    # Triton's variable, where Tessera's is unset; the disk cache keeps both.
    del knobs.nvidia.disable_mma_v3
    monkeypatch.setenv("DISABLE_MMA_V3", "1")
    assert "wgmma" not in compile().asm["ptx"]
    monkeypatch.setenv("DISABLE_MMA_V3", "0")
    assert "wgmma.mma_async" in compile().asm["ptx"]
    # A launch follows the knob too (on the interpreter, the same result).
    a = np.ones((64, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    knobs.nvidia.disable_mma_v3 = True
    square_dot[(1,)](a, a, c, 64)
    np.testing.assert_array_equal(c, np.full((64, 64), 64, np.float32))


def test_interpret_reads_tritons_variable_where_tesseras_is_unset(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert knobs.runtime.interpret is True
    monkeypatch.setenv("TESSERA_INTERPRET", "0")
    assert knobs.runtime.interpret is False
    monkeypatch.delenv("TESSERA_INTERPRET")
    monkeypatch.setenv("TRITON_INTERPRET", "maybe")
    with pytest.raises(ValueError, match="TRITON_INTERPRET='maybe'"):
        knobs.runtime.interpret


def test_triton_test_helpers_ask_the_interpret_knob(monkeypatch):
    pytest.importorskip("torch")  # _internal_testing builds torch tensors
    from tessera import _internal_testing
    monkeypatch.setenv("TRITON_INTERPRET", "yes")
    assert _internal_testing.is_interpreter()
    knobs.runtime.interpret = False
    assert not _internal_testing.is_interpreter()


def test_always_compile_skips_the_disk_cache(tmp_path):
    knobs.cache.dir = str(tmp_path)
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    tile = fma_kernel.warmup(x, y, 8, BLOCK=8, grid=(1,))._tile_ir
    knobs.compilation.always_compile = True
    assert _tessera.compile_cached(tile, "cuda:90")[1] == "off"
    knobs.compilation.always_compile = False
    assert _tessera.compile_cached(tile, "cuda:90")[1] != "off"


def test_autotuning_knobs_print_and_keep_results(tmp_path, capsys):
    knobs.cache.dir = str(tmp_path)
    configs = [tessera.Config({"BLOCK": b}) for b in (8, 16)]
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)

    def timed(fn, quantiles=None):
        fn()
        return [1.0, 1.0, 1.0]

    knobs.autotuning.cache = False
    knobs.autotuning.print = True
    tuned = tessera.autotune(configs, key=["n"], do_bench=timed)(fma_kernel)
    tuned[(1,)](x, y, 8)
    assert "best config" in capsys.readouterr().out
    assert not (tmp_path / "autotune").exists()
    knobs.autotuning.cache = True
    tuned = tessera.autotune(configs, key=["n"], do_bench=timed)(fma_kernel)
    tuned[(1,)](x, y, 8)
    assert list((tmp_path / "autotune").iterdir())


def test_fresh_knobs_as_tritons_fixtures_use_them(monkeypatch):
    pytest.importorskip("torch")  # _internal_testing builds torch tensors
    from tessera._internal_testing import _fresh_knobs_impl
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    knobs.compilation.always_compile = True
    saved_runtime, saved_compilation = knobs.runtime, knobs.compilation
    fresh, reset = _fresh_knobs_impl(skipped_attr={"compilation"})
    fresh_knobs = fresh()
    assert fresh_knobs is knobs and knobs.runtime is not saved_runtime
    assert knobs.runtime.interpret is False and "TESSERA_INTERPRET" not in os.environ
    assert knobs.compilation is saved_compilation and knobs.compilation.always_compile is True
    knobs.runtime.interpret = True
    reset()
    assert knobs.runtime is saved_runtime and knobs.runtime.interpret is True
    assert os.environ["TESSERA_INTERPRET"] == "1" and os.environ["TRITON_INTERPRET"] == "1"
    del knobs.compilation.always_compile


def test_the_allocator_is_set_by_function_and_null_until_then():
    from tessera.runtime import _allocation
    saved = _allocation.get_allocator()
    try:
        tessera.set_allocator(_allocation.NullAllocator())
        with pytest.raises(RuntimeError, match="no allocator was set"):
            _allocation.get_allocator()(64, 16, None)
        tessera.set_allocator(lambda size, alignment, stream: bytearray(size))
        assert len(_allocation.get_allocator()(64, 16, None)) == 64
        with pytest.raises(TypeError, match="set_allocator takes a function"):
            tessera.set_allocator(64)
    finally:
        tessera.set_allocator(saved)
