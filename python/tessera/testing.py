"""Benchmarking, with the names and semantics of `triton.testing`.

`do_bench` times a callable with device events on the GPU (PyTorch's, where
it is imported, else those of Tessera's runtime), flushing the L2 cache before
each run; with no GPU (kernels on the host interpreter) it times with the
host's clock. `Benchmark` and
`perf_report` run a sweep and print, save (CSV) and plot (PNG) it.
"""

from __future__ import annotations

import csv
import math
import os
import statistics
import time

from . import knobs

__all__ = ["Benchmark", "Mark", "do_bench", "do_bench_cudagraph", "perf_report"]

_RETURN_MODES = ("min", "max", "mean", "median", "all")


def _check(quantiles, return_mode):
    """Fails before anything runs on what do_bench cannot return."""
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(_RETURN_MODES)}, "
                         f"got {return_mode!r}")
    for q in quantiles or ():
        if not 0 <= q <= 1:
            raise ValueError(f"quantiles lie in [0, 1], got {q}")


def _summarise(times, quantiles, return_mode):
    if not times:
        raise ValueError("no runs were timed")
    if quantiles is not None:
        ordered = sorted(times)
        result = [_quantile(ordered, q) for q in quantiles]
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return list(times)
    return {"min": min, "max": max, "mean": statistics.fmean,
            "median": statistics.median}[return_mode](times)


