"""Kernels' device time from the vendor's activity tracing: CUPTI on NVIDIA,
roctracer on AMD, opened at first use (tessera._tessera.tracer).

The tracer reports every kernel that runs, Tessera's and other libraries'
(cuBLAS through PyTorch), each with the op its launching thread had set: a
number given here to each place in the program's scopes (for the kernels
other libraries launch there) and to each launch of Tessera's (so that it
gets its own kernel's time). Times are placed on time.perf_counter_ns(),
the clock of the other timers.
"""

from __future__ import annotations

import glob
import itertools
import os
import sys
import threading
import time
import warnings

from .. import _tessera
from ..runtime import gpu

# The backend that names each platform's tracer.
BACKENDS = {"cuda": "cupti", "hip": "roctracer"}

_tracer = None  # the running tracer
_offset = 0  # time.perf_counter_ns() minus the tracer's clock
_ops = {}  # op -> what launches under it belong to
_numbers = itertools.count(1)
_local = threading.local()  # .op: this thread's op outside Tessera's launches


def _candidates(override, names, patterns):
    """The libraries to try: the one `override` (an environment variable)
    names, else `names` (found where already loaded or on the loader's
    path), then the files `patterns` match."""
    if os.environ.get(override):
        return [os.environ[override]]
    found = list(names)
    for pattern in patterns:
        found += sorted(glob.glob(pattern), reverse=True)
    return found


def libraries(platform):
    """Where the tracer of `platform` may be, most likely first."""
    if platform == "cuda":
        torch = sys.modules.get("torch")
        cuda = getattr(getattr(torch, "version", None), "cuda", None)
        majors = [cuda.split(".")[0]] if cuda else []
        majors += [m for m in ("13", "12") if m not in majors]
        toolkit = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
        wheels = [os.path.join(p, "nvidia", d, "lib", "libcupti.so*")
                  for p in sys.path if p for d in ("cuda_cupti", "cu13")]
        return _candidates("TESSERA_CUPTI_LIBRARY", [f"libcupti.so.{m}" for m in majors],
                           wheels + [os.path.join(toolkit, "extras", "CUPTI", "lib64",
                                                  "libcupti.so*"),
                                     os.path.join(toolkit, "targets", "*", "lib",
                                                  "libcupti.so*")]) + ["libcupti.so"]
    rocm = os.environ.get("ROCM_PATH", "/opt/rocm")
    return _candidates("TESSERA_ROCTRACER_LIBRARY",
                       ["libroctracer64.so.4", "libroctracer64.so"],
                       [os.path.join(rocm, "lib", "libroctracer64.so*")])


def running():
    """The running tracer's name ("cupti", "roctracer"), or None."""
    return None if _tracer is None else _tracer.name


def start(backend):
    """Starts the platform's tracer for a session unless it runs; returns
    whether it runs. With `backend` None it is tried where there is a GPU of
    a platform that has one (not a backend plugin's), silently; "cupti" or
    "roctracer" ask for it, and a warning says why it cannot be used."""
    global _tracer, _offset
    if _tracer is not None:
        return True
    platform = gpu.platform()
    if backend is None and (platform not in BACKENDS or not gpu.available()):
        return False
    if backend is not None and BACKENDS.get(platform) != backend:
        why = f"it traces {'NVIDIA' if backend == 'cupti' else 'AMD'} GPUs, this is {platform}"
    else:
        try:
            tracer = _tessera.tracer(platform, libraries(platform))
            tracer.start()
        except _tessera.DriverError as e:
            why = str(e)
        else:
            _offset = time.perf_counter_ns() - tracer.timestamp()
            _tracer = tracer
            return True
    if backend is not None:
        warnings.warn(f"tessera.profiler: backend {backend!r} is not available ({why}); "
                      "Tessera's kernels are timed with device events", RuntimeWarning,
                      stacklevel=3)
    return False


def stop():
    """Stops the tracer (when no session uses it any more)."""
    global _tracer
    if _tracer is not None:
        _tracer.stop()
        _tracer = None
        _ops.clear()
        _tessera.set_trace_op(0)


def new_op(owner):
    """A new op, whose launches belong to `owner` (a launch of Tessera's, or
    a scope's sessions)."""
    op = next(_numbers)
    _ops[op] = owner
    return op


def set_scope(owner):
    """Kernels this thread launches from now on, outside Tessera's launches,
    belong to `owner`."""
    _local.op = new_op(owner)
    _tessera.set_trace_op(_local.op)


def enter(op):
    """This thread launches for `op` until leave()."""
    _tessera.set_trace_op(op)


def leave():
    """This thread launches for its scope again."""
    _tessera.set_trace_op(getattr(_local, "op", 0))


def collect():
    """The kernels that finished since the last collect (the caller first
    waits for the devices): (owner, name, (begin, end), device), with owner
    None for the kernels of threads that set none."""
    kernels = []
    for op, name, begin, end, device, _ in _tracer.flush():
        owner = _ops.get(op)
        kernels.append((owner, name, (begin + _offset, end + _offset), device))
    return kernels


def forget(op):
    """Drops a launch's op once its kernel is collected."""
    _ops.pop(op, None)
