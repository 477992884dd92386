"""Inputs out of range meet a clear error where they enter the compiler and
runtime: num_warps, tensor sizes, kernel cache entries that are not regular
files, and host-interpreter accesses outside the argument a pointer came from
or into read-only memory."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _tessera
from tessera.runtime.errors import InterpreterError


@tessera.jit
def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@tessera.jit
def fill(x_ptr, offset, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offset + offs, offs)


@tessera.jit
def copy_to_offset(x_ptr, y_ptr, offset, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offset + offs, tl.load(y_ptr + offs))


@tessera.jit
def square(y_ptr, BLOCK: tl.constexpr):
    tile = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs[:, None] * BLOCK + offs[None, :], tile)


def compile_copy(num_warps, target="cuda:90"):
    return tessera.compile(copy, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, target,
                           {"BLOCK": 128}, num_warps=num_warps)


# num_warps: a power of two from 1 to 32 (Triton's bound).

@pytest.mark.parametrize("num_warps", [0, 3, 64, 1024, 2**32 - 1, 2**32, 2**70])
@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_num_warps_outside_the_powers_of_two_to_32_is_an_assertion(num_warps, target):
    with pytest.raises(AssertionError,
                       match=f"num_warps must be a power of 2 from 1 to 32, got {num_warps}"):
        compile_copy(num_warps, target)
    x = np.zeros(128, np.float32)
    with pytest.raises(AssertionError, match="num_warps must be a power of 2 from 1 to 32"):
        copy[(1,)](x, x, BLOCK=128, num_warps=num_warps)


@pytest.mark.parametrize("option, value", [("num_stages", -1), ("num_stages", 2**32),
                                           ("waves_per_eu", 2**40), ("num_stages", 2.5)])
def test_stage_and_wave_counts_out_of_range_are_named(option, value):
    x = np.zeros(128, np.float32)
    with pytest.raises(ValueError, match=f"{option} must be an integer from 0 to 2\\*\\*31 - 1, "
                                         f"got {value}"):
        copy[(1,)](x, x, BLOCK=128, **{option: value})
    with pytest.raises(TypeError, match="maxnreg must be a positive integer or None"):
        copy[(1,)](x, x, BLOCK=128, maxnreg=2**32)


@pytest.mark.parametrize("num_warps", [1, 32])
def test_num_warps_in_range_compiles_as_asked(num_warps):
    kernel = compile_copy(num_warps)
    assert f"reqntid {num_warps * 32}, 1, 1" in kernel.asm["ptx"]


@pytest.mark.parametrize("num_warps", [0, 3, 64, 1024, 2**32 - 1])
def test_bindings_check_num_warps(num_warps):
    ir = copy.warmup(np.zeros(128, np.float32), np.zeros(128, np.float32), BLOCK=128)._tile_ir
    message = f"num_warps must be a power of two from 1 to 32, got {num_warps}"
    with pytest.raises(_tessera.StageError, match=message):
        _tessera.compile(ir, "cuda:90", num_warps=num_warps)
    with pytest.raises(_tessera.StageError, match=message):
        _tessera.options_for_target("cuda:90", num_warps, 3)
    # The tile-layout stage, whose layouts asserted on a non-power of two.
    with pytest.raises(_tessera.StageError, match=message):
        _tessera.assign_layouts(ir, num_warps, 32)


# Tensors: at most 2^20 elements, as in Triton.

@pytest.mark.parametrize("kernel, constants, shape", [
    (copy, {"BLOCK": 2**21}, "2097152"),
    (square, {"BLOCK": 2048}, "2048x2048"),
])
def test_tensor_beyond_2_to_the_20_is_a_located_error(kernel, constants, shape):
    signature = {name: "*fp32" for name in ("x_ptr", "y_ptr") if name in kernel.arg_names}
    with pytest.raises(tessera.CompilationError) as info:
        tessera.compile(kernel, signature, "cuda:90", constants)
    error = info.value
    assert f"a tensor of shape {shape} has more than 1048576 elements" in str(error)
    assert error.filename == __file__ and error.lineno is not None


def test_tensor_of_2_to_the_20_elements_is_accepted(monkeypatch):
    # The bound is checked up to layouts; code for 8192 elements a thread
    # takes minutes a target, so --compile-for's checks are left out.
    monkeypatch.delenv("TESSERA_COMPILE_CHECK", raising=False)
    x = np.arange(2**20, dtype=np.float32)
    y = np.zeros_like(x)
    assert "#tile.blocked" in copy.warmup(x, y, BLOCK=2**20).asm["tile-layout"]
    copy[(1,)](x, y, BLOCK=2**20)
    np.testing.assert_array_equal(y, x)


# The kernel cache reads regular files only, and clears what writers left.

def stored_entry(directory):
    ir = copy.warmup(np.zeros(128, np.float32), np.zeros(128, np.float32), BLOCK=128)._tile_ir
    good, note = _tessera.compile_cached(ir, "cuda:90")
    if note == "no binary":
        pytest.skip("no ptxas here: nothing is stored")
    [entry] = [p for p in directory.iterdir() if p.suffix == ".kernel"]
    return ir, good, entry


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "fifo"])
def test_cache_entry_that_is_not_a_file_is_replaced(cache_dir, kind):
    ir, good, entry = stored_entry(cache_dir)
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to("/dev/zero")
    again, note = _tessera.compile_cached(ir, "cuda:90")
    assert "damaged (not a regular file)" in note and entry.name in note
    assert again.binary == good.binary
    assert entry.is_file() and not entry.is_symlink()
    assert _tessera.compile_cached(ir, "cuda:90")[1] == "hit"


def test_stale_temporary_files_are_removed_when_the_cache_opens(cache_dir):
    stale = cache_dir / "0123.kernel.abcdefgh.tmp"
    fresh = cache_dir / "4567.kernel.ijklmnop.tmp"
    other = cache_dir / "notes.txt"
    for path in (stale, fresh, other):
        path.write_bytes(b"left by a writer that died")
    two_hours_ago = time.time() - 2 * 3600
    os.utime(stale, (two_hours_ago, two_hours_ago))
    os.utime(other, (two_hours_ago, two_hours_ago))
    ir = copy.warmup(np.zeros(128, np.float32), np.zeros(128, np.float32), BLOCK=128)._tile_ir
    _tessera.compile_cached(ir, "cuda:90")
    assert not stale.exists()
    assert fresh.exists() and other.exists()


# The host interpreter: a pointer stays in its argument's buffer, stores go to
# writable memory, and no address wraps round the top of memory.

def test_pointer_into_one_argument_cannot_write_another():
    x = np.zeros(64, np.int32)
    y = np.full(64, -1, np.int32)
    # x + offset is y's first element: in a buffer of the kernel's, not x's.
    offset = (y.ctypes.data - x.ctypes.data) // 4
    with pytest.raises(InterpreterError, match="out-of-bounds access by tile.store .* 'x_ptr'"):
        copy_to_offset[(1,)](x, y, offset, BLOCK=16)
    np.testing.assert_array_equal(y, -1)


def test_view_reaches_the_rest_of_its_array():
    # As on a GPU: a pointer into a view reaches all of the array's memory.
    base = np.zeros(64, np.int32)
    fill[(1,)](base[16:], -16, BLOCK=16)
    np.testing.assert_array_equal(base[:16], np.arange(16))


@pytest.mark.parametrize("memory", ["read-only array", "bytes"])
def test_store_to_read_only_memory_is_an_error(memory):
    if memory == "bytes":
        x = np.frombuffer(bytes(64), dtype=np.int32)
    else:
        x = np.zeros(16, np.int32)
        x.setflags(write=False)
    with pytest.raises(InterpreterError, match="write to the read-only buffer 'x_ptr' by tile.store"):
        fill[(1,)](x, 0, BLOCK=16)
    np.testing.assert_array_equal(x, 0)


def test_reading_read_only_memory_is_fine():
    x = np.frombuffer(np.arange(16, dtype=np.float32).tobytes(), dtype=np.float32)
    y = np.zeros(16, np.float32)
    copy[(1,)](x, y, BLOCK=16)
    np.testing.assert_array_equal(y, x)


def test_address_near_the_top_of_memory_is_out_of_bounds(tmp_path):
    # In a process of its own: the access wrapped into the buffer and
    # crashed the interpreter's process.
    script = tmp_path / "wrap.py"
    script.write_text("""
