"""What the benchmarks share: the kernels under each DSL, timing with CUDA
events and an L2 flush, and the report line (Tessera, the references, the
ratio)."""

import importlib
import importlib.util
import json
import os
import subprocess
import sys


def kernels(dsl, path=None):
    """`path` (bench/kernels.py by default) run as a module with `tl` and
    `jit` of "tessera" or "triton"; None where upstream Triton, a reference,
    is not installed. Tessera that does not import is an error, with its
    cause."""
    try:
        package = importlib.import_module(dsl)
        language = importlib.import_module(dsl + ".language")
    except ImportError as e:
        if dsl == "tessera" or getattr(e, "name", None) != dsl:
            raise ImportError(f"{dsl} does not import: {e}") from e
        return None
    path = path or os.path.join(os.path.dirname(__file__), "kernels.py")
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"{name}_{dsl}", path)
    module = importlib.util.module_from_spec(spec)
    module.tl, module.jit = language, package.jit
    spec.loader.exec_module(module)
    return module


def child_ms(dsl, code, cache, **env):
    """The milliseconds the Python `code` prints last, run in a fresh
    process with `cache` as the kernel cache of both DSLs and `env` added to
    the environment; None where it exits 3 (`dsl` is not installed)."""
    env = dict(os.environ, TESSERA_CACHE_DIR=cache, TRITON_CACHE_DIR=cache, **env)
    env.pop("TESSERA_ALWAYS_COMPILE", None)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True)
    if result.returncode == 3:
        return None
    if result.returncode != 0:
        raise RuntimeError(f"{dsl}: {result.stderr}")
    return float(result.stdout.split()[-1])


def mma_sync_child(script, cases, dsl="triton"):
    """`dsl` on mma.sync, timed by a child process: `script --child DSL
    CASES` (CASES as JSON). Upstream Triton with TRITON_OVERRIDE_ARCH=sm80,
    which it reads when it compiles; where that binary does not load on
    this GPU, again with DISABLE_MMA_V3=1 (its own target, mma.sync in place
    of wgmma), which is how Tessera is run (TESSERA_DISABLE_MMA_V3=1). The
    child prints {"figures": {case: value or null}, "errors": {case:
    message}} as its last line. Returns the figures and the column's name
    ("triton-sm80", "triton-mmav2" or "tessera-mmav2")."""
    envs = ((("triton-sm80", {"TRITON_OVERRIDE_ARCH": "sm80"}),
             ("triton-mmav2", {"DISABLE_MMA_V3": "1"})) if dsl == "triton"
            else (("tessera-mmav2", {"TESSERA_DISABLE_MMA_V3": "1"}),))
    for column, env in envs:
        done = subprocess.run([sys.executable, script, "--child", dsl, json.dumps(cases)],
                              env=dict(os.environ, **env), capture_output=True, text=True)
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            lines = done.stderr.strip().splitlines()
            result = {"figures": {}, "errors": {"all": lines[-1] if lines else
                                                f"exit status {done.returncode}"}}
        for case, error in result["errors"].items():
            print(f"# {column}, {case}: {error}", flush=True)
        if any(v is not None for v in result["figures"].values()):
            return result["figures"], column
    return {}, envs[0][0]


def report_to_parent(measures):
    """The child's side of mma_sync_child: runs each (case, measure) of
    `measures`, `measure()` giving the case's figure, and prints the figures
    and the errors of the cases that failed as JSON on the last line."""
    figures, errors = {}, {}
    for case, measure in measures:
        figures[case] = None
        try:
            figures[case] = measure()
        except Exception as e:  # reported by the parent, which goes on
            lines = str(e).strip().splitlines()
            errors[case] = f"{type(e).__name__}: {lines[-1] if lines else ''}"
    print(json.dumps({"figures": figures, "errors": errors}))


def bench(fn, warmup=25, rep=100):
    """Mean milliseconds of `fn` on the current stream, the L2 cache flushed
    before each run."""
    import torch

    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    fn()
    torch.cuda.synchronize()
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    for i in range(rep):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return sum(times[: rep // 2 + 1]) / (rep // 2 + 1)  # the faster half


def bench_in_turn(fns, rounds=3):
    """bench's milliseconds of each of `fns` (name -> callable or None),
    measured in `rounds` rounds that take them in turn, each round starting
    one further along; each gets its fastest round. No function is favoured
    by its place in the order (the clocks of a warm GPU drop). None for a
    None."""
    names = [name for name, fn in fns.items() if fn is not None]
    best = dict.fromkeys(fns)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            ms = bench(fns[name])
            best[name] = ms if best[name] is None else min(best[name], ms)
    return best


def report(name, unit, tessera, references):
    """One line: Tessera's figure, each reference's, and the ratios."""
    line = f"{name:<40} tessera {tessera:9.1f} {unit}"
    for ref, value in references.items():
        if value is not None:
            line += f" | {ref} {value:9.1f} {unit} (x{tessera / value:.2f})"
    print(line, flush=True)
