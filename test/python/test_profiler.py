"""tessera.profiler (Proton's interface): sessions, scopes and the launch hook
around kernels on the host interpreter, the hatchet and Chrome trace files
they write, and the viewer; the GPU's event timing with --device=cuda."""

import ctypes
import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import tessera
import tessera.language as tl
import tessera.profiler as proton
import tessera.profiler.language as pl
from tessera.profiler import viewer
from tessera import _tessera
from tessera.runtime import gpu, jit

# The stand-in tracer libraries of the build tree (<build>/lib).
FAKES = Path(os.path.abspath(tessera.__file__)).parents[2] / "lib"


@tessera.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def _scale_metadata(grid, kernel, args):
    n = args["n"]
    return {"name": f"{kernel.name} [n={n}]", "flops32": n * grid[0], "bytes": 8 * n,
            "note": "not a metric"}


@tessera.jit(launch_metadata=_scale_metadata)
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


N = 100


@pytest.fixture
def arrays():
    x = np.arange(N, dtype=np.float32)
    return x, np.zeros_like(x)


@pytest.fixture(autouse=True)
def no_sessions_left():
    """Each test leaves no session open (a failed one may have)."""
    yield
    if proton.session.profiling():
        proton.finalize(output_format="hatchet")


def launch(kernel, arrays, times=1):
    x, y = arrays
    for _ in range(times):
        kernel[(1,)](x, y, N, BLOCK=128)


def read_hatchet(path):
    with open(path) as f:
        document = json.load(f)
    assert isinstance(document, list) and len(document) == 2
    return document


def children(node):
    return {c["frame"]["name"]: c for c in node["children"]}


def frame_at(root, *names):
    node = root
    for name in names:
        node = children(node)[name]
    return node


def kernel_frames(node):
    """The kernel frames under `node` (those holding a time)."""
    found = [node] if "time (ns)" in node["metrics"] and node["frame"]["name"] != "ROOT" \
        else []
    for child in node["children"]:
        found += kernel_frames(child)
    return found


def test_nested_scopes_hold_their_launches(tmp_path, arrays):
    session = proton.start(str(tmp_path / "nested"))
    assert isinstance(session, int)
    with proton.scope("outer"):
        launch(copy_kernel, arrays)
        with proton.scope("inner"):
            launch(copy_kernel, arrays, times=3)
    launch(copy_kernel, arrays, times=2)
    proton.finalize()
    np.testing.assert_array_equal(arrays[1], arrays[0])

    root, devices = read_hatchet(tmp_path / "nested.hatchet")
    assert root["frame"] == {"name": "ROOT", "type": "function"}
    assert root["metrics"] == {"time (ns)": 0, "count": 0}
    assert list(children(root)) == ["outer", "copy_kernel"]
    assert list(children(frame_at(root, "outer"))) == ["copy_kernel", "inner"]
    assert frame_at(root, "outer")["metrics"] == {}
    for path, count in [(("outer", "copy_kernel"), 1), (("outer", "inner", "copy_kernel"), 3),
                        (("copy_kernel",), 2)]:
        metrics = frame_at(root, *path)["metrics"]
        assert metrics["count"] == count
        assert metrics["time (ns)"] > 0
        assert metrics["device_type"] == "HOST" and metrics["device_id"] == "0"
        assert frame_at(root, *path)["children"] == []
    assert devices == {"HOST": {"0": {"name": "host interpreter", "timing": "host"}}}

    # Viewed, a frame holds the sums of its subtree.
    tree, _ = viewer.parse(["count", "time/ns"], str(tmp_path / "nested.hatchet"))
    outer = next(f for f in tree.children if f.name == "outer")
    assert [tree.values[0], outer.values[0]] == [6.0, 4.0]
    times = {f.name: f.inclusive["time (ns)"] for f in outer.children}
    assert outer.inclusive["time (ns)"] == times["copy_kernel"] + times["inner"]
    assert outer.values[1] == pytest.approx(outer.inclusive["time (ns)"])
    assert tree.inclusive["time (ns)"] == sum(f["metrics"]["time (ns)"]
                                              for f in kernel_frames(root))


