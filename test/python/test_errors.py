"""Every class of mistake gets a clear error; nothing crashes the process."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


def line_of(snippet):
    """The line of this file holding `snippet`, for expected locations."""
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if snippet in line and "line_of" not in line)


@tessera.jit
def unknown_name_kernel(x_ptr):
    tl.store(x_ptr, undefined_thing)  # noqa: F821


def test_unknown_name_points_at_the_line(device):
    x = np.zeros(1, np.float32)
    with pytest.raises(tessera.CompilationError) as e:
        unknown_name_kernel[(1,)](x)
    text = str(e.value)
    assert f"test_errors.py:{line_of('tl.store(x_ptr, undefined_thing)')}:21:" in text
    assert "name 'undefined_thing' is not defined" in text
    assert "tl.store(x_ptr, undefined_thing)" in text
    assert "^" in text


@tessera.jit
def shape_mismatch_kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, a + b)


def test_shape_mismatch(device):
    line = line_of("tl.store(x_ptr + a, a + b)")
    with pytest.raises(tessera.CompilationError,
                       match=rf"test_errors.py:{line}:25: incompatible shapes \[16\] and \[32\]"):
        shape_mismatch_kernel[(1,)](np.zeros(16, np.int32))


@tessera.jit
def pointer_shape_kernel(x_ptr, CASE: tl.constexpr):
    offs = tl.arange(0, 8)
    if CASE == 0:
        tl.store(x_ptr + offs, offs[:, None] + offs[None, :])  # more elements than pointers
    elif CASE == 1:
        tl.store(x_ptr + offs[None, :], offs)  # another rank
    elif CASE == 2:
        tl.store(x_ptr, offs)  # a block through one pointer
    elif CASE == 3:
        tl.store(x_ptr + offs, 1, mask=(offs < 4)[None, :])
    elif CASE == 4:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < 4, other=tl.arange(0, 4)))
    elif CASE == 5:
        tl.atomic_add(x_ptr + offs, tl.arange(0, 4))
    else:  # what broadcasts to the pointers: a scalar, a size-1 dimension
        tl.store(x_ptr + offs[None, :] + offs[:, None] * 8, offs[None, :], mask=offs[:, None] < 2)
        tl.store(x_ptr + offs, 3, mask=offs >= 6)


def test_operands_broadcast_to_the_pointers_shape_only(device):
    """As in Triton: a store's value, a load's mask and other, an atomic's
    value broadcast to the pointers' shape; one that would enlarge it, or
    is of another rank, is refused at its line."""
    x = np.zeros(64, np.int32)
    line = line_of("if CASE == 0:") + 1
    messages = [rf"test_errors.py:{line}:9: the stored value of shape \[8, 8\] does not "
                r"broadcast to the pointers' shape \[8\]",
                r"the stored value of shape \[8\] does not broadcast to the pointers' shape "
                r"\[1, 8\]",
                r"the stored value cannot be a tensor \(\[8\]\) where the pointer is a scalar",
                r"store's mask of shape \[1, 8\]", r"load's 'other' of shape \[4\]",
                r"atomic_add's value of shape \[4\]"]
    for case, message in enumerate(messages):
        with pytest.raises(tessera.CompilationError, match=message):
            pointer_shape_kernel[(1,)](x, case)
    pointer_shape_kernel[(1,)](x, 6)
    assert list(x[:16]) == [0, 1, 2, 3, 4, 5, 3, 3] + list(range(8))


@tessera.jit
def not_constexpr_kernel(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, n), 1)


def test_non_constexpr_where_a_constant_is_needed(device):
    with pytest.raises(tessera.CompilationError, match="arange's end must be a constexpr integer"):
        not_constexpr_kernel[(1,)](np.zeros(16, np.int32), 16)


@tessera.jit
def not_power_of_two_kernel(x_ptr):
    tl.store(x_ptr + tl.arange(0, 12), 1)


def test_not_power_of_two(device):
    with pytest.raises(tessera.CompilationError, match="power of two elements, got 12"):
        not_power_of_two_kernel[(1,)](np.zeros(16, np.int32))


@tessera.jit
def pointer_add_kernel(x_ptr, y_ptr):
    tl.store(x_ptr, x_ptr + y_ptr)


def test_wrong_type(device):
    with pytest.raises(tessera.CompilationError, match="cannot apply 'add' to pointer<float32> and pointer<float32>"):
        pointer_add_kernel[(1,)](np.zeros(1, np.float32), np.zeros(1, np.float32))


@tessera.jit
def unsupported_kernel(x_ptr):
    with open("f"):
        pass


def test_unsupported_construct(device):
    with pytest.raises(tessera.CompilationError, match="unsupported Python construct: With"):
        unsupported_kernel[(1,)](np.zeros(1, np.float32))


@tessera.jit
def bool_of_tensor_kernel(x_ptr):
    x = tl.load(x_ptr)
    y = x if x else x


def test_runtime_value_where_a_compile_time_one_is_needed(device):
    x = np.zeros(1, np.float32)
    # a conditional expression on a tensor becomes a select: fine
    bool_of_tensor_kernel[(1,)](x)


@tessera.jit
def simple_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs, mask=offs < n)


def test_launch_argument_errors(device):
    x = np.zeros(16, np.int32)
    with pytest.raises(TypeError, match="missing a required argument: 'n'"):
        simple_kernel[(1,)](x, BLOCK=16)
    with pytest.raises(TypeError, match="too many positional arguments"):
        simple_kernel[(1,)](x, 16, 16, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        simple_kernel[(1,)](x, 16, BLOCK=16, bogus=1)
    with pytest.raises(TypeError, match="argument 'x_ptr' has type str"):
        simple_kernel[(1,)]("not an array", 16, BLOCK=16)
    with pytest.raises(ValueError, match="a grid has 1 to 3 dimensions"):
        simple_kernel[(1, 1, 1, 1)](x, 16, BLOCK=16)
    with pytest.raises(RuntimeError, match="is a kernel: launch it with simple_kernel\\[grid\\]"):
        simple_kernel(x, 16, 16)


def test_out_of_bounds_access_is_reported(device):
    if device != "interpreter":
        pytest.skip("only the host interpreter checks the bounds of every access")
    x = np.zeros(8, np.int32)
    with pytest.raises(RuntimeError) as e:
        simple_kernel[(1,)](x, 16, BLOCK=16)
    text = str(e.value)
    assert f"test_errors.py:{line_of('tl.store(x_ptr + offs, offs, mask=offs < n)')}:" in text
    assert "out-of-bounds access by tile.store (element 8" in text
    assert "32 bytes from the start of 'x_ptr', which has 32 bytes" in text


@tessera.jit
def assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.device_assert(offs < n, "offset past the end")


def test_device_assert(device):
    if device != "interpreter":
        pytest.skip("a failed device assert leaves the CUDA context unusable for the "
                    "rest of the process")
    assert_kernel[(1,)](np.zeros(1), 16, BLOCK=16)
    line = line_of('tl.device_assert(offs < n, "offset past the end")')
    with pytest.raises(RuntimeError, match=f"test_errors.py:{line}:.*device assertion failed: offset past the end"):
        assert_kernel[(1,)](np.zeros(1), 4, BLOCK=16)


@tessera.jit
def static_assert_kernel(BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")


def test_static_assert(device):
    static_assert_kernel[(1,)](BLOCK=64)
    with pytest.raises(tessera.CompilationError, match="static_assert failed: BLOCK must be a multiple of 32"):
        static_assert_kernel[(1,)](BLOCK=48)


@tessera.jit
def loop_type_change_kernel(x_ptr, n):
    acc = tl.zeros((16,), tl.int32)
    for i in range(n):
        acc = acc.to(tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), acc)


def test_loop_carried_type_change(device):
    with pytest.raises(tessera.CompilationError, match="changes type in its body"):
        loop_type_change_kernel[(1,)](np.zeros(16, np.float32), 3)


@tessera.jit
def grid_axis_kernel(x_ptr, AXIS: tl.constexpr):
    tl.store(x_ptr, tl.program_id(AXIS) + tl.num_programs(0))


@tessera.jit
def expand_dims_kernel(x_ptr, AXES: tl.constexpr, SCALAR: tl.constexpr):
    offs = tl.arange(0, 8)
    if SCALAR:
        tl.store(x_ptr + offs, tl.expand_dims(tl.sum(offs), AXES))
    else:
        tl.store(x_ptr + offs, tl.expand_dims(offs, AXES))


@pytest.mark.parametrize("axes, scalar, cause", [
    (-3, False, "invalid axis -3. Expected -2 <= axis < 2"),
    (2, False, "invalid axis 2. Expected -2 <= axis < 2"),
    (1, True, "invalid axis 1. Expected -1 <= axis < 1"),
    ((0, 0), False, "duplicate axes, normalized axes = [0, 0]"),
    ((0, -3), False, "duplicate axes, normalized axes = [0, 0]"),
])
def test_a_bad_axis_is_the_cause_of_the_error_at_its_line(axes, scalar, cause, device):
    # As in Triton: the language's ValueError is the CompilationError's cause.
    x = np.zeros(8, np.int32)
    with pytest.raises(tessera.CompilationError) as e:
        expand_dims_kernel[(1,)](x, axes, scalar)
    assert isinstance(e.value.__cause__, ValueError) and str(e.value.__cause__) == cause
    call = "tl.expand_dims(tl.sum(offs), AXES))" if scalar else "tl.expand_dims(offs, AXES))"
    assert e.value.lineno == line_of(call)


def test_a_grid_axis_past_2_is_the_cause_of_the_error(device):
    x = np.zeros(1, np.int32)
    with pytest.raises(tessera.TritonError) as e:
        grid_axis_kernel[(1,)](x, 20)
    assert str(e.value.__cause__) == "program_id axis must be 0, 1, or 2 but got 20"
    assert e.value.lineno == line_of("tl.program_id(AXIS)")
