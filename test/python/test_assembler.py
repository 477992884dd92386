"""PTX to cubin: the assembler's errors reach Python with its log, and an
unknown TESSERA_ASSEMBLER is named."""

import stat

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _tessera


@tessera.jit
def fill(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs + 1, mask=offs < n)


def tile_ir():
    return fill.warmup(np.zeros(8, np.int32), 8, BLOCK=32)._tile_ir


@pytest.fixture
def uncached(monkeypatch):
    monkeypatch.setenv("TESSERA_ALWAYS_COMPILE", "1")
    monkeypatch.delenv("TESSERA_COMPILE_CHECK", raising=False)
    fill.cache.clear()


def test_assembler_failure_carries_its_log(uncached, tmp_path, monkeypatch):
    ptxas = tmp_path / "ptxas"
    ptxas.write_text("#!/bin/sh\necho 'ptxas error: entry uses too much local data' >&2\n"
                     "exit 255\n")
    ptxas.chmod(ptxas.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("TESSERA_ASSEMBLER", "ptxas")
    monkeypatch.setenv("TESSERA_PTXAS", str(ptxas))
    with pytest.raises(_tessera.StageError, match="(?s)ptxas failed.*too much local data"):
        _tessera.compile_cached(tile_ir(), "cuda:90")
    kernel = fill.warmup(np.zeros(8, np.int32), 8, BLOCK=32)
    with pytest.raises(tessera.CompilationError, match="(?s)fill.*too much local data"):
        kernel.compile_for("cuda:90")


def test_unknown_assembler_is_named(uncached, monkeypatch):
    monkeypatch.setenv("TESSERA_ASSEMBLER", "nvcc")
    with pytest.raises(_tessera.StageError, match="TESSERA_ASSEMBLER is 'nvcc'"):
        _tessera.compile_cached(tile_ir(), "cuda:90")


@pytest.mark.parametrize("assembler", ["ptxas", "nvjitlink"])
def test_each_assembler_makes_a_cubin(uncached, monkeypatch, assembler):
    monkeypatch.setenv("TESSERA_ASSEMBLER", assembler)
    binary, _ = _tessera.compile_cached(tile_ir(), "cuda:90")
    if binary.binary_note:
        pytest.skip(binary.binary_note)
    assert binary.binary.startswith(b"\x7fELF")
