"""The AMD backend: kernels compile to HSACO for wave64 and wave32 chips with
no AMD GPU here, and what it cannot compile is named at the kernel's line."""

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def row_sum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@pytest.mark.parametrize("target,lanes", [("hip:gfx942", 64), ("hip:gfx90a", 64),
                                          ("hip:gfx950", 64), ("hip:gfx1100", 32),
                                          ("hip:gfx1200", 32)])
def test_reduction_compiles_for_the_wavefront(target, lanes):
    x, out = np.zeros((4, 512), np.float32), np.zeros(4, np.float32)
    kernel = row_sum_kernel.warmup(x, out, N=512, num_warps=4)
    binary = kernel.compile_for(target)
    assert binary.warp_size == lanes and kernel.metadata["warp_size"] == lanes
    assert f"threadsPerWarp = [{lanes}]" in kernel.asm["tile-layout"]
    # Butterfly steps over every lane bit of the wavefront, through ds_bpermute.
    assert kernel.asm["llir"].count("llvm.amdgcn.ds.bpermute") >= lanes.bit_length() - 1
    assert kernel.asm["hsaco"].startswith(b"\x7fELF")
    assert f'"amdgcn-amd-amdhsa--{target[4:]}"' in kernel.asm["amdgcn"]


@tessera.jit
def f64_exp_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.exp(x))


@tessera.jit
def print_kernel(x_ptr):
    tl.device_print("x", tl.load(x_ptr))


@pytest.mark.not_on_amd  # the test compiles for AMD itself
def test_what_amd_cannot_compile_is_named():
    kernel = f64_exp_kernel.warmup(np.zeros(16, np.float64))
    with pytest.raises(tessera.CompilationError,
                       match=r"(?s)test_amd.py.*math.exp' on f64 for AMD GPUs"):
        kernel.compile_for("hip:gfx942")
    kernel = print_kernel.warmup(np.zeros(1, np.int32))
    with pytest.raises(tessera.CompilationError, match="(?s)test_amd.py.*no device printf"):
        kernel.compile_for("hip:gfx1100")
    with pytest.raises(tessera.CompilationError, match="unsupported AMD target 'gfx803'"):
        kernel.compile_for("hip:gfx803")


@tessera.jit
def mixed_args_kernel(x_ptr, n, scale, big, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * scale + big, mask=mask)


def readelf_kernels(hsaco, tmp_path):
    """The kernels' metadata in a code object, as llvm-readelf prints it."""
    readelf = shutil.which("llvm-readelf") or "/usr/lib/llvm-22/bin/llvm-readelf"
    if not os.path.exists(readelf):
        pytest.skip("llvm-readelf is not installed")
    path = tmp_path / "kernel.hsaco"
    path.write_bytes(hsaco)
    notes = subprocess.run([readelf, "--notes", str(path)], capture_output=True, text=True,
                           check=True).stdout
    args = [(int(offset), int(size), kind) for offset, size, kind in re.findall(
        r"\.offset:\s+(\d+)\s+\.size:\s+(\d+)\s+\.value_kind:\s+(\w+)", notes)]
    fields = dict(re.findall(r"^\s+\.(name|wavefront_size|group_segment_fixed_size):\s+(\S+)",
                             notes, re.M))
    return args, fields


@pytest.mark.parametrize("target,lanes", [("hip:gfx942", 64), ("hip:gfx1100", 32)])
def test_code_object_metadata_matches_the_signature(tmp_path, target, lanes):
    x = np.zeros(64, np.float32)
    kernel = mixed_args_kernel.warmup(x, 60, 2.0, 2**40, x, BLOCK=64)
    binary = kernel.compile_for(target)
    args, fields = readelf_kernels(binary.binary, tmp_path)
    # x_ptr, n (i32), scale (f32), big (i64), y_ptr; then the hidden arguments.
    assert args[:5] == [(0, 8, "global_buffer"), (8, 4, "by_value"), (12, 4, "by_value"),
                        (16, 8, "by_value"), (24, 8, "global_buffer")]
    assert fields["name"] == "mixed_args_kernel"
    assert int(fields["wavefront_size"]) == lanes
    assert int(fields["group_segment_fixed_size"]) == binary.shared_bytes

    reduction = row_sum_kernel.warmup(np.zeros((4, 512), np.float32), np.zeros(4, np.float32),
                                      N=512).compile_for(target)
    _, fields = readelf_kernels(reduction.binary, tmp_path)
    assert int(fields["group_segment_fixed_size"]) == reduction.shared_bytes > 0


