"""tessera-compile for kernels written in Python: compiles one @jit kernel
of a file for a target, on any machine, and writes its binary, a JSON
description, and a C header and source whose typed launch function loads
the binary (embedded in the source) and launches it through Tessera's C
runtime (tessera_runtime.h, libtessera_runtime):

    python3 -m tessera.aot examples/python/vector_add.py -n add_kernel \\
        -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target cuda:90 -o out

(or `tessera-compile examples/python/vector_add.py ...`, which runs this).
The signature lists every argument in order: a type ("*fp32:16", "i32",
"fp32") for a runtime one, a value ("1024") for a compile-time one. A
parameter whose name C or the launcher has (`int`, `auto`, `stream`...) is
`arg_<name>` in the C.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import re
import string
import sys
import tempfile
import traceback

from . import _tessera
from .language.core import CompilationError


def runtime_paths():
    """(directory of tessera_runtime.h, directory of libtessera_runtime)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "include"), os.path.join(here, "lib")


def _load_kernel(path, name):
    from .runtime.autotuner import KernelInterface
    from .runtime.jit import JITFunction
    if not os.path.exists(path):
        raise ValueError(f"no file {path}")
    spec = importlib.util.spec_from_file_location(
        "_tessera_aot_" + os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        where = f"{path}:{e.lineno}" if e.lineno else path
        raise ValueError(f"{where}: syntax error: {e.msg}") from None
    except (Exception, SystemExit) as e:
        # Where in the file it was raised, for the one line the error gets.
        lines = [f.lineno for f in traceback.extract_tb(e.__traceback__)
                 if os.path.abspath(f.filename) == os.path.abspath(path)]
        where = f"{path}:{lines[-1]}" if lines else path
        raise ValueError(f"{where}: importing it raised {type(e).__name__}: {e}") from None
    finally:
        sys.path.pop(0)
    kernel = getattr(module, name, None)
    if isinstance(kernel, KernelInterface):
        kernel = kernel.jit
    if not isinstance(kernel, JITFunction):
        raise ValueError(f"{path} has no @tessera.jit kernel named '{name}'")
    return kernel


def _parse_signature(kernel, text):
    """({argument: type}, {argument: value}) of a signature's entries."""
    entries = [e.strip() for e in text.split(",")] if text.strip() else []
    if len(entries) > len(kernel.arg_names):
        raise ValueError(f"the signature has {len(entries)} entries; {kernel.__name__} "
                         f"takes {len(kernel.arg_names)} arguments "
                         f"({', '.join(kernel.arg_names)})")
    types, constants = {}, {}
    for name, entry in zip(kernel.arg_names, entries):
        try:
            constants[name] = ast.literal_eval(entry)
        except (ValueError, SyntaxError):
            if name in kernel.constexpr_names:
                raise ValueError(f"'{name}' is a tl.constexpr: the signature must give its "
                                 f"value, not '{entry}'") from None
            types[name] = entry
    return types, constants


# Words a C launcher cannot give a parameter: C's keywords (C23's too), C++'s
# (the header is C++'s as well), and what stdbool.h, stddef.h and stdint.h
# define; also reserved (_C_RESERVED_FORM): typedef names (`*_t`), limits
# (INT32_MAX...), names of the implementation (`_X`, `__x`) and of the runtime.
_C_RESERVED = frozenset("""
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while alignas alignof bool constexpr false nullptr
    static_assert thread_local true typeof typeof_unqual and and_eq asm bitand bitor catch
    class compl concept const_cast consteval constinit co_await co_return co_yield decltype
    delete dynamic_cast explicit export friend mutable namespace new noexcept not not_eq
    operator or or_eq private protected public reinterpret_cast requires static_cast
    template this throw try typeid typename using virtual xor xor_eq NULL offsetof
    unreachable
""".split())
_C_RESERVED_FORM = re.compile(
    r"\w*_t|_[A-Z_]\w*|U?INT\w*_(MIN|MAX|C|WIDTH)|(SIZE|PTRDIFF|SIG_ATOMIC|WCHAR|WINT)_\w+"
    r"|(tessera|TESSERA)_\w*")


def _reserved_in_c(name):
    return name in _C_RESERVED or _C_RESERVED_FORM.fullmatch(name) is not None


def _c_names(names, prefix):
    """{parameter: its name in the C launcher}: its own, or where C, the
    runtime or the launcher (its arguments, locals and functions) has that
    name, `arg_<name>`."""
    launcher = {"stream", "grid_x", "grid_y", "grid_z", "grid", "args", prefix}
    launcher |= {f"{prefix}_{part}" for part in
                 ("load", "unload", "default", "image", "module", "kernel")}
    used, c_names = set(names), {}
    for name in names:
        c_name = name
        if _reserved_in_c(name) or name in launcher:
            c_name = "arg_" + name
            while c_name in used or c_name in launcher:
                c_name += "_"
            used.add(c_name)
        c_names[name] = c_name
    return c_names


_GRID_CHARACTERS = set(string.ascii_letters + string.digits + "_ \t+-*/%(),")
_GRID_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
                   ast.FloorDiv: "/", ast.Mod: "%"}
