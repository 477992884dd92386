"""Layer norm (forward), fused: mean, variance and the normalised row."""

import numpy as np

import tessera
import tessera.language as tl


@tessera.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # The mean.
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # The variance.
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # Normalise and apply the affine transform.
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5):
    M, N = x.shape
    y = np.empty_like(x)
    mean = np.empty(M, dtype=np.float32)
    rstd = np.empty(M, dtype=np.float32)
    BLOCK_SIZE = min(1024, tessera.next_power_of_2(N))
    _layer_norm_fwd_fused[(M,)](x, y, weight, bias, mean, rstd, x.strides[0] // x.itemsize, N,
                                eps, BLOCK_SIZE=BLOCK_SIZE)
    return y, mean, rstd


def main():
    rng = np.random.default_rng(0)
    M, N = 64, 1500
    x = rng.standard_normal((M, N)).astype(np.float16)
    weight = rng.random(N).astype(np.float16)
    bias = rng.random(N).astype(np.float16)
    y, mean, rstd = layer_norm(x, weight, bias)
    xf = x.astype(np.float32)
    ref_mean = xf.mean(axis=1)
    ref_rstd = 1 / np.sqrt(xf.var(axis=1) + 1e-5)
    ref = ((xf - ref_mean[:, None]) * ref_rstd[:, None] * weight + bias).astype(np.float16)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
    np.testing.assert_allclose(y.astype(np.float32), ref.astype(np.float32), rtol=1e-2, atol=1e-2)
    print(f"layer norm: {M}x{N} float16, max error {np.abs(y.astype(np.float32) - ref).max():.2e}")


if __name__ == "__main__":
    main()
