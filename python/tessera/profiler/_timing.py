"""The clocks of profiled launches: the vendor's activity tracing where it
runs (_activity), else device events recorded around a launch on its
stream for the GPU; the host's clock for the host interpreter.

All give the begin and end of a launch in nanoseconds of
time.perf_counter_ns(): event times are placed on it through one event per
device, recorded when the device's first launch is timed, whose host time
is known.
"""

from __future__ import annotations

import time

from ..runtime import gpu
from . import _activity, _instrumentation

# device -> (event, perf_counter_ns when the device reached it).
_clocks = {}


def _clock(device, stream):
    """The reference event of a device, recorded (and waited for) once."""
    clock = _clocks.get(device)
    if clock is None:
        driver = gpu.driver()
        event = driver.create_event()
        driver.record_event(event, stream)
        driver.elapsed_ms(event, event)  # waits for it
        clock = _clocks[device] = (event, time.perf_counter_ns())
    return clock


def release():
    """Destroys the reference events (once every timer is resolved)."""
    for device, (event, _) in _clocks.items():
        gpu.set_device(device)
        gpu.driver().destroy_event(event)
    _clocks.clear()


def synchronize(devices):
    """Waits for the work queued on each of `devices` (GPU indices)."""
    for device in devices:
        gpu.set_device(device)
        gpu.driver().synchronize()


class _Timer:
    """What every timer keeps of an instrumented launch: its records."""

    __slots__ = ("records",)

    def record(self, kernel, grid, device, stream):
        """The record buffer of a launch of instrumented `kernel` on `grid`."""
        programs = grid[0] * grid[1] * grid[2]
        self.records = _instrumentation.Records(
            device, programs, kernel.metadata["num_warps"], kernel.metadata["instrumentation"],
            kernel.profile_scopes, stream)
        return self.records

    def cancel(self):
        """The launch failed."""


class HostTimer(_Timer):
    """A launch on the host interpreter, timed with the host's clock."""

    __slots__ = ("begin", "end")
    source = "host"

    def __init__(self):
        self.begin = self.end = None
        self.records = None

    def start(self, stream):
        self.begin = time.perf_counter_ns()

    def stop(self, stream):
        self.end = time.perf_counter_ns()

    def resolve(self):
        """(begin, end) in ns, or None for a launch that failed."""
        return None if self.end is None else (self.begin, self.end)


class EventTimer(_Timer):
    """A launch on a GPU, timed with two events on its stream. The events
    are read, and destroyed, by resolve() once the launch has finished."""

    __slots__ = ("device", "events", "stopped", "span")
    source = "events"

    def __init__(self, device):
        self.device = device
        self.events = None
        self.stopped = False
        self.span = None
        self.records = None

    def start(self, stream):
        _clock(self.device, stream)
        driver = gpu.driver()
        self.events = (driver.create_event(), driver.create_event())
        driver.record_event(self.events[0], stream)

    def stop(self, stream):
        gpu.driver().record_event(self.events[1], stream)
        self.stopped = True

    def resolve(self):
        """(begin, end) in ns, or None for a launch that failed; waits for
        the launch to finish."""
        if self.events is not None:
            gpu.set_device(self.device)
            driver = gpu.driver()
            begin, end = self.events
            if self.stopped:
                reference, host_ns = _clocks[self.device]
                start_ns = host_ns + round(driver.elapsed_ms(reference, begin) * 1e6)
                self.span = (start_ns, start_ns + round(driver.elapsed_ms(begin, end) * 1e6))
            driver.destroy_event(begin)
            driver.destroy_event(end)
            self.events = None
        return self.span


class TracedTimer(_Timer):
    """A launch on a GPU timed by the vendor's tracer: the kernel it
    launches is reported with the launch's op, which the launching thread
    holds while it launches."""

    __slots__ = ("op", "span", "source")

    def __init__(self):
        self.op = _activity.new_op(self)
        self.span = None
        self.records = None
        self.source = _activity.running()

    def start(self, stream):
        _activity.enter(self.op)

    def stop(self, stream):
        _activity.leave()

    def cancel(self):
        _activity.leave()

    def add(self, span):
        """A kernel of the launch ran over `span`."""
        self.span = span if self.span is None else (min(self.span[0], span[0]),
                                                    max(self.span[1], span[1]))

    def resolve(self):
        """(begin, end) in ns, or None for a launch no kernel was reported of."""
        return self.span


class Traced(_Timer):
    """A kernel another library launched, as the tracer reported it."""

    __slots__ = ("span", "source")

    def __init__(self, span, source):
        self.span, self.source, self.records = span, source, None

    def resolve(self):
        return self.span
