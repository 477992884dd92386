"""Profiling sessions, with the interface of Proton's (`triton.profiler`):
`start` opens one, `deactivate`/`activate` pause and resume it, `finalize`
writes it out.

While a session is active, every kernel launch is recorded as a child of
the current scope (tessera.runtime.jit.set_launch_hook). On a GPU, the
vendor's activity tracing (CUPTI, roctracer) times them and also reports
the kernels other libraries launch (cuBLAS through PyTorch), each under the
scope it was launched in; where it cannot be used, Tessera's launches are
timed with device events. The host interpreter's launches are timed with
the host's clock. Times are read at finalize. With `hook="triton"` (or
"launch"), each launch is first entered as an op named by its JIT
function's `launch_metadata(grid, kernel, args)`, which holds the metrics it
returns ("flops", "flops16", "bytes", ...), the kernel below it.
"""

from __future__ import annotations

import functools
import numbers
import os
import threading

from ..runtime import gpu
from ..runtime import jit as _jit
from . import _activity, _context, _instrumentation, _output, _timing
from . import mode as _mode

DEFAULT_PROFILE_NAME = "proton"

HOOKS = (None, "triton", "launch")
OUTPUT_FORMATS = ("hatchet", "chrome_trace")
# launch_metadata's keys that are not metrics (Triton adds them).
_RESERVED_KEYS = ("name", "function", "stream")


class _Launch:
    """A profiled launch: the names from the root to its kernel frame's
    parent, the kernel's name, the op's metrics, its device and timer."""

    __slots__ = ("path", "kernel", "metrics", "device", "timer")

    def __init__(self, path, kernel, metrics, device, timer):
        self.path, self.kernel, self.metrics, self.device, self.timer = (
            path, kernel, metrics, device, timer)


class _Session:
    def __init__(self, id, name, context, hook, slots=0, traced=False):
        self.id, self.name, self.context, self.hook = id, name, context, hook
        self.slots = slots  # records per warp where it instruments kernels
        self.traced = traced  # whether it takes the tracer's other kernels
        self.active = True
        self.launches = []
        self.scope_metrics = []  # (path, metrics)


_sessions = {}  # id -> _Session
_next_id = 0
# Set on a thread while it computes launch metadata, whose own launches are
# not recorded.
_local = threading.local()


def _update_hook():
    """Installs the launch hook while a session is active, and only then;
    kernels are instrumented while an instrumenting session is active."""
    active = [s for s in _sessions.values() if s.active]
    hook = _on_launch if active else None
    if _jit._launch_hook is not hook:
        _jit.set_launch_hook(hook)
    _jit.set_instrumentation(max((s.slots for s in active), default=0))
    scope_changed()


def scope_changed():
    """Gives the kernels this thread launches outside Tessera from now on
    to the current scope of each active traced session."""
    if _activity.running():
        _activity.set_scope([(s, _context.path(s.context)) for s in _sessions.values()
                             if s.active and s.traced])


def _selected(session):
    """The sessions `session` names: all of them for None."""
    if session is None:
        return list(_sessions.values())
    if session not in _sessions:
        raise ValueError(f"there is no profiling session {session}")
    return [_sessions[session]]


def _metrics(values):
    """The numeric entries of `values` (tensors of one element read)."""
    metrics = {}
    for key, value in values.items():
        if not isinstance(value, numbers.Number) and hasattr(value, "item"):
            try:
                value = value.item()
            except (TypeError, ValueError):  # not of one element
                continue
        if isinstance(value, numbers.Real):
            metrics[key] = value
    return metrics


def _op(fn, kernel, grid, arguments):
    """The op a hooked launch enters: its name and metrics, from the JIT
    function's launch_metadata where it has one."""
    metadata = {"name": kernel.name}
    if fn.launch_metadata is not None:
        _local.in_metadata = True
        try:
            metadata.update(fn.launch_metadata(grid, kernel.metadata, dict(arguments)) or {})
        finally:
            _local.in_metadata = False
    metrics = _metrics({k: v for k, v in metadata.items() if k not in _RESERVED_KEYS})
    return str(metadata["name"]), metrics


def _on_launch(fn, kernel, grid, arguments, device):
    """The launch hook: records the launch in each active session and
    returns its timer."""
    if getattr(_local, "in_metadata", False):
        return None
    sessions = [s for s in list(_sessions.values()) if s.active]
    if not sessions:
        return None
    if device is None:
        timer = _timing.HostTimer()
    elif _activity.running():
        timer = _timing.TracedTimer()
    else:
        timer = _timing.EventTimer(device)
    paths, op = {}, None
    for session in sessions:
        path = paths.get(session.context)
        if path is None:
            path = paths[session.context] = _context.path(session.context)
        metrics = None
        if session.hook is not None:
            if op is None:
                op = _op(fn, kernel, grid, arguments)
            path, metrics = path + (op[0],), op[1]
        session.launches.append(_Launch(path, kernel.name, metrics, device, timer))
    return timer


def _record_scope_metrics(metrics):
    """Adds `metrics` to the current scope in each active session."""
    metrics = _metrics(metrics)
    for session in list(_sessions.values()):
        if session.active and metrics:
            session.scope_metrics.append((_context.path(session.context), metrics))


def profiling():
    """Whether a session is open (active or not)."""
    return bool(_sessions)


