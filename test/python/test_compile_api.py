"""tessera.compile: ahead-of-time compilation from a signature, for targets
this machine has no GPU for."""

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr, ACTIVATION: tl.constexpr = "none"):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask) * alpha
    if ACTIVATION == "relu":
        y = tl.maximum(y, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32", "alpha": "fp32"}


@pytest.mark.parametrize("target,binary,assembly", [
    ("hip:gfx942", "hsaco", "amdgcn"), ("hip:gfx1100", "hsaco", "amdgcn"),
    ("cuda:90", "cubin", "ptx")])
def test_compiles_for_a_target_without_its_gpu(target, binary, assembly):
    kernel = tessera.compile(scale_kernel, signature=SIGNATURE, constexprs={"BLOCK": 1024},
                             target=target, num_warps=8)
    for stage in ("tile", "tile-layout", "llir", assembly):
        assert kernel.asm[stage], stage
    assert "func.func @scale_kernel(%arg0: !tile.ptr<f32> {tile.divisibility = 16" \
        in kernel.asm["tile"]
    if binary == "cubin" and binary not in kernel.asm:
        pytest.skip("no PTX assembler here")
    assert kernel.asm[binary].startswith(b"\x7fELF")
    assert kernel.metadata["num_warps"] == 8
    assert kernel.metadata["warp_size"] == (32 if target in ("hip:gfx1100", "cuda:90") else 64)


def test_constexprs_and_defaults_choose_the_code():
    plain = tessera.compile(scale_kernel, SIGNATURE, "hip:gfx942", constexprs={"BLOCK": 256})
    relu = tessera.compile(scale_kernel, SIGNATURE, "hip:gfx942",
                           constexprs={"BLOCK": 256, "ACTIVATION": "relu"})
    assert "arith.maxnumf" not in plain.asm["tile"] and "arith.maxnumf" in relu.asm["tile"]
    assert "tensor<256x" in plain.asm["tile"]


def test_signature_mistakes_are_named():
    with pytest.raises(TypeError, match="'n' has type 'int' in the signature"):
        tessera.compile(scale_kernel, dict(SIGNATURE, n="int"), "cuda:90",
                        constexprs={"BLOCK": 64})
    with pytest.raises(TypeError, match="'BLOCK' is in neither the signature nor constexprs"):
        tessera.compile(scale_kernel, SIGNATURE, "cuda:90")
    with pytest.raises(TypeError, match="has no argument beta"):
        tessera.compile(scale_kernel, dict(SIGNATURE, beta="fp32"), "cuda:90",
                        constexprs={"BLOCK": 64})
    with pytest.raises(tessera.CompilationError, match="unknown target 'tpu:v5'"):
        tessera.compile(scale_kernel, SIGNATURE, "tpu:v5", constexprs={"BLOCK": 64})


def test_waves_per_eu_reaches_the_amd_kernel():
    hinted = tessera.compile(scale_kernel, SIGNATURE, "hip:gfx942", constexprs={"BLOCK": 256},
                             waves_per_eu=2)
    plain = tessera.compile(scale_kernel, SIGNATURE, "hip:gfx942", constexprs={"BLOCK": 256})
    assert '"amdgpu-waves-per-eu"="2"' in hinted.asm["llir"]
    assert "amdgpu-waves-per-eu" not in plain.asm["llir"]


@tessera.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y + 1.5, mask=mask)


AXPY = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32"}


def test_enable_fp_fusion_decides_whether_multiply_adds_fuse():
    for target, fused in (("cuda:90", "fma.rn.f32"), ("hip:gfx942", "v_fma")):
        assembly = "ptx" if target.startswith("cuda") else "amdgcn"
        default = tessera.compile(axpy_kernel, AXPY, target, constexprs={"BLOCK": 256})
        apart = tessera.compile(axpy_kernel, AXPY, target, constexprs={"BLOCK": 256},
                                enable_fp_fusion=False)
        assert fused in default.asm[assembly], target
        assert fused not in apart.asm[assembly], target


def test_maxnreg_caps_the_registers_of_an_nvidia_kernel():
    capped = tessera.compile(axpy_kernel, AXPY, "cuda:90", constexprs={"BLOCK": 256},
                             maxnreg=40)
    plain = tessera.compile(axpy_kernel, AXPY, "cuda:90", constexprs={"BLOCK": 256})
    assert ".maxnreg 40" in capped.asm["ptx"]
    assert ".maxnreg" not in plain.asm["ptx"]
    # AMD has no such cap: accepted, and the kernel compiles.
    amd = tessera.compile(axpy_kernel, AXPY, "hip:gfx942", constexprs={"BLOCK": 256},
                          maxnreg=40)
    assert amd.asm["amdgcn"]
    with pytest.raises(TypeError, match="maxnreg must be a positive integer or None, got -1"):
        tessera.compile(axpy_kernel, AXPY, "cuda:90", constexprs={"BLOCK": 256}, maxnreg=-1)
