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
    """The scopes each warp entered and left: (name, program, warp,
    begin_ns, end_ns), by warp, then scope, then time. A warp's record of
    leaving a scope pairs with its record of entering it just before (a
    scope does not nest in itself); one without the other (overwritten) is
    left out."""
    flat = records.read().reshape(-1, 2)
    at = np.nonzero(flat[:, 0] != _EMPTY)[0]
    tag = (flat[at, 0] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    count = (flat[at, 0] >> np.uint64(32)).astype(np.int64)
    time = flat[at, 1].astype(np.int64)
    warp = at // records.slots  # program * warps + warp
    order = np.lexsort((count, tag >> 1, warp))
    tag, time, warp = tag[order], time[order], warp[order]
    scope, end = tag >> 1, tag & 1
    pairs = np.nonzero((warp[1:] == warp[:-1]) & (scope[1:] == scope[:-1]) &
                       (end[:-1] == 0) & (end[1:] == 1))[0]
    names = records.names
    return [(names[s] if s < len(names) else f"scope {s}", int(w // records.warps),
             int(w % records.warps), int(b), int(e))
            for s, w, b, e in zip(scope[pairs].tolist(), warp[pairs].tolist(),
                                  time[pairs].tolist(), time[pairs + 1].tolist())]
