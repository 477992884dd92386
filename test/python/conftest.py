"""Fixtures of the Python suite.

`device` names where kernels run. This build has only the host interpreter;
tests take the fixture so that a GPU backend, once it exists, runs the same
tests there.
"""

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption("--device", default="interpreter",
                     help="where kernels run: interpreter (default)")


@pytest.fixture
def device(request):
    name = request.config.getoption("--device")
    if name != "interpreter":
        pytest.skip(f"device {name} is not available in this build")
    return name


@pytest.fixture
def rng():
    return np.random.default_rng(0)
