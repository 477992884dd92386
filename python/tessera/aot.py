"""tessera-compile for kernels written in Python: compiles one @jit kernel
of a file for a target, on any machine, and writes its binary, a JSON
description, and a C header and source whose typed launch function loads
the binary (embedded in the source) and launches it through Tessera's C
runtime (tessera_runtime.h, libtessera_runtime):

    python3 -m tessera.aot examples/python/vector_add.py -n add_kernel \\
        -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target cuda:90 -o out

(or `tessera-compile examples/python/vector_add.py ...`, which runs this).
The signature lists every argument in order: a type ("*fp32:16", "i32",
"fp32") for a runtime one, a value ("1024") for a compile-time one.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import sys
import tempfile

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
    compiled = compile_kernel(kernel, types, target, constexprs=constants,
                              num_warps=num_warps, num_stages=num_stages,
                              waves_per_eu=waves_per_eu)
    # The C launcher passes the kernel's parameters only: no tensor maps.
    binary = compiled.binary_for(target, bulk_copies=False)
    parameters = [(name, types[name]) for name in kernel.arg_names if name in types]
    if len(parameters) != len(binary.parameter_types):
        raise ValueError(f"{kernel.__name__} compiled to {len(binary.parameter_types)} "
                         f"parameters, not the signature's {len(parameters)}")
    prefix = out_name or kernel.__name__
    header, source, metadata, image, kind = _tessera.launch_source(
        prefix, binary, target, parameters, {k: repr(v) for k, v in constants.items()},
        [g.strip() for g in grid.split(",")] if grid else [])
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
                        help='the grid as C expressions of integer arguments, "(n + 1023) '
                             '/ 1024, 1, 1": adds <name>_default(stream, args), launching on it')
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
