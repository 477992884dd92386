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


@tessera.jit
def program_ids_kernel(x_ptr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    tl.store(x_ptr + pid, pid + 1)


@pytest.mark.parametrize("grid, error, message", [
    ((1.5,), TypeError, r"the grid is \(1\.5,\); a grid is an integer or a tuple of 1 to 3 "
                        r"integers, and 1\.5 is a float"),
    (("1",), TypeError, "'1' is a str"),
    ((2, True), TypeError, "True is a bool"),
    (None, TypeError, "the grid is None; a grid is an integer or a tuple"),
    (lambda meta: None, TypeError, "the grid function returned None"),
    (lambda meta: (meta["x_ptr"].size / 2,), TypeError, "8.0 is a float"),
    ((), ValueError, r"a grid has 1 to 3 dimensions, got \(\)"),
    ((1, 1, 1, 1), ValueError, r"a grid has 1 to 3 dimensions, got \(1, 1, 1, 1\)"),
    ((-1,), ValueError, "grid dimensions cannot be negative"),
    ((2**31,), ValueError, "has 2147483648 programs along axis 0; a launch has at most "
                           "2147483647 there"),
    ((1, 2**16), ValueError, "along axis 1; a launch has at most 65535"),
    ((1, 1, 2**16), ValueError, "along axis 2; a launch has at most 65535"),
])
def test_a_bad_grid_is_refused_before_anything_runs(grid, error, message, device):
    x = np.zeros(16, np.int32)
    with pytest.raises(error, match=message) as e:
        program_ids_kernel[grid](x)
    assert str(e.value).startswith("program_ids_kernel: ")
    assert not x.any()


def test_a_grid_equal_to_one_of_ints_is_still_checked(device):
    # 1.0 == True == 1: a launch on (1,) says nothing of (1.0,) or (True,).
    x = np.zeros(16, np.int32)
    for _ in range(2):
        program_ids_kernel[(2, 1)](x)
        with pytest.raises(TypeError, match="2.0 is a float"):
            program_ids_kernel[(2.0, 1)](x)
        with pytest.raises(TypeError, match="True is a bool"):
            program_ids_kernel[(2, True)](x)
        with pytest.raises(TypeError, match="the grid is 2.0; a grid is an integer"):
            program_ids_kernel[2.0](x)
    program_ids_kernel[(3, 1)](x)
    np.testing.assert_array_equal(x, [1, 2, 3] + [0] * 13)


@pytest.mark.parametrize("grid, programs", [
    ((np.int64(3),), 3), ([np.int32(2), 2], 4), (5, 5), ((tl.constexpr(2),), 2),
    (lambda meta: (meta["x_ptr"].size // 8, np.uint8(2)), 4),
    ((0,), 0), ((4, 0), 0), ((0, 1, 1), 0),  # as in Triton: nothing runs
])
def test_grids_of_python_and_numpy_integers(grid, programs, device):
    x = np.zeros(16, np.int32)
    program_ids_kernel[grid](x)
    np.testing.assert_array_equal(x, [i + 1 if i < programs else 0 for i in range(16)])


@tessera.jit
def f_string_kernel(x_ptr, n, BLOCK: tl.constexpr, NAME: tl.constexpr, CASE: tl.constexpr):
    if CASE == 0:
        tl.device_print(f"n={n}")
    elif CASE == 1:
        tl.static_assert(BLOCK == 16, f"BLOCK={BLOCK:04d} of {NAME!r}, {BLOCK * 2}")
    else:
        tl.store(x_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), len(f"{NAME}-{BLOCK}"), tl.int32))


def test_f_strings_format_compile_time_values_only(device):
    """As in Triton: an f-string is made at compile time, so it may format
    constexprs (with conversions and format specs), not tensors."""
    x = np.zeros(16, np.int32)
    with pytest.raises(tessera.CompilationError) as e:
        f_string_kernel[(1,)](x, 3, BLOCK=16, NAME="a", CASE=0)
    assert e.value.lineno == line_of('tl.device_print(f"n={n}")')
    assert "a tensor in an f-string: 'n' has a value only at run time" in str(e.value)
    with pytest.raises(tessera.CompilationError, match=r"BLOCK=0032 of 'abc', 64"):
        f_string_kernel[(1,)](np.zeros(32, np.int32), 3, BLOCK=32, NAME="abc", CASE=1)
    f_string_kernel[(1,)](x, 3, BLOCK=16, NAME="abc", CASE=2)
    np.testing.assert_array_equal(x, np.full(16, len("abc-16")))


@tessera.jit
def dtype_name_kernel(x_ptr, CASE: tl.constexpr):
    offs = tl.arange(0, 16)
    if CASE == 0:
        tl.store(x_ptr + offs, tl.full((16,), 0, "float32"))
    elif CASE == 1:
        tl.store(x_ptr + offs, tl.zeros((16,), "int32"))
    else:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs).to("float32"))


@pytest.mark.parametrize("case, what, name, call", [
    (0, "full's dtype", "float32", 'tl.full((16,), 0, "float32")'),
    (1, "full's dtype", "int32", 'tl.zeros((16,), "int32")'),
    (2, "the dtype of a cast", "float32", '.to("float32")'),
])
def test_a_dtype_given_by_name_is_refused_at_its_line(case, what, name, call, device):
    # Triton takes only tl.dtype there.
    with pytest.raises(tessera.CompilationError) as e:
        dtype_name_kernel[(1,)](np.zeros(16, np.float32), case)
    assert f"{what} must be a tl.dtype (tl.float32, tl.int32, ...), got str '{name}'" \
        in str(e.value)
    assert e.value.lineno == line_of(call)


@tessera.jit
def calls_itself(x):
    return calls_itself(x)


@tessera.jit
def never_ends(x, depth):
    return never_ends(x, depth + 1)


@tessera.jit
def doubled(x, TIMES: tl.constexpr):
    if TIMES == 0:
        return x
    return doubled(x, TIMES - 1) * 2


@tessera.jit
def recursion_kernel(x_ptr, CASE: tl.constexpr):
    offs = tl.arange(0, 8)
    x = tl.load(x_ptr + offs)
    if CASE == 0:
        x = calls_itself(x)
    elif CASE == 1:
        x = never_ends(x, 0)
    tl.store(x_ptr + offs, doubled(x, 3))


@pytest.mark.parametrize("case, message, call", [
    (0, "calls_itself calls itself with the same compile-time arguments: recursion is not "
        "supported", "return calls_itself(x)"),
    (1, "recursion that does not end within a few levels at compile time is not supported",
     "return never_ends(x, depth + 1)"),
])
def test_recursion_that_does_not_end_at_compile_time_is_an_error(case, message, call, device):
    with pytest.raises(tessera.CompilationError) as e:
        recursion_kernel[(1,)](np.ones(8, np.int32), case)
    assert message in str(e.value) and e.value.lineno == line_of(call)
    assert e.value.__cause__ is None
    # Recursion that ends on a constexpr is inlined level by level.
    x = np.arange(8, dtype=np.int32)
    recursion_kernel[(1,)](x, 2)
    np.testing.assert_array_equal(x, np.arange(8) * 8)