import numpy as np
import tessera, tessera.language as tl
from tessera.runtime.errors import InterpreterError

@tessera.jit
def fill(x_ptr, offset, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offset + offs, offs)

x = np.zeros(16, np.int32)
try:
    fill[(1,)](x, -(x.ctypes.data // 4) - 1, BLOCK=16)
except InterpreterError as e:
    print(e)
""")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env={**os.environ, "TESSERA_DEVICE": ""})
    assert result.returncode == 0, result.stderr
    # Element 0 is the last 4 bytes of memory, where address + 4 wraps to 0.
    assert "out-of-bounds access by tile.store (element 0 at address 0xfffffffffffffffc" \
        in result.stdout


@tessera.jit
def dot_loop(a_ptr, c_ptr, n):
    rows = tl.arange(0, 32)
    acc = tl.zeros((32, 32), dtype=tl.float32)
    for _ in range(n):
        a = tl.load(a_ptr + rows[:, None] * 32 + rows[None, :])
        acc = tl.dot(a, a, acc)
    tl.store(c_ptr + rows[:, None] * 32 + rows[None, :], acc)


def test_pipelines_deeper_than_16_stages_are_an_error():
    # 100 stages took the compiler 52 s and 11 GB (the fuzzer found it).
    signature = {"a_ptr": "*fp16", "c_ptr": "*fp32", "n": "i32"}
    with pytest.raises(tessera.CompilationError, match="num_stages 100 is more than 16"):
        tessera.compile(dot_loop, signature, "cuda:90", num_stages=100)
    assert "cp.async" in tessera.compile(dot_loop, signature, "cuda:90",
                                          num_stages=16).asm["ptx"]