def test_chrome_trace_has_an_event_per_launch(tmp_path, arrays):
    proton.start(str(tmp_path / "trace"))
    with proton.scope("outer"):
        launch(copy_kernel, arrays, times=2)
        with proton.scope("inner"):
            launch(copy_kernel, arrays)
    proton.finalize()
    with open(tmp_path / "trace.chrome_trace") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    assert len(events) == 3
    assert all(e["ph"] == "X" and e["name"] == "copy_kernel" for e in events)
    assert [e["args"]["scopes"] for e in events] == [["outer"], ["outer"], ["outer", "inner"]]
    assert events[0]["ts"] == 0
    for before, after in zip(events, events[1:]):
        assert after["ts"] >= before["ts"] + before["dur"]
    assert all(e["dur"] > 0 for e in events)
    assert trace["otherData"]["devices"]["HOST"]["0"]["timing"] == "host"


def test_hook_records_launch_metadata(tmp_path, arrays):
    proton.start(str(tmp_path / "hooked"), hook="triton")
    with proton.scope("work", {"bytes": 5}):
        launch(scale_kernel, arrays, times=2)
        launch(copy_kernel, arrays)
    proton.finalize()
    np.testing.assert_array_equal(arrays[1], arrays[0])  # the last launch copied

    root, _ = read_hatchet(tmp_path / "hooked.hatchet")
    work = frame_at(root, "work")
    assert work["metrics"] == {"bytes": 5}
    # Each launch enters an op named by launch_metadata, with its metrics
    # (summed over launches), the kernel below it.
    op = frame_at(work, f"scale_kernel [n={N}]")
    assert op["metrics"] == {"flops32": 2 * N, "bytes": 2 * 8 * N}
    assert list(children(op)) == ["scale_kernel"]
    assert frame_at(op, "scale_kernel")["metrics"]["count"] == 2
    # Without launch_metadata, the op is named after the kernel.
    assert frame_at(work, "copy_kernel")["metrics"] == {}
    assert frame_at(work, "copy_kernel", "copy_kernel")["metrics"]["count"] == 1

    tree, _ = viewer.parse(["bytes", "flops32", "count"], str(tmp_path / "hooked.hatchet"))
    assert tree.values == [5 + 2 * 8 * N, 2 * N, 3]


def test_launch_hook_alias_and_sessions_side_by_side(tmp_path, arrays):
    plain = proton.start(str(tmp_path / "plain"))
    hooked = proton.start(str(tmp_path / "launch"), hook="launch")
    launch(scale_kernel, arrays)
    proton.finalize(plain)
    launch(scale_kernel, arrays)
    proton.finalize(hooked)
    plain_root, _ = read_hatchet(tmp_path / "plain.hatchet")
    assert list(children(plain_root)) == ["scale_kernel"]
    assert frame_at(plain_root, "scale_kernel")["metrics"]["count"] == 1
    hooked_root, _ = read_hatchet(tmp_path / "launch.hatchet")
    op = frame_at(hooked_root, f"scale_kernel [n={N}]")
    assert frame_at(op, "scale_kernel")["metrics"]["count"] == 2


def test_scope_as_decorator(tmp_path, arrays):
    @proton.scope("step", {"flops": 10})
    def step():
        launch(copy_kernel, arrays)
        return 7

    assert step() == 7  # outside a session: runs, records nothing
    proton.start(str(tmp_path / "decorated"))
    assert step() == 7
    assert step() == 7
    assert step.__name__ == "step"
    proton.finalize()
    root, _ = read_hatchet(tmp_path / "decorated.hatchet")
    assert list(children(root)) == ["step"]
    assert frame_at(root, "step")["metrics"] == {"flops": 20}
    assert frame_at(root, "step", "copy_kernel")["metrics"]["count"] == 2


