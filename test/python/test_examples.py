"""The examples in examples/python run and check their own results."""

import importlib.util
import pathlib

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parents[2] / "examples" / "python").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example(device, path, capsys):
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    assert capsys.readouterr().out.strip()


def test_all_examples_are_here():
    assert {p.stem for p in EXAMPLES} >= {"vector_add", "softmax", "layer_norm", "matmul",
                                          "triton_port"}
