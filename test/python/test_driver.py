"""`tessera.runtime.driver` and compiled kernels as Triton programs use them
(its tutorials 01 and 02): the active driver's device, target and device
properties, and a kernel compiled by warmup, loaded by `_init_handles`,
telling its registers and shared memory, and launched by `compiled[grid]`."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.runtime import driver, gpu
from tessera.runtime.driver import GPUTarget


@tessera.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows,
                   n_cols, BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # Tutorial 02's kernel: programs stride over the rows; `num_stages` is
    # both a parameter and the launch option.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        softmax_output = numerator / tl.sum(numerator, axis=0)
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def test_the_compiled_kernel_of_warmup_launches_as_tutorial_02_does():
    x = np.random.default_rng(0).standard_normal((37, 100)).astype(np.float32)
    y = np.zeros_like(x)
    kernel = softmax_kernel.warmup(y, x, x.strides[0] // 4, y.strides[0] // 4, 37, 100,
                                   BLOCK_SIZE=128, num_stages=2, num_warps=4, grid=(1,))
    kernel._init_handles()
    assert kernel.metadata.num_stages == 2 and kernel.metadata.num_warps == 4
    assert kernel.metadata.shared == kernel.metadata["shared"] >= 0
    assert isinstance(kernel.n_regs, int) and isinstance(kernel.n_spills, int)
    assert (kernel.n_regs > 0) == gpu.available()
    with pytest.raises(AttributeError, match="no 'cluster'"):
        kernel.metadata.cluster
    # Launched with every argument, the constexprs too, in order; the
    # options it was compiled with hold.
    assert kernel[(8, 1, 1)](y, x, x.strides[0] // 4, y.strides[0] // 4, 37, 100, 128,
                             2) is kernel
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, expected / expected.sum(axis=1, keepdims=True),
                               rtol=1e-5)


def test_the_host_driver_without_a_gpu():
    if gpu.available():
        pytest.skip("this machine has a GPU")
    active = driver.active
    assert active.get_current_target() == GPUTarget("cpu", 0, 1)
    assert active.get_current_device() == 0 and active.get_current_stream() == 0
    with pytest.raises(RuntimeError, match="no GPU"):
        active.utils.get_device_properties(0)
    try:
        import torch
    except ImportError:
        return
    assert active.get_active_torch_device() == torch.device("cpu")


def test_the_gpu_driver_on_a_gpu():
    if not gpu.available():
        pytest.skip("no GPU")
    torch = pytest.importorskip("torch")
    active = driver.active
    device = active.get_active_torch_device()
    assert device.type == "cuda" and device.index == torch.cuda.current_device()
    target = active.get_current_target()
    assert target.backend == gpu.platform()
    properties = active.utils.get_device_properties(device.index)
    torch_properties = torch.cuda.get_device_properties(device.index)
    assert properties["multiprocessor_count"] == torch_properties.multi_processor_count
    assert properties["warpSize"] == target.warp_size
    assert properties["max_shared_mem"] >= 48 * 1024 and properties["max_num_regs"] >= 32768
    assert active.get_device_interface() is torch.cuda


def test_set_active_and_reset():
    class Other:
        pass
    other = Other()
    default = driver.active
    driver.set_active(other)
    try:
        assert driver.active is other
    finally:
        driver.reset_active()
    assert driver.active is default is driver.default


# Through HIP with no AMD GPU: the stand-in runtime the unit tests use
# (test/unit/FakeHip.cpp) answers the queries.
HIP_SCRIPT = r'''
import json
import numpy as np
import tessera
import tessera.language as tl
from tessera.runtime import driver

@tessera.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2,
             mask=offsets < n)

x = np.arange(100, dtype=np.float32)
kernel = k.warmup(x, 100, BLOCK=128, grid=(1,))
kernel._init_handles()
target = driver.active.get_current_target()
print(json.dumps({
    "target": [target.backend, target.arch, target.warp_size],
    "properties": driver.active.utils.get_device_properties(0),
    "regs": kernel.n_regs, "spills": kernel.n_spills}))
'''


def test_hip_device_properties_and_kernel_resources(tmp_path):
    built = os.path.join(os.path.dirname(tessera.__file__), "..", "..", "lib",
                         "libtessera_fake_hip.so")
    if not os.path.exists(built):
        pytest.skip("the stand-in HIP library is not built next to this tessera")
    script = tmp_path / "hip.py"
    script.write_text(HIP_SCRIPT)
    environment = dict(os.environ, TESSERA_HIP_LIBRARY=os.path.abspath(built),
                       TESSERA_DEVICE="hip", TESSERA_HIP_ARCH="gfx942")
    environment.pop("TESSERA_COMPILE_CHECK", None)
    done = subprocess.run([sys.executable, str(script)], env=environment,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["target"] == ["hip", "gfx942", 64]
    properties = answer["properties"]
    # What the stand-in says for each attribute it is asked.
    assert properties["warpSize"] == 64 and properties["multiprocessor_count"] == 304
    assert properties["max_num_regs"] == 512 * 256
    assert properties["max_shared_mem"] == 65536
    assert answer["regs"] == 96 and answer["spills"] == 2