# A launch through HIP with no AMD GPU: the stand-in runtime the unit tests
# use (test/unit/FakeHip.cpp) records what it is given.
LAUNCH_SCRIPT = r'''
import ctypes, json, os
import numpy as np
import tessera
import tessera.language as tl
from tessera.runtime import gpu

@tessera.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)

class Launch(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("x", ctypes.c_uint64), ("y", ctypes.c_uint64), ("n", ctypes.c_int32)]

fake = ctypes.CDLL(os.environ["TESSERA_HIP_LIBRARY"])
fake.fakeHipLastLaunch.restype = ctypes.POINTER(Launch)
x = np.arange(1000, dtype=np.float32)
y = np.zeros_like(x)
kernel = k[(4,)](x, y, 1000, BLOCK=256)
last = fake.fakeHipLastLaunch().contents
print(json.dumps({
    "platform": gpu.platform(), "target": kernel.metadata["target"],
    "hsaco": kernel.asm["hsaco"][:4] == b"\x7fELF",
    "grid": list(last.grid), "block": list(last.block), "shared": last.shared,
    "n": last.n, "x": last.x, "y": last.y,
    "host": [x.ctypes.data, y.ctypes.data]}))
'''


def fake_hip_library():
    built = os.path.join(os.path.dirname(tessera.__file__), "..", "..", "lib",
                         "libtessera_fake_hip.so")
    if not os.path.exists(built):
        pytest.skip("the stand-in HIP library is not built next to this tessera")
    return os.path.abspath(built)


