"""The language ops, checked against numpy through the interpreter."""

import math

import numpy as np
import pytest

import tessera
import tessera.language as tl

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint32"]


def make(rng, dtype, shape, low=-10, high=10):
    if dtype.startswith("float"):
        return rng.uniform(low, high, shape).astype(dtype)
    if dtype.startswith("uint"):
        return rng.integers(0, high, shape).astype(dtype)
    return rng.integers(low, high, shape).astype(dtype)


@tessera.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("dtype", FLOATS + INTS + ["bool"])
@pytest.mark.parametrize("n", [1, 17, 1024, 3000])
def test_copy(device, rng, dtype, n):
    x = make(rng, dtype, n) if dtype != "bool" else rng.integers(0, 2, n).astype(bool)
    y = np.zeros_like(x)
    copy_kernel[(tessera.cdiv(n, 256),)](x, y, n, BLOCK=256)
    np.testing.assert_array_equal(y, x)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "min": lambda a, b: tl.minimum(a, b),
    "max": lambda a, b: tl.maximum(a, b),
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
}
NUMPY_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.minimum,
    "max": np.maximum, "lt": np.less, "ge": np.greater_equal, "eq": np.equal,
}


def binary_kernel_for(op):
    fn = BINARY[op]

    @tessera.jit
    def kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(z_ptr + offs, fn(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))
    return kernel


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint32", "int8"])
def test_binary(device, rng, op, dtype):
    x, y = make(rng, dtype, 128), make(rng, dtype, 128)
    expected = NUMPY_BINARY[op](x, y)
    z = np.zeros(128, dtype=expected.dtype)
    binary_kernel_for(op)[(1,)](x, y, z, BLOCK=128)
    np.testing.assert_array_equal(z, expected)


@tessera.jit
def divmod_kernel(x_ptr, y_ptr, q_ptr, r_ptr, f_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(q_ptr + offs, x // y)
    tl.store(r_ptr + offs, x % y)
    tl.store(f_ptr + offs, x / y)


def test_integer_division_truncates_like_c(device, rng):
    x = make(rng, "int32", 64, -100, 100)
    y = make(rng, "int32", 64, 1, 10) * rng.choice([-1, 1], 64).astype(np.int32)
    q, r, f = np.zeros(64, np.int32), np.zeros(64, np.int32), np.zeros(64, np.float32)
    divmod_kernel[(1,)](x, y, q, r, f, BLOCK=64)
    np.testing.assert_array_equal(q, np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(r, x - np.trunc(x / y).astype(np.int32) * y)
    np.testing.assert_allclose(f, (x / y).astype(np.float32), rtol=1e-6)


UNARY = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "floor", "ceil",
         "abs", "sigmoid"]


def unary_kernel_for(name):
    fn = getattr(tl, name)

    @tessera.jit
    def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, fn(tl.load(x_ptr + offs)))
    return kernel


def numpy_unary(name, x):
    if name == "rsqrt":
        return 1 / np.sqrt(x)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "erf":
        return np.vectorize(math.erf)(x).astype(x.dtype)
    return getattr(np, name)(x)


# f64 transcendentals need the ROCm device libraries on AMD GPUs.
AMD_F64_NATIVE = {"sqrt", "floor", "ceil", "abs"}


@pytest.mark.parametrize("dtype,name", [
    pytest.param(dtype, name, marks=[pytest.mark.not_on_amd]
                 if dtype == "float64" and name not in AMD_F64_NATIVE else [])
    for dtype in ["float32", "float64"] for name in UNARY])
def test_unary_math(device, rng, name, dtype):
    x = rng.uniform(0.1, 4.0, 256).astype(dtype)
    y = np.zeros_like(x)
    unary_kernel_for(name)[(1,)](x, y, BLOCK=256)
    np.testing.assert_allclose(y, numpy_unary(name, x), rtol=1e-6 if dtype == "float32" else 1e-12)


@tessera.jit
def reduce_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                  OP: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS)
    else:
        r = tl.argmin(x, axis=AXIS)
    tl.store(out_ptr + tl.arange(0, N if AXIS == 0 else M), r)


@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32", "float64"])
def test_reductions(device, rng, op, axis, dtype):
    x = make(rng, dtype, (16, 32))
    expected = getattr(np, op)(x, axis=axis)
    out = np.zeros(expected.shape, dtype=np.int32 if op.startswith("arg") else x.dtype)
    reduce_kernel[(1,)](x, out, M=16, N=32, AXIS=axis, OP=op)
    if dtype.startswith("float") and op == "sum":  # numpy sums pairwise
        np.testing.assert_allclose(out, expected, rtol=1e-5 if dtype == "float32" else 1e-12)
    else:
        np.testing.assert_array_equal(out, expected)


