"""tessera-compile (tessera.aot): kernels of Python files compiled ahead of
time for any target, with a C launcher that C programs build, link and run
(on the GPU where there is one; elsewhere they report why not, and a
stand-in HIP runtime records what a launch was given)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tessera
from tessera import aot

REPO = Path(__file__).resolve().parents[2]
VECTOR_ADD = REPO / "examples" / "python" / "vector_add.py"
SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
BUILD = Path(os.path.abspath(tessera.__file__)).parent.parent.parent  # <build>/python/tessera


def run_aot(*args, tool=None):
    command = [str(tool)] if tool else [sys.executable, "-m", "tessera.aot"]
    env = dict(os.environ)
    env.pop("TESSERA_COMPILE_CHECK", None)
    return subprocess.run(command + [str(a) for a in args], capture_output=True, text=True,
                          env=env, timeout=300)


def runtime_library():
    include, lib = aot.runtime_paths()
    if not os.path.exists(os.path.join(lib, "libtessera_runtime.so")):
        pytest.skip("libtessera_runtime is not built beside this tessera")
    return include, lib


def c_compiler():
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler here")
    return cc


@pytest.mark.parametrize("target,lanes,kind", [("cuda:90", 32, None),
                                               ("hip:gfx942", 64, "hsaco"),
                                               ("hip:gfx1100", 32, "hsaco")])
def test_writes_binary_description_and_c(tmp_path, target, lanes, kind):
    done = run_aot(VECTOR_ADD, "-n", "add_kernel", "-s", SIGNATURE, "--target", target,
                   "-o", tmp_path, "-on", "vadd")
    assert done.returncode == 0, done.stderr
    meta = json.loads((tmp_path / "vadd.json").read_text())
    assert meta["kernel"] == "add_kernel" and meta["target"] == target
    assert meta["threads_per_block"] == 4 * lanes and meta["warp_size"] == lanes
    assert meta["platform"] == ("hip" if target.startswith("hip") else "cuda")
    assert [(p["name"], p["type"], p["c_type"]) for p in meta["parameters"]] == [
        ("x_ptr", "*fp32:16", "uint64_t"), ("y_ptr", "*fp32:16", "uint64_t"),
        ("output_ptr", "*fp32:16", "uint64_t"), ("n_elements", "i32", "int32_t")]
    assert meta["constants"] == {"BLOCK_SIZE": "1024"}
    binary = (tmp_path / meta["binary"]).read_bytes()
    if kind:
        assert meta["binary"] == f"vadd.{kind}"
    if meta["binary"].endswith((".cubin", ".hsaco")):
        assert binary.startswith(b"\x7fELF")
    else:  # no ptxas here: PTX, which the driver compiles at load
        assert b".entry add_kernel" in binary
    header = (tmp_path / "vadd.h").read_text()
    assert ("int vadd(void *stream, unsigned grid_x, unsigned grid_y, unsigned grid_z, "
            "uint64_t x_ptr, uint64_t y_ptr, uint64_t output_ptr, int32_t n_elements);"
            in header)
    source = (tmp_path / "vadd.c").read_text()
    assert f"tessera_launch(vadd_kernel, grid, {4 * lanes}, 0, args, stream)" in source
    assert (tmp_path / "tessera_runtime.h").exists()


def test_the_cpp_tool_takes_python_files(tmp_path):
    tool = BUILD / "bin" / "tessera-compile"
    if not tool.exists():
        pytest.skip("tessera-compile is not built beside this tessera")
    done = run_aot(VECTOR_ADD, "-n", "add_kernel", "-s", SIGNATURE, "--target", "hip:gfx942",
                   "-o", tmp_path, tool=tool)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "add_kernel.hsaco").read_bytes().startswith(b"\x7fELF")


def test_the_command_compiles_tile_ir_and_python_files(tmp_path, capsys):
    """tessera-compile as the installed package has it (tessera.tools.compile):
    tile IR to a stage or a binary for any target, Python files through
    tessera.aot, IR it cannot parse reported."""
    from tessera.tools import compile as command
    ir = tmp_path / "k.mlir"
    ir.write_text("func.func @k() { return }\n")
    assert command.main([str(ir), "--target=gfx942", "--emit=metadata",
                         "-o", str(tmp_path / "meta")]) == 0
    assert "arch: gfx942\nwarp_size: 64\n" in (tmp_path / "meta").read_text()
    assert command.main([str(ir), "--target", "cuda:90", "-o", str(tmp_path / "k.ptx")]) == 0
    assert ".entry k(" in (tmp_path / "k.ptx").read_text()
    assert command.main([str(ir), "--target=gfx1100", "--emit=bin",
                         "-o", str(tmp_path / "k.hsaco")]) == 0
    assert (tmp_path / "k.hsaco").read_bytes().startswith(b"\x7fELF")
    (tmp_path / "bad.mlir").write_text("garbage\n")
    assert command.main([str(tmp_path / "bad.mlir")]) == 1
    assert "cannot parse the kernel's IR" in capsys.readouterr().err
    assert command.main([str(VECTOR_ADD), "-n", "add_kernel", "-s", SIGNATURE, "--target",
                         "hip:gfx942", "-o", str(tmp_path / "aot")]) == 0
    assert (tmp_path / "aot" / "add_kernel.hsaco").exists()
    # Installed by pip, it is a command beside the Python that has the package.
    installed = Path(sys.executable).parent / "tessera-compile"
    if installed.exists():
        done = subprocess.run([str(installed), "--emit=metadata", "--target=sm_80"],
                              input="func.func @k() { return }\n", capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "arch: sm_80" in done.stdout


def build_program(tmp_path, main, *defines):
    include, lib = runtime_library()
    program = tmp_path / "program"
    compiled = subprocess.run(
        [c_compiler(), "-std=c11", "-Wall", "-Werror", *defines, str(main), "-x", "none",
         *map(str, tmp_path.glob("*.c")), "-I", str(tmp_path), "-L", lib, "-ltessera_runtime",
         f"-Wl,-rpath,{lib}", "-ldl", "-o", str(program)],
        capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    return program


@pytest.mark.not_on_cpu("the C launcher runs kernels on CUDA and HIP GPUs")
def test_a_c_program_launches_the_kernel(tmp_path, device):
    done = run_aot(VECTOR_ADD, "-n", "add_kernel", "-s", SIGNATURE, "--target",
                   tessera.runtime.gpu.target(0) if device != "interpreter" else "cuda:90",
                   "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    platform = "TESSERA_PLATFORM_HIP" if device == "hip" else "TESSERA_PLATFORM_CUDA"
    program = build_program(tmp_path, REPO / "examples" / "c" / "vector_add.c",
                            f"-DPLATFORM={platform}")
    env = dict(os.environ)
    if device == "interpreter":  # no GPU: the reason, and a distinct status
        env["TESSERA_CUDA_LIBRARY"] = "/nonexistent/libcuda.so.1"
    ran = subprocess.run([str(program)], capture_output=True, text=True, env=env, timeout=120)
    if device == "interpreter":
        assert ran.returncode == 2, ran.stdout + ran.stderr
        assert "no GPU" in ran.stderr and "/nonexistent/libcuda.so.1" in ran.stderr
    else:
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "add_kernel from C: 98432 sums match" in ran.stdout


FAKE_KERNEL = '''
import tessera
import tessera.language as tl

@tessera.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
'''

FAKE_MAIN = r'''
#include "k.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct launch { unsigned grid[3], block[3], shared; void *stream; uint64_t x, y; int32_t n; };

int main(void) {
  uint64_t x, y;
  if (tessera_set_device(TESSERA_PLATFORM_HIP, 0) ||
      tessera_allocate(TESSERA_PLATFORM_HIP, 4096, &x) ||
      tessera_allocate(TESSERA_PLATFORM_HIP, 4096, &y) ||
      k((void *)0x1234, 3, 2, 1, x, y, 1000)) {
    fprintf(stderr, "%s\n", tessera_last_error());
    return 1;
  }
  void *fake = dlopen(getenv("TESSERA_HIP_LIBRARY"), RTLD_NOW);
  const struct launch *(*last)(void) =
      (const struct launch *(*)(void))dlsym(fake, "fakeHipLastLaunch");
  const struct launch *l = last();
  printf("grid %u %u %u block %u shared %u stream %p n %d args %d\n", l->grid[0], l->grid[1],
         l->grid[2], l->block[0], l->shared, l->stream, l->n, l->x == x && l->y == y);
  if (k_default(0, x, y, 1000)) {
    fprintf(stderr, "%s\n", tessera_last_error());
    return 1;
  }
  l = last();
  printf("default grid %u %u %u\n", l->grid[0], l->grid[1], l->grid[2]);
  return 0;
}
'''


@pytest.mark.parametrize("arch,lanes", [("gfx942", 64), ("gfx1100", 32)])
def test_a_c_program_launches_through_hip(tmp_path, arch, lanes):
    fake = BUILD / "lib" / "libtessera_fake_hip.so"
    if not fake.exists():
        pytest.skip("the stand-in HIP library is not built beside this tessera")
    (tmp_path / "kernel.py").write_text(FAKE_KERNEL)
    done = run_aot(tmp_path / "kernel.py", "-n", "k", "-s", "*fp32, *fp32, i32, 256",
                   "--target", f"hip:{arch}", "--grid", "(n + 255) / 256, 2", "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    main = tmp_path / "program.c.in"
    main.write_text(FAKE_MAIN)
    program = build_program(tmp_path, main, "-x", "c")
    ran = subprocess.run([str(program)], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, TESSERA_HIP_LIBRARY=str(fake)))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        f"grid 3 2 1 block {4 * lanes} shared 0 stream 0x1234 n 1000 args 1",
        "default grid 4 2 1"]
    assert json.loads((tmp_path / "k.json").read_text())["grid"] == ["(n + 255) / 256", "2"]


@pytest.mark.parametrize("args,message", [
    (["-n", "missing", "-s", SIGNATURE, "--target", "cuda:90"],
     "has no @tessera.jit kernel named 'missing'"),
    (["-n", "add_kernel", "-s", "*fp32, *fp32, *fp32, i32, i32", "--target", "cuda:90"],
     "'BLOCK_SIZE' is a tl.constexpr: the signature must give its value, not 'i32'"),
    (["-n", "add_kernel", "-s", SIGNATURE + ", 3", "--target", "cuda:90"],
     "the signature has 6 entries; add_kernel takes 5 arguments"),
    (["-n", "add_kernel", "-s", SIGNATURE, "--target", "tpu:v5"], "unknown target 'tpu:v5'"),
    (["-n", "add_kernel", "-s", "*fp32, *fp32, *fp32, q7, 1024", "--target", "cuda:90"],
     "'n_elements' has type 'q7' in the signature"),
    (["-n", "add_kernel", "-s", SIGNATURE, "--target", "cuda:90", "-on", "not-an-id"],
     "'not-an-id' cannot name C functions"),
    (["-n", "add_kernel", "-s", SIGNATURE, "--target", "cuda:90", "-g", "x_ptr / 4"],
     "names 'x_ptr', which is not an integer parameter of the kernel"),
    (["-n", "add_kernel", "-s", SIGNATURE, "--target", "cuda:90", "-g", "n_elements; exit(1)"],
     "holds ';': only numbers, integer parameters and + - * / % ( ) may appear"),
    (["-n", "add_kernel", "-s", "**fp32, *fp32, *fp32, i32, 1024", "--target", "cuda:90"],
     "'x_ptr' has type '**fp32' in the signature"),
    (["-n", "add_kernel", "-s", SIGNATURE, "--target", "cuda:90", "-on", "int"],
     "'int' cannot name C functions: C or the runtime has that name"),
    (["-n", "add_kernel", "-s", SIGNATURE, "--target", "cuda:90", "-on", "tessera_launch"],
     "'tessera_launch' cannot name C functions"),
])
def test_errors_are_named(tmp_path, args, message):
    done = run_aot(VECTOR_ADD, *args, "-o", tmp_path)
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())  # nothing half-written


@pytest.mark.parametrize("grid,message", [
    ("(n_elements + 1023) / 0", "divides by zero"),
    ("n_elements % (4 - 4)", "divides by zero"),
    ("-1", "gives -1 programs along axis 0; a launch has 0 to 2147483647 there"),
    ("n_elements, 2 - 3", "gives -1 programs along axis 1"),
    ("n_elements, 65536", "gives 65536 programs along axis 1; a launch has 0 to 65535 there"),
    ("2147483648", "has the value 2147483648, past a 32-bit int"),
    ("n_elements + 65536 * 65536", "has the value 4294967296, past a 32-bit int"),
    ("n_elements ** 2", "holds 'n_elements ** 2': only numbers, integer parameters"),
    ("cdiv(n_elements, BLOCK_SIZE)", "holds 'cdiv(n_elements, BLOCK_SIZE)'"),
    ("n_elements / 2.5", "holds '.'"),
    ("n_elements // 1e3", "holds '1e3'"),
    ("n_elements if n_elements else 1", "holds 'n_elements if n_elements else 1'"),
    ("(n_elements + 1", "is not an expression"),
    ("n_elements,,", "is not an expression"),
    ("n_elements, 1, 1, 1", "has 4 dimensions; a grid has 1 to 3, separated by commas"),
    ("x_ptr", "names 'x_ptr', which is not an integer parameter of the kernel"),
    ("exit", "names 'exit', which is not an integer parameter of the kernel"),
])
def test_a_bad_grid_is_refused_before_anything_is_written(tmp_path, grid, message):
    done = run_aot(VECTOR_ADD, "-n", "add_kernel", "-s", SIGNATURE, "--target", "cuda:90",
                   f"--grid={grid}", "-o", tmp_path)
    assert done.returncode == 1
    assert f"the grid expression '{grid}' {message}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("source,message", [
    ("import tessera\n\ndef broken(:\n    pass\n", "kernel.py:3: syntax error: "),
    ("import tessera\nx = 1\nraise RuntimeError('no GPU found')\n",
     "kernel.py:3: importing it raised RuntimeError: no GPU found"),
    ("import a_module_that_is_nowhere\n",
     "kernel.py:1: importing it raised ModuleNotFoundError: No module named "
     "'a_module_that_is_nowhere'"),
    ("import sys\nsys.exit(3)\n", "kernel.py:2: importing it raised SystemExit: 3"),
])
def test_a_file_that_does_not_import_is_named(tmp_path, capsys, source, message):
    (tmp_path / "kernel.py").write_text(source)
    out = tmp_path / "out"
    args = [tmp_path / "kernel.py", "-n", "k", "-s", "i32", "--target", "cuda:90", "-o", out]
    done = run_aot(*args)
    assert done.returncode == 1
    assert done.stderr.startswith("tessera-compile: error: ") and message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    # The installed command, in this process.
    from tessera.tools import compile as command
    assert command.main([str(a) for a in args]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


# Kernels whose parameters have names of C, C++, the C headers and the
# launcher, with grids of every form a grid takes: their launchers compile.
C_NAMES_KERNEL = '''
import tessera
import tessera.language as tl

@tessera.jit
def {name}(out_ptr, auto, int, register, default, new, this, bool, NULL, int32_t, INT32_MAX,
           SIZE_MAX, _Bool, __x, tessera_launch, stream, grid, args, grid_x, {name}_kernel,
           {name}_load, arg_auto, n, BLOCK: tl.constexpr, NEG: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = (auto + int + register + default + new + this + bool + NULL + int32_t + INT32_MAX
             + SIZE_MAX + _Bool + __x + tessera_launch + stream + grid + args + grid_x
             + {name}_kernel + {name}_load + arg_auto + n + NEG)
    tl.store(out_ptr + offs, total, mask=offs < n)
'''
C_NAMES_SIGNATURE = "*i32:16, " + ", ".join(["i32"] * 22) + ", 128, -3"


@pytest.mark.parametrize("name,grid", [
    ("k", None),
    ("k", "(n + BLOCK - 1) // BLOCK"),
    ("launch", "(n + BLOCK - 1) / BLOCK + NEG, auto % 7 + 1, -(-register)"),
    ("kern", "(int, this * 2 - NEG, +stream)"),
    ("kernel2", "n // 4 % 3 + 0x10 + 0b1 + 0o7 + 1_000, (n - NEG) / (0 - NEG),"),
])
def test_launchers_of_any_parameter_names_and_grids_compile(tmp_path, name, grid):
    cc = c_compiler()
    include, _ = aot.runtime_paths()
    if not os.path.exists(os.path.join(include, "tessera_runtime.h")):
        pytest.skip("tessera_runtime.h is not built beside this tessera")
    (tmp_path / f"{name}.py").write_text(C_NAMES_KERNEL.format(name=name))
    out = tmp_path / "out"
    written = aot.compile_file(str(tmp_path / f"{name}.py"), name, C_NAMES_SIGNATURE, "cuda:90",
                               str(out), grid=grid)
    checked = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-pedantic", "-fsyntax-only",
                              "-I", str(out), written["c"]], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    cxx = shutil.which("c++")
    if cxx:  # the header is C++'s too
        (tmp_path / "user.cc").write_text(f'#include "{name}.h"\n')
        checked = subprocess.run([cxx, "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-I",
                                  str(out), str(tmp_path / "user.cc")],
                                 capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    meta = json.loads(Path(written["json"]).read_text())
    names = [p["name"] for p in meta["parameters"]]
    # `arg_auto` is a parameter's own name: `auto` is arg_auto_ in the C.
    assert names[:4] == ["out_ptr", "arg_auto_", "arg_int", "arg_register"]
    assert names[-3:] == [f"arg_{name}_load", "arg_auto", "n"]
    assert len(set(names)) == len(names) == 23
