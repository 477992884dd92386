"""torch CPU tensors as kernel arguments, where torch is installed."""

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
