"""The records of kernels instrumented by a session with
backend="instrumentation" (tessera.profiler.language's scopes), and what
they say.

A launch gets a buffer of `slots` records of 16 bytes for each warp of each
program (tile.scope_record): the scope's number times two, plus one when the
warp leaves it (u32); the warp's count of records so far (u32); the time in
nanoseconds (u64). A warp's n-th record goes to its slot n % slots, so a warp
that records more than `slots` times keeps its last `slots` records. The
buffer starts filled with ones: a slot never written is all ones.
"""

from __future__ import annotations

import numpy as np

from ..runtime import gpu

DEFAULT_SLOTS = 256
_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)


class Records:
    """The record buffer of one launch of `programs` programs of `warps`
    warps: in device memory for a GPU launch, in host memory for the host
    interpreter."""

    def __init__(self, device, programs, warps, slots, names, stream=None):
        self.device, self.programs, self.warps, self.slots = device, programs, warps, slots
        self.names = list(names)
        words = programs * warps * slots * 2
        self.host = None
        if device is None:
            self.host = np.full(words, _EMPTY, np.uint64)
            self.address = self.host.ctypes.data
        else:
            gpu.set_device(device)
            driver = gpu.driver()
            self.address = driver.allocate(words * 8)
            driver.fill(self.address, 0xFFFFFFFF, words * 2, stream or 0)

    def read(self):
        """The records, as u64 words [program, warp, slot, 2]; frees the
        device buffer (the launch must be finished)."""
        if self.host is None:
            gpu.set_device(self.device)
            driver = gpu.driver()
            words = np.empty(self.programs * self.warps * self.slots * 2, np.uint64)
            driver.copy_to_host(words.ctypes.data, self.address, words.nbytes)
            driver.release(self.address)
            self.host = words
        return self.host.reshape(self.programs, self.warps, self.slots, 2)


def intervals(records):
    """The scopes each warp entered and left, in the order it left them:
    (name, program, warp, begin_ns, end_ns). A scope left without a record
    of its entry (overwritten, or never entered) is left out."""
    words = records.read()
    result = []
    for program, warp in zip(*np.nonzero((words[:, :, :, 0] != _EMPTY).any(axis=2))):
        slots = words[program, warp]
        used = slots[slots[:, 0] != _EMPTY]
        used = used[np.argsort(used[:, 0] >> np.uint64(32), kind="stable")]
        open_scopes = {}  # scope -> begin times, innermost last
        for tag_and_count, time in used:
            tag = int(tag_and_count) & 0xFFFFFFFF
            scope, end = tag >> 1, tag & 1
            if not end:
                open_scopes.setdefault(scope, []).append(int(time))
            elif open_scopes.get(scope):
                begin = open_scopes[scope].pop()
                name = records.names[scope] if scope < len(records.names) else f"scope {scope}"
                result.append((name, int(program), int(warp), begin, int(time)))
    return result
