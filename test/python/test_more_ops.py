"""The rest of the language ops, against numpy through the interpreter."""

import math
import os

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.language.extra import libdevice


@tessera.jit
def shape_builtins_kernel(x_ptr, b_ptr, v_ptr, p_ptr, r_ptr, z_ptr, M: tl.constexpr,
                          N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    row0 = tl.load(x_ptr + cols)
    tl.store(b_ptr + rows[:, None] * N + cols[None, :], tl.broadcast_to(row0[None, :], (M, N)))
    tl.store(v_ptr + tl.arange(0, M * N), tl.view(x, (M * N,)))
    tl.store(p_ptr + cols[:, None] * M + rows[None, :], tl.permute(x, (1, 0)))
    tl.store(r_ptr + tl.arange(0, M * N), tl.ravel(x))
    tl.store(z_ptr + tl.arange(0, M * N), tl.ravel(tl.zeros_like(x) + 7))


def test_shape_builtins(device):
    x = np.arange(32, dtype=np.int32).reshape(4, 8)
    b, v, p, r, z = (np.zeros(32, np.int32) for _ in range(5))
    shape_builtins_kernel[(1,)](x, b, v, p, r, z, M=4, N=8)
    np.testing.assert_array_equal(b.reshape(4, 8), np.broadcast_to(x[0], (4, 8)))
    # view may reorder elements; the interpreter keeps row-major order
    np.testing.assert_array_equal(np.sort(v), x.ravel())
    np.testing.assert_array_equal(p.reshape(8, 4), x.T)
    np.testing.assert_array_equal(r, x.ravel())
    np.testing.assert_array_equal(z, np.full(32, 7))


@tessera.jit
def softmax_builtin_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.softmax(tl.load(x_ptr + offs)))


def test_softmax_builtin(device):
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    y = np.zeros_like(x)
    softmax_builtin_kernel[(1,)](x, y, N=64)
    ref = np.exp(x - x.max())
    np.testing.assert_allclose(y, ref / ref.sum(), rtol=1e-6)


@tessera.jit
def atomics_kernel(i_ptr, f_ptr, lock_ptr, old_ptr):
    tl.atomic_min(i_ptr + 0, 3)
    tl.atomic_and(i_ptr + 1, 6)
    tl.atomic_or(i_ptr + 2, 6)
    tl.atomic_xor(i_ptr + 3, 6)
    old = tl.atomic_xchg(i_ptr + 4, 42)
    pid = tl.program_id(0)
    tl.store(old_ptr + 2 * pid, old)
    tl.atomic_add(f_ptr, 1.5)
    tl.atomic_max(f_ptr + 1, -2.0)
    found = tl.atomic_cas(lock_ptr, 0, 1)
    tl.store(old_ptr + 2 * pid + 1, found)


def test_more_atomics(device):
    i = np.array([10, 12, 12, 12, 5], np.int32)
    f = np.array([1.0, -3.0], np.float32)
    lock = np.zeros(1, np.int32)
    old = np.zeros(4, np.int32)
    atomics_kernel[(2,)](i, f, lock, old)
    np.testing.assert_array_equal(i, [3, 12 & 6, 12 | 6, 12, 42])  # xor twice
    np.testing.assert_array_equal(f, [4.0, -2.0])
    assert lock[0] == 1
    # The program that came first swapped out 5, the other 42; the one that
    # came first to the lock found it free (0), the other taken (1).
    assert sorted(old[0::2]) == [5, 42] and sorted(old[1::2]) == [0, 1]


@tessera.jit
def hints_and_casts_kernel(x_ptr, y_ptr, b_ptr, N: tl.constexpr):
    offs = tl.multiple_of(tl.arange(0, N), N)
    offs = tl.max_contiguous(offs, N)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.math.exp(x).to(tl.float16))
    tl.store(b_ptr + offs, x.to(tl.int32, bitcast=True))
    tl.static_print("compiling with N =", N)


