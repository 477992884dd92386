"""Specialisation and the cache of compiled kernels."""

import inspect
import sys
import textwrap
import types

import numpy as np
import pytest

import tessera
import tessera.language as tl

SCALE = tl.constexpr(2)


@tessera.jit
def scaled_copy(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride, mask=mask) * SCALE, mask=mask)


def test_integers_equal_to_one_and_divisibility_specialise(device):
    scaled_copy.cache.clear()
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(16, np.float32)
    scaled_copy[(1,)](x, y, 16, 1, BLOCK=16)
    np.testing.assert_array_equal(y, x[:16] * 2)
    assert len(scaled_copy.cache) == 1
    scaled_copy[(1,)](x, y, 16, 1, BLOCK=16)  # same specialisation: reused
    assert len(scaled_copy.cache) == 1
    scaled_copy[(1,)](x, y, 15, 1, BLOCK=16)  # n no longer divisible by 16
    assert len(scaled_copy.cache) == 2
    scaled_copy[(1,)](x, y, 16, 2, BLOCK=16)  # stride no longer 1
    np.testing.assert_array_equal(y, x[:32:2] * 2)
    assert len(scaled_copy.cache) == 3
    scaled_copy[(1,)](x, y, 16, 1, BLOCK=32)  # another constexpr
    assert len(scaled_copy.cache) == 4
    # The constant 1 is in the IR, not an argument.
    ir = scaled_copy.warmup(x, y, 16, 1, BLOCK=16).asm["tile"]
    assert ir.count("%arg") < scaled_copy.warmup(x, y, 16, 2, BLOCK=16).asm["tile"].count("%arg")
    assert "tile.divisibility = 16" in ir


@tessera.jit(do_not_specialize=["n"])
def unspecialised(x_ptr, n):
    tl.store(x_ptr, n)


def test_do_not_specialize(device):
    x = np.zeros(1, np.int32)
    for n in (1, 16, 17):
        unspecialised[(1,)](x, n)
        assert x[0] == n
    assert len(unspecialised.cache) == 1


@tessera.jit(do_not_specialize_on_alignment=["x_ptr"], repr=lambda spec: "copy_kernel",
             launch_metadata=lambda grid, kernel, args: {"name": "copy"})
def renamed(x_ptr, n):
    tl.store(x_ptr, n)


def test_jit_takes_tritons_options(device):
    """repr names the kernel for profilers, launch_metadata is kept for their
    hook, arguments not specialized on alignment still run; a keyword jit
    does not know is refused."""
    x = np.zeros(4, np.int32)
    renamed[(1,)](x[1:], 5)
    renamed[(1,)](x, 7)
    assert list(x) == [7, 5, 0, 0]
    assert len(renamed.cache) == 1
    assert renamed.repr(None) == "copy_kernel" and unspecialised.repr(None) == "unspecialised"
    assert renamed.launch_metadata((1,), None, {}) == {"name": "copy"}
    with pytest.raises(TypeError, match="do_not_specialise"):
        tessera.jit(do_not_specialise=["n"])


@tessera.jit
def _helper(x):
    return x + 1


@tessera.jit
def uses_helper(x_ptr):
    tl.store(x_ptr, _helper(tl.load(x_ptr)))


def test_editing_a_helper_recompiles(device):
    x = np.zeros(1, np.int32)
    uses_helper[(1,)](x)
    assert x[0] == 1
    original = _helper.src
    try:
        _helper.src = original.replace("x + 1", "x + 10")
        _helper._tree = None
        uses_helper[(1,)](x)
        assert x[0] == 11
    finally:
        _helper.src = original
        _helper._tree = None


def test_changing_a_global_recompiles(device):
    global SCALE
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    scaled_copy[(1,)](x, y, 16, 1, BLOCK=16)
    np.testing.assert_array_equal(y, x * 2)
    try:
        SCALE = tl.constexpr(3)
        scaled_copy[(1,)](x, y, 16, 1, BLOCK=16)
        np.testing.assert_array_equal(y, x * 3)
    finally:
        SCALE = tl.constexpr(2)


