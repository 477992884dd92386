"""Cold compile of the vector add (an empty cache, a fresh process, Python
start-up and imports excluded): the first launch's milliseconds, Tessera and
upstream Triton, with ptxas (the default) and with libnvJitLink
(TESSERA_ASSEMBLER=nvjitlink); then the same with the cache warm from the
first run; then the cold compile as BLOCK grows from 1024 to 65536 elements
(4 warps: 8 to 512 elements a thread)."""

import os
import tempfile

from common import child_ms, report

CHILD = r"""
import sys, time
sys.path.insert(0, {bench!r})
import torch
from common import kernels
k = kernels({dsl!r})
if k is None:
    sys.exit(3)  # not installed
x = torch.rand(1 << 20, device="cuda"); y = torch.rand_like(x); z = torch.empty_like(x)
torch.cuda.synchronize()
start = time.perf_counter()
k.add_kernel[((1 << 20) // {block},)](x, y, z, 1 << 20, BLOCK={block}, num_warps={warps})
torch.cuda.synchronize()
print((time.perf_counter() - start) * 1e3)
torch.testing.assert_close(z, x + y)
"""


# BLOCKs of the compile-time scaling rows.
BLOCKS = (1024, 4096, 16384, 65536)


def first_launch_ms(dsl, cache, assembler=None, block=4096, warps=8):
    code = CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), dsl=dsl,
                        block=block, warps=warps)
    env = {"TESSERA_ASSEMBLER": assembler} if assembler else {}
    return child_ms(dsl, code, cache, **env)


def main():
    with tempfile.TemporaryDirectory() as ours, tempfile.TemporaryDirectory() as theirs:
        cold = first_launch_ms("tessera", ours), first_launch_ms("triton", theirs)
        warm = first_launch_ms("tessera", ours), first_launch_ms("triton", theirs)
    with tempfile.TemporaryDirectory() as ours:
        jitlink = first_launch_ms("tessera", ours, assembler="nvjitlink")
    report("cold compile + first launch, vector add", "ms", cold[0], {"triton": cold[1]})
    report("  the same, PTX assembled by libnvJitLink", "ms", jitlink, {"triton": cold[1]})
    report("warm disk cache, first launch, vector add", "ms", warm[0], {"triton": warm[1]})
    for block in BLOCKS:
        with tempfile.TemporaryDirectory() as ours, tempfile.TemporaryDirectory() as theirs:
            report(f"cold compile + first launch, BLOCK={block} w4", "ms",
                   first_launch_ms("tessera", ours, block=block, warps=4),
                   {"triton": first_launch_ms("triton", theirs, block=block, warps=4)})


if __name__ == "__main__":
    main()
