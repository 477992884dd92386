"""What a session writes: the hatchet tree Proton writes (`<name>.hatchet`)
and a Chrome trace (`<name>.chrome_trace`).

The hatchet file is a JSON list of the root frame and the device info:

    [{"frame": {"name": "ROOT", "type": "function"},
      "metrics": {"time (ns)": 0, "count": 0},
      "children": [{"frame": {"name": "scope", "type": "function"},
                    "metrics": {},
                    "children": [{"frame": {"name": "kernel", ...},
                                  "metrics": {"time (ns)": 1234, "count": 1,
                                              "device_id": "0",
                                              "device_type": "CUDA"},
                                  "children": []}]}]},
     {"CUDA": {"0": {"name": ..., "arch": "90", "num_sms": 132,
                     "clock_rate": kHz, "memory_clock_rate": kHz,
                     "bus_width": bits, "timing": "cupti"}}}]

"timing" says where the times come from: "cupti" or "roctracer" (the
vendor's activity tracing, which also reports other libraries' kernels),
"events" (device events around Tessera's launches) or "host". Each frame
holds its own (exclusive) metrics: a kernel its time and launch count, an
op (a launch named by launch_metadata) or a scope the metrics given to it;
viewers sum them up the tree. Launches on the host interpreter have device
type "HOST", timed with "host" timing.

An instrumented kernel (tessera.profiler.language) has a frame for each of
its scopes below it: "scope_time (ns)", the time a warp spent in the scope
in a launch (the mean over the warps that entered it), summed over
launches, and "scope_count", the times warps left it. In the trace, each
warp of each program of such a launch is a thread of its own, holding its
scopes; its times are the device's clock, placed so that the first record
of the launch is at the launch's begin.
"""

from __future__ import annotations

import json

from .. import _tessera
from ..runtime import gpu

TIME, COUNT = "time (ns)", "count"
SCOPE_TIME, SCOPE_COUNT = "scope_time (ns)", "scope_count"


class _Frame:
    def __init__(self, name):
        self.name = name
        self.metrics = {}
        self.children = {}  # name -> _Frame, in the order first seen

    def child(self, name):
        frame = self.children.get(name)
        if frame is None:
            frame = self.children[name] = _Frame(name)
        return frame

    def add(self, metrics):
        for key, value in metrics.items():
            self.metrics[key] = self.metrics.get(key, 0) + value

    def to_json(self):
        return {"frame": {"name": self.name, "type": "function"},
                "metrics": self.metrics,
                "children": [c.to_json() for c in self.children.values()]}


def device_type(device):
    """"HOST" for the host interpreter (None), else the platform in capitals:
    "CUDA", "HIP", or a backend plugin's ("CPU")."""
    if device is None:
        return "HOST"
    return gpu.platform().upper()


def device_info(sources):
    """The device info of a profile: {type: {index: properties}} for the
    devices launches ran on (GPU indices, None for the host interpreter),
    with how `sources` says each was timed ("host", "events", "cupti",
    "roctracer"). A device the driver cannot be asked about (the tracer
    reported it) has only its timing."""
    info = {}
    for device, source in sorted(sources.items(), key=lambda d: -1 if d[0] is None else d[0]):
        if device is None:
            info.setdefault("HOST", {})["0"] = {"name": "host interpreter", "timing": "host"}
            continue
        try:
            properties = gpu.driver().device_properties(device)
            entry = {"name": gpu.device_name(device),
                     "arch": gpu.target(device).split(":", 1)[1],
                     "num_sms": properties["multiprocessor_count"],
                     "clock_rate": properties["sm_clock_rate"],
                     "memory_clock_rate": properties["mem_clock_rate"],
                     "bus_width": properties["mem_bus_width"]}
        except _tessera.DriverError:
            entry = {}
        entry["timing"] = source
        info.setdefault(device_type(device), {})[str(device)] = entry
    return info


