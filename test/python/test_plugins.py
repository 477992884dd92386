"""Backend plugins from Python: tessera.load_backend, TESSERA_BACKEND_PLUGINS
at import, kernels compiled for a plugin's backend, and the libraries that
are refused (test/plugins builds them beside the build's libraries)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tessera
import tessera.language as tl

PLUGINS = Path(os.path.abspath(tessera.__file__)).parents[2] / "lib"


def plugin(name):
    path = PLUGINS / f"libtessera_{name}_plugin.so"
    if not path.exists():
        pytest.skip(f"{path.name} is not built beside this tessera")
    return str(path)


@tessera.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def test_a_plugin_backend_compiles_kernels_by_its_name():
    assert tessera.load_backend(plugin("probe")) == ["probe"]
    assert tessera.load_backend(Path(plugin("probe"))) == ["probe"]  # once
    compiled = tessera.compile(add_kernel, signature=SIGNATURE, constexprs={"BLOCK": 128},
                               target="probe:sm_80")
    assert compiled.binary_for("probe:sm_80").backend == "probe"
    assert compiled.metadata["target"] == "sm_80"
    assert ".target sm_80" in compiled.asm["ptx"]


@pytest.mark.parametrize("name, message", [
    ("mismatch", "it was built against 'tessera 0.0.1, llvm 21.1.8', and this is "
                 f"'tessera {tessera.__version__}; llvm 22."),
    ("empty", "it registered no backend"),
])
def test_plugins_that_are_refused(name, message):
    with pytest.raises(tessera.BackendPluginError, match=message.replace(".", r"\.")):
        tessera.load_backend(plugin(name))


def test_a_library_that_is_not_a_plugin_is_refused(tmp_path):
    not_a_plugin = PLUGINS / "libtessera_fake_hip.so"
    if not not_a_plugin.exists():
        pytest.skip("libtessera_fake_hip.so is not built beside this tessera")
    with pytest.raises(tessera.BackendPluginError, match="not a Tessera backend plugin"):
        tessera.load_backend(not_a_plugin)
    with pytest.raises(tessera.BackendPluginError, match="No such file or directory"):
        tessera.load_backend(tmp_path / "missing.so")


def run_python(code, plugins):
    """Runs `code` in a fresh Python that imports this file's kernels."""
    path = os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                         os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, TESSERA_BACKEND_PLUGINS=plugins, PYTHONPATH=path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)


def test_environment_plugins_load_at_import():
    probe = plugin("probe")
    result = run_python(
        "import tessera, tessera.language as tl\n"
        "from test_plugins import add_kernel, SIGNATURE\n"
        "k = tessera.compile(add_kernel, signature=SIGNATURE, constexprs={'BLOCK': 64},\n"
        "                    target='probe:sm_90')\n"
        "print(k.binary_for('probe:sm_90').backend, k.metadata['target'])",
        probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["probe", "sm_90a"]  # as nvidia's sm_90
    # A plugin that cannot be loaded fails the import, saying why.
    result = run_python("import tessera", f"{probe}:{plugin('mismatch')}")
    assert result.returncode != 0
    assert "TESSERA_BACKEND_PLUGINS: backend plugin" in result.stderr
    assert "tessera_mismatch_plugin.so: it was built against" in result.stderr


def test_platforms_are_cuda_hip_or_a_plugins():
    from tessera import _tessera
    with pytest.raises(_tessera.DriverError, match="unknown GPU platform 'tpu': expected cuda, "
                                                   "hip or one a backend plugin registers"):
        _tessera.driver("tpu")
    assert "tpu" not in _tessera.drivers()
