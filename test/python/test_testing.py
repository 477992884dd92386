"""tessera.testing: do_bench's modes and quantiles, and perf_report's table,
CSV and PNG."""

import csv

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import testing


class FixedTimer:
    """A timer whose runs take `times` milliseconds, in turn; it records how
    many runs each call times."""

    def __init__(self, times):
        self.times = list(times)
        self.calls = []

    def synchronize(self):
        pass

    def time(self, fn, runs, flush=True, grad_to_none=None):
        self.calls.append(runs)
        return [self.times[i % len(self.times)] for i in range(runs)]

    def close(self):
        pass


def test_do_bench_summarises_the_runs(monkeypatch):
    timer = FixedTimer([2.0, 4.0, 1.0, 3.0, 5.0])
    monkeypatch.setattr(testing, "_timer", lambda: timer)
    called = []
    # Five runs estimate 3 ms a call: 9 ms of warmup is 3 calls, 30 ms of
    # measurement 10 runs (twice the list: mean 3, median 3).
    assert testing.do_bench(lambda: called.append(1), warmup=9, rep=30) == 3.0
    assert timer.calls == [5, 10]
    assert len(called) == 1 + 3
    expected = {"min": 1.0, "max": 5.0, "mean": 3.0, "median": 3.0,
                "all": [2.0, 4.0, 1.0, 3.0, 5.0] * 2}
    for mode, value in expected.items():
        assert testing.do_bench(lambda: None, warmup=9, rep=30, return_mode=mode) == value
    # Quantiles interpolate between the sorted runs' closest ranks.
    assert testing.do_bench(lambda: None, warmup=9, rep=30,
                            quantiles=[0.1, 0.5, 0.95]) == [1.0, 3.0, 5.0]
    assert testing.do_bench(lambda: None, warmup=9, rep=30, quantiles=[0.25]) == 2.0
    with pytest.raises(ValueError, match="return_mode must be one of"):
        testing.do_bench(lambda: None, return_mode="average")
    with pytest.raises(ValueError, match=r"quantiles lie in \[0, 1\]"):
        testing.do_bench(lambda: None, rep=1, quantiles=[2])


def test_do_bench_runs_kernels():
    @tessera.jit
    def fill(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), 3.0, tl.float32))

    x = np.zeros(128, np.float32)
    t = testing.do_bench(lambda: fill[(1,)](x, BLOCK=128), warmup=1, rep=5)
    assert t > 0
    np.testing.assert_array_equal(x, 3.0)


def test_cudagraph_needs_a_gpu():
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is here: bench/ uses do_bench_cudagraph on it")
    except ImportError:
        pass
    with pytest.raises(RuntimeError, match="do_bench_cudagraph needs PyTorch with a GPU"):
        testing.do_bench_cudagraph(lambda: None)


def test_perf_report_prints_saves_and_plots(tmp_path, capsys):
    @testing.perf_report(testing.Benchmark(
        x_names=["size"], x_vals=[128, 256, 512], line_arg="provider",
        line_vals=["fast", "slow"], line_names=["Fast", "Slow"],
        styles=[("blue", "-"), ("red", "--")], ylabel="GB/s", plot_name="sweep",
        args={"scale": 2}, x_log=True))
    def sweep(size, provider, scale):
        figure = size * scale * (2 if provider == "fast" else 1)
        return figure, figure - 1, figure + 1

    frame = sweep.run(print_data=True, save_path=str(tmp_path), return_df=True)
    out = capsys.readouterr().out
    assert "sweep:" in out
    assert out.split("sweep:")[1].split() == [
        "size", "Fast", "Slow", "128", "512", "256", "256", "1024", "512", "512", "2048",
        "1024"]
    with open(tmp_path / "sweep.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["size", "Fast", "Slow"]
    assert [[float(v) for v in row] for row in rows[1:]] == [
        [128, 512, 256], [256, 1024, 512], [512, 2048, 1024]]
    png = (tmp_path / "sweep.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    import matplotlib.image
    image = matplotlib.image.imread(str(tmp_path / "sweep.png"))
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    columns = list(frame.columns) if hasattr(frame, "columns") else frame[0]
    assert columns == ["size", "Fast", "Slow"]


def test_benchmark_checks_its_lines():
    with pytest.raises(ValueError, match="line_names and line_vals differ"):
        testing.Benchmark(x_names=["n"], x_vals=[1], line_arg="p", line_vals=[1, 2],
                          line_names=["one"], plot_name="bad")


class DeviceArray:
    """GPU memory of Tessera's runtime, passed as __cuda_array_interface__."""

    def __init__(self, driver, n):
        self.driver, self.n = driver, n
        self.address = driver.allocate(4 * n)
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4",
                                         "data": (self.address, False), "version": 3}

    def numpy(self):
        out = np.empty(self.n, np.float32)
        self.driver.synchronize()
        self.driver.copy_to_host(out.ctypes.data, self.address, out.nbytes)
        return out


def test_the_runtimes_events_time_gpu_kernels(device):
    if device == "interpreter":
        pytest.skip("needs a GPU (--device=cuda or hip)")
    from tessera.runtime import gpu

    @tessera.jit
    def fill(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offsets, tl.full((BLOCK,), 2.0, tl.float32), mask=offsets < n)

    n = 1 << 24
    x = DeviceArray(gpu.driver(), n)
    run = lambda: fill[(n // 1024,)](x, n, BLOCK=1024)
    timer = testing._DriverTimer()
    try:
        times = timer.time(run, 10)
    finally:
        timer.close()
    assert (x.numpy() == 2.0).all()
    # Each run's events measured something (the figures are bench/'s job).
    assert len(times) == 10 and all(0 < t < 1000 for t in times), times
    gpu.driver().release(x.address)


def test_benchmarks_report_why_tessera_does_not_import(monkeypatch):
    # bench/common.py: a missing reference (upstream Triton) is None, a
    # Tessera that fails to import is an error naming the cause.
    import importlib
    import os
    import sys
    monkeypatch.syspath_prepend(os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    common = importlib.import_module("common")
    real = importlib.import_module

    def fake(name, *args):
        if name == "tessera.language":
            raise ImportError("libLLVM.so.22: cannot open shared object file",
                              name="tessera._tessera")
        if name == "triton":
            raise ModuleNotFoundError("No module named 'triton'", name="triton")
        return real(name, *args)

    monkeypatch.setattr(common.importlib, "import_module", fake)
    with pytest.raises(ImportError, match="tessera does not import: libLLVM.so.22"):
        common.kernels("tessera")
    assert common.kernels("triton") is None
    sys.modules.pop("common", None)