def _quantile(ordered, q):
    """Linear interpolation between the closest ranks, as torch.quantile."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _zero_grads(grad_to_none):
    for x in grad_to_none or ():
        x.grad = None


class _EventTimer:
    """Device events around each run, the L2 cache flushed before it (256
    MB written: more than the L2 of any GPU this runs on)."""

    FLUSH_BYTES = 256 * 1024 * 1024

    def time(self, fn, runs, flush=True, grad_to_none=None):
        pairs = [(self.event(), self.event()) for _ in range(runs)]
        try:
            for start, end in pairs:
                _zero_grads(grad_to_none)
                if flush:
                    self.flush()
                self.record(start)
                fn()
                self.record(end)
            self.synchronize()
            return [self.elapsed(start, end) for start, end in pairs]
        finally:
            for start, end in pairs:
                self.forget(start)
                self.forget(end)


class _TorchTimer(_EventTimer):
    """PyTorch's events on its current stream (where Tessera launches)."""

    def __init__(self, torch):
        self.torch = torch
        self.flush_buffer = torch.empty(self.FLUSH_BYTES // 4, dtype=torch.int, device="cuda")

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def record(self, event):
        event.record()

    def elapsed(self, start, end):
        return start.elapsed_time(end)

    def forget(self, event):
        pass

    def flush(self):
        self.flush_buffer.zero_()

    def synchronize(self):
        self.torch.cuda.synchronize()

    def close(self):
        pass


class _DriverTimer(_EventTimer):
    """Tessera's runtime's events on the default stream, where there is a
    GPU and no PyTorch."""

    def __init__(self):
        from .runtime import gpu
        self.driver = gpu.driver()
        gpu.set_device(gpu.current_device())
        self.flush_buffer = self.driver.allocate(self.FLUSH_BYTES)

    def event(self):
        return self.driver.create_event()

    def record(self, event):
        self.driver.record_event(event, 0)

    def elapsed(self, start, end):
        return self.driver.elapsed_ms(start, end)

    def forget(self, event):
        self.driver.destroy_event(event)

    def flush(self):
        self.driver.fill(self.flush_buffer, 0, self.FLUSH_BYTES // 4, 0)

    def synchronize(self):
        self.driver.synchronize()

    def close(self):
        self.driver.release(self.flush_buffer)


class _HostTimer:
    """The host's clock, for kernels on the interpreter (nothing to flush:
    the interpreter's memory is the host's)."""

    def synchronize(self):
        pass

    def time(self, fn, runs, flush=True, grad_to_none=None):
        times = []
        for _ in range(runs):
            _zero_grads(grad_to_none)
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        return times

    def close(self):
        pass


def _timer():
    from .runtime import gpu
    torch = gpu.torch_gpu()
    if torch is not None:
        return _TorchTimer(torch)
    if not knobs.runtime.interpret and gpu.available():
        return _DriverTimer()
    return _HostTimer()


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None,
             return_mode="mean"):
    """Milliseconds one call of `fn` takes. `warmup` and `rep` are times in
    milliseconds to spend warming up and measuring (the number of runs is
    estimated from five first ones); `quantiles` (a list in [0, 1]) returns
    those quantiles of the runs, else `return_mode` says what to return:
    "min", "max", "mean", "median" or "all" (every run's time). On the GPU
    the L2 cache is flushed before every run, as Triton's do_bench does."""
    _check(quantiles, return_mode)
    timer = _timer()
    try:
        fn()
        timer.synchronize()
        estimate = statistics.fmean(timer.time(fn, 5)) or 1e-3
        warmups = max(1, int(warmup / estimate))
        runs = max(1, int(rep / estimate))
        for _ in range(warmups):
            fn()
        times = timer.time(fn, runs, grad_to_none=grad_to_none)
    finally:
        timer.close()
    return _summarise(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """do_bench through a CUDA graph: `fn`'s launches are captured once and
    replayed, so launch overhead drops out. Needs PyTorch on a GPU (its
    graphs capture the kernels Tessera launches on its current stream)."""
    _check(quantiles, return_mode)
    from .runtime import gpu
    torch = gpu.torch_gpu()
    if torch is None:
        raise RuntimeError("do_bench_cudagraph needs PyTorch with a GPU (CUDA or ROCm); "
                           "use do_bench elsewhere")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()  # compiles and loads before the capture
        _zero_grads(grad_to_none)
        torch.cuda.synchronize()
        timer = _TorchTimer(torch)
        single = torch.cuda.CUDAGraph()
        with torch.cuda.graph(single):
            fn()
        torch.cuda.synchronize()
        estimate = statistics.fmean(timer.time(single.replay, 5, flush=False)) or 1e-3
        # One graph of many calls, replayed for each timed run.
        calls = max(1, int(rep / estimate))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                _zero_grads(grad_to_none)
                fn()
        torch.cuda.synchronize()
        times = [t / calls for t in timer.time(graph.replay, 10, flush=False)]
    return _summarise(times, quantiles, return_mode)


class Benchmark:
    """A sweep: `x_names` take each of `x_vals`, and for each, `line_arg`
    takes each of `line_vals` (one line of the plot each, named
    `line_names`); `args` holds the other arguments."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name,
                 args=None, xlabel="", ylabel="", x_log=False, y_log=False, styles=None,
                 color=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        if len(self.line_names) != len(self.line_vals):
            raise ValueError("Benchmark: line_names and line_vals differ in length")
        self.plot_name = plot_name
        self.args = dict(args or {})
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles
        self.color = color


class Mark:
    """A function benchmarked over one or more Benchmarks (perf_report)."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data):
        columns = [bench.x_names[0]] + [
            f"{name}{suffix}" for name in bench.line_names for suffix in ("", "-min", "-max")]
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row = [xs[0]]
            for value in bench.line_vals:
                result = self.fn(**x_args, **{bench.line_arg: value}, **bench.args)
                y, y_min, y_max = (result if isinstance(result, (list, tuple))
                                   else (result, result, result))
                row += [y, y_min, y_max]
            rows.append(row)
        shown = [c for c in columns if not c.endswith(("-min", "-max"))]
        table = [[r[columns.index(c)] for c in shown] for r in rows]
        if print_data:
            print(bench.plot_name + ":")
            print(_format_table(shown, table))
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w",
                      newline="") as f:
                writer = csv.writer(f)
                writer.writerow(shown)
                writer.writerows(table)
        if save_path or show_plots:
            self._plot(bench, columns, rows, save_path, show_plots)
        return shown, table

    def _plot(self, bench, columns, rows, save_path, show_plots):
        import matplotlib
        if not show_plots:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots()
        xs = [r[0] for r in rows]
        for i, name in enumerate(bench.line_names):
            at = columns.index(name)
            style = bench.styles[i] if bench.styles else None
            color, line = (style if style else (None, "-"))
            ys = [r[at] for r in rows]
            axes.plot(xs, ys, label=name, color=color, linestyle=line)
            low, high = [r[at + 1] for r in rows], [r[at + 2] for r in rows]
            if low != ys or high != ys:
                axes.fill_between(xs, low, high, alpha=0.15, color=color)
        axes.legend()
        axes.set_xlabel(bench.xlabel or bench.x_names[0])
        axes.set_ylabel(bench.ylabel)
        if bench.x_log:
            axes.set_xscale("log")
        if bench.y_log:
            axes.set_yscale("log")
        axes.set_title(bench.plot_name)
        if save_path:
            figure.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
        if show_plots:
            plt.show()
        plt.close(figure)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Runs every Benchmark: prints its table (print_data), writes
        <plot_name>.csv and <plot_name>.png under save_path, and with
        return_df returns the tables (pandas DataFrames where pandas is
        installed, else (columns, rows))."""
        benchmarks = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        results = []
        for bench in benchmarks:
            bench.args.update(kwargs)
            results.append(self._run(bench, save_path, show_plots, print_data))
        if not return_df:
            return None
        try:
            import pandas
            frames = [pandas.DataFrame(rows, columns=columns) for columns, rows in results]
        except ImportError:
            frames = results
        return frames[0] if len(frames) == 1 else frames


def perf_report(benchmarks):
    """Decorates a function of the sweep's arguments returning a figure (or
    (figure, min, max)) into a Mark: `.run(print_data=True, save_path=...)`."""
    return lambda fn: Mark(fn, benchmarks)


def _format_table(columns, rows):
    cells = [[str(c) for c in columns]] + [
        [f"{v:.6g}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)
