#!/usr/bin/env python3
"""Fuzzes the compiler for crashes: mutated tile IR through tessera-opt pass
pipelines (mode `ir`), and random Python kernels through tessera.compile for
an NVIDIA and an AMD target (mode `kernels`).

A diagnostic, a non-zero exit or a Python exception is a good answer to bad
input; a run fails only when the process dies by a signal, prints an LLVM
fatal error, assertion or stack dump, or outer-lives its timeout. Each failing
input is written to --out with the command that reproduces it.

    fuzz.py --seconds 120 --mode ir --opt build/bin/tessera-opt
    fuzz.py --seconds 60 --mode kernels --seed random
"""

import argparse
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIRS = ["test/ir", "test/transforms", "test/backends", "examples/tile"]
CRASH_MARKERS = ["LLVM ERROR", "Assertion", "UNREACHABLE", "Stack dump",
                 "Segmentation fault", "AddressSanitizer", "runtime error:"]
DEFAULT_SEED = 20240611


def crash_reason(returncode, output):
    """Why a finished run counts as a crash, or None."""
    if returncode is not None and returncode < 0:
        return f"killed by signal {-returncode}"
    for marker in CRASH_MARKERS:
        if marker in output:
            return marker
    return None


def first_lines(text, count=12):
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:count])


# ---------------------------------------------------------------------------
# IR mode

def load_corpus():
    """Every input of the lit suite and the examples, one per split chunk,
    without the lines that only lit and FileCheck read."""
    annotation = re.compile(r"//\s*(RUN|CHECK|[A-Z0-9]+-(LABEL|NEXT|DAG|SAME|NOT)|expected-)")
    inputs = []
    for folder in CORPUS_DIRS:
        for path in sorted((ROOT / folder).rglob("*.mlir")):
            for chunk in re.split(r"^// -----.*$", path.read_text(), flags=re.M):
                lines = []
                for line in chunk.splitlines():
                    match = annotation.search(line)
                    if match:
                        line = line[:match.start()].rstrip()
                        if not line:
                            continue
                    lines.append(line)
                if any(line.strip() for line in lines):
                    inputs.append((f"{path.relative_to(ROOT)}", lines))
    return inputs


EDGE_INTS = ["0", "-1", "1", "2147483648", "9223372036854775807", "3", "65536"]
TYPES = ["f16", "f32", "i1", "i64", "bf16", "i32", "i8", "f64"]
DIMS = ["0", "1", "3", "2", "16", "17", "128", "4096", "65536", "?"]


def mutate_delete(rng, lines, corpus):
    if lines:
        del lines[rng.randrange(len(lines))]


def mutate_duplicate(rng, lines, corpus):
    if lines:
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])


def mutate_swap(rng, lines, corpus):
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]


def _rewrite_one(rng, lines, pattern, replace):
    """Rewrites one random match of `pattern` in the input."""
    hits = [(i, m) for i, line in enumerate(lines) for m in re.finditer(pattern, line)]
    if not hits:
        return
    i, m = rng.choice(hits)
    line = lines[i]
    lines[i] = line[:m.start()] + replace(m) + line[m.end():]


def mutate_integer(rng, lines, corpus):
    _rewrite_one(rng, lines, r"(?<![\w%#.@^])-?\d+(?![\w.])", lambda m: rng.choice(EDGE_INTS))


def mutate_shape(rng, lines, corpus):
    def reshape(m):
        dims = m.group(1).split("x")[:-1]
        choice = rng.randrange(3)
        if choice == 0:
            dims[rng.randrange(len(dims))] = rng.choice(DIMS)
        elif choice == 1 and len(dims) > 1:
            del dims[rng.randrange(len(dims))]
        else:
            dims.insert(rng.randrange(len(dims) + 1), rng.choice(DIMS))
        return "<" + "".join(d + "x" for d in dims)
    _rewrite_one(rng, lines, r"<((?:\d+x)+)", reshape)


def mutate_type(rng, lines, corpus):
    _rewrite_one(rng, lines, r"\b(f16|f32|f64|bf16|i1|i8|i32|i64)\b", lambda m: rng.choice(TYPES))


def mutate_truncate(rng, lines, corpus):
    if lines:
        del lines[rng.randrange(len(lines)):]


