"""torch CPU tensors as kernel arguments, where torch is installed."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

torch = pytest.importorskip("torch")


@tessera.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_torch_cpu_tensors(device, dtype):
    dt = getattr(torch, dtype)
    x = torch.randn(1000, dtype=dt)
    y = torch.randn(1000, dtype=dt)
    out = torch.empty_like(x)
    axpy_kernel[(tessera.cdiv(1000, 256),)](x, y, out, 2.0, 1000, BLOCK=256)
    expected = (2.0 * x.float() + y.float()).to(dt)
    torch.testing.assert_close(out, expected, rtol=1e-2 if dtype != "float32" else 1e-6,
                               atol=1e-2 if dtype != "float32" else 1e-6)


def test_torch_slices_are_bounds_checked(device):
    if device != "interpreter":
        pytest.skip("only the host interpreter checks the bounds of every access")
    base = torch.zeros(64)
    view = base[16:32]
    axpy_kernel[(1,)](view, view, view, 1.0, 16, BLOCK=16)
    # Reaching past the view but inside its storage is allowed, as on a GPU;
    # past the storage is an error.
    with pytest.raises(RuntimeError, match="out-of-bounds access"):
        axpy_kernel[(4,)](base, base, base, 1.0, 128, BLOCK=32)


@tessera.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "int8", "float16", "bfloat16"])
def test_the_helpers_tritons_tests_import(device, dtype):
    """tessera._internal_testing (triton._internal_testing's names): random
    inputs, to torch and back, unsigned ones reinterpreted."""
    helpers = pytest.importorskip("tessera._internal_testing")
    where = "cuda" if device == "cuda" else "cpu"
    x = helpers.numpy_random((100,), dtype, rs=helpers.RandomState(3))
    assert x.dtype.name == ("float32" if dtype == "bfloat16" else dtype) and (x != 0).all()
    x_tensor = helpers.to_triton(x, device=where, dst_type=dtype)
    out = helpers.to_triton(np.zeros_like(x), device=where, dst_type=dtype)
    if dtype.startswith("uint"):
        assert isinstance(x_tensor, tessera.TensorWrapper) and x_tensor.dtype == getattr(tl, dtype)
    copy_kernel[(1,)](x_tensor, out, 100, BLOCK=128)
    np.testing.assert_array_equal(helpers.to_numpy(out), helpers.to_numpy(x_tensor))
    np.testing.assert_array_equal(helpers.to_numpy(x_tensor), x)
    assert helpers.torch_dtype_name(torch.int64) == "int64"
    assert helpers.str_to_triton_dtype("bfloat16") == tl.bfloat16
    assert helpers.is_interpreter() or helpers.is_cuda() or helpers.is_hip() or \
        helpers.get_current_target().backend == "cpu"