def test_hints_math_aliases_bitcast_static_print(device, capsys):
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    y = np.zeros(16, np.float16)
    b = np.zeros(16, np.int32)
    hints_and_casts_kernel[(1,)](x, y, b, N=16)
    np.testing.assert_allclose(y, np.exp(x).astype(np.float16), rtol=1e-3)
    np.testing.assert_array_equal(b, x.view(np.int32))
    assert "compiling with N = 16" in capsys.readouterr().out
    ir = hints_and_casts_kernel.warmup(x, y, b, N=16).asm["tile"]
    assert "arith.bitcast" in ir


@tessera.jit
def cache_hints_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs, cache_modifier=".cg", eviction_policy="evict_last", volatile=True)
    tl.store(y_ptr + offs, x, cache_modifier=".cs", eviction_policy="evict_first")


def test_cache_hints_reach_the_ir(device):
    x = np.arange(8, dtype=np.float32)
    y = np.zeros_like(x)
    compiled = cache_hints_kernel[(1,)](x, y, N=8)
    np.testing.assert_array_equal(y, x)
    ir = compiled.asm["tile"]
    assert "cache = cg evict = evict_last volatile" in ir
    assert "cache = cs evict = evict_first" in ir


@tessera.jit
def bad_cache_kernel(x_ptr):
    tl.load(x_ptr, cache_modifier=".zz")


def test_bad_cache_modifier(device):
    with pytest.raises(tessera.CompilationError, match="unknown cache modifier '.zz'"):
        bad_cache_kernel[(1,)](np.zeros(1, np.float32))


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"),
                                     ("float32", "float16"), ("int8", "int64"),
                                     ("uint8", "float32"), ("float64", "float32"),
                                     ("int32", "uint8"), ("float32", "bool")])
def test_casts(device, src, dst):
    @tessera.jit
    def cast_kernel(x_ptr, y_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(y_ptr.dtype.element_ty))

    rng = np.random.default_rng(1)
    x = (rng.uniform(0, 100, 32) if src.startswith("float") else rng.integers(0, 100, 32))
    x = x.astype(src)
    y = np.zeros(32, dtype=dst)
    cast_kernel[(1,)](x, y, N=32)
    expected = x.astype(dst) if dst != "bool" else x != 0
    np.testing.assert_array_equal(y, expected)


@tessera.jit
def int8_dot_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))


def test_int8_dot_accumulates_in_int32(device):
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    b = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    c = np.zeros((16, 16), np.int32)
    int8_dot_kernel[(1,)](a, b, c, N=16)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


@tessera.jit
def fp8_kernel(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, x.to(tl.float8e5).to(tl.float32))
    tl.store(z_ptr + r, x.to(tl.float8e4nv).to(tl.float32))