def mutate_splice(rng, lines, corpus):
    _, other = rng.choice(corpus)
    if other:
        start = rng.randrange(len(other))
        piece = other[start:start + rng.randint(1, 12)]
        at = rng.randrange(len(lines) + 1)
        lines[at:at] = piece


MUTATIONS = [mutate_delete, mutate_duplicate, mutate_swap, mutate_integer, mutate_integer,
             mutate_shape, mutate_shape, mutate_type, mutate_type, mutate_truncate, mutate_splice]

WARPS = ["1", "2", "4", "8", "16", "0", "3", "64", "4294967295"]
WARP_SIZES = ["32", "64", "16", "0", "1", "33"]
CAPABILITIES = ["80", "89", "90", "70", "0", "100"]
STAGES = ["1", "2", "3", "4", "0", "7", "100"]
SHARED_BYTES = ["65536", "232448", "0", "-1", "1099511627776"]
MATRIX_CORES = ["mfma-version=2", "mfma-version=3", "mfma-version=4", "wmma-version=1",
                "wmma-version=2", "mfma-version=9", '"mfma-version=3 wmma-version=1"',
                '"mfma-version=3 matrix-instr-nonkdim=16"', "matrix-instr-nonkdim=8"]

NVIDIA_PIPELINE = ["-tile-nvidia-select-bulk-copies={sel}", "-tile-lower-descriptors",
                   "-tile-assign-layouts{layout}", "-tile-nvidia-assign-mma={mma}",
                   "-tile-remove-conversions", "-canonicalize", "-cse",
                   "-tile-nvidia-pipeline=num-stages={stages}", "-canonicalize", "-cse",
                   "-tile-nvidia-lower-bulk-copies", "-tile-nvidia-async-warpgroup-dots",
                   "-tile-fma-dots", "-tile-nvidia-fence-async-shared",
                   "-tile-allocate-shared-memory", "-tile-nvidia-to-llvm"]
AMD_PIPELINE = ["-tile-lower-descriptors", "-tile-assign-layouts{layout}",
                "-tile-amd-assign-matrix-cores={cores}",
                "-tile-remove-conversions", "-canonicalize", "-cse",
                "-tile-pipeline={pipe}", "-tile-fma-dots={fma}",
                "-tile-allocate-shared-memory",
                "-tile-amd-to-llvm={amd}", "-canonicalize", "-cse"]
SINGLE_PASSES = ["-tile-default-pipeline", "-tile-combine", "-canonicalize", "-cse",
                 "-tile-fuse-nested-loops", "-tile-lower-descriptors",
                 "-tile-assign-layouts{layout}", "-tile-nvidia-assign-mma={mma}",
                 "-tile-remove-conversions", "-tile-pipeline=num-stages={stages}",
                 "-tile-nvidia-select-bulk-copies={sel}", "-tile-allocate-shared-memory",
                 "-tile-nvidia-to-llvm", "-tile-amd-to-llvm={amd}",
                 "-tile-nvidia-fence-async-shared", "-tile-nvidia-async-warpgroup-dots",
                 "-tile-fma-dots", "-tile-amd-assign-matrix-cores={cores}",
                 "-tile-pipeline={pipe}", "-tile-fma-dots={fma}",
                 "-loop-invariant-code-motion", "-inline", "-symbol-dce"]


def random_pipeline(rng):
    """A pass pipeline of the kind the backends run, or a random walk over
    the passes, with option values both good and bad."""
    def options(text):
        layout = ""
        if rng.random() < 0.5:
            layout = f"=num-warps={rng.choice(WARPS)}" if rng.random() < 0.5 \
                else f"=warp-size={rng.choice(WARP_SIZES)}"
        cc = rng.choice(CAPABILITIES)
        mma = f"compute-capability={cc}"
        if rng.random() < 0.3:
            mma = f'"{mma} wgmma={rng.choice(["true", "false"])} ' \
                  f'wgmma-chained={rng.choice(["true", "false"])}"'
        return text.format(layout=layout, mma=mma, stages=rng.choice(STAGES),
                           sel=f'"compute-capability={cc} num-warps={rng.choice(WARPS)}"',
                           amd=f"warp-size={rng.choice(WARP_SIZES)}",
                           cores=rng.choice(MATRIX_CORES),
                           # (one argument, no shell: its space separates options)
                           pipe=f"num-stages={rng.choice(STAGES)} "
                                f"async-copies={rng.choice(['true', 'false'])}",
                           fma=f"shared-bytes={rng.choice(SHARED_BYTES)}")
    kind = rng.randrange(5)
    if kind == 0:
        return ["-tile-default-pipeline"] + [options(p) for p in NVIDIA_PIPELINE]
    if kind == 1:
        return ["-tile-default-pipeline"] + [options(p) for p in AMD_PIPELINE]
    if kind == 2:
        chosen = NVIDIA_PIPELINE if rng.random() < 0.5 else AMD_PIPELINE
        start = rng.randrange(len(chosen))
        return [options(p) for p in chosen[start:]]
    if kind == 3:
        return []  # parse, verify and print only
    return [options(rng.choice(SINGLE_PASSES)) for _ in range(rng.randint(1, 5))]


