"""Vector addition: z = x + y, one block of BLOCK_SIZE elements per program."""

import numpy as np

import tessera
import tessera.language as tl


@tessera.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y):
    output = np.empty_like(x)
    n_elements = output.size
    grid = lambda meta: (tessera.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


def main():
    rng = np.random.default_rng(0)
    size = 98432
    x = rng.random(size, dtype=np.float32)
    y = rng.random(size, dtype=np.float32)
    z = add(x, y)
    np.testing.assert_array_equal(z, x + y)
    print(f"vector add: {size} float32 elements, matches numpy exactly")


if __name__ == "__main__":
    main()
