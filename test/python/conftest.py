"""Fixtures of the Python suite.

With `--compile-for=cuda:90`, every kernel is also compiled (to a cubin, where
ptxas exists) for that target.

`device` names where kernels run: `--device=interpreter` (the default) or
`--device=cuda`, which runs the same tests on the GPU (host arrays staged
there and back, TESSERA_DEVICE=cuda) and skips them where there is none.
"""

import os
import shutil
import tempfile

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption("--device", default="interpreter", choices=["interpreter", "cuda"],
                     help="where kernels run: interpreter (default) or cuda")
    parser.addoption("--compile-for", default="",
                     help="also compile every kernel for these targets (cuda:90,...), "
                          "which need no device")


def pytest_configure(config):
    # Kernels the suite compiles go to a cache of its own, removed after.
    config._tessera_cache = tempfile.mkdtemp(prefix="tessera-cache-")
    os.environ["TESSERA_CACHE_DIR"] = config._tessera_cache


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_tessera_cache", ""), ignore_errors=True)


@pytest.fixture(autouse=True)
def compile_check(request, monkeypatch):
    targets = request.config.getoption("--compile-for")
    if targets:
        monkeypatch.setenv("TESSERA_COMPILE_CHECK", targets)


@pytest.fixture
def device(request, monkeypatch):
    name = request.config.getoption("--device")
    if name == "cuda":
        from tessera.runtime import gpu
        if not gpu.available():
            pytest.skip("no CUDA device here")
        monkeypatch.setenv("TESSERA_DEVICE", "cuda")
    return name


@pytest.fixture
def rng():
    return np.random.default_rng(0)