def crash_signature(reason, output):
    """What tells one bug from another: the assertion or fatal error line,
    without the addresses and values that vary between inputs."""
    for line in output.splitlines():
        assertion = re.search(r"^(.*?):\d+: .*(Assertion `.*' failed)", line)
        if assertion:
            return f"{os.path.basename(assertion.group(1))}: {assertion.group(2)}"[:300]
        if any(marker in line for marker in CRASH_MARKERS[:3]):
            return re.sub(r"\b\d+\b|0x[0-9a-f]+", "N", line.strip())[:300]
    frames = re.findall(r"^\s*#\d+ 0x[0-9a-f]+ (.*?) \(", output, flags=re.M)
    useful = [f for f in frames if not f.startswith(("llvm::sys::", "SignalHandler", "__"))]
    return f"{reason}: {useful[0] if useful else '?'}"[:300]


def run_opt(args, source, passes):
    """(reason, output) of one tessera-opt run; reason is None when it did
    not crash."""
    command = [args.opt, str(source), *passes, "-o", os.devnull]
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=args.timeout, errors="replace")
        return crash_reason(done.returncode, done.stderr), done.stderr
    except subprocess.TimeoutExpired as e:
        output = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else ""
        return f"timed out after {args.timeout} s", output
    except OSError as e:
        sys.exit(f"fuzz.py: cannot run {args.opt}: {e.strerror}")


def reduce_ir(args, source, lines, passes, signature, deadline, budget=150):
    """Drops lines and passes while the run still crashes the same way, so
    that the saved input is small enough to read."""
    def same(candidate_lines, candidate_passes):
        source.write_text("\n".join(candidate_lines) + "\n")
        reason, output = run_opt(args, source, candidate_passes)
        return reason is not None and crash_signature(reason, output) == signature
    tries = 0
    for i in reversed(range(len(passes))):
        if tries >= budget or time.monotonic() > deadline:
            break
        tries += 1
        if same(lines, passes[:i] + passes[i + 1:]):
            passes = passes[:i] + passes[i + 1:]
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and tries < budget and time.monotonic() < deadline:
        i = 0
        while i < len(lines) and tries < budget and time.monotonic() < deadline:
            tries += 1
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and same(candidate, passes):
                lines = candidate
            else:
                i += chunk
        chunk //= 2
    return lines, passes


def run_ir(args, rng, deadline, out):
    corpus = load_corpus()
    print(f"ir: {len(corpus)} inputs in the corpus", flush=True)
    runs = failures = 0
    seen = {}
    with tempfile.TemporaryDirectory(prefix="tessera-fuzz-") as scratch:
        source = Path(scratch) / "input.mlir"
        while time.monotonic() < deadline and (args.ir_runs is None or runs < args.ir_runs):
            origin, lines = rng.choice(corpus)
            lines = list(lines)
            for _ in range(rng.randint(1, 4)):
                rng.choice(MUTATIONS)(rng, lines, corpus)
            # Options are given as the shell would pass them, without quotes.
            passes = [p.replace('"', "") for p in random_pipeline(rng)]
            source.write_text("\n".join(lines) + "\n")
            runs += 1
            reason, output = run_opt(args, source, passes)
            if not reason:
                continue
            failures += 1
            signature = crash_signature(reason, output)
            if signature in seen:
                seen[signature][1] += 1
                continue
            name = f"ir-{len(seen) + 1:03d}"
            seen[signature] = [name, 1]
            if not reason.startswith("timed out"):
                lines, passes = reduce_ir(args, source, lines, passes, signature, deadline)
            saved = out / f"{name}.mlir"
            saved.write_text("\n".join(lines) + "\n")
            reason, output = run_opt(args, saved, passes)
            reproduce = shlex.join([args.opt, str(saved), *passes])
            (out / f"{name}.txt").write_text(
                f"# from {origin}: {reason}\n# {signature}\n{reproduce}\n\n{output}")
            print(f"FAIL {name} ({origin}): {reason}\n  {reproduce}\n  {signature}", flush=True)
    for signature, (name, count) in seen.items():
        print(f"  {name}: {count} runs: {signature}", flush=True)
    return runs, failures