def start(name=None, context="shadow", hook=None, backend=None, mode=None, data="tree"):
    """Opens a session, active at once, and returns its id.

    `name` is the path its profile is written to, less the suffix
    ("proton": proton.hatchet). `context` names where launches happen:
    "shadow" by the scopes entered, "python" by the Python functions on the
    call stack too. `hook="triton"` (or "launch") enters an op named by each
    launch's launch_metadata, with its metrics. `backend` None uses the
    vendor's activity tracing where there is a GPU and it can be opened,
    "cupti" or "roctracer" ask for it (a warning says why where it cannot
    be used); without it, Tessera's launches are timed with device events
    and no other library's are recorded. "instrumentation" compiles the
    kernels it launches with their tessera.profiler.language scopes
    recorded by each warp; its `mode` is a tessera.profiler.mode.Default, or
    the records each warp keeps (a power of two, 256 by default; a warp
    keeps its last ones)."""
    global _next_id
    if context not in _context.CONTEXTS:
        raise ValueError(f"context must be one of {', '.join(_context.CONTEXTS)}, "
                         f"got {context!r}")
    if hook not in HOOKS:
        raise ValueError(f"hook must be None, 'triton' or 'launch', got {hook!r}")
    if data not in ("tree", "trace"):
        raise ValueError(f"data must be 'tree' or 'trace', got {data!r}")
    slots = 0
    if backend == "instrumentation":
        if isinstance(mode, _mode.Default):
            slots = mode.slots
        else:
            slots = _instrumentation.DEFAULT_SLOTS if mode in (None, "", "default") else mode
        if type(slots) is not int or slots <= 0 or slots & (slots - 1):
            raise ValueError("the instrumentation backend's mode is a tessera.profiler.mode "
                             f"or its records per warp, a power of two, got {mode!r}")
    elif backend not in (None, *_activity.BACKENDS.values()):
        raise ValueError("backend must be None, 'cupti', 'roctracer' or 'instrumentation', "
                         f"got {backend!r}")
    if backend != "instrumentation" and mode not in (None, ""):
        raise ValueError(f"mode {mode!r} is not available: the event backend has no modes")
    name = DEFAULT_PROFILE_NAME if name is None else os.fspath(name)
    if name.endswith(".hatchet"):
        name = name[:-len(".hatchet")]
    traced = backend in (None, *_activity.BACKENDS.values()) and _activity.start(backend)
    session = _Session(_next_id, name, context, hook, slots, traced)
    _sessions[session.id] = session
    _next_id += 1
    _update_hook()
    return session.id


def activate(session=None):
    """Resumes recording in a session (all sessions for None)."""
    for s in _selected(session):
        s.active = True
    _update_hook()


def deactivate(session=None):
    """Pauses a session (all sessions for None): its launches are kept, no
    more are recorded until it is activated."""
    for s in _selected(session):
        s.active = False
    _update_hook()


def finalize(session=None, output_format=None):
    """Closes a session (all sessions for None) and writes its profile:
    `<name>.hatchet` and `<name>.chrome_trace`, or only the one
    `output_format` ("hatchet", "chrome_trace") names. Waits for the
    sessions' launches to finish, to read their times."""
    formats = OUTPUT_FORMATS if output_format is None else (output_format,)
    if output_format is not None and output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output_format must be 'hatchet' or 'chrome_trace', "
                         f"got {output_format!r}")
    sessions = _selected(session)
    for s in sessions:
        del _sessions[s.id]
    _update_hook()
    try:
        if _activity.running():
            _collect(sessions)
        for s in sessions:
            _write(s, formats)
    finally:
        if not any(s.traced for s in _sessions.values()):
            _activity.stop()
        if not _sessions:
            _timing.release()


def _collect(closing):
    """Gives the kernels the tracer reported to their launches, and those of
    other libraries to the sessions they were launched in (those of threads
    that named no scope to the root of every traced session, `closing`
    ones included)."""
    if gpu.available():
        devices = {launch.device for s in [*closing, *_sessions.values()]
                   for launch in s.launches if not isinstance(launch.timer, _timing.Traced)}
        _timing.synchronize({gpu.current_device()} | devices - {None})
    source = _activity.running()
    everyone = [(s, ()) for s in [*closing, *_sessions.values()] if s.traced]
    for owner, name, span, device in _activity.collect():
        if isinstance(owner, _timing.TracedTimer):
            owner.add(span)
            _activity.forget(owner.op)
            continue
        for session, path in everyone if owner is None else owner:
            session.launches.append(
                _Launch(path, name, None, device, _timing.Traced(span, source)))


def _write(session, formats):
    # The tracer's kernels (Traced) are over.
    devices = {launch.device for launch in session.launches
               if not isinstance(launch.timer, _timing.Traced)}
    _timing.synchronize(d for d in devices if d is not None)
    spans = [launch.timer.resolve() for launch in session.launches]
    scopes = [None if launch.timer.records is None
              else _instrumentation.intervals(launch.timer.records)
              for launch in session.launches]
    info = _output.device_info({launch.device: launch.timer.source
                                for launch in session.launches})
    if "hatchet" in formats:
        document = _output.hatchet(session.launches, session.scope_metrics, spans, scopes,
                                   info)
        _output.write(session.name + ".hatchet", document)
    if "chrome_trace" in formats:
        # Compact: an instrumented launch has an event per scope and warp.
        _output.write(session.name + ".chrome_trace",
                      _output.chrome_trace(session.launches, spans, scopes, info), indent=None)


def profile(func=None, *, name=None, context="shadow", hook=None, backend=None, mode=None,
            data="tree"):
    """A decorator that starts a session (start's arguments) when `func` is
    called and deactivates it when it returns; finalize writes it."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            session = start(name, context=context, hook=hook, backend=backend, mode=mode,
                            data=data)
            try:
                return func(*args, **kwargs)
            finally:
                deactivate(session)
        return wrapper
    return decorator if func is None else decorator(func)
