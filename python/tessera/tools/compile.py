"""tessera-compile, the installed package's command (and what the program of
a build tree's bin/ does):

    tessera-compile vector_add.py -n add_kernel -s "*fp32:16, ..." \\
        --target cuda:90 -o out      # a Python kernel: tessera.aot
    tessera-opt k.mlir -tile-default-pipeline |
        tessera-compile --target=sm_90 --emit=asm   # tile IR: a stage of it

Tile IR (after the target-independent pipeline) comes from a file or stdin;
`--emit` chooses what is written: the tile IR with layouts, the optimised
LLVM IR, the PTX or AMDGCN, the binary (cubin, HSACO) or the metadata.
"""

import argparse
import sys

EMITS = ("tile-layout", "llir", "asm", "bin", "metadata")


def _emitted(kernel, emit):
    """What `--emit` writes of a compiled kernel: text, or bytes for `bin`."""
    if emit == "bin":
        if not kernel.binary:
            raise ValueError(kernel.binary_note)
        return kernel.binary
    if emit == "metadata":
        return (f"name: {kernel.name}\nbackend: {kernel.backend}\narch: {kernel.arch}\n"
                f"warp_size: {kernel.warp_size}\nnum_warps: {kernel.num_warps}\n"
                f"shared_bytes: {kernel.shared_bytes}\n")
    return {"tile-layout": kernel.tile_layout, "llir": kernel.llvm_ir,
            "asm": kernel.assembly}[emit]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a.endswith(".py") and not a.startswith("-") for a in argv):
        from .. import aot
        return aot.main(argv)
    parser = argparse.ArgumentParser(
        prog="tessera-compile",
        description="Compile a kernel's tile IR for a target (a Python file's @jit kernel "
                    "goes to tessera.aot: see its --help).")
    parser.add_argument("input", nargs="?", default="-", help="tile IR file (default: stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    parser.add_argument("--target", default="sm_90a",
                        help="the target: cuda:90, sm_80, sm_90a, hip:gfx942, gfx1100, ...")
    parser.add_argument("--num-warps", type=int, default=4, help="warps per block")
    parser.add_argument("--emit", choices=EMITS, default="asm", help="what to write")
    args = parser.parse_args(argv)
    from .. import _tessera
    try:
        if args.input == "-":
            text = sys.stdin.read()
        else:
            with open(args.input) as f:
                text = f.read()
        kernel = _tessera.compile(text, args.target, num_warps=args.num_warps)
        out = _emitted(kernel, args.emit)
    except (OSError, ValueError, _tessera.StageError) as e:
        print(f"tessera-compile: error: {e}", file=sys.stderr)
        return 1
    data = out if isinstance(out, bytes) else out.encode()
    if args.output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        try:
            with open(args.output, "wb") as f:
                f.write(data)
        except OSError as e:
            print(f"tessera-compile: error: cannot write {args.output}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