# ---------------------------------------------------------------------------
# Kernel mode

DTYPES = {"fp32": "tl.float32", "fp16": "tl.float16", "bf16": "tl.bfloat16",
          "i32": "tl.int32", "i8": "tl.int8", "i64": "tl.int64"}
FLOATS = ["fp32", "fp16", "bf16"]


def random_kernel(rng, index):
    """Python source of a random kernel, its signature and constexprs."""
    name = f"fuzz_kernel_{index}"
    M, N = rng.choice([1, 2, 16, 32, 64, 128]), rng.choice([1, 4, 16, 32, 64, 256])
    inputs = [rng.choice(list(DTYPES)) for _ in range(rng.randint(1, 3))]
    out_type = rng.choice(list(DTYPES))
    body = ["    pid = tl.program_id(0)",
            "    rm = tl.arange(0, M)",
            "    rn = tl.arange(0, N)",
            "    offs = (pid * M + rm[:, None]) * N + rn[None, :]",
            "    mask = (rm[:, None] < n) & (rn[None, :] < N)"]
    # Values of the pool: (name, rank) where rank 2 is [M, N] and 1 is [M].
    pool = []
    for i, t in enumerate(inputs):
        other = rng.choice(["", ", other=0", ", other=1"])
        body.append(f"    v{i} = tl.load(in{i} + offs, mask=mask{other})")
        pool.append((f"v{i}", 2, t in FLOATS))
    count = len(pool)

    def pick(rank=None):
        chosen = [p for p in pool if rank is None or p[1] == rank]
        return rng.choice(chosen) if chosen else None

    def new(expr, rank, is_float):
        nonlocal count
        body.append(f"    v{count} = {expr}")
        pool.append((f"v{count}", rank, is_float))
        count += 1

    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(11)
        a, b = pick(2), pick(2)
        if op == 0:
            new(f"{a[0]} {rng.choice(['+', '-', '*'])} {b[0]}", 2, a[2] or b[2])
        elif op == 1:
            new(f"tl.{rng.choice(['maximum', 'minimum'])}({a[0]}, {b[0]})", 2, a[2] or b[2])
        elif op == 2:
            new(f"tl.where({a[0]} > {b[0]}, {a[0]}, {b[0]})", 2, a[2] or b[2])
        elif op == 3:
            t = rng.choice(list(DTYPES))
            new(f"{a[0]}.to({DTYPES[t]})", 2, t in FLOATS)
        elif op == 4:
            reduce = rng.choice(["sum", "max", "min"])
            axis = rng.choice([0, 1])
            new(f"tl.{reduce}({a[0]}, axis={axis})", 10 + axis, a[2])
            reduced = pool[-1]
            if axis == 1:
                new(f"{a[0]} - tl.expand_dims({reduced[0]}, 1)", 2, a[2])
            else:
                new(f"tl.broadcast_to(tl.expand_dims({reduced[0]}, 0), (M, N))"
                    f" + {a[0]}", 2, a[2])
        elif op == 5:
            fn = rng.choice(["tl.exp", "tl.abs", "tl.sqrt", "tl.log"]) if a[2] \
                else rng.choice(["tl.abs", "-"])
            new(f"{fn}({a[0]})", 2, a[2])
        elif op == 6:
            new(f"{a[0]} * {rng.choice(['2', '0.5', '-1', '0'])}", 2, a[2] or rng.random() < 0.5)
        elif op == 7:
            new(f"tl.where(mask, {a[0]}, 0)", 2, a[2])
        elif op == 8:
            new(f"{a[0]} / 3.0" if a[2] else f"{a[0]} % 7", 2, a[2])
        elif op == 9:
            new(f"tl.trans(tl.trans({a[0]}))", 2, a[2])
        else:
            new(f"tl.cumsum({a[0]}, axis={rng.choice([0, 1])})", 2, a[2])
    result = pick(2)
    body.append(f"    tl.store(out + offs, {result[0]}, mask=mask)")
    params = [f"in{i}" for i in range(len(inputs))] + ["out", "n"]
    signature = {f"in{i}": f"*{t}" for i, t in enumerate(inputs)}
    signature.update(out=f"*{out_type}", n="i32")
    if rng.random() < 0.4:
        # A small matrix product beside the elementwise work.
        K = rng.choice([16, 32, 64])
        dt = rng.choice(["fp16", "bf16", "fp32", "i8"])
        acc = "fp32" if dt != "i8" else "i32"
        D_M, D_N = rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
        body += [
            "    dm = tl.arange(0, DM)",
            "    dn = tl.arange(0, DN)",
            "    dk = tl.arange(0, DK)",
            "    da = tl.load(dot_a + dm[:, None] * DK + dk[None, :])",
            "    db = tl.load(dot_b + dk[:, None] * DN + dn[None, :])",
            "    dc = tl.dot(da, db" + (", acc=tl.zeros((DM, DN), dtype=tl.float32)"
                                      if rng.random() < 0.3 and acc == "fp32" else "") + ")",
        ]
        if rng.random() < 0.5:
            body.append(f"    dc = tl.{rng.choice(['sum', 'max'])}(dc, axis=1)[:, None] + dc")
        body.append("    tl.store(dot_c + dm[:, None] * DN + dn[None, :], dc)")
        params[-1:-1] = ["dot_a", "dot_b", "dot_c"]
        signature.update(dot_a=f"*{dt}", dot_b=f"*{dt}", dot_c=f"*{acc}")
        constexprs = {"M": M, "N": N, "DM": D_M, "DN": D_N, "DK": K}
    else:
        constexprs = {"M": M, "N": N}
    params += [f"{c}: tl.constexpr" for c in constexprs]
    source = "\n".join([
        "@tessera.jit",
        f"def {name}({', '.join(params)}):",
        *body, ""])
    # At most 256 elements of a tensor a thread: past that, compile time is
    # LLVM's and ptxas's on thousands of live values (minutes), not a defect
    # to find here.
    warps = [w for w in (1, 2, 4, 8, 16) if M * N <= 256 * 32 * w]
    return {"name": name, "source": source, "signature": signature,
            "constexprs": constexprs, "num_warps": rng.choice(warps)}