def test_grid_callable_gets_the_meta_parameters(device):
    x = np.zeros(64, np.float32)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (tessera.cdiv(64, meta["BLOCK"]),)

    scaled_copy[grid](x, x, 64, 1, BLOCK=16)
    assert seen["BLOCK"] == 16 and seen["n"] == 64 and seen["num_warps"] == 4


def test_helpers():
    assert tessera.cdiv(10, 4) == 3
    assert tessera.next_power_of_2(1) == 1
    assert tessera.next_power_of_2(781) == 1024
    assert tessera.next_power_of_2(1024) == 1024


@tessera.jit
def template_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), GENERATE_TEST_HERE)  # noqa: F821


def test_a_template_kernel_patched_by_its_source(device):
    # Triton's test helpers make kernels from a template this way.
    kernel = tessera.JITFunction(template_kernel.fn)
    kernel._unsafe_update_src(kernel.src.replace("GENERATE_TEST_HERE", "x * 2"))
    x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    kernel[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, x * 2)
    # Patched again, the kernel compiled from the old text is not reused.
    kernel._unsafe_update_src(kernel.src.replace("x * 2", "x + 10"))
    kernel[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, x + 10)


def patch_kernel(template, to_replace):
    # Triton's test helpers make kernels from a template this way in
    # interpreter mode: exec of the patched source.
    scope = {}
    src = textwrap.dedent(inspect.getsource(template.fn))
    for key, value in to_replace.items():
        src = src.replace(key, value)
    exec(src, template.fn.__globals__, scope)
    return scope[template.fn.__name__]


def test_a_kernel_made_by_exec_of_its_source(device):
    kernel = patch_kernel(template_kernel, {"GENERATE_TEST_HERE": "x * 3"})
    x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    kernel[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, x * 3)
    # Its errors quote the executed text.
    broken = patch_kernel(template_kernel, {"GENERATE_TEST_HERE": "x + no_such_name"})
    with pytest.raises(tessera.CompilationError,
                       match=r"<exec of template_kernel>:\d+:\d+: name 'no_such_name' is not "
                             r"defined\n.*x \+ no_such_name"):
        broken[(1,)](x, out, N=8)


def test_a_kernel_without_source_is_named():
    # The string exec ran is gone: nothing holds it.
    scope = {}
    with pytest.raises(TypeError, match="cannot read the source of made_by_exec"):
        exec("import tessera\n@tessera.jit\ndef made_by_exec(x):\n    pass\n", scope)


@tessera.jit
def halve_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), (x >> 1).to(tl.int64))


def test_reinterpret_gives_kernels_another_element_type(device):
    x = np.array([-2, -1, 4, 7], np.int32)
    out = np.zeros(4, np.int64)
    unsigned = tessera.reinterpret(x, tl.uint32)
    assert unsigned.dtype == tl.uint32 and unsigned.shape == x.shape
    assert unsigned.data_ptr() == x.ctypes.data and unsigned.stride() == (1,)
    halve_kernel[(1,)](unsigned, out, N=4)  # a logical shift
    np.testing.assert_array_equal(out, x.view(np.uint32) >> 1)
    halve_kernel[(1,)](x, out, N=4)  # an arithmetic one
    np.testing.assert_array_equal(out, x >> 1)
    with pytest.raises(TypeError, match="cannot reinterpret a str"):
        tessera.reinterpret("x", tl.uint32)


def test_launch_options_are_accepted_and_specialise(device):
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    options = dict(enable_fp_fusion=False, maxnreg=128, launch_cooperative_grid=True)
    scaled_copy[(1,)](x, y, 64, 1, BLOCK=64, **options)
    np.testing.assert_array_equal(y, 2 * x)
    tuned = scaled_copy.warmup(x, y, 64, 1, BLOCK=64, **options)
    plain = scaled_copy.warmup(x, y, 64, 1, BLOCK=64)
    assert tuned is not plain
    assert (tuned.metadata.maxnreg, tuned.metadata.enable_fp_fusion) == (128, False)
    assert plain.metadata.maxnreg is None and plain.metadata.launch_cooperative_grid is False
    # A compiled kernel launches with the options it was compiled with
    # (Triton's tutorial 02 launches what warmup returns).
    y[:] = 0
    assert tuned[(1,)](x, y, 64, 1, 64) is tuned and plain[(1,)](x, y, 64, 1, 64) is plain
    np.testing.assert_array_equal(y, 2 * x)
    with pytest.raises(TypeError, match="scaled_copy: maxnreg must be a positive integer"):
        scaled_copy[(1,)](x, y, 64, 1, BLOCK=64, maxnreg="many")
    with pytest.raises(TypeError, match="launch_cooperative_grid must be True or False"):
        scaled_copy[(1,)](x, y, 64, 1, BLOCK=64, launch_cooperative_grid=None)
    with pytest.raises(AssertionError, match="scaled_copy: num_warps must be a power of 2 from 1 to 32, got 3"):
        scaled_copy[(1,)](x, y, 64, 1, BLOCK=64, num_warps=3)


