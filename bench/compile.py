"""Cold compile of the vector add (an empty cache, a fresh process, Python
start-up and imports excluded): the first launch's milliseconds, Tessera and
upstream Triton, with ptxas (the default) and with libnvJitLink
(TESSERA_ASSEMBLER=nvjitlink); then the same with the cache warm from the
first run."""

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
k.add_kernel[(256,)](x, y, z, 1 << 20, BLOCK=4096, num_warps=8)
torch.cuda.synchronize()
print((time.perf_counter() - start) * 1e3)
torch.testing.assert_close(z, x + y)
"""


def first_launch_ms(dsl, cache, assembler=None):
    code = CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), dsl=dsl)
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


if __name__ == "__main__":
    main()