@tessera.jit
def bool_sums_kernel(x_ptr, out_ptr, N: tl.constexpr):
    positive = tl.load(x_ptr + tl.arange(0, N)) > 0
    tl.store(out_ptr, tl.sum(positive, 0))  # booleans count in int32
    tl.store(out_ptr + 1, tl.sum(positive, 0, dtype=tl.int1).to(tl.int32))  # int1 wraps
    # Sums asked for in int8 wrap in int8.
    tl.store(out_ptr + 2, tl.sum(positive.to(tl.int8) * 7, 0, dtype=tl.int8).to(tl.int32))


@pytest.mark.parametrize("ones", [1024, 1023])
def test_sums_of_booleans(device, ones):
    x = np.where(np.arange(1024) < ones, 1.0, -1.0).astype(np.float32)
    out = np.full(3, -1, np.int32)
    bool_sums_kernel[(1,)](x, out, N=1024)
    np.testing.assert_array_equal(out, [ones, ones % 2, (7 * ones + 128) % 256 - 128])


@tessera.jit
def _add_combine(a, b):
    return a + b


@tessera.jit
def _argmax_combine(v1, i1, v2, i2):
    gt = v1 > v2
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


@tessera.jit
def custom_reduce_kernel(x_ptr, out_ptr, idx_ptr, scan_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.reduce(x, 0, _add_combine))
    value, index = tl.reduce((x, offs), 0, _argmax_combine)
    tl.store(idx_ptr, index)
    tl.store(scan_ptr + offs, tl.associative_scan(x, 0, _add_combine))


def test_user_combiners(device, rng):
    x = make(rng, "int32", 64)
    out, idx, scan = np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(64, np.int32)
    custom_reduce_kernel[(1,)](x, out, idx, scan, BLOCK=64)
    assert out[0] == x.sum()
    assert x[idx[0]] == x.max()
    np.testing.assert_array_equal(scan, np.cumsum(x))


@tessera.jit
def scan_kernel(x_ptr, s_ptr, p_ptr, r_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(s_ptr + offs, tl.cumsum(x, 0))
    tl.store(p_ptr + offs, tl.cumprod(x, 0))
    tl.store(r_ptr + offs, tl.cumsum(x, 0, reverse=True))


def test_scans(device, rng):
    x = make(rng, "int32", 16, 1, 3)
    s, p, r = (np.zeros(16, np.int32) for _ in range(3))
    scan_kernel[(1,)](x, s, p, r, BLOCK=16)
    np.testing.assert_array_equal(s, np.cumsum(x))
    np.testing.assert_array_equal(p, np.cumprod(x))
    np.testing.assert_array_equal(r, np.cumsum(x[::-1])[::-1])


@tessera.jit
def shapes_kernel(x_ptr, t_ptr, r_ptr, j_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    # transpose, through .T
    tl.store(t_ptr + cols[:, None] * M + rows[None, :], x.T)
    # reshape to 1-D and back out
    tl.store(r_ptr + tl.arange(0, M * N), tl.reshape(x, M * N))
    # join then split gives the halves back
    lo, hi = tl.split(tl.join(x, x + 1))
    tl.store(j_ptr + rows[:, None] * N + cols[None, :], hi - lo)
    # cat along dimension 0
    tl.store(c_ptr + tl.arange(0, 2 * M)[:, None] * N + cols[None, :], tl.cat(x, x * 2))


def test_shape_ops(device, rng):
    x = make(rng, "int32", (8, 16))
    t, r, j, c = (np.zeros(x.size * k, np.int32) for k in (1, 1, 1, 2))
    shapes_kernel[(1,)](x, t, r, j, c, M=8, N=16)
    np.testing.assert_array_equal(t.reshape(16, 8), x.T)
    np.testing.assert_array_equal(r, x.ravel())
    np.testing.assert_array_equal(j, np.ones(x.size, np.int32))
    np.testing.assert_array_equal(c.reshape(16, 16), np.concatenate([x, x * 2]))


@tessera.jit
def where_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.where(x > 0, x, 0.0)
    y = tl.clamp(y, 0.5, 3.0)
    y = tl.fma(y, 2.0, 1.0)
    tl.store(y_ptr + offs, y)


def test_where_clamp_fma(device, rng):
    x = make(rng, "float32", 64, -5, 5)
    y = np.zeros_like(x)
    where_kernel[(1,)](x, y, BLOCK=64)
    np.testing.assert_allclose(y, np.clip(np.where(x > 0, x, 0), 0.5, 3.0) * 2 + 1, rtol=1e-6)


@tessera.jit
def nan_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr, PROPAGATE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if PROPAGATE:
        hi = tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
        lo = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
        clamped = tl.clamp(x, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL)
    else:
        hi = tl.maximum(x, y)
        lo = tl.minimum(x, y)
        clamped = tl.clamp(x, -1.0, 1.0)
    tl.store(out_ptr + offs, hi)
    tl.store(out_ptr + BLOCK + offs, lo)
    tl.store(out_ptr + 2 * BLOCK + offs, clamped)
    tl.store(out_ptr + 3 * BLOCK, tl.max(x, 0))
    tl.store(out_ptr + 3 * BLOCK + 1, tl.min(x, 0))


@pytest.mark.parametrize("propagate", [False, True])
def test_nan_operands(device, rng, propagate):
    """As in Triton: tl.maximum, tl.minimum and tl.clamp give the other
    operand where one is NaN (PropagateNan.NONE, the default) or NaN
    (PropagateNan.ALL); tl.max and tl.min pass NaNs over."""
    x = make(rng, "float32", 64, -5, 5)
    y = make(rng, "float32", 64, -5, 5)
    x[::3] = np.nan
    y[1::5] = np.nan
    out = np.zeros(4 * 64, np.float32)
    nan_kernel[(1,)](x, y, out, BLOCK=64, PROPAGATE=propagate)
    if propagate:
        hi, lo, clamped = np.maximum(x, y), np.minimum(x, y), np.clip(x, -1.0, 1.0)
    else:
        hi, lo = np.fmax(x, y), np.fmin(x, y)
        clamped = np.fmin(np.fmax(x, -1.0), 1.0)
    np.testing.assert_array_equal(out[:64], hi)
    np.testing.assert_array_equal(out[64:128], lo)
    np.testing.assert_array_equal(out[128:192], clamped)
    assert out[192] == np.nanmax(x) and out[193] == np.nanmin(x)


@tessera.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    acc = tl.full((M, N), 1.0, tl.float32)
    c = tl.dot(a, b, acc=acc)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_dot(device, rng, dtype):
    a = make(rng, dtype, (32, 16), -2, 2)
    b = make(rng, dtype, (16, 64), -2, 2)
    c = np.zeros((32, 64), np.float32)
    dot_kernel[(1,)](a, b, c, M=32, N=64, K=16)
    # fp32 inputs multiply as tf32 (Triton's default) on tensor cores: 10
    # mantissa bits, about 1e-3 of each product.
    tol = 5e-2 if dtype == "float32" else 1e-5
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32) + 1, rtol=tol,
                               atol=tol)


