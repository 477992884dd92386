"""The on-disk cache of compiled kernels: hits, atomic entries, and damaged
entries found, reported once, and compiled again."""

import os
import warnings

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _tessera


@tessera.jit
def cached_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs * 3, mask=offs < n)


def tile_ir(block=128):
    x = np.zeros(16, np.int32)
    return cached_kernel.warmup(x, 16, BLOCK=block)._tile_ir


def entries(directory):
    return sorted(p for p in directory.iterdir() if p.suffix == ".kernel")


def test_second_compile_is_a_hit(cache_dir):
    ir = tile_ir()
    first, note = _tessera.compile_cached(ir, "cuda:90")
    assert note == "stored"
    [entry] = entries(cache_dir)
    second, note = _tessera.compile_cached(ir, "cuda:90")
    assert note == "hit"
    assert (second.assembly, second.binary, second.shared_bytes, second.name) == (
        first.assembly, first.binary, first.shared_bytes, first.name)
    # No temporary files are left behind.
    assert os.listdir(cache_dir) == [entry.name]


def test_key_covers_ir_target_and_options(cache_dir):
    ir = tile_ir()
    _tessera.compile_cached(ir, "cuda:90")
    assert _tessera.compile_cached(ir, "cuda:80")[1] == "stored"
    assert _tessera.compile_cached(ir, "cuda:90", num_warps=8)[1] == "stored"
    assert _tessera.compile_cached(tile_ir(256), "cuda:90")[1] == "stored"
    assert len(entries(cache_dir)) == 4


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_damaged_entry_is_reported_once_and_recompiled(cache_dir, damage):
    ir = tile_ir()
    good, _ = _tessera.compile_cached(ir, "cuda:90")
    [entry] = entries(cache_dir)
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        data = data[:len(data) // 2]
    elif damage == "flip":
        data[len(data) // 2] ^= 0x40
    elif damage == "empty":
        data = b""
    else:
        data = b"not a kernel at all" * 10
    entry.write_bytes(bytes(data))
    again, note = _tessera.compile_cached(ir, "cuda:90")
    assert "damaged" in note and entry.name in note
    assert again.assembly == good.assembly and again.binary == good.binary
    # The entry was written again, whole: the next compile is a hit.
    assert _tessera.compile_cached(ir, "cuda:90")[1] == "hit"


def test_jit_warns_about_a_damaged_entry(cache_dir):
    x = np.zeros(16, np.int32)
    cached_kernel.cache.clear()
    cached_kernel.warmup(x, 16, BLOCK=64).compile_for("cuda:90")
    [entry] = entries(cache_dir)
    entry.write_bytes(entry.read_bytes()[:100])
    cached_kernel.cache.clear()
    with pytest.warns(RuntimeWarning, match="damaged"):
        binary = cached_kernel.warmup(x, 16, BLOCK=64).compile_for("cuda:90")
    assert binary.assembly
    cached_kernel.cache.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cached_kernel.warmup(x, 16, BLOCK=64).compile_for("cuda:90")


def test_cache_can_be_turned_off(cache_dir, monkeypatch):
    monkeypatch.setenv("TESSERA_ALWAYS_COMPILE", "1")
    assert _tessera.compile_cached(tile_ir(), "cuda:90")[1] == "off"
    monkeypatch.delenv("TESSERA_ALWAYS_COMPILE")
    monkeypatch.setenv("TESSERA_CACHE_DIR", "")
    assert _tessera.compile_cached(tile_ir(), "cuda:90")[1] == "off"
    assert entries(cache_dir) == []


def test_unwritable_cache_still_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(blocker / "cache"))
    binary, note = _tessera.compile_cached(tile_ir(), "cuda:90")
    assert binary.assembly and "cannot create the kernel cache" in note


def test_assembler_choice_is_part_of_the_key(cache_dir, monkeypatch):
    ir = tile_ir()
    assert _tessera.compile_cached(ir, "cuda:90")[1] == "stored"
    monkeypatch.setenv("TESSERA_ASSEMBLER", "nvjitlink")
    binary, note = _tessera.compile_cached(ir, "cuda:90")
    if binary.binary_note:
        pytest.skip(binary.binary_note)
    assert note == "stored" and binary.binary.startswith(b"\x7fELF")
    assert len(entries(cache_dir)) == 2
