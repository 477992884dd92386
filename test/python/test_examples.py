"""The examples in examples/python run and check their own results."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).parents[2] / "examples"
EXAMPLES = sorted((ROOT / "python").glob("*.py"))
# The explicit level's, whose layouts are for 32-lane warps.
GLUON_EXAMPLES = sorted((ROOT / "gluon").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES + [
    pytest.param(p, marks=[pytest.mark.lanes(32)] + (
        [pytest.mark.not_on_amd] if "mma_v2" in p.stem else []), id=f"gluon_{p.stem}")
    for p in GLUON_EXAMPLES],
    ids=lambda p: p.stem)
def test_example(device, path, capsys):
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    assert capsys.readouterr().out.strip()


def test_all_examples_are_here():
    assert {p.stem for p in EXAMPLES} >= {"vector_add", "softmax", "layer_norm", "matmul",
                                          "triton_port"}
    assert {p.stem for p in GLUON_EXAMPLES} >= {"memcpy", "layouts", "async_copy",
                                                "matmul_mma_v2"}
