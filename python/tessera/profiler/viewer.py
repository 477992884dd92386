"""Shows a profile (a `.hatchet` file) as a tree with inclusive metrics, as
Proton's viewer does:

    python -m tessera.profiler.viewer -m time/ms,tflop/s,tbyte/s,util FILE

    0.040 6.645 ROOT
    └─ 0.037 7.284 gemm [M=1024, N=256, K=512]
       └─ 0.037 nan gemm_kernel

Each frame's metrics are summed over its subtree; those a subtree lacks
print as nan. Metrics (-m, comma-separated; names case-insensitive):
  time/s, time/ms, time/us, time/ns     kernel time
  avg_time/s, ... avg_time/ns           kernel time per launch
  scope_time/s, ... scope_time/ns       a warp's time in a kernel's scopes
                                        (tessera.profiler.language), the
                                        mean over its warps, per launch summed
  flop/s, gflop/s, tflop/s              all flops (of any width) / time
  flop<w>/s, gflop<w>/s, tflop<w>/s     flops<w> (w = 8, 16, 32, 64) / time
  byte/s, gbyte/s, tbyte/s              bytes / time
  util                                  max(sum of flops<w> / peak at w bits,
                                        bytes / peak bandwidth) / time
  any metric of the file                count, flops, bytes, time, ...
`util` reads the GPU's peak from the device properties in the profile
(specs.py) and states it below the tree; where it is unknown (the host
interpreter, an architecture specs.py lacks) it is nan. Flops of no stated
width ("flops") do not count towards it.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys

from . import specs

NAN = float("nan")
TIME = "time (ns)"
SCOPE_TIME = "scope_time (ns)"
FLOP_WIDTHS = (8, 16, 32, 64)
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
RATE_PREFIXES = {"": 1.0, "g": 1e9, "t": 1e12}


class Frame:
    """A frame of a profile: its name, own metrics, children, and (after
    `sum_up`) the metrics of its subtree."""

    def __init__(self, name, metrics, children):
        self.name = name
        self.metrics = metrics
        self.children = children
        self.inclusive = {}
        self.device = None  # (device type, index) of its kernels
        self.values = []  # parse's metrics

    @classmethod
    def from_json(cls, node):
        return cls(node["frame"]["name"], dict(node.get("metrics", {})),
                   [cls.from_json(c) for c in node.get("children", [])])

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def _numeric(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read(filename):
    """The root Frame of a hatchet file and its device info."""
    with open(filename) as f:
        document = json.load(f)
    if isinstance(document, dict):
        document = [document]
    info = document[1] if len(document) > 1 else {}
    return Frame.from_json(document[0]), info


def sum_up(frame):
    """Fills each frame's `inclusive` metrics (absent where no frame of its
    subtree has the metric) and `device` (its own, else its first kernel's)."""
    for child in frame.children:
        sum_up(child)
    inclusive = {k: v for k, v in frame.metrics.items() if _numeric(v)}
    for child in frame.children:
        for key, value in child.inclusive.items():
            inclusive[key] = inclusive.get(key, 0) + value
    frame.inclusive = inclusive
    if "device_type" in frame.metrics:
        frame.device = (frame.metrics["device_type"], str(frame.metrics.get("device_id", "0")))
    else:
        frame.device = next((c.device for c in frame.children if c.device), None)


def _matches(pattern, name):
    return re.fullmatch(pattern, name) is not None


def filter_frames(root, include=None, exclude=None):
    """The tree without the frames `exclude` matches (and their subtrees);
    with `include`, only the paths through a frame it matches. Patterns are
    regular expressions matching whole names; the root stays."""
    def excluded(frame):
        children = [excluded(c) for c in frame.children if not _matches(exclude, c.name)]
        return Frame(frame.name, frame.metrics, children)

    def included(frame):
        """The frame kept for `include`, or None."""
        if _matches(include, frame.name):
            return frame
        children = [c for c in map(included, frame.children) if c is not None]
        return Frame(frame.name, frame.metrics, children) if children else None

    if exclude:
        root = excluded(root)
    if include:
        children = [c for c in map(included, root.children) if c is not None]
        root = Frame(root.name, root.metrics, children)
    return root


def _divide(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or b == 0:
        return NAN
    return a / b


def _seconds(frame):
    time = frame.inclusive.get(TIME)
    return None if time is None else time * 1e-9


def _flop_keys(available):
    return [k for k in available
            if k == "flops" or (k.startswith("flops") and k[5:] in map(str, FLOP_WIDTHS))]


class _Util:
    """util: per frame, the least time its flops and bytes take at the
    device's peak, summed over the subtree, over its time."""

    def __init__(self, info):
        self.info = info

    def least_time(self, frame):
        """The least time of a frame's own flops<w> and bytes (None where it
        has neither, or no kernel below it to run them; nan where its
        device's peak is unknown)."""
        widths = [w for w in FLOP_WIDTHS if _numeric(frame.metrics.get(f"flops{w}"))]
        has_bytes = _numeric(frame.metrics.get("bytes"))
        if not widths and not has_bytes or frame.device is None:
            return None
        device = self.device(frame.device)
        if device is None:
            return NAN
        flop_time = 0.0
        for w in widths:
            peak = specs.max_flops(frame.device[0], device, w)
            flop_time += NAN if peak is None else frame.metrics[f"flops{w}"] / peak
        byte_time = 0.0
        if has_bytes:
            peak = specs.max_bytes_per_second(device)
            byte_time = NAN if peak is None else frame.metrics["bytes"] / peak
        return NAN if math.isnan(flop_time) or math.isnan(byte_time) \
            else max(flop_time, byte_time)

    def device(self, key):
        return self.info.get(key[0], {}).get(key[1])

    def __call__(self, frame):
        times = [t for t in map(self.least_time, frame.walk()) if t is not None]
        if not times:
            return NAN
        return _divide(sum(times), _seconds(frame))

    def notes(self, root):
        """A line per device of the profile saying the peak util uses."""
        lines = []
        for kind, devices in sorted(self.info.items()):
            for index, device in sorted(devices.items()):
                label = f"{kind} {index} ({device.get('name', 'unnamed')})"
                flops = specs.max_flops(kind, device, 16)
                bandwidth = specs.max_bytes_per_second(device)
                if flops is None and bandwidth is None:
                    lines.append(f"util: nan on {label}: its peak is unknown")
                    continue
                flops_text = "peak FLOP/s unknown" if flops is None else (
                    f"{flops / 1e12:.1f} TFLOP/s at 16 bits (x2 at 8, /2 at 32, /4 at 64; "
                    f"arch {device.get('arch')}, {device.get('num_sms')} SMs at "
                    f"{device.get('clock_rate', 0) / 1e3:.0f} MHz)")
                bandwidth_text = "peak bandwidth unknown" if bandwidth is None else (
                    f"{bandwidth / 1e9:.1f} GB/s")
                lines.append(f"util: peak of {label}: {flops_text}, {bandwidth_text}")
        if not lines:
            lines.append("util: nan: the profile records no device")
        if any("flops" in f.metrics for f in root.walk()):
            lines.append("util: 'flops' of no stated width are not counted")
        return lines


def _column(spec, available, info):
    """The function giving a frame's value of metric `spec`, or the
    ValueError saying why there is none."""
    name = spec.strip().lower()

    def need(key):
        if key not in available:
            raise ValueError(f"metric '{spec}' needs '{key}', which the profile does not have "
                             f"(it has: {', '.join(sorted(available)) or 'none'})")

    match = re.fullmatch(r"(avg_)?time/(s|ms|us|ns)", name)
    if match:
        need(TIME)
        factor = TIME_UNITS[match.group(2)]
        if match.group(1):
            need("count")
            return lambda f: _divide(_divide(_seconds(f), f.inclusive.get("count")), factor)
        return lambda f: _divide(_seconds(f), factor)
    match = re.fullmatch(r"scope_time/(s|ms|us|ns)", name)
    if match:
        need(SCOPE_TIME)
        factor = TIME_UNITS[match.group(1)] / 1e-9
        return lambda f: _divide(f.inclusive.get(SCOPE_TIME), factor)
    match = re.fullmatch(r"([gt]?)flop(8|16|32|64)?/s", name)
    if match:
        need(TIME)
        factor = RATE_PREFIXES[match.group(1)]
        if match.group(2):
            key = f"flops{match.group(2)}"
            need(key)
            return lambda f: _divide(_divide(f.inclusive.get(key), _seconds(f)), factor)
        keys = _flop_keys(available)
        if not keys:
            need("flops")

        def rate(f):
            present = [f.inclusive[k] for k in keys if k in f.inclusive]
            return _divide(_divide(sum(present) if present else None, _seconds(f)), factor)
        return rate
    match = re.fullmatch(r"([gt]?)byte/s", name)
    if match:
        need(TIME)
        need("bytes")
        factor = RATE_PREFIXES[match.group(1)]
        return lambda f: _divide(_divide(f.inclusive.get("bytes"), _seconds(f)), factor)
    if name == "util":
        need(TIME)
        return _Util(info)
    for key in available:
        if name in (key.lower(), key.split("(")[0].strip().lower()):
            return lambda f: f.inclusive.get(key, NAN)
    raise ValueError(f"unknown metric '{spec}' (the profile has: "
                     f"{', '.join(sorted(available)) or 'none'})")


def parse(metrics, filename, include=None, exclude=None):
    """Reads a profile and evaluates `metrics` (names, as -m takes them) on
    each frame: returns the root Frame, whose frames hold `values` (one per
    metric), and the profile's device info."""
    root, info = read(filename)
    available = sorted({k for f in root.walk() for k, v in f.metrics.items() if _numeric(v)})
    columns = [_column(m, available, info) for m in metrics]
    root = filter_frames(root, include, exclude)
    sum_up(root)
    for frame in root.walk():
        frame.values = [float(column(frame)) for column in columns]
    return root, info


def format_tree(root, depth=100, sort=False):
    """The lines of the tree to `depth` levels (1: the root alone), the
    children of a frame in name order, or with `sort` by the first metric,
    largest first."""
    lines = []

    def key(frame):
        if not sort:
            return (frame.name,)
        first = frame.values[0]
        return (math.isnan(first), -first if not math.isnan(first) else 0, frame.name)

    def render(frame, level, indent, child_indent):
        if level >= depth:
            return
        values = " ".join(f"{v:.3f}" for v in frame.values)
        lines.append(f"{indent}{values} {frame.name}")
        children = sorted(frame.children, key=key)
        for i, child in enumerate(children):
            last = i == len(children) - 1
            render(child, level + 1, child_indent + ("└─ " if last else "├─ "),
                   child_indent + ("   " if last else "│  "))

    render(root, 0, "", "")
    return lines


def plot(root, metric, path, top=20):
    """Draws the first metric of the top-level frames (the root's children,
    at most `top`, largest first) as a horizontal bar chart; False where
    matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    frames = sorted((f for f in root.children if not math.isnan(f.values[0])),
                    key=lambda f: -f.values[0])[:top]
    figure, axes = plt.subplots(figsize=(8, 1 + 0.4 * max(len(frames), 1)))
    axes.barh([f.name for f in reversed(frames)], [f.values[0] for f in reversed(frames)])
    axes.set_xlabel(metric)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tessera.profiler.viewer",
        description="Shows a Tessera (or Proton) profile as a tree of inclusive metrics.",
        epilog=__doc__[__doc__.index("Each frame"):], formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("file", help="the .hatchet file")
    parser.add_argument("-m", "--metrics", default="time/s",
                        help="comma-separated metrics to show (default: time/s)")
    parser.add_argument("-l", "--list", action="store_true",
                        help="list the metrics the profile has")
    parser.add_argument("-d", "--depth", type=int, default=100,
                        help="the levels of the tree to show (1: the root alone)")
    parser.add_argument("-i", "--include", help="show only the paths through frames whose "
                        "name this regular expression matches")
    parser.add_argument("-e", "--exclude", help="leave out frames whose name this regular "
                        "expression matches, and their subtrees")
    parser.add_argument("--sort", action="store_true",
                        help="order the children of a frame by the first metric, largest first")
    parser.add_argument("--plot", metavar="PNG", help="draw the first metric of the "
                        "top-level frames as a bar chart to this file (needs matplotlib)")
    args = parser.parse_args(argv)
    try:
        if args.list:
            root, _ = read(args.file)
            names = sorted({k for f in root.walk() for k, v in f.metrics.items()
                            if _numeric(v)})
            print("Available metrics:")
            for name in names:
                print(f"- {name}")
            return 0
        metrics = [m for m in args.metrics.split(",") if m.strip()]
        root, info = parse(metrics, args.file, args.include, args.exclude)
    except (OSError, ValueError) as e:  # json.JSONDecodeError is a ValueError
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return 1
    for line in format_tree(root, args.depth, args.sort):
        print(line)
    if any(m.strip().lower() == "util" for m in metrics):
        for line in _Util(info).notes(root):
            print(line)
    if args.plot:
        if plot(root, metrics[0], args.plot):
            print(f"plotted {metrics[0]} to {args.plot}")
        else:
            print(f"{parser.prog}: --plot needs matplotlib, which is not installed; "
                  "nothing was plotted", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