def test_fp8_rounding(device):
    x = np.array([0.1, 1.0, 1.5, 3.0, -2.25, 100.0, 0.0, -0.5], np.float32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    fp8_kernel[(1,)](x, y, z, N=8)
    # e5m2 keeps 2 mantissa bits, e4m3 3; ties go to even.
    np.testing.assert_array_equal(y, [0.09375, 1.0, 1.5, 3.0, -2.0, 96.0, 0.0, -0.5])
    np.testing.assert_array_equal(z, [0.1015625, 1.0, 1.5, 3.0, -2.25, 96.0, 0.0, -0.5])


@tessera.jit
def interleave_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    c = tl.interleave(tl.load(a_ptr + r), tl.load(b_ptr + r))
    tl.store(c_ptr + tl.arange(0, 2 * N), c)


def test_interleave(device):
    a = np.arange(8, dtype=np.int32)
    b = np.arange(100, 108, dtype=np.int32)
    c = np.zeros(16, np.int32)
    interleave_kernel[(1,)](a, b, c, N=8)
    np.testing.assert_array_equal(c, np.stack([a, b], axis=1).ravel())


@tessera.jit
def swizzle_kernel(out_ptr, M: tl.constexpr, N: tl.constexpr, G: tl.constexpr):
    i = tl.program_id(0)
    j = tl.program_id(1)
    ni, nj = tl.swizzle2d(i, j, M, N, G)
    tl.store(out_ptr + (i * N + j) * 2, ni)
    tl.store(out_ptr + (i * N + j) * 2 + 1, nj)


def test_swizzle2d_is_a_permutation_in_groups(device):
    M, N, G = 6, 4, 4
    out = np.zeros(M * N * 2, np.int32)
    swizzle_kernel[(M, N)](out, M=M, N=N, G=G)
    pairs = out.reshape(M * N, 2)
    assert sorted(map(tuple, pairs)) == [(i, j) for i in range(M) for j in range(N)]
    # Consecutive linear ids walk down a group's rows first.
    assert [tuple(p) for p in pairs[:4]] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert tessera.language.swizzle2d(5, 3, M, N, G) == (5, 3)  # also on plain ints


@tessera.jit
def libdevice_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if FN == "atan2":
        r = libdevice.atan2(x, y)
    elif FN == "pow":
        r = libdevice.pow(x, y)
    elif FN == "fmod":
        r = libdevice.fmod(x, y)
    elif FN == "isnan":
        r = libdevice.isnan(x / y).to(x.dtype)
    elif FN == "signbit":
        r = libdevice.signbit(x).to(x.dtype)
    else:
        r = getattr(libdevice, FN)(x)
    tl.store(out_ptr + offs, r)


LIBDEVICE_CASES = {
    "asin": (np.arcsin, (-0.9, 0.9)), "acos": (np.arccos, (-0.9, 0.9)),
    "atan": (np.arctan, (-3, 3)), "sinh": (np.sinh, (-3, 3)), "cosh": (np.cosh, (-3, 3)),
    "tanh": (np.tanh, (-3, 3)), "asinh": (np.arcsinh, (-3, 3)),
    "acosh": (np.arccosh, (1.1, 4)), "atanh": (np.arctanh, (-0.9, 0.9)),
    "tan": (np.tan, (-1.2, 1.2)), "log10": (np.log10, (0.1, 9)),
    "log1p": (np.log1p, (-0.5, 3)), "expm1": (np.expm1, (-2, 2)), "cbrt": (np.cbrt, (-8, 8)),
    "erfc": (lambda x: 1 - np.vectorize(math.erf)(x), (-2, 2)),
    "trunc": (np.trunc, (-4, 4)), "rint": (np.rint, (-4, 4)),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-4, 4)),
    "atan2": (np.arctan2, (-3, 3)), "pow": (np.power, (0.5, 3)), "fmod": (np.fmod, (0.5, 7)),
    "isnan": (lambda x, y: np.isnan(np.divide(x, y, out=np.full_like(x, np.nan),
                                              where=y != 0)), (-1, 1)), "signbit": (np.signbit, (-2, 2)),
}