KERNEL_HEADER = "import tessera\nimport tessera.language as tl\n\n\n"
TARGETS = ["cuda:90", "hip:gfx942"]


def compile_batch(batch_file):
    """The child: compiles every kernel of the batch for every target,
    saying on stdout which it starts, so that a crash names its kernel."""
    import importlib.util
    import tessera
    batch = json.loads(Path(batch_file).read_text())
    for i, kernel in enumerate(batch["kernels"]):
        path = Path(batch_file).with_name(f"{kernel['name']}.py")
        path.write_text(KERNEL_HEADER + kernel["source"])
        for target in TARGETS:
            print(f"start {i} {target}", flush=True)
            try:
                spec = importlib.util.spec_from_file_location(kernel["name"], path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                tessera.compile(getattr(module, kernel["name"]), kernel["signature"], target,
                                constexprs=kernel["constexprs"],
                                num_warps=kernel["num_warps"])
                print(f"compiled {i} {target}", flush=True)
            except Exception as e:  # A Python exception is the answer to a bad kernel.
                print(f"rejected {i} {target}: {type(e).__name__}: "
                      f"{str(e).splitlines()[0] if str(e) else ''}", flush=True)


def save_kernel(out, name, kernel, target, reason, output):
    path = out / f"{name}.py"
    path.write_text(
        KERNEL_HEADER + kernel["source"] + "\n\n"
        f"if __name__ == '__main__':\n"
        f"    tessera.compile({kernel['name']}, {kernel['signature']!r}, {target!r},\n"
        f"                    constexprs={kernel['constexprs']!r}, "
        f"num_warps={kernel['num_warps']})\n")
    reproduce = f"PYTHONPATH=<build>/python TESSERA_CACHE_DIR= python3 {path}"
    (out / f"{name}.txt").write_text(f"# {reason} on {target}\n{reproduce}\n\n{output}")
    return reproduce


def run_kernels(args, rng, deadline, out):
    runs = failures = compiled = 0
    index = 0
    env = dict(os.environ, TESSERA_CACHE_DIR="", PYTHONDONTWRITEBYTECODE="1")
    with tempfile.TemporaryDirectory(prefix="tessera-fuzz-") as scratch:
        while time.monotonic() < deadline and (args.kernel_runs is None or runs < args.kernel_runs):
            kernels = []
            for _ in range(args.batch):
                kernels.append(random_kernel(rng, index))
                index += 1
            batch_file = Path(scratch) / "batch.json"
            batch_file.write_text(json.dumps({"kernels": kernels}))
            command = [sys.executable, __file__, "--compile-batch", str(batch_file)]
            timeout = args.timeout * len(kernels) * len(TARGETS)
            try:
                done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      timeout=timeout, env=env, errors="replace")
                output, returncode = done.stdout, done.returncode
                reason = crash_reason(returncode, output)
                if reason is None and returncode != 0:
                    reason = f"child exited with status {returncode}"
            except subprocess.TimeoutExpired as e:
                output = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) \
                    else (e.stdout or "")
                reason = f"timed out after {timeout} s"
            started = re.findall(r"^start (\d+) (\S+)$", output, flags=re.M)
            runs += len(started)
            compiled += len(re.findall(r"^compiled ", output, flags=re.M))
            if reason:
                failures += 1
                i, target = started[-1] if started else ("0", TARGETS[0])
                last = output[output.rfind(f"start {i} {target}"):] if started else output
                name = f"kernel-{failures:03d}"
                reproduce = save_kernel(out, name, kernels[int(i)], target, reason, last)
                print(f"FAIL {name}: {reason} on {target}\n  {reproduce}\n"
                      f"  {first_lines(last, 8).replace(chr(10), chr(10) + '  ')}", flush=True)
    print(f"kernels: {compiled} of {runs} compilations produced a binary", flush=True)
    return runs, failures


