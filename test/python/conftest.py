"""Fixtures of the Python suite.

With `--compile-for=cuda:90,hip:gfx942`, every kernel is also compiled (to a
cubin, where ptxas exists, and to HSACO) for those targets.

`device` names where kernels run: `--device=interpreter` (the default),
`--device=cuda` or `--device=hip`, which run the same tests on the GPU (host
arrays staged there and back, TESSERA_DEVICE=cuda or hip) and skip them where
there is none, or `--device=cpu`, on the CPU backend plugin
(examples/backend-plugin, loaded by TESSERA_BACKEND_PLUGINS).
"""

import os
import shutil
import tempfile

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption("--device", default="interpreter",
                     choices=["interpreter", "cuda", "hip", "cpu"],
                     help="where kernels run: interpreter (default), cuda, hip, or cpu (the CPU "
                          "backend plugin, which TESSERA_BACKEND_PLUGINS loads)")
    parser.addoption("--compile-for", default="",
                     help="also compile every kernel for these targets (cuda:90,...), "
                          "which need no device")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "lanes(n): explicit-level kernels whose layouts are for warps of n lanes; "
        "the compile check leaves out targets of another warp size")
    config.addinivalue_line(
        "markers", "not_on_amd: the kernel uses what AMD GPUs cannot compile without the ROCm "
        "device libraries (f64 transcendentals, printing); the compile check leaves out hip "
        "targets (test_amd.py checks the errors)")
    config.addinivalue_line(
        "markers", "not_on_cpu(reason): a device test of what the CPU backend plugin does not "
        "do (`reason`); skipped with --device=cpu")
    # Kernels the suite compiles go to a cache of its own, removed after.
    config._tessera_cache = tempfile.mkdtemp(prefix="tessera-cache-")
    os.environ["TESSERA_CACHE_DIR"] = config._tessera_cache


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_tessera_cache", ""), ignore_errors=True)


def _lanes(target):
    """The warp size of a target: 64 on CDNA (gfx9), 1 on the CPU backend, 32
    elsewhere."""
    return 64 if target.startswith("hip:gfx9") else 1 if target.startswith("cpu:") else 32


@pytest.fixture(autouse=True)
def compile_check(request, monkeypatch):
    targets = [t for t in request.config.getoption("--compile-for").split(",") if t]
    if request.node.get_closest_marker("not_on_amd"):
        targets = [t for t in targets if not t.startswith("hip:")]
    lanes = request.node.get_closest_marker("lanes")
    if lanes:
        targets = [t for t in targets if _lanes(t) == lanes.args[0]]
    if targets:
        monkeypatch.setenv("TESSERA_COMPILE_CHECK", ",".join(targets))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A kernel cache of the test's own, compiled into by the test alone (not
    by --compile-for's checks), whatever the environment asks."""
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TESSERA_ALWAYS_COMPILE", raising=False)
    monkeypatch.delenv("TESSERA_COMPILE_CHECK", raising=False)
    return tmp_path


@pytest.fixture
def device(request, monkeypatch):
    name = request.config.getoption("--device")
    if name != "interpreter":
        monkeypatch.setenv("TESSERA_DEVICE", name)
        from tessera.runtime import gpu
        # What gpu found before is found again for this device, and kept
        # from the tests after (which may name none).
        monkeypatch.setattr(gpu, "_platform", None)
        monkeypatch.setattr(gpu, "_available", None)
        if gpu.platform() != name or not gpu.available():
            pytest.skip(f"no {name} device here")
        not_on_cpu = request.node.get_closest_marker("not_on_cpu")
        if not_on_cpu and name == "cpu":
            pytest.skip(not_on_cpu.args[0])
        lanes = request.node.get_closest_marker("lanes")
        if lanes and _lanes(gpu.target(0)) != lanes.args[0]:
            pytest.skip(f"the layouts are for {lanes.args[0]}-lane warps, the {name} "
                        f"device's have {_lanes(gpu.target(0))}")
    return name


@pytest.fixture
def rng():
    return np.random.default_rng(0)