@pytest.mark.parametrize("fn", sorted(LIBDEVICE_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_libdevice_functions(device, rng, monkeypatch, fn, dtype):
    """triton.language.extra.libdevice's functions, as tutorial 07 calls them
    (f64 ones that AMD GPUs lack the ROCm device libraries for are refused
    there, at the kernel's line)."""
    reference, (low, high) = LIBDEVICE_CASES[fn]
    if dtype == "float64" and fn not in ("trunc", "rint", "round", "fmod", "isnan", "signbit"):
        targets = os.environ.get("TESSERA_COMPILE_CHECK", "").split(",")
        monkeypatch.setenv("TESSERA_COMPILE_CHECK",
                           ",".join(t for t in targets if not t.startswith("hip")))
    x = rng.uniform(low, high, 64).astype(dtype)
    y = rng.uniform(low, high, 64).astype(dtype)
    if fn == "isnan":
        x[:8] = 0
        y[:8] = 0  # 0 / 0
    out = np.zeros(64, dtype)
    libdevice_kernel[(1,)](x, y, out, N=64, FN=fn)
    two = fn in ("atan2", "pow", "fmod", "isnan")
    expected = (reference(x, y) if two else reference(x)).astype(dtype)
    np.testing.assert_allclose(out, expected, rtol=1e-5 if dtype == "float32" else 1e-12,
                               atol=1e-6 if dtype == "float32" else 1e-12)


@tessera.jit
def gather_rows_kernel(table_ptr, out_ptr, bytes_ptr, a_ptr, b_ptr, N: tl.constexpr):
    # A table of addresses, as grouped GEMMs take their matrices: each
    # program reads its row through the address in the table. (a_ptr and
    # b_ptr only tell the interpreter about the arrays.)
    g = tl.program_id(0)
    row = tl.load(table_ptr + g).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, N)
    tl.store(out_ptr + g * N + offs, tl.load(row + offs))
    as_ints = row.to(tl.pointer_type(tl.int32))  # a pointer to another pointee
    tl.store(out_ptr + (2 + g) * N + offs, tl.load(as_ints + offs).to(tl.float32, bitcast=True))
    tl.store(bytes_ptr + g * N + offs, (row + offs).to(tl.int64) - row.to(tl.int64))


def test_pointers_from_addresses(device):
    if device != "interpreter":
        pytest.skip("the host arrays' addresses are host addresses")
    a = np.arange(8, dtype=np.float32)
    b = np.arange(8, dtype=np.float32) + 100
    table = np.array([a.ctypes.data, b.ctypes.data], np.uint64)
    out, offsets = np.zeros(32, np.float32), np.zeros(16, np.int64)
    gather_rows_kernel[(2,)](table, out, offsets, a, b, N=8)
    np.testing.assert_array_equal(out, np.concatenate([a, b, a, b]))
    np.testing.assert_array_equal(offsets, np.tile(np.arange(8) * 4, 2))
    with pytest.raises(tessera.CompilationError, match="pointers cast to and from 64-bit integers"):
        bad_cast_kernel[(1,)](out)


@tessera.jit
def bad_cast_kernel(x_ptr):
    tl.store(x_ptr, x_ptr.to(tl.float32))


@tessera.jit
def carried_hint_kernel(table_ptr, out_ptr, x_ptr, n, HINT: tl.constexpr, BLOCK: tl.constexpr):
    # (x_ptr only tells the interpreter about the array the table points to.)
    src = tl.load(table_ptr).to(tl.pointer_type(tl.float32)) + tl.arange(0, BLOCK)
    dst = out_ptr + tl.arange(0, BLOCK)
    for _ in range(0, n, BLOCK):
        if HINT:
            # Not assigned, as Triton's tutorial 08 writes it: the hint is
            # on every value the loop carries.
            tl.multiple_of(src, [16])
            tl.max_contiguous(src, [BLOCK])
        tl.store(dst, tl.load(src))
        src += BLOCK
        dst += BLOCK


@pytest.mark.parametrize("hint", [False, True])
def test_hints_on_loop_carried_pointers(device, hint):
    if device != "interpreter":
        pytest.skip("the host arrays' addresses are host addresses")
    x = np.arange(256, dtype=np.float32)
    table, out = np.array([x.ctypes.data], np.int64), np.zeros_like(x)
    carried_hint_kernel[(1,)](table, out, x, 256, HINT=hint, BLOCK=128, num_warps=1)
    np.testing.assert_array_equal(out, x)
    # From an address nothing is known of the pointer; hinted, its loads
    # take 16 bytes at a time.
    ptx = carried_hint_kernel.warmup(table, out, x, 256, HINT=hint, BLOCK=128, num_warps=1,
                                     grid=(1,)).compile_for("cuda:80").assembly
    assert ("ld.global.v4.b32" in ptx) == hint


@tessera.jit
def float_extrema_kernel(x_ptr, max_ptr, min_ptr, old_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(old_ptr + offs, tl.atomic_max(max_ptr + offs * 0, x))
    tl.atomic_min(min_ptr + offs * 0, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_atomic_max_and_min_of_either_sign(device, dtype):
    # PTX has no float max: NVIDIA's compares the bits, as signed integers
    # where the sign bit is clear and as unsigned ones, reversed, where set.
    x = np.array([-3.5, 2.0, -0.25, 7.0, -8.0, 0.5, -1.0, 3.0], dtype)
    for start in (-100.0, 5.0):
        mx, mn = np.array([start], dtype), np.array([-start], dtype)
        old = np.zeros(8, dtype)
        float_extrema_kernel[(1,)](x, mx, mn, old, N=8)
        assert mx[0] == max(start, x.max()) and mn[0] == min(-start, x.min())
        assert set(old) <= set(x) | {start}
    # -0.0 is above every negative number and below every positive one.
    zeros = np.full(8, -0.0, dtype)
    largest = np.finfo(dtype).max
    mx, mn = np.array([-largest], dtype), np.array([largest], dtype)
    float_extrema_kernel[(1,)](zeros, mx, mn, np.zeros(8, dtype), N=8)
    assert mx[0] == 0 and np.signbit(mx[0]) and mn[0] == 0 and np.signbit(mn[0])


@tessera.jit
def atomic_forms_kernel(i_ptr, f_ptr, h_ptr, l_ptr, b_ptr, SEM: tl.constexpr,
                        SCOPE: tl.constexpr):
    tl.atomic_add(i_ptr, 1, sem=SEM, scope=SCOPE)
    tl.atomic_add(b_ptr, 1.0, sem=SEM, scope=SCOPE)
    tl.atomic_max(i_ptr + 1, 1, sem=SEM, scope=SCOPE)
    tl.atomic_add(f_ptr, 1.0, sem=SEM, scope=SCOPE)
    tl.atomic_max(f_ptr + 1, 1.0, sem=SEM, scope=SCOPE)
    tl.atomic_add(h_ptr, 1.0, sem=SEM, scope=SCOPE)
    tl.atomic_xchg(l_ptr, 1, sem=SEM, scope=SCOPE)
    tl.atomic_cas(l_ptr + 1, 0, 1, sem=SEM, scope=SCOPE)


@pytest.mark.parametrize("sem", ["acq_rel", "acquire", "release", "relaxed"])
@pytest.mark.parametrize("scope", ["gpu", "cta", "sys"])
def test_atomics_spell_their_order_and_scope_in_ptx(sem, scope):
    # As Triton writes them, so that its tests' checks of the PTX hold.
    kernel = tessera.compile(atomic_forms_kernel, dict(i_ptr="*i32", f_ptr="*fp32",
                                                       h_ptr="*fp16", l_ptr="*i64",
                                                       b_ptr="*bf16"),
                             "cuda:90", constexprs=dict(SEM=sem, SCOPE=scope))
    ptx = kernel.asm["ptx"]
    for form in ("add.u32", "max.s32", "add.f32", "min.u32", "add.noftz.f16",
                 "add.noftz.bf16", "exch.b64"):  # bf16 adds: sm_90 on
        assert f"atom.global.{scope}.{sem}.{form}" in ptx
    assert f"atom.global.{sem}.{scope}.cas.b64" in ptx


@tessera.jit
def add_in_place_kernel(i_ptr, o_ptr):
    tl.atomic_add(o_ptr, tl.load(i_ptr))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.uint16])
def test_atomics_on_8_and_16_bit_integers_are_errors(device, dtype):
    # As Triton: no atomic add of 8- or 16-bit integers.
    x = np.zeros(1, dtype)
    with pytest.raises(tessera.TritonError, match="does not (support|apply to)"):
        add_in_place_kernel[(1,)](x, x.copy())
