"""Gluon's introduction: a copy one element per program with one warp, then
a tiled memcpy whose block size the autotuner picks."""

import numpy as np

import tessera
from tessera.experimental import gluon
from tessera.experimental.gluon import language as gl


@gluon.jit
def copy_scalar_kernel(in_ptr, out_ptr):
    # One program per element: a scalar needs no layout.
    pid = gl.program_id(0)
    value = gl.load(in_ptr + pid)
    gl.store(out_ptr + pid, value)


@gluon.jit
def memcpy_kernel(in_ptr, out_ptr, numel, XBLOCK: gl.constexpr, WARP_SIZE: gl.constexpr = 32):
    # Each thread copies runs of 4 consecutive elements (16 bytes of
    # float32); the block's threads cover 4 * WARP_SIZE * num_warps
    # elements at a time and repeat over XBLOCK.
    layout: gl.constexpr = gl.BlockedLayout([4], [WARP_SIZE], [gl.num_warps()], [0])
    pid = gl.program_id(0)
    offsets = pid * XBLOCK + gl.arange(0, XBLOCK, layout=layout)
    mask = offsets < numel
    value = gl.load(in_ptr + offsets, mask=mask)
    gl.store(out_ptr + offsets, value, mask=mask)


# The block size that copies fastest, chosen by timing each.
memcpy_tuned = tessera.autotune(
    configs=[tessera.Config({"XBLOCK": x}, num_warps=4) for x in (1024, 2048, 4096, 8192)],
    key=["numel"])(memcpy_kernel)


def memcpy(source):
    out = np.empty_like(source) if isinstance(source, np.ndarray) else source.new_empty(
        source.shape)
    numel = source.numel() if hasattr(source, "numel") else source.size
    memcpy_tuned[lambda meta: (tessera.cdiv(numel, meta["XBLOCK"]),)](source, out, numel)
    return out


def main():
    rng = np.random.default_rng(0)
    small = rng.random(17, dtype=np.float32)
    out = np.empty_like(small)
    copy_scalar_kernel[(small.size,)](small, out, num_warps=1)
    np.testing.assert_array_equal(out, small)
    source = rng.random(100_000, dtype=np.float32)
    np.testing.assert_array_equal(memcpy(source), source)
    print(f"gluon memcpy: {source.size} float32 elements, tuned XBLOCK="
          f"{memcpy_tuned.best_config.kwargs['XBLOCK']}, copies exactly")


if __name__ == "__main__":
    main()