def _scope_metrics(intervals):
    """Per scope name: the mean over warps of the time each spent in it,
    and the number of intervals."""
    per_warp, counts = {}, {}
    for name, program, warp, begin, end in intervals:
        warps = per_warp.setdefault(name, {})
        warps[program, warp] = warps.get((program, warp), 0) + end - begin
        counts[name] = counts.get(name, 0) + 1
    return {name: {SCOPE_TIME: sum(w.values()) / len(w), SCOPE_COUNT: counts[name]}
            for name, w in per_warp.items()}


def hatchet(launches, scope_metrics, spans, scopes, info):
    """The hatchet document of a session's launches (with their (begin, end)
    in `spans`, None for those that failed, and the intervals of their
    instrumented scopes in `scopes`) and scope metrics."""
    root = _Frame("ROOT")
    for path, metrics in scope_metrics:
        frame = root
        for name in path:
            frame = frame.child(name)
        frame.add(metrics)
    timed = False
    for launch, span, intervals in zip(launches, spans, scopes):
        if span is None:
            continue
        frame = root
        for name in launch.path:
            frame = frame.child(name)
        if launch.metrics:
            frame.add(launch.metrics)
        kernel = frame.child(launch.kernel)
        kernel.add({TIME: span[1] - span[0], COUNT: 1})
        for name, metrics in _scope_metrics(intervals or []).items():
            kernel.child(name).add(metrics)
        kernel.metrics.setdefault("device_id", "0" if launch.device is None
                                  else str(launch.device))
        kernel.metrics.setdefault("device_type", device_type(launch.device))
        timed = True
    if timed:
        root.metrics.update({TIME: 0, COUNT: 0})
    return [root.to_json(), info]


def chrome_trace(launches, spans, scopes, info):
    """The Chrome trace of a session: an "X" event per launch, its scopes
    (and launch_metadata's name) in args["scopes"] and its metrics in args;
    an instrumented launch's warps as threads of a process of their own,
    each with an "X" event per scope it was in; times in microseconds from
    the first launch."""
    timed = [(launch, span, intervals)
             for launch, span, intervals in zip(launches, spans, scopes) if span is not None]
    origin = min((span[0] for _, span, _ in timed), default=0)
    events = []
    for number, (launch, (begin, end), intervals) in enumerate(
            sorted(timed, key=lambda t: t[1][0])):
        if intervals:
            events += _warp_events(launch, begin - origin, intervals, number + 1)
        args = {"scopes": list(launch.path),
                "device": f"{device_type(launch.device)} "
                          f"{0 if launch.device is None else launch.device}"}
        args.update(launch.metrics or {})
        events.append({"name": launch.kernel, "cat": "kernel", "ph": "X",
                       "ts": (begin - origin) / 1e3, "dur": (end - begin) / 1e3,
                       "pid": 0, "tid": 0 if launch.device is None else launch.device,
                       "args": args})
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"devices": info}}


def _warp_events(launch, begin, intervals, pid):
    """The trace events of an instrumented launch starting at `begin` (ns
    from the trace's origin): process `pid`, a thread per warp."""
    first = min(i[3] for i in intervals)
    warps = sorted({(program, warp) for _, program, warp, _, _ in intervals})
    tids = {w: t for t, w in enumerate(warps)}
    events = [{"name": "process_name", "ph": "M", "pid": pid,
               "args": {"name": f"{launch.kernel} (launch {pid}): warps"}}]
    events += [{"name": "thread_name", "ph": "M", "pid": pid, "tid": tids[w],
                "args": {"name": f"program {w[0]} warp {w[1]}"}} for w in warps]
    events += [{"name": name, "cat": "scope", "ph": "X",
                "ts": (begin + b - first) / 1e3, "dur": (e - b) / 1e3,
                "pid": pid, "tid": tids[program, warp]}
               for name, program, warp, b, e in intervals]
    return events


def write(path, document, indent=1):
    with open(path, "w") as f:
        json.dump(document, f, indent=indent)