# ---------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60,
                        help="time budget of each mode, for each seed")
    parser.add_argument("--ir-runs", type=int, default=None,
                        help="stop mode ir after this many runs (with a seed, the same "
                             "inputs on any machine that is fast enough)")
    parser.add_argument("--kernel-runs", type=int, default=None,
                        help="stop mode kernels after this many compilations")
    parser.add_argument("--seed", action="append",
                        help="an integer, or 'random' for a fresh one (printed); given "
                             f"more than once, each in turn (default {DEFAULT_SEED})")
    parser.add_argument("--mode", choices=["ir", "kernels", "both"], default="both")
    parser.add_argument("--opt", default=str(ROOT / "build/ci/bin/tessera-opt"),
                        help="the tessera-opt to run (mode ir)")
    parser.add_argument("--out", default="fuzz-failures",
                        help="where failing inputs are saved with their commands")
    parser.add_argument("--timeout", type=float, default=10, help="seconds per run")
    parser.add_argument("--batch", type=int, default=16,
                        help="kernels compiled by one child process (mode kernels)")
    parser.add_argument("--compile-batch", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile_batch:
        compile_batch(args.compile_batch)
        return 0

    total_runs = total_failures = 0
    for seed in args.seed or [str(DEFAULT_SEED)]:
        seed = random.SystemRandom().randrange(2**32) if seed == "random" else int(seed)
        print(f"seed {seed}", flush=True)
        out = Path(args.out) / str(seed)
        out.mkdir(parents=True, exist_ok=True)
        for mode, run in (("ir", run_ir), ("kernels", run_kernels)):
            if args.mode not in (mode, "both"):
                continue
            # Each mode has its own stream, so that one's inputs do not depend on the other's.
            rng = random.Random(f"{seed}-{mode}")
            started = time.monotonic()
            runs, failures = run(args, rng, started + args.seconds, out)
            print(f"{mode}: {runs} runs, {failures} failures in "
                  f"{time.monotonic() - started:.0f} s (seed {seed})", flush=True)
            total_runs += runs
            total_failures += failures
    print(f"total: {total_runs} runs, {total_failures} failures"
          + (f", inputs in {args.out}" if total_failures else ""), flush=True)
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