def run_launch_script(tmp_path, text=LAUNCH_SCRIPT, **env):
    script = tmp_path / "launch.py"
    script.write_text(text)
    environment = dict(os.environ, TESSERA_HIP_LIBRARY=fake_hip_library(),
                       TESSERA_DEVICE="hip", **env)
    environment.pop("TESSERA_COMPILE_CHECK", None)
    return subprocess.run([sys.executable, str(script)], env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("arch,lanes", [("gfx942", 64), ("gfx1100", 32)])
def test_launches_through_hip(tmp_path, arch, lanes):
    done = run_launch_script(tmp_path, TESSERA_HIP_ARCH=arch)
    assert done.returncode == 0, done.stderr
    launch = json.loads(done.stdout)
    assert launch["platform"] == "hip" and launch["target"] == arch and launch["hsaco"]
    # hipModuleLaunchKernel got the grid, a block of 4 wavefronts of the
    # chip's width, no dynamic LDS, and the arguments packed in order:
    # device copies of the arrays and n.
    assert launch["grid"] == [4, 1, 1]
    assert launch["block"] == [4 * lanes, 1, 1]
    assert launch["shared"] == 0 and launch["n"] == 1000
    assert launch["x"] != launch["y"] and 0 not in (launch["x"], launch["y"])
    assert not {launch["x"], launch["y"]} & set(launch["host"])


def test_hip_device_without_an_architecture_is_named(tmp_path):
    if "TESSERA_HIP_ARCH" in os.environ or os.path.exists("/sys/class/kfd"):
        pytest.skip("this machine names its HIP architecture")
    done = run_launch_script(tmp_path)
    assert done.returncode != 0
    assert "cannot tell the architecture of HIP device 0" in done.stderr
    assert "TESSERA_HIP_ARCH" in done.stderr


def test_waves_per_eu_is_a_launch_option():
    x, out = np.ones((2, 256), np.float32), np.zeros(2, np.float32)
    # Accepted at launch (the interpreter has no occupancy to hint) and a
    # specialisation of its own.
    row_sum_kernel[(2,)](x, out, N=256, waves_per_eu=2)
    np.testing.assert_array_equal(out, [256, 256])
    hinted = row_sum_kernel.warmup(x, out, N=256, waves_per_eu=2)
    plain = row_sum_kernel.warmup(x, out, N=256)
    assert hinted is not plain
    hinted.compile_for("hip:gfx942")
    plain.compile_for("hip:gfx942")
    assert '"amdgpu-waves-per-eu"="2"' in hinted.asm["llir"]
    assert "amdgpu-waves-per-eu" not in plain.asm["llir"]


def test_do_bench_times_with_the_runtimes_events(tmp_path):
    # No PyTorch: do_bench records Tessera's runtime's events around each
    # run, and the stand-in's events count records (one between a run's two).
    done = run_launch_script(tmp_path, "from tessera import testing\n"
                             "print(testing.do_bench(lambda: None, warmup=1, rep=3))\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1.0"


@tessera.jit
def tile_matmul_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                       K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


MATRIX_CORES = [("hip:gfx90a", "v_mfma_f32_32x32x8"), ("hip:gfx942", "v_mfma_f32_32x32x8"),
                ("hip:gfx950", "v_mfma_f32_32x32x16"), ("hip:gfx1100", "v_wmma_f32_16x16x16"),
                ("hip:gfx1200", "v_wmma_f32_16x16x16")]


@pytest.mark.parametrize("target,instruction", MATRIX_CORES)
@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_dots_run_on_the_matrix_cores(target, instruction, dtype):
    if dtype == "bfloat16":
        sig = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32"}
    else:
        sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}
    kernel = tessera.compile(tile_matmul_kernel, sig, target,
                             constexprs={"M": 64, "N": 64, "K": 64}, num_warps=4)
    amdgcn = kernel.asm["amdgcn"]
    suffix = "f16" if dtype == np.float16 else "bf16"
    assert re.search(instruction + r"_?" + suffix, amdgcn), amdgcn[:2000]
    assert "v_fma_f32" not in amdgcn and "v_fmac_f32" not in amdgcn
    assert re.search(r"\.private_segment_fixed_size:\s+0\b", amdgcn)


@pytest.mark.parametrize("target,instruction", MATRIX_CORES)
@pytest.mark.parametrize("stage", [1, 3])
def test_attention_runs_on_the_matrix_cores(target, instruction, stage):
    sys.path.insert(0, os.path.dirname(__file__))
    import test_matmul
    q = np.zeros((1, 2, 128, 64), np.float16)
    strides = test_matmul.strides_of(q)
    kernel = test_matmul.attn_fwd_kernel.warmup(
        q, q, q, q, 0.125, *strides, *strides, *strides, *strides, 2, 128, HEAD_DIM=64,
        BLOCK_M=64, BLOCK_N=32, STAGE=stage, grid=(1,), num_warps=4)
    kernel.compile_for(target)
    # Both dots, q kᵀ and p v, on the matrix cores, with no spills (causal
    # too: STAGE 3). Their waves go along M, so p stays in its wave.
    dots = re.findall(r"= tile\.dot .*", kernel.asm["tile-layout"])
    assert len(dots) == 2 * (1 + stage // 2)
    assert all(re.search(r"-> tensor<\S+, #(mfma|wmma)", d) for d in dots)
    assert instruction in kernel.asm["amdgcn"]
    assert re.search(r"\.private_segment_fixed_size:\s+0\b", kernel.asm["amdgcn"])


@tessera.jit
def loop_matmul_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("target,instruction,count", [("hip:gfx942", "v_mfma_f32_32x32x8_f16", 16),
                                                      ("hip:gfx1100", "v_wmma_f32_16x16x16_f16",
                                                       32)])
def test_matmul_tile_has_no_spills(target, instruction, count):
    # The 128x128x32 f16 tile of a K loop, 4 waves, pipelined (num_stages
    # 2): one MFMA or WMMA per 32x32 or 16x16 tile and K step a wave, and no
    # scratch.
    sig = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp32:16", "K": "i32:16"}
    kernel = tessera.compile(loop_matmul_kernel, sig, target,
                             constexprs={"BM": 128, "BN": 128, "BK": 32}, num_warps=4,
                             num_stages=2)
    amdgcn = kernel.asm["amdgcn"]
    assert len(re.findall(r"v_(?:mfma|wmma)\w*", amdgcn)) == count
    assert instruction in amdgcn
    assert re.search(r"\.private_segment_fixed_size:\s+0\b", amdgcn)


def test_matrix_instr_nonkdim_picks_the_instruction():
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}
    for nonkdim, instruction in ((0, "v_mfma_f32_32x32x8_f16"), (32, "v_mfma_f32_32x32x8_f16"),
                                 (16, "v_mfma_f32_16x16x16_f16")):
        kernel = tessera.compile(tile_matmul_kernel, sig, "hip:gfx942",
                                 constexprs={"M": 64, "N": 64, "K": 64},
                                 matrix_instr_nonkdim=nonkdim, kpack=2)
        assert instruction in kernel.asm["amdgcn"]
    # kpack 2: each lane reads 8 halves of K, two instructions' worth.
    for kpack, width in ((1, 4), (2, 8)):
        kernel = tessera.compile(tile_matmul_kernel, sig, "hip:gfx942",
                                 constexprs={"M": 64, "N": 64, "K": 64}, kpack=kpack)
        assert re.findall(r"kWidth = (\d+)", kernel.asm["tile-layout"]) == [str(width)] * 2
    with pytest.raises(ValueError, match="matrix_instr_nonkdim must be 0, 16 or 32, got 8"):
        tessera.compile(tile_matmul_kernel, sig, "hip:gfx942",
                        constexprs={"M": 64, "N": 64, "K": 64}, matrix_instr_nonkdim=8)
    with pytest.raises(ValueError, match="kpack must be 1 or 2, got 3"):
        tessera.compile(tile_matmul_kernel, sig, "hip:gfx942",
                        constexprs={"M": 64, "N": 64, "K": 64}, kpack=3)


def test_amd_options_are_launch_options_and_config_options(device, rng):
    if device != "interpreter":
        pytest.skip("the options' effect is checked on the AMD code above")
    a = rng.standard_normal((32, 32)).astype(np.float32)
    c = np.zeros((32, 32), np.float32)
    tile_matmul_kernel[(1,)](a, a, c, M=32, N=32, K=32, matrix_instr_nonkdim=16, kpack=2)
    np.testing.assert_allclose(c, a @ a, rtol=1e-4, atol=1e-4)
    # As Triton's AMD configs give them: in the kwargs or as options.
    configs = [tessera.Config({"M": 32, "N": 32, "K": 32, "matrix_instr_nonkdim": 16}),
               tessera.Config({"M": 32, "N": 32, "K": 32}, kpack=2, matrix_instr_nonkdim=32)]
    assert "matrix_instr_nonkdim: 32" in str(configs[1]) and "kpack: 2" in str(configs[1])
    tuned = tessera.autotune(configs, key=[])(tile_matmul_kernel)
    c[:] = 0
    tuned[(1,)](a, a, c)
    np.testing.assert_allclose(c, a @ a, rtol=1e-4, atol=1e-4)