def test_enter_and_exit_scope(tmp_path, arrays):
    assert proton.enter_scope("ignored") == -1  # outside a session
    assert proton.exit_scope() == -1
    proton.start(str(tmp_path / "entered"))
    first = proton.enter_scope("a")
    second = proton.enter_scope("b", metrics={"bytes": 3})
    assert first >= 0 and second not in (-1, first)
    launch(copy_kernel, arrays)
    with pytest.raises(ValueError, match="innermost open scope is 'b', not 'a'"):
        proton.exit_scope("a")
    assert proton.exit_scope("b", metrics={"bytes": 4}) == second
    launch(copy_kernel, arrays)
    assert proton.exit_scope() == first
    with pytest.raises(ValueError, match="no scope is open"):
        proton.exit_scope()
    proton.finalize()
    root, _ = read_hatchet(tmp_path / "entered.hatchet")
    assert list(children(root)) == ["a"]
    assert list(children(frame_at(root, "a"))) == ["b", "copy_kernel"]
    assert frame_at(root, "a", "b")["metrics"] == {"bytes": 7}
    assert frame_at(root, "a", "b", "copy_kernel")["metrics"]["count"] == 1


def test_deactivated_sessions_record_nothing(tmp_path, arrays):
    session = proton.start(str(tmp_path / "paused"))
    launch(copy_kernel, arrays)
    proton.deactivate(session)
    assert jit._launch_hook is None
    with proton.scope("paused"):
        launch(copy_kernel, arrays, times=3)
    proton.activate(session)
    with proton.scope("resumed"):
        launch(copy_kernel, arrays)
    proton.deactivate()
    launch(copy_kernel, arrays)
    proton.activate()
    launch(copy_kernel, arrays)
    proton.finalize(session, output_format="hatchet")
    assert not (tmp_path / "paused.chrome_trace").exists()
    root, _ = read_hatchet(tmp_path / "paused.hatchet")
    assert list(children(root)) == ["copy_kernel", "resumed"]
    assert frame_at(root, "copy_kernel")["metrics"]["count"] == 2
    assert frame_at(root, "resumed", "copy_kernel")["metrics"]["count"] == 1
    with pytest.raises(ValueError, match="no profiling session"):
        proton.activate(session)


def launch_from_helper(arrays):
    with proton.scope("helper scope"):
        launch(copy_kernel, arrays)


def test_python_context_names_the_call_stack(tmp_path, arrays):
    proton.start(str(tmp_path / "python"), context="python")
    with proton.scope("outer"):
        launch_from_helper(arrays)
    proton.finalize()
    root, _ = read_hatchet(tmp_path / "python.hatchet")
    (kernel,) = kernel_frames(root)
    path = []

    def find(node, trail):
        if node is kernel:
            path.extend(trail)
        for child in node["children"]:
            find(child, trail + [child["frame"]["name"]])
    find(root, [])
    here = f"{__file__}:test_python_context_names_the_call_stack"
    helper = f"{__file__}:launch_from_helper"
    # Each scope follows the function that entered it; Tessera's own frames
    # are left out.
    assert path[-6:] == [here, "outer", helper, "helper scope", f"{__file__}:launch",
                         "copy_kernel"]
    assert not any("tessera" + "/runtime" in name for name in path)


def test_no_session_records_nothing(tmp_path, arrays):
    # No hook on the launch path, no scope opened.
    assert jit._launch_hook is None
    with proton.scope("outside"):
        assert proton._context.top() is None
        launch(copy_kernel, arrays)
    assert proton.enter_scope("outside") == -1 and proton._context.top() is None
    # Launches before and after a session are not in it.
    proton.start(str(tmp_path / "between"))
    assert jit._launch_hook is proton.session._on_launch
    launch(copy_kernel, arrays)
    proton.finalize()
    assert jit._launch_hook is None
    launch(copy_kernel, arrays)
    root, _ = read_hatchet(tmp_path / "between.hatchet")
    assert frame_at(root, "copy_kernel")["metrics"]["count"] == 1


