"""Specialisation and the cache of compiled kernels."""

import numpy as np

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