_INT32 = range(-2**31, 2**31)


def _grid_values(kernel, types, constants):
    """{name: what a grid expression reads for it}: its C parameter (None
    here) for an integer runtime argument, its value for an integer
    constexpr or constant."""
    from .runtime.jit import _signature_type
    values = {}
    for name in kernel.arg_names:
        if name in types:
            type_name, _ = _signature_type(kernel, name, types[name])
            if type_name.startswith(("int", "uint")) and type_name != "int1":
                values[name] = None
            continue
        if name in constants:
            value = constants[name]
        else:
            value = kernel.signature.parameters[name].default
            value = getattr(value, "value", value)  # a tl.constexpr default
        if isinstance(value, int) and not isinstance(value, bool):
            values[name] = value
    return values


def _c_arithmetic(op, a, b):
    """`a op b` as C computes it on ints (division rounds toward zero)."""
    if op in "+-*":
        return {"+": a + b, "-": a - b, "*": a * b}[op]
    quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return quotient if op == "/" else a - b * quotient


def _parse_grid(text, values, c_names):
    """The C expressions of each dimension of `--grid` (one to three, by
    commas), read as Python: integer numbers, the kernel's integer
    arguments and constexprs, + - * / // % (/ and // both C's integer
    division) and parentheses. Anything else, a constant divisor of 0, a
    number past 32 bits and a constant dimension out of a grid's range are
    ValueErrors, raised before anything is compiled or written."""
    from .runtime.jit import GRID_LIMITS

    def fail(why):
        raise ValueError(f"the grid expression '{text}' {why}") from None

    allowed = "only numbers, integer parameters and + - * / % ( ) may appear"
    for c in text:
        if c not in _GRID_CHARACTERS:
            fail(f"holds '{c}': {allowed}")
    source = text.strip()
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as e:
        fail(f"is not an expression ({e.msg})")

    def constant(value):
        if value not in _INT32:
            fail(f"has the value {value}, past a 32-bit int")
        return value

    def term(node):
        """(C text, its value where constant, else None, its precedence:
        3 for a number or name, 2 for a sign, 1 for * / %, 0 for + -)."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            value = constant(node.value)
            return str(value), value, 3
        if isinstance(node, ast.Name):
            if node.id not in values:
                fail(f"names '{node.id}', which is not an integer parameter of the kernel")
            value = values[node.id]
            if value is None:
                return c_names[node.id], None, 3
            return (f"({value})" if value < 0 else str(value)), constant(value), 3
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand, value, precedence = term(node.operand)
            sign = "-" if isinstance(node.op, ast.USub) else "+"
            folded = None if value is None else constant(-value if sign == "-" else value)
            return f"{sign}{operand if precedence == 3 else f'({operand})'}", folded, 2
        if isinstance(node, ast.BinOp) and type(node.op) in _GRID_OPERATORS:
            op = _GRID_OPERATORS[type(node.op)]
            precedence = 1 if op in "*/%" else 0
            (left, a, left_precedence), (right, b, right_precedence) = \
                term(node.left), term(node.right)
            if b == 0 and op in "/%":
                fail("divides by zero")
            folded = None if a is None or b is None else constant(_c_arithmetic(op, a, b))
            # C groups as Python does: the left operand binds first.
            if left_precedence < precedence:
                left = f"({left})"
            if right_precedence <= precedence:
                right = f"({right})"
            return f"{left} {op} {right}", folded, precedence
        fail(f"holds '{ast.get_source_segment(source, node)}': {allowed}")

    dimensions = tree.elts if isinstance(tree, ast.Tuple) else [tree]
    if not 1 <= len(dimensions) <= 3:
        fail(f"has {len(dimensions)} dimensions; a grid has 1 to 3, separated by commas")
    expressions = []
    for axis, dimension in enumerate(dimensions):
        expression, value, _ = term(dimension)
        if value is not None and not 0 <= value <= GRID_LIMITS[axis]:
            fail(f"gives {value} programs along axis {axis}; a launch has 0 to "
                 f"{GRID_LIMITS[axis]} there")
        expressions.append(expression)
    return expressions


def _write(path, data):
    """Writes whole or not at all."""
    directory = os.path.dirname(path) or "."
    fd, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def compile_file(path, kernel_name, signature, target, out_path=".", out_name=None,
                 num_warps=4, num_stages=3, waves_per_eu=0, grid=None):
    """Compiles and writes the files; returns their paths."""
    from .runtime.jit import compile as compile_kernel
    kernel = _load_kernel(path, kernel_name)
    types, constants = _parse_signature(kernel, signature)
    prefix = out_name or kernel.__name__
    if _reserved_in_c(prefix):
        raise ValueError(f"'{prefix}' cannot name C functions: C or the runtime has that "
                         "name; choose another with --out-name")
    c_names = _c_names([name for name in kernel.arg_names if name in types], prefix)
    grid = _parse_grid(grid, _grid_values(kernel, types, constants), c_names) if grid else []
    compiled = compile_kernel(kernel, types, target, constexprs=constants,
                              num_warps=num_warps, num_stages=num_stages,
                              waves_per_eu=waves_per_eu)
    # The C launcher passes the kernel's parameters only: no tensor maps.
    binary = compiled.binary_for(target, bulk_copies=False)
    parameters = [(c_names[name], types[name]) for name in kernel.arg_names if name in types]
    if len(parameters) != len(binary.parameter_types):
        raise ValueError(f"{kernel.__name__} compiled to {len(binary.parameter_types)} "
                         f"parameters, not the signature's {len(parameters)}")
    header, source, metadata, image, kind = _tessera.launch_source(
        prefix, binary, target, parameters, {k: repr(v) for k, v in constants.items()}, grid)
    os.makedirs(out_path, exist_ok=True)
    written = {}
    for extension, data in (("h", header), ("c", source), ("json", metadata), (kind, image)):
        written[extension] = os.path.join(out_path, f"{prefix}.{extension}")
        _write(written[extension], data)
    include, _ = runtime_paths()
    runtime_header = os.path.join(include, "tessera_runtime.h")
    if os.path.exists(runtime_header):
        written["runtime"] = os.path.join(out_path, "tessera_runtime.h")
        with open(runtime_header, "rb") as f:
            _write(written["runtime"], f.read())
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tessera-compile",
        description="Compile a @tessera.jit kernel of a Python file for a target, and "
                    "write its binary, a JSON description and a C launcher.")
    parser.add_argument("path", help="the Python file that defines the kernel")
    parser.add_argument("--kernel-name", "-n", required=True, help="the kernel's name")
    parser.add_argument("--signature", "-s", required=True,
                        help='every argument in order: a type ("*fp32:16", "i32") or a '
                             'compile-time value ("1024")')
    parser.add_argument("--target", "-t", required=True,
                        help="cuda:90, cuda:80, hip:gfx942, hip:gfx1100, ...")
    parser.add_argument("--num-warps", "-w", type=int, default=4)
    parser.add_argument("--num-stages", "-ns", type=int, default=3)
    parser.add_argument("--waves-per-eu", type=int, default=0)
    parser.add_argument("--grid", "-g",
                        help='the grid: 1 to 3 expressions of numbers and integer arguments or '
                             'constexprs with + - * / %% (/ and // divide integers), '
                             '"(n + 1023) / 1024, 1, 1": adds <name>_default(stream, args), '
                             'launching on it')
    parser.add_argument("--out-name", "-on", help="the C functions' prefix and the files' "
                                                   "name (default: the kernel's name)")
    parser.add_argument("--out-path", "-o", default=".", help="the directory to write to")
    args = parser.parse_args(argv)
    try:
        written = compile_file(args.path, args.kernel_name, args.signature, args.target,
                               args.out_path, args.out_name, args.num_warps,
                               args.num_stages, args.waves_per_eu, args.grid)
    except (CompilationError, TypeError, ValueError, OSError, _tessera.StageError) as e:
        print(f"tessera-compile: error: {e}", file=sys.stderr)
        return 1
    _, lib = runtime_paths()
    print(f"tessera-compile: {args.kernel_name} for {args.target}: "
          + ", ".join(sorted(written.values())))
    print(f"  build with: cc your_program.c {written['c']} -I {args.out_path} -L {lib} "
          f"-ltessera_runtime -Wl,-rpath,{lib}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