def test_default_name_and_start_errors(tmp_path, arrays, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proton.start()
    launch(copy_kernel, arrays)
    proton.finalize(output_format="chrome_trace")
    assert (tmp_path / "proton.chrome_trace").exists()
    assert not (tmp_path / "proton.hatchet").exists()
    with pytest.raises(ValueError, match="context must be one of shadow, python"):
        proton.start(context="stack")
    with pytest.raises(ValueError, match="hook must be"):
        proton.start(hook="cupti")
    with pytest.raises(ValueError, match="mode 'pcsampling' is not available"):
        proton.start(mode="pcsampling")
    # The other vendor's tracer (this platform's may well be there).
    other, vendor = ("roctracer", "AMD") if gpu.platform() == "cuda" else ("cupti", "NVIDIA")
    with pytest.warns(RuntimeWarning, match=f"backend '{other}' is not available "
                                            f"\\(it traces {vendor} GPUs"):
        proton.start(str(tmp_path / "other"), backend=other)
    with pytest.raises(ValueError, match="output_format must be"):
        proton.finalize(output_format="hatchet_msgpack")
    assert proton.session.profiling()  # still open
    proton.finalize()
    assert not proton.session.profiling() and (tmp_path / "other.hatchet").exists()


def fake_tracer(name, monkeypatch, platform):
    """The stand-in tracer library `name` of the build (ctypes), made the one
    the profiler opens for `platform`; skips where it is not built beside
    this tessera, or where this process already opened a real one."""
    path = FAKES / f"libtessera_fake_{name}.so"
    if not path.exists():
        pytest.skip(f"{path.name} is not built beside this tessera")
    monkeypatch.setattr(gpu, "_platform", platform)
    monkeypatch.setenv(f"TESSERA_{name.upper()}_LIBRARY", str(path))
    library = _tessera.tracer(platform, [str(path)]).library
    if library != str(path):
        pytest.skip(f"this process traces with {library}")
    return ctypes.CDLL(str(path))


def test_the_tracer_reports_other_libraries_kernels_in_their_scopes(tmp_path, arrays,
                                                                    monkeypatch):
    cupti = fake_tracer("cupti", monkeypatch, "cuda")
    cupti.fakeCuptiLaunch.argtypes = [ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint64,
                                      ctypes.c_uint32, ctypes.c_uint32]
    cupti.fakeCuptiSetTime.argtypes = [ctypes.c_uint64]
    cupti.fakeCuptiSetTime(10**9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = proton.start(str(tmp_path / "both"), backend="cupti")
    assert proton.session._activity.running() == "cupti"
    with proton.scope("gemm"):
        cupti.fakeCuptiLaunch(b"_Z10cublasGemmPKfPf", 10**9 + 100, 10**9 + 600, 0, 7)
        launch(copy_kernel, arrays)  # on the host interpreter, timed by its clock
        later = proton.start(str(tmp_path / "later"))
        with proton.scope("inner"):
            cupti.fakeCuptiLaunch(b"inner_kernel", 10**9 + 700, 10**9 + 900, 1, 0)
    proton.deactivate(both)
    cupti.fakeCuptiLaunch(b"while_paused", 10**9 + 1000, 10**9 + 1100, 0, 0)
    proton.activate(both)
    # A thread that entered no scope launches at the root.
    thread = threading.Thread(
        target=cupti.fakeCuptiLaunch, args=(b"from_a_thread", 10**9 + 1200, 10**9 + 1250, 0, 0))
    thread.start()
    thread.join()
    proton.finalize(both)
    proton.finalize(later)
    cupti.fakeCuptiLaunch(b"after", 10**9 + 1300, 10**9 + 1400, 0, 0)

    root, devices = read_hatchet(tmp_path / "both.hatchet")
    assert sorted(children(root)) == ["from_a_thread", "gemm"]
    assert sorted(children(frame_at(root, "gemm"))) == ["copy_kernel", "cublasGemm(float const*, float*)", "inner"]
    gemm = frame_at(root, "gemm", "cublasGemm(float const*, float*)")["metrics"]
    assert gemm == {"time (ns)": 500, "count": 1, "device_id": "0", "device_type": "CUDA"}
    inner = frame_at(root, "gemm", "inner", "inner_kernel")["metrics"]
    assert inner["time (ns)"] == 200 and inner["device_id"] == "1"
    assert frame_at(root, "from_a_thread")["metrics"]["time (ns)"] == 50
    assert frame_at(root, "gemm", "copy_kernel")["metrics"]["device_type"] == "HOST"
    assert devices["CUDA"]["0"]["timing"] == devices["CUDA"]["1"]["timing"] == "cupti"
    assert devices["HOST"]["0"]["timing"] == "host"
    # The session started inside "gemm" has the kernels launched while it was
    # active, where they were launched.
    root, _ = read_hatchet(tmp_path / "later.hatchet")
    assert sorted(children(root)) == ["from_a_thread", "gemm", "while_paused"]
    assert frame_at(root, "gemm", "inner", "inner_kernel")["metrics"]["count"] == 1
    with open(tmp_path / "both.chrome_trace") as f:
        events = {e["name"]: e for e in json.load(f)["traceEvents"]}
    assert events["cublasGemm(float const*, float*)"]["dur"] == pytest.approx(0.5)
    assert events["inner_kernel"]["ts"] - events["cublasGemm(float const*, float*)"]["ts"] \
        == pytest.approx(0.6)
    assert events["inner_kernel"]["args"]["scopes"] == ["gemm", "inner"]
    assert not proton.session._activity.running()  # stopped with its last session


def test_roctracer_reports_dispatches_in_their_scopes(tmp_path, monkeypatch):
    roctracer = fake_tracer("roctracer", monkeypatch, "hip")
    roctracer.fakeRoctracerLaunch.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                              ctypes.c_uint64, ctypes.c_uint64,
                                              ctypes.c_int, ctypes.c_uint64]
    proton.start(str(tmp_path / "amd"), backend="roctracer")
    with proton.scope("step"):
        roctracer.fakeRoctracerLaunch(b"hipModuleLaunchKernel", b"_Z3addPfS_", 10, 30, 0, 1)
    roctracer.fakeRoctracerLaunch(b"hipLaunchKernel", b"softmax", 40, 100, 0, 1)
    proton.finalize()
    root, devices = read_hatchet(tmp_path / "amd.hatchet")
    add = frame_at(root, "step", "add(float*, float*)")["metrics"]
    assert add["time (ns)"] == 20 and add["device_type"] == "HIP"
    assert frame_at(root, "softmax")["metrics"]["time (ns)"] == 60
    assert devices["HIP"][add["device_id"]]["timing"] == "roctracer"


@tessera.jit
def decorated_profile_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_profile_decorator(tmp_path, arrays):
    @proton.profile(name=str(tmp_path / "profiled"))
    def run():
        launch(decorated_profile_kernel, arrays)

    run()
    assert jit._launch_hook is None  # deactivated on return
    proton.finalize()
    root, _ = read_hatchet(tmp_path / "profiled.hatchet")
    assert frame_at(root, "decorated_profile_kernel")["metrics"]["count"] == 1


# A profile written by hand: 40 us of a 2-launch GEMM under a scope, 10 us
# of 4 other launches, on an H100 (its peak: 8192 8-bit ops per clock per SM).
H100 = {"name": "NVIDIA H100 80GB HBM3", "arch": "90", "num_sms": 132,
        "clock_rate": 1980000, "memory_clock_rate": 2619000, "bus_width": 5120,
        "timing": "events"}


def kernel_node(name, ns, count):
    return {"frame": {"name": name, "type": "function"},
            "metrics": {"time (ns)": ns, "count": count, "device_id": "0",
                        "device_type": "CUDA"},
            "children": []}


def scope_node(name, metrics, *nodes):
    return {"frame": {"name": name, "type": "function"}, "metrics": metrics,
            "children": list(nodes)}


@pytest.fixture
def gemm_profile(tmp_path):
    flops = 2 * 1024 * 256 * 512
    bytes_ = 2 * (1024 * 512 + 256 * 512 + 1024 * 256)
    root = scope_node(
        "ROOT", {"time (ns)": 0, "count": 0},
        scope_node("gemm", {},
                   scope_node("gemm [M=1024, N=256, K=512]",
                              {"flops16": flops, "bytes": bytes_},
                              kernel_node("gemm_kernel", 40000, 2))),
        kernel_node("add_kernel", 10000, 4))
    path = tmp_path / "gemm.hatchet"
    path.write_text(json.dumps([root, {"CUDA": {"0": H100}}]))
    return str(path)


def test_viewer_prints_inclusive_metrics(gemm_profile, capsys):
    assert viewer.main(["-m", "time/ms,tflop/s,tbyte/s,util", gemm_profile]) == 0
    # ROOT: 268435456 flops and 1835008 bytes in 50 us; util: the bytes'
    # 0.547 us at 3352.3 GB/s (more than the flops' 0.251 us at 1070.5
    # TFLOP/s) over the time.
    assert capsys.readouterr().out == """\
0.050 5.369 0.037 0.011 ROOT
├─ 0.010 nan nan nan add_kernel
└─ 0.040 6.711 0.046 0.014 gemm
   └─ 0.040 6.711 0.046 0.014 gemm [M=1024, N=256, K=512]
      └─ 0.040 nan nan nan gemm_kernel
util: peak of CUDA 0 (NVIDIA H100 80GB HBM3): 1070.5 TFLOP/s at 16 bits (x2 at 8, /2 at 32, \
/4 at 64; arch 90, 132 SMs at 1980 MHz), 3352.3 GB/s
"""


def test_viewer_options(gemm_profile, capsys):
    def shown(*args):
        assert viewer.main([*args, gemm_profile]) == 0
        return capsys.readouterr().out.splitlines()

    assert shown("-m", "time/us,avg_time/us,count", "--sort") == [
        "50.000 8.333 6.000 ROOT",
        "├─ 40.000 20.000 2.000 gemm",
        "│  └─ 40.000 20.000 2.000 gemm [M=1024, N=256, K=512]",
        "│     └─ 40.000 20.000 2.000 gemm_kernel",
        "└─ 10.000 2.500 4.000 add_kernel"]
    assert shown("-m", "time/s,flops16,gflop16/s", "--depth", "2") == [
        "0.000 268435456.000 5368.709 ROOT",
        "├─ 0.000 nan nan add_kernel",
        "└─ 0.000 268435456.000 6710.886 gemm"]
    # Filters keep the paths through (or leave out) the frames they match;
    # the sums are of what remains.
    assert shown("-m", "time/ns", "--include", "gemm_.*") == [
        "40000.000 ROOT",
        "└─ 40000.000 gemm",
        "   └─ 40000.000 gemm [M=1024, N=256, K=512]",
        "      └─ 40000.000 gemm_kernel"]
    assert shown("-m", "time/ns,bytes", "--exclude", "gemm") == [
        "10000.000 nan ROOT",
        "└─ 10000.000 nan add_kernel"]
    assert shown("-l")[0] == "Available metrics:"
    assert viewer.main(["-m", "tflop8/s", gemm_profile]) == 1
    assert "needs 'flops8', which the profile does not have" in capsys.readouterr().err
    assert viewer.main(["-m", "speed", gemm_profile]) == 1
    assert "unknown metric 'speed'" in capsys.readouterr().err


def test_viewer_states_an_unknown_peak(tmp_path, arrays, capsys):
    proton.start(str(tmp_path / "host"), hook="triton")
    launch(scale_kernel, arrays)
    proton.finalize()
    assert viewer.main(["-m", "util,gbyte/s", str(tmp_path / "host.hatchet")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("nan ") and lines[0].endswith(" ROOT")
    assert lines[-1] == "util: nan on HOST 0 (host interpreter): its peak is unknown"


def test_viewer_plots(gemm_profile, tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    out = tmp_path / "plot.png"
    assert viewer.main(["-m", "time/ms", "--plot", str(out), gemm_profile]) == 0
    assert out.read_bytes().startswith(b"\x89PNG")
    assert f"plotted time/ms to {out}" in capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    assert viewer.main(["--plot", str(tmp_path / "none.png"), gemm_profile]) == 0
    assert "--plot needs matplotlib" in capsys.readouterr().err
    assert not (tmp_path / "none.png").exists()


def test_viewer_runs_as_a_module(gemm_profile):
    result = subprocess.run([sys.executable, "-m", "tessera.profiler.viewer", "-m", "count",
                             "-d", "1", gemm_profile], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "6.000 ROOT\n"


def test_gpu_launches_are_timed(device, tmp_path, arrays):
    if device == "interpreter":
        pytest.skip("times GPU launches: run with --device=cuda or --device=hip")
    proton.start(str(tmp_path / "gpu"), hook="triton")
    source = proton.session._activity.running() or "events"
    with proton.scope("gpu"):
        launch(scale_kernel, arrays, times=3)
    proton.finalize()
    np.testing.assert_array_equal(arrays[1], arrays[0] * 2)
    root, devices = read_hatchet(tmp_path / "gpu.hatchet")
    kernel = frame_at(root, "gpu", f"scale_kernel [n={N}]", "scale_kernel")["metrics"]
    assert kernel["count"] == 3 and kernel["time (ns)"] > 0
    assert kernel["device_type"] == device.upper()
    info = devices[device.upper()][kernel["device_id"]]
    assert info["timing"] == source and info["num_sms"] > 0 and info["name"]
    with open(tmp_path / "gpu.chrome_trace") as f:
        events = json.load(f)["traceEvents"]
    assert len(events) == 3 and all(e["dur"] > 0 for e in events)


@pytest.mark.not_on_cpu("traces the kernels of CUDA and HIP GPUs")
def test_the_tracer_times_torch_kernels_beside_tesseras(device, tmp_path):
    if device == "interpreter":
        pytest.skip("traces GPU kernels: run with --device=cuda or --device=hip")
    torch = pytest.importorskip("torch")
    backend = proton.session._activity.BACKENDS[gpu.platform()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            proton.start(str(tmp_path / "torch"), backend=backend)
        except RuntimeWarning as e:
            pytest.skip(str(e))
    a = torch.randn(512, 512, device="cuda")
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    with proton.scope("torch"):
        a @ a
    with proton.scope("tessera"):
        scale_kernel[(1,)](x, y, N, BLOCK=128)
    proton.finalize()
    torch.testing.assert_close(y, x * 2)
    root, devices = read_hatchet(tmp_path / "torch.hatchet")
    torch_kernels = kernel_frames(frame_at(root, "torch"))
    assert torch_kernels and all(k["metrics"]["time (ns)"] > 0 for k in torch_kernels)
    ours = frame_at(root, "tessera", "scale_kernel")["metrics"]
    assert ours["count"] == 1 and 0 < ours["time (ns)"] < 10**8
    assert devices[device.upper()][ours["device_id"]]["timing"] == backend


@pytest.mark.not_on_cpu("launches with torch tensors on the GPU")
def test_gpu_launches_of_the_fast_path_are_recorded(device, tmp_path):
    """Launches the C++ path makes (torch tensors on the GPU) come to the
    hook while a session is active, and go back to that path after."""
    if device == "interpreter":
        pytest.skip("times GPU launches: run with --device=cuda or --device=hip")
    torch = pytest.importorskip("torch")
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    y = torch.zeros_like(x)
    for _ in range(2):  # the second launch is the C++ path's
        copy_kernel[(1,)](x, y, N, BLOCK=128)
    proton.start(str(tmp_path / "fast"))
    for _ in range(3):
        copy_kernel[(1,)](x, y, N, BLOCK=128)
    proton.finalize()
    copy_kernel[(1,)](x, y, N, BLOCK=128)
    assert torch.equal(x, y)
    root, _ = read_hatchet(tmp_path / "fast.hatchet")
    metrics = frame_at(root, "copy_kernel")["metrics"]
    assert metrics["count"] == 3 and metrics["time (ns)"] > 0


# ----------------------------------------------------------------------------
# Scopes inside kernels (tessera.profiler.language, backend="instrumentation")
# ----------------------------------------------------------------------------

@tessera.jit
def scoped_kernel(x_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    pl.enter_scope("load")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    pl.exit_scope("load")
    for _ in range(STEPS):
        pl.enter_scope("step")
        x = x * 2
        pl.exit_scope("step")
    tl.store(x_ptr + offs, x, mask=offs < n)


@tessera.jit
def unscoped_kernel(x_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    for _ in range(STEPS):
        x = x * 2
    tl.store(x_ptr + offs, x, mask=offs < n)


def _warps(device):
    """Warps that record per program: the host interpreter and the CPU
    backend run a program as one; on a GPU, the default num_warps."""
    return 1 if device in ("interpreter", "cpu") else 4


def test_instrumented_scopes_are_recorded_per_warp(device, tmp_path, capsys):
    x = np.ones(256, np.float32)
    proton.start(str(tmp_path / "scopes"), backend="instrumentation", mode=16)
    scoped_kernel[(4,)](x, 256, 3, BLOCK=64)
    proton.finalize()
    np.testing.assert_array_equal(x, 8)
    warps = 4 * _warps(device)
    root, _ = read_hatchet(tmp_path / "scopes.hatchet")
    kernel = frame_at(root, "scoped_kernel")
    assert kernel["metrics"]["count"] == 1
    scopes = {name: c["metrics"] for name, c in children(kernel).items()}
    assert scopes["load"]["scope_count"] == warps
    assert scopes["step"]["scope_count"] == 3 * warps
    assert all(m["scope_time (ns)"] >= 0 for m in scopes.values())
    with open(tmp_path / "scopes.chrome_trace") as f:
        events = json.load(f)["traceEvents"]
    scope_events = [e for e in events if e.get("cat") == "scope"]
    assert sorted({e["name"] for e in scope_events}) == ["load", "step"]
    assert len(scope_events) == 4 * warps
    threads = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert len(threads) == warps and "program 3 warp 0" in threads
    kernel_event = next(e for e in events if e.get("cat") == "kernel")
    assert all(e["ts"] >= kernel_event["ts"] for e in scope_events)
    assert viewer.main(["-m", "scope_time/us", str(tmp_path / "scopes.hatchet")]) == 0
    assert "step" in capsys.readouterr().out


def test_a_warp_keeps_its_last_records(device, tmp_path):
    # 2 slots a warp (32 bytes), 8 records: the last step's entry and exit
    # are kept.
    x = np.ones(256, np.float32)
    proton.start(str(tmp_path / "wrap"), backend="instrumentation",
                 mode=proton.mode.Default(buffer_size=32))
    scoped_kernel[(4,)](x, 256, 3, BLOCK=64)
    proton.finalize()
    scopes = children(frame_at(read_hatchet(tmp_path / "wrap.hatchet")[0], "scoped_kernel"))
    assert list(scopes) == ["step"]
    assert scopes["step"]["metrics"]["scope_count"] == 4 * _warps(device)


def test_scopes_compile_to_nothing_unless_instrumented(own_targets, tmp_path):
    x = np.ones(256, np.float32)
    scoped = scoped_kernel.warmup(x, 256, 3, BLOCK=64, grid=(4,))
    plain = unscoped_kernel.warmup(x, 256, 3, BLOCK=64, grid=(4,))
    assert scoped.asm["tile"] == plain.asm["tile"].replace("unscoped_kernel", "scoped_kernel")
    for target, stage in (("cuda:90", "ptx"), ("hip:gfx942", "llir")):
        scoped.compile_for(target)
        plain.compile_for(target)
        assert scoped.asm[stage] == plain.asm[stage].replace("unscoped_kernel", "scoped_kernel")
    proton.start(str(tmp_path / "instrumented"), backend="instrumentation")
    try:
        instrumented = scoped_kernel.warmup(x, 256, 3, BLOCK=64, grid=(4,))
    finally:
        proton.finalize()
    assert instrumented.asm["tile"].count("tile.scope_record") == 4
    instrumented.compile_for("cuda:90")
    assert "%globaltimer" in instrumented.asm["ptx"]
    instrumented.compile_for("hip:gfx942")
    assert "s_memrealtime" in instrumented.asm["amdgcn"]


@pytest.fixture
def own_targets(monkeypatch):
    """For tests that compile for the targets they name."""
    monkeypatch.delenv("TESSERA_COMPILE_CHECK", raising=False)


@tessera.jit
def named_by_a_tensor_kernel(x_ptr):
    pl.enter_scope(tl.load(x_ptr))


def test_scope_errors(tmp_path):
    with pytest.raises(tessera.CompilationError, match="for use in a kernel"):
        pl.enter_scope("outside")
    with pytest.raises(ValueError, match="records per warp, a power of two"):
        proton.start(str(tmp_path / "bad"), backend="instrumentation", mode=3)
    with pytest.raises(ValueError, match="granularity must be 'warp', got 'cta'"):
        proton.mode.Default(granularity="cta")
    with pytest.raises(ValueError, match="buffer_size must be 0 or a power of two"):
        proton.mode.Default(buffer_size=48)
    proton.start(str(tmp_path / "named"), backend="instrumentation")
    with pytest.raises(tessera.CompilationError, match="string known at compile time"):
        named_by_a_tensor_kernel[(1,)](np.zeros(1, np.float32))