def test_launches_with_a_torch_built_without_cuda(monkeypatch):
    # Such a torch has no CUDA stream functions; launches do not ask for them.
    fake_torch = types.ModuleType("torch")
    fake_torch.Tensor = type("Tensor", (), {})
    fake_torch._C = types.ModuleType("torch._C")
    monkeypatch.setitem(sys.modules, "torch", fake_torch)

    @tessera.jit
    def add_one(x_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)

    x = np.zeros(16, np.float32)
    add_one[(1,)](x, N=16)
    np.testing.assert_array_equal(x, 1)


@tessera.jit
def store_scalar_kernel(out_ptr, v):
    tl.store(out_ptr, v)
    tl.store(out_ptr + 1, (v > 1).to(out_ptr.dtype.element_ty))


@pytest.mark.parametrize("value", [2**63, 2**64 - 1, 2**32 + 16])
def test_64_bit_scalar_arguments(device, value):
    # Above 2**63 an integer is a uint64, as in Triton.
    out = np.zeros(2, np.uint64)
    store_scalar_kernel[(1,)](out, value)
    assert out.tolist() == [value, 1]


def test_warmup_compiles_for_the_gpu_of_its_arguments(device):
    # As Triton's: the binary is there after warmup, nothing launched.
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    kernel = scaled_copy.warmup(x, y, 16, 1, BLOCK=16, grid=(1,))
    if device == "cuda":
        assert ".entry scaled_copy" in dict.get(kernel.asm, "ptx", "")
        assert kernel.asm["cubin"]
    elif device == "hip":
        assert "scaled_copy" in dict.get(kernel.asm, "amdgcn", "")
    else:
        assert "ptx" not in dict.keys(kernel.asm)
    assert not y.any()


def test_warmup_again_finds_its_kernel():
    # A program may warm a kernel up before every launch (Triton's tutorial
    # 02): the same arguments give the same compiled kernel without binding
    # them again; other values, another source or a compiling knob's change
    # compile anew.
    x = np.arange(16, dtype=np.float32)
    first = scaled_copy.warmup(x, x, 16, 3, BLOCK=16)
    assert scaled_copy.warmup(x, np.zeros(16, np.float32), 16, 3, BLOCK=16) is first
    assert scaled_copy.warmup(x, x, 16, 3, BLOCK=32) is not first
    assert scaled_copy.warmup(x, x, 16, 1, BLOCK=16) is not first  # 1 is a constant
    assert scaled_copy.warmup(x.astype(np.float64), x, 16, 3, BLOCK=16) is not first
    unaligned = np.zeros(17, np.float32)[1:]
    assert scaled_copy.warmup(unaligned, x, 16, 3, BLOCK=16) is not first
    # A reinterpreted view is its own type.
    as_int = tessera.reinterpret(x, tl.int32)
    viewed = scaled_copy.warmup(as_int, x, 16, 3, BLOCK=16)
    assert viewed is not first and scaled_copy.warmup(as_int, x, 16, 3, BLOCK=16) is viewed
    scaled_copy.forget_compiled()
    assert scaled_copy.warmup(x, x, 16, 3, BLOCK=16) is not first


def test_stages_answer_to_tritons_names():
    x = np.zeros(16, np.float32)
    kernel = scaled_copy.warmup(x, x, 16, 1, BLOCK=16)
    assert "ttir" in kernel.asm and kernel.asm["ttir"] == kernel.asm["tile"]
    assert kernel.asm["ttgir"] == kernel.asm["tile-layout"]
    assert "#tile." in kernel.asm["ttgir"]