@tessera.jit
def atomic_kernel(x_ptr, total_ptr, hist_ptr, max_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.atomic_add(total_ptr, tl.sum(x, 0))
    tl.atomic_add(hist_ptr + x % 4, 1)
    tl.atomic_max(max_ptr + tl.zeros((BLOCK,), tl.int32), x)


def test_atomics(device, rng):
    x = make(rng, "int32", 256, 0, 100)
    total, hist, mx = np.zeros(1, np.int32), np.zeros(4, np.int32), np.zeros(1, np.int32)
    atomic_kernel[(4,)](x, total, hist, mx, BLOCK=64)
    assert total[0] == x.sum()
    np.testing.assert_array_equal(hist, np.bincount(x % 4, minlength=4))
    assert mx[0] == x.max()


@tessera.jit
def control_kernel(x_ptr, y_ptr, n, FLAG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, n):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    if FLAG:
        acc = acc * 2
    total = tl.sum(acc, 0)
    if total > 0:
        acc = acc + 1
    else:
        acc = acc - 1
    count = 0
    while count < n:
        count += 1
    acc = acc + count
    for j in tl.static_range(3):
        acc = acc + j
    tl.store(y_ptr + offs, acc)


@pytest.mark.parametrize("flag", [False, True])
def test_control_flow(device, rng, flag):
    x = make(rng, "float32", (5, 32))
    y = np.zeros(32, np.float32)
    control_kernel[(1,)](x, y, 5, FLAG=flag, BLOCK=32)
    acc = x.sum(0) * (2 if flag else 1)
    acc = acc + 1 if acc.sum() > 0 else acc - 1
    np.testing.assert_allclose(y, acc + 5 + 3, rtol=1e-5)


@tessera.jit
def _helper(x, scale: tl.constexpr):
    return x * scale, x + scale


@tessera.jit
def helper_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b = _helper(tl.load(x_ptr + offs), 3)
    tl.store(y_ptr + offs, a)
    tl.store(z_ptr + offs, b)


def test_helpers_are_inlined_and_return_tuples(device, rng):
    x = make(rng, "float32", 32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    helper_kernel[(1,)](x, y, z, BLOCK=32)
    np.testing.assert_allclose(y, x * 3)
    np.testing.assert_allclose(z, x + 3)


@tessera.jit
def promote_kernel(i8_ptr, f16_ptr, u32_ptr, out_f_ptr, out_i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(i8_ptr + offs)
    h = tl.load(f16_ptr + offs)
    u = tl.load(u32_ptr + offs)
    tl.static_assert((a + 1).dtype == tl.int8)       # literal adapts
    tl.static_assert((a + h).dtype == tl.float16)    # int with float: the float
    tl.static_assert((h * 2.5).dtype == tl.float16)  # float literal adapts
    tl.static_assert((a + u).dtype == tl.uint32)     # unsigned wins when wider
    tl.static_assert((a / a).dtype == tl.float32)    # true division of ints
    tl.store(out_f_ptr + offs, (a + h).to(tl.float32))
    tl.store(out_i_ptr + offs, (a.to(tl.int32) << 2) >> 1)


def test_type_promotion(device, rng):
    a = make(rng, "int8", 32)
    h = make(rng, "float16", 32)
    u = make(rng, "uint32", 32)
    out_f, out_i = np.zeros(32, np.float32), np.zeros(32, np.int32)
    promote_kernel[(1,)](a, h, u, out_f, out_i, BLOCK=32)
    np.testing.assert_allclose(out_f, (a.astype(np.float16) + h).astype(np.float32))
    np.testing.assert_array_equal(out_i, (a.astype(np.int32) << 2) >> 1)


@tessera.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x:", x)


@pytest.mark.not_on_amd
def test_device_print(device, capfd):
    x = np.arange(4, dtype=np.int32)
    print_kernel[(2,)](x, BLOCK=4)
    if device == "interpreter":
        out = capfd.readouterr().out
        assert "pid (0, 0, 0)x: [0, 1, 2, 3]" in out
        assert "pid (1, 0, 0)x: [0, 1, 2, 3]" in out
    else:  # one line per element, as Triton prints on GPUs
        from tessera.runtime import gpu
        gpu.driver().synchronize()
        out = capfd.readouterr().out
        for pid in range(2):
            for i in range(4):
                assert f"pid ({pid}, 0, 0) idx ({i})x: {i}\n" in out


def test_warmup_gives_the_ir(device):
    x = np.zeros(16, np.float32)
    compiled = copy_kernel.warmup(x, x, 16, BLOCK=16)
    assert "tile.load" in compiled.asm["tile"]
    assert "func.func @copy_kernel" in compiled.asm["tile"]


@tessera.jit
def early_return_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs)  # no mask: only programs inside may store


def test_early_return(device):
    # The grid is larger than needed; programs past the end return at once
    # (a store from them would be out of bounds).
    x = np.full(48, -1, np.int32)
    early_return_kernel[(8,)](x, 48, BLOCK=16)
    np.testing.assert_array_equal(x, np.arange(48))


@tessera.jit
def nested_return_kernel(out_ptr, flag):
    # Returns from an if inside an if, both on runtime conditions: nothing
    # after either returns on that path.
    if flag > 0:
        if flag > 1:
            tl.store(out_ptr, 1)
            return
        elif flag > 5:
            return
        tl.store(out_ptr + 1, 2)
    else:
        tl.store(out_ptr + 3, 4)
        if flag < -1:
            return
    tl.store(out_ptr + 2, 3)


@pytest.mark.parametrize("flag,expected", [(2, [1, 0, 0, 0]), (1, [0, 2, 3, 0]),
                                           (0, [0, 0, 3, 4]), (-2, [0, 0, 0, 4])])
def test_return_from_nested_ifs(device, flag, expected):
    out = np.zeros(4, np.int32)
    nested_return_kernel[(1,)](out, flag)
    np.testing.assert_array_equal(out, expected)


@tessera.jit
def flip_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, DIM: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.assume(M > 0)
    if DIM == 0:
        y = tl.flip(x, 0)
    elif DIM == 1:
        y = x.flip()  # the last dimension
    else:
        y = tl.cast(tl.flip(x, -1), tl.float32).abs().cast(tl.int32)
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("M,N", [(4, 8), (1, 16), (8, 1), (2, 2)])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_flip(device, M, N, dim):
    x = (np.arange(M * N, dtype=np.int32) - 5).reshape(M, N)
    out = np.zeros_like(x)
    flip_kernel[(1,)](x, out, M=M, N=N, DIM=dim)
    expected = np.flip(x, dim)
    np.testing.assert_array_equal(out, np.abs(expected) if dim == -1 else expected)


@tessera.jit
def bool_compare_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    a, b = x > 1, x < 3
    tl.store(out_ptr + tl.arange(0, N), (a != b).to(tl.int32) * 2 + (a == b).to(tl.int32))


def test_booleans_compare(device):
    x = np.array([3, 1, 2, 0], np.int32)
    out = np.zeros_like(x)
    bool_compare_kernel[(1,)](x, out, N=4)
    a, b = x > 1, x < 3
    np.testing.assert_array_equal(out, (a != b) * 2 + (a == b))


@tessera.jit
def sort_kernel(x_ptr, out_ptr, top_ptr, M: tl.constexpr, N: tl.constexpr, DIM: tl.constexpr,
                DESCENDING: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sort(x, DIM, descending=DESCENDING))
    top = tl.topk(x, K, dim=1, descending=DESCENDING)
    tl.store(top_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], top)


@pytest.mark.parametrize("M,N,K", [(4, 16, 4), (1, 64, 64), (8, 2, 1), (2, 1, 1)])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
def test_sort_and_topk(device, rng, M, N, K, dim, descending, dtype):
    x = (rng.integers(0, 200, (M, N)) if dtype != "float32"
         else rng.standard_normal((M, N))).astype(dtype)
    out, top = np.zeros_like(x), np.zeros((M, K), dtype)
    sort_kernel[(1,)](x, out, top, M=M, N=N, DIM=dim, DESCENDING=descending, K=K)
    expected = np.sort(x, axis=dim)
    np.testing.assert_array_equal(out, np.flip(expected, dim) if descending else expected)
    # The K largest, descending; or the K smallest, ascending.
    wide = x.astype(np.int64 if dtype != "float32" else np.float64)
    expected_top = -np.sort(-wide, axis=1) if descending else np.sort(wide, axis=1)
    np.testing.assert_array_equal(top, expected_top[:, :K])


def test_type_strings_and_dtype_facts():
    assert tl.str_to_ty("fp16") == tl.float16 and tl.str_to_ty("u1") == tl.int1
    assert tl.str_to_ty("*bf16") == tl.pointer_type(tl.bfloat16)
    assert tl.str_to_ty("float32") == tl.float32
    with pytest.raises(TypeError, match="unknown type string 'fp7'"):
        tl.str_to_ty("fp7")
    from tessera.runtime.jit import type_canonicalisation_dict as canonical
    for name in ("bool", "float16", "bfloat16", "int32", "uint8", "float8_e4m3fn"):
        assert tl.str_to_ty(canonical[name]) is not None
    assert (tl.float16.fp_mantissa_width, tl.bfloat16.fp_mantissa_width,
            tl.float32.fp_mantissa_width) == (10, 7, 23)
    with pytest.raises(TypeError, match="not a floating-point type"):
        tl.int32.fp_mantissa_width
    assert "int8" in tl.dtype.SINT_TYPES and "uint32" in tl.dtype.UINT_TYPES
    assert "bf16" in tl.dtype.STANDARD_FP_TYPES and "fp8e5" in tl.dtype.FP_TYPES


@tessera.jit
def descending_kernel(x_ptr, start, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    order = tl.zeros((BLOCK,), tl.int32)
    count = 0
    for i in range(start, 0, -3):
        order = tl.where(offs == count, i, order)
        count += 1
    tl.store(x_ptr + offs, order)


def test_descending_range(device):
    x = np.zeros(8, np.int32)
    descending_kernel[(1,)](x, 10, BLOCK=8)
    np.testing.assert_array_equal(x, [10, 7, 4, 1, 0, 0, 0, 0])


@tessera.jit
def python_helpers_kernel(x_ptr, N: tl.constexpr):
    LOG: tl.constexpr = math.log2(N)
    tl.store(x_ptr + tl.arange(0, N), tl.full((N,), int(LOG), tl.int32))


def test_plain_python_functions_see_constexpr_values(device):
    x = np.zeros(8, np.int32)
    python_helpers_kernel[(1,)](x, N=8)
    np.testing.assert_array_equal(x, np.full(8, 3))


@tessera.jit
def reverse_through_barrier(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # Each program writes its block, waits for every thread, then reads it
    # back reversed (another thread's elements).
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))
    tl.debug_barrier()
    tl.store(x_ptr + offs, tl.load(out_ptr + BLOCK - 1 - offs))


def test_debug_barrier(device):
    x = np.arange(256, dtype=np.float32)
    out = np.zeros_like(x)
    compiled = reverse_through_barrier[(1,)](x, out, BLOCK=256)
    np.testing.assert_array_equal(x, np.arange(256)[::-1])
    assert "tile.barrier" in compiled.asm["tile"]
    binary = compiled.compile_for("cuda:80")
    assert "barrier.sync" in binary.assembly or "bar.sync" in binary.assembly


@tessera.jit
def binary_kernel(x_ptr, y_ptr, z_ptr, N: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, N)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    if OP == ">>":
        z = x >> y
    elif OP == "%":
        z = x % y
    elif OP == "/":
        z = x / y
    else:
        z = x & y
    tl.store(z_ptr + offs, z)


def test_right_shift_follows_the_signedness_of_its_left_operand(device, rng):
    # int8 >> uint8 shifts at uint8 but arithmetically, as Triton does.
    x = rng.integers(-128, 128, 64).astype(np.int8)
    y = rng.integers(0, 8, 64).astype(np.uint8)
    z = np.zeros(64, np.int8)
    binary_kernel[(1,)](x, y, z, 64, ">>")
    np.testing.assert_array_equal(z, x >> y.astype(np.int8))
    u, v = x.view(np.uint8), y.astype(np.int8)
    w = np.zeros(64, np.uint8)
    binary_kernel[(1,)](u, v, w, 64, ">>")
    np.testing.assert_array_equal(w, u >> v.astype(np.uint8))


@pytest.mark.parametrize("op", ["%", "/"])
def test_division_of_mixed_signedness_is_refused(op):
    x, y = np.ones(16, np.int32), np.ones(16, np.uint32)
    with pytest.raises(tessera.TritonError, match="Cannot use /, //, or % with int32 and uint32 "
                                                  "because they have different signedness"):
        binary_kernel[(1,)](x, y, np.zeros(16, np.float32), 16, op)


def test_bitwise_ops_on_floats_name_the_operands():
    x = np.ones(16, np.float32)
    with pytest.raises(tessera.CompilationError,
                       match="invalid operands of type float32 and float32: 'and' needs "
                             "integers"):
        binary_kernel[(1,)](x, x, x, 16, "&")


def test_triton_error_names():
    from tessera.runtime.errors import InterpreterError
    assert issubclass(tessera.CompilationError, tessera.TritonError)
    assert tessera.TritonError is tessera.TesseraError
    with pytest.raises(InterpreterError, match="out-of-bounds access by tile.load"):
        copy_kernel[(1,)](np.zeros(8, np.float32), np.zeros(16, np.float32), 16, BLOCK=16)


def test_dtype_names_and_properties():
    assert tl.dtype("fp16") == tl.float16 and tl.dtype("bf16") == tl.bfloat16
    assert tl.float16.exponent_bias == 15 and tl.float8e4nv.exponent_bias == 7
    assert tl.bfloat16.exponent_bias == 127 and tl.float8e5.exponent_bias == 15
    assert tl.pi32_t == tl.pointer_type(tl.int32)
    with pytest.raises(TypeError, match="int32 is not a floating-point type"):
        tl.int32.exponent_bias


@tessera.jit
def read_only_kernel(x_ptr: tl.const, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_const_annotates_a_read_only_pointer(device):
    x, y = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    read_only_kernel[(1,)](x, y, 16)
    np.testing.assert_array_equal(y, x + 1)


@tessera.jit
def optional_scale_kernel(x_ptr, y_ptr, N: tl.constexpr, SCALED: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    scale = tl.load(x_ptr + offs) if SCALED else None
    if scale is not None:
        x = x * scale
    if scale is None:
        x = x + 100
    tl.store(y_ptr + offs, x)


def test_is_none_of_a_tensor_is_known_when_compiling(device):
    # A tensor is never None: `is` / `is not None` need no runtime test.
    x, y = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    optional_scale_kernel[(1,)](x, y, 16, True)
    np.testing.assert_array_equal(y, x * x)
    optional_scale_kernel[(1,)](x, y, 16, False)
    np.testing.assert_array_equal(y, x + 100)


@tessera.jit
def store_42_if_large_kernel(x):
    # Each test runs only where the ones before it hold: `x.dtype` of None,
    # or a load through a float or int64 pointer, never happens.
    if (x is not None) and hasattr(x, "dtype") and isinstance(x.dtype, tl.pointer_type) \
            and (x.dtype.element_ty == tl.int32) and (tl.load(x) > 42):
        tl.store(x, 42)


@tessera.jit
def count_or_limit_kernel(x_ptr, z_ptr, N: tl.constexpr, LIMIT: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if LIMIT is None or x.numel < LIMIT:
        x = x + 1
    elif LIMIT > 100 and x:
        x = x + 100
    else:
        x = x - 1
    tl.store(z_ptr + offs, x)


def test_and_or_stop_at_the_first_value_that_decides(device):
    store_42_if_large_kernel[(1,)](None)
    store_42_if_large_kernel[(1,)](1)
    store_42_if_large_kernel[(1,)](2)
    for value, dtype, expected in [(84.0, np.float32, 84.0), (100000, np.int64, 100000),
                                   (100000, np.int32, 42), (-7, np.int32, -7)]:
        x = np.full(1, value, dtype)
        store_42_if_large_kernel[(1,)](x)
        assert x[0] == expected
    x, z = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    count_or_limit_kernel[(1,)](x, z, 8, None)  # `8 < None` is never asked
    np.testing.assert_array_equal(z, x + 1)
    count_or_limit_kernel[(1,)](x, z, 8, 4)  # `4 > 100` decides: `x` is not asked
    np.testing.assert_array_equal(z, x - 1)


@tessera.jit
def literal_tensors_kernel(out_ptr, lo, hi, N: tl.constexpr):
    value = 1
    ones = tl.full([N], value=value, dtype=value.dtype)
    acc = 0
    acc = acc.to(tl.int64)
    for i in range(lo, hi):
        acc += i
    tl.store(out_ptr + tl.arange(0, N), ones + acc)


def test_python_numbers_used_as_tensors(device):
    out = np.zeros(8, np.int64)
    literal_tensors_kernel[(1,)](out, 2**33, 2**33 + 3, 8)
    np.testing.assert_array_equal(out, 1 + 3 * 2**33 + 3)


@tessera.jit
def axes_kernel(z_ptr, x, y):
    r = tl.arange(0, 4)
    tl.static_assert(tl.expand_dims(r, (-4, 2, -1)).shape == [1, 4, 1, 1])
    tl.static_assert(tl.expand_dims(r, (0, -1)).shape == [1, 4, 1])
    tl.static_assert(tl.expand_dims(r, -2).shape == [1, 4])
    z = tl.interleave(x, y)  # two scalars
    tl.static_assert(z.shape == [2])
    tl.store(z_ptr + tl.arange(0, 2), z)


def test_expand_dims_axes_count_from_the_result_and_scalars_interleave(device):
    z = np.zeros(2, np.int32)
    axes_kernel[(1,)](z, 10, 20)
    np.testing.assert_array_equal(z, [10, 20])


def test_float8e4b15_describes_its_format_and_is_reinterpreted():
    assert tl.float8e4b15.fp_mantissa_width == 3 and tl.float8e4b15.exponent_bias == 15
    x = tessera.reinterpret(np.full(16, 0x78, np.uint8), tl.float8e4b15)  # 1.0
    y = np.zeros(16, np.float32)
    copy_kernel[(1,)](x, y, 16, BLOCK=16)
    np.testing.assert_array_equal(y, 1.0)


@tessera.jit
def pick_by_sign(x, pid):
    if pid == 0:
        return x + 1
    elif pid == 1:
        if x > 100:
            return x * 0
        return x + 2
    else:
        return x + 3


@tessera.jit
def returns_in_branches_kernel(out_ptr):
    pid = tl.program_id(0)
    o = tl.load(out_ptr + pid)
    if pid < 3:
        o = pick_by_sign(o, pid)
    tl.store(out_ptr + pid, o)


def test_a_called_function_returns_from_runtime_branches(device):
    out = np.array([10, 20, 30, 40], np.int32)
    returns_in_branches_kernel[(4,)](out)
    np.testing.assert_array_equal(out, [11, 22, 33, 40])
    out = np.array([10, 200, 30, 40], np.int32)
    returns_in_branches_kernel[(4,)](out)
    np.testing.assert_array_equal(out, [11, 0, 33, 40])


@tessera.jit
def conditional_expressions_kernel(t_ptr, f_ptr, out_ptr):
    pid = tl.program_id(0)
    # Only the chosen store runs.
    tl.store(out_ptr + pid, tl.load(t_ptr)) if pid % 2 == 0 else tl.store(out_ptr + pid,
                                                                         tl.load(f_ptr))
    value = 3.5 if pid % 2 == 0 else tl.load(f_ptr)
    tl.store(out_ptr + 4 + pid, value)


def test_conditional_expressions_on_runtime_conditions(device):
    t, f = np.array([1.0], np.float32), np.array([2.0], np.float32)
    out = np.zeros(8, np.float32)
    conditional_expressions_kernel[(4,)](t, f, out)
    np.testing.assert_array_equal(out, [1, 2, 1, 2, 3.5, 2, 3.5, 2])


@tessera.jit
def unsplat_kernel(x, EXPLICIT: tl.constexpr):
    condition = tl.load(x + tl.arange(0, 1)) > 42
    if EXPLICIT:
        condition = condition.item()
    if condition:
        tl.store(x, 42)
    # A one-element 2-D tensor as a scalar too.
    pair = tl.reshape(tl.load(x + tl.arange(0, 1)), [1, 1]).item() + 1
    tl.store(x + 1, pair)


@pytest.mark.parametrize("explicit", [True, False])
@pytest.mark.parametrize("value, stored", [(41, 41), (43, 42)])
def test_item_and_one_element_conditions(device, explicit, value, stored):
    x = np.array([value, 0], np.int32)
    if explicit:
        unsplat_kernel[(1,)](x, True)
    else:  # Triton's warning, where the kernel compiles
        with pytest.warns(UserWarning, match=r'please use "if \(...\).item\(\)" instead'):
            tessera.jit(unsplat_kernel.fn)[(1,)](x, False)
    assert x.tolist() == [stored, stored + 1]


@tessera.jit
def ambiguous_condition(x):
    if tl.load(x + tl.arange(0, 2)) > 0:
        tl.store(x, 1)


@tessera.jit
def item_of_many(x):
    tl.store(x, tl.load(x + tl.arange(0, 2)).item())


def test_conditions_and_items_of_several_elements_are_located_errors():
    x = np.zeros(2, np.int32)
    with pytest.raises(tessera.CompilationError,
                       match="Boolean value of Tensor with more than one value is ambiguous"):
        ambiguous_condition[(1,)](x)
    with pytest.raises(tessera.CompilationError,
                       match=r"can only unsplat single-element tensors, got shape \[2\]") as info:
        item_of_many[(1,)](x)
    assert info.value.lineno is not None


@tessera.jit
def add_literal_kernel(out_ptr, VALUE: tl.constexpr, DTYPE: tl.constexpr):
    x = tl.full((), 3, dtype=DTYPE)
    tl.store(out_ptr, (x + VALUE).to(tl.int64))


@pytest.mark.parametrize("dtype, value", [(tl.int32, 0xFFFFFFFFFFFFFF), (tl.int32, 2**31),
                                          (tl.int8, 128), (tl.int8, -129), (tl.uint8, 256)])
def test_a_literal_out_of_the_range_of_its_operation_is_an_error(device, dtype, value):
    # As Triton: a Python integer computes in the tensor's type, which must
    # hold it (it wrapped silently: 3 + 2**31 gave -2147483645).
    out = np.zeros(1, np.int64)
    with pytest.raises(tessera.TritonError, match=f"Scalar {value} is out of range for type "
                                                  f"{dtype.name}"):
        add_literal_kernel[(1,)](out, value, dtype)


@pytest.mark.parametrize("dtype, value", [(tl.int32, 2**31 - 4), (tl.int8, -128), (tl.int8, 124),
                                          (tl.uint8, 252)])
def test_a_literal_at_the_ends_of_the_range_computes(device, dtype, value):
    out = np.zeros(1, np.int64)
    add_literal_kernel[(1,)](out, value, dtype)
    assert out[0] == value + 3


def test_a_negative_literal_with_an_unsigned_tensor_is_an_error(device):
    out = np.zeros(1, np.int64)
    with pytest.raises(tessera.TritonError, match="unsigned tensor and a negative scalar"):
        add_literal_kernel[(1,)](out, -1, tl.uint32)


@tessera.jit
def squeeze_kernel(out_ptr, DIM: tl.constexpr, S0: tl.constexpr, S1: tl.constexpr,
                   S2: tl.constexpr):
    a = tl.reshape(tl.arange(0, 8), (S0, S1, S2))
    b = tl.squeeze(a, DIM)
    tl.static_assert(len(b.shape) == 2)
    c = tl.unsqueeze(b, DIM)
    tl.static_assert(c.shape == a.shape)
    tl.store(out_ptr + tl.arange(0, 8), tl.ravel(b) * 10 + tl.ravel(c))


@pytest.mark.parametrize("shape, dim", [((1, 2, 4), 0), ((2, 1, 4), 1), ((2, 4, 1), 2),
                                        ((2, 4, 1), -1)])
def test_squeeze_and_unsqueeze(device, shape, dim):
    out = np.zeros(8, np.int32)
    squeeze_kernel[(1,)](out, dim, *shape)
    np.testing.assert_array_equal(out, np.arange(8) * 11)


def test_squeezing_a_dimension_that_is_not_1_is_an_error(device):
    out = np.zeros(8, np.int32)
    with pytest.raises(tessera.CompilationError, match="cannot squeeze dimension 2 of size 4"):
        squeeze_kernel[(1,)](out, 2, 1, 2, 4)


@tessera.jit
def licm_markers_kernel(out_ptr, n):
    i = 0
    while tl.condition(i < n, disable_licm=True):
        i += 1
    total = 0
    for j in tl.range(0, n, disable_licm=True, loop_unroll_factor=2):
        total += j
    tl.store(out_ptr, i * 1000 + total)


def test_triton_loop_markers_are_accepted(device):
    # tl.condition and tl.range's disable_licm, as Triton's (no effect here).
    out = np.zeros(1, np.int32)
    licm_markers_kernel[(1,)](out, 5)
    assert out[0] == 5 * 1000 + 10


@tessera.jit
def types_kernel(X, Out, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    # A pointer's type is its pointer_type, a block's a block_type, a
    # scalar's its dtype (Triton's `Out.type.element_ty`, `x.type.scalar`).
    tl.static_assert(Out.type.element_ty == tl.float32)
    tl.static_assert(X.dtype.element_ty == tl.float16)
    tl.static_assert(x.type.is_block())
    tl.static_assert(x.type.scalar == tl.float16)
    tl.static_assert(x.type.element_ty == tl.float16)
    tl.static_assert(x.type.shape == [N])
    tl.static_assert(x.type == tl.block_type(tl.float16, [N]))
    tl.static_assert(not tl.sum(x, 0).type.is_block())
    tl.store(Out + tl.arange(0, N), x.to(Out.type.element_ty))


def test_tensor_types(device):
    out = np.zeros(16, np.float32)
    types_kernel[(1,)](np.full(16, 1.5, np.float16), out, N=16)
    np.testing.assert_array_equal(out, 1.5)


@tessera.jit
def split_to_scalars_kernel(X, Z1, Z2):
    z1, z2 = tl.split(tl.load(X + tl.arange(0, 2)))
    tl.static_assert(z1.shape == [] and z2.shape == [])
    tl.store(Z1, z1)
    tl.store(Z2, z2)


def test_split_of_two_elements_gives_scalars(device):
    # Each thread gets both elements, wherever the load put them.
    z1, z2 = np.zeros(1, np.int64), np.zeros(1, np.int64)
    split_to_scalars_kernel[(1,)](np.array([7, 9], np.int64), z1, z2)
    assert (z1[0], z2[0]) == (7, 9)
