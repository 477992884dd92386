"""The explicit level (tessera.experimental.gluon) on the GPU, each figure
beside its references from the same run:

- memcpy (examples/gluon/memcpy.py), the best of its XBLOCKs, in GB/s
  against torch's Tensor.copy_ (the issue's bar: at least 0.9 of it);
- the 2-D copy of examples/gluon/layouts.py in its row-major and
  column-major layouts, which is what a layout choice costs;
- the mma_v2 matmul (examples/gluon/matmul_mma_v2.py), fp16 4096^3, the
  best of a few tiles, against the Triton-level matmul (examples/python/
  matmul.py) compiled for mma.sync (TESSERA_DISABLE_MMA_V3), and cuBLAS.

Upstream Triton's Gluon, where installed, runs the same example sources
with only their imports changed, as a reference for each.

    python3 bench/gluon.py                 # all three
    python3 bench/gluon.py matmul          # one (memcpy, layouts, matmul)
"""

import importlib.util
import os
import sys
import tempfile

from common import bench, bench_in_turn, report

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


def example(name, dsl="tessera", folder="gluon"):
    """An example's module, under Tessera or, with its imports changed,
    upstream Triton (None where that is not installed)."""
    path = os.path.join(ROOT, folder, f"{name}.py")
    if dsl == "triton":
        try:
            import triton.experimental.gluon  # noqa: F401
        except ImportError:
            return None
        with open(path) as f:
            source = f.read().replace("tessera", "triton")
        path = os.path.join(tempfile.mkdtemp(), f"{name}_triton.py")
        with open(path, "w") as f:
            f.write(source)
    spec = importlib.util.spec_from_file_location(f"{name}_{dsl}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gbps(nbytes, ms):
    return nbytes / ms / 1e6


def memcpy_figures(torch):
    n = 1 << 28  # 1 GiB of float32
    x = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    figures = {}
    for dsl in ("tessera", "triton"):
        module = example("memcpy", dsl)
        if module is None:
            continue
        best = None
        for xblock in (1024, 2048, 4096, 8192, 16384):
            def run(module=module, xblock=xblock):
                module.memcpy_kernel[(n // xblock,)](x, y, n, xblock, num_warps=4)
            ms = bench(run)
            best = ms if best is None else min(best, ms)
            print(f"#   {dsl} memcpy XBLOCK={xblock}: {gbps(2 * 4 * n, ms):.0f} GB/s", flush=True)
        assert torch.equal(x, y)
        figures[dsl] = gbps(2 * 4 * n, best)
    figures["torch"] = gbps(2 * 4 * n, bench(lambda: y.copy_(x)))
    report("gluon memcpy 1 GiB, best XBLOCK", "GB/s", figures["tessera"],
           {"torch copy_": figures["torch"], "triton gluon": figures.get("triton")})


def layout_figures(torch):
    M, N = 16384, 4096
    x = torch.rand((M, N), device="cuda")
    y = torch.empty_like(x)
    for dsl in ("tessera", "triton"):
        module = example("layouts", dsl)
        if module is None:
            continue
        for name in ("row_major", "column_major"):
            layout = getattr(module, name)(32, 4)
            def run(layout=layout):
                module.copy_2d_kernel[(M // 32,)](x, y, 32, N, layout, num_warps=4)
            ms = bench(run)
            assert torch.equal(x, y)
            print(f"gluon 2-D copy, {name:<12} {dsl:<8} {gbps(2 * 4 * M * N, ms):9.1f} GB/s",
                  flush=True)


def matmul_figures(torch):
    import tessera
    M = N = K = 4096
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    flops = 2 * M * N * K
    # Each candidate's best tile, then the winners timed again in turn (the
    # GPU's clocks drift over a long sweep).
    best = {}

    def consider(name, label, run):
        ms = bench(run)
        print(f"#   {name} {label}: {flops / ms / 1e9:.1f} TFLOP/s", flush=True)
        if name not in best or ms < best[name][0]:
            best[name] = (ms, run)

    tiles = [(128, 128, 32, 3, 4), (128, 128, 32, 4, 4), (128, 128, 64, 3, 8),
             (128, 256, 32, 3, 8)]
    for dsl in ("tessera", "triton"):
        module = example("matmul_mma_v2", dsl)
        if module is None:
            continue
        for bm, bn, bk, stages, warps in tiles:
            def run(module=module, bm=bm, bn=bn, bk=bk, stages=stages, warps=warps):
                return module.matmul(a, b, bm, bn, bk, stages, warps)
            try:
                torch.testing.assert_close(run(), a @ b, atol=0.5, rtol=0.05)
            except Exception as e:  # a tile that does not fit: reported, skipped
                print(f"#   {dsl} mma_v2 {bm}x{bn}x{bk}: {str(e).splitlines()[0]}")
                continue
            consider(f"{dsl} gluon", f"mma_v2 {bm}x{bn}x{bk} s{stages} w{warps}", run)
    # The Triton-level kernel of examples/python/matmul.py on mma.sync.
    level = example("matmul", folder="python")
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    configs = [(128, 128, 32, 4, 3), (128, 128, 32, 4, 4), (128, 256, 32, 8, 3),
               (128, 128, 64, 8, 3)]
    with tessera.knobs.nvidia.scope():
        tessera.knobs.nvidia.disable_mma_v3 = True
        for bm, bn, bk, warps, stages in configs:
            def run(bm=bm, bn=bn, bk=bk, warps=warps, stages=stages):
                grid = (tessera.cdiv(M, bm) * tessera.cdiv(N, bn),)
                level.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                          b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                          bm, bn, bk, 8, num_warps=warps, num_stages=stages)
            consider("tessera tl.dot", f"mma.sync {bm}x{bn}x{bk} w{warps} s{stages}", run)
        timed = bench_in_turn({name: run for name, (_, run) in best.items()} |
                              {"cuBLAS": lambda: a @ b})
    figures = {name: flops / ms / 1e9 for name, ms in timed.items()}
    report("gluon mma_v2 matmul fp16 4096^3", "TFLOP/s", figures["tessera gluon"],
           {"tessera tl.dot on mma.sync": figures["tessera tl.dot"],
            "cuBLAS": figures["cuBLAS"], "triton gluon": figures.get("triton gluon")})


def main():
    try:
        import torch
    except ImportError:
        sys.exit("bench/gluon.py needs torch and a CUDA GPU")
    if not torch.cuda.is_available():
        sys.exit("bench/gluon.py needs a CUDA GPU")
    parts = {"memcpy": memcpy_figures, "layouts": layout_figures, "matmul": matmul_figures}
    chosen = sys.argv[1:] or list(parts)
    for name in chosen:
        if name not in parts:
            sys.exit(f"bench/gluon.py: unknown part {name!r} (expected {', '.join(parts)})")
        parts[name](torch)


if __name__ == "__main__":
    main()
