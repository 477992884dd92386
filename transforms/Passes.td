//===- Passes.td - target-independent passes on tile IR -----*- tablegen -*-===//

#ifndef TESSERA_TRANSFORMS_PASSES_TD
#define TESSERA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileCombinePass : Pass<"tile-combine"> {
  let summary = "fold tile ops and combine them into cheaper forms";
  let description = [{
    Applies the folds and canonicalizations of every tile op (splat of a
    constant, shape ops of splats, identity broadcasts and transposes, zero
    pointer offsets, loads and stores with constant masks) together with
    algebraic combinations that span several ops:

    - `dot(a, b, 0) + c -> dot(a, b, c)` when the dot has no other use;
    - `select(m, load(p, m), o) -> load(p, m, o)`: the select's work is the
      load's `other`;
    - `addptr(addptr(p, a), b) -> addptr(p, a + b)`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileLowerDescriptorsPass : Pass<"tile-lower-descriptors"> {
  let summary = "turn tensor-descriptor block accesses into masked memory ops";
  let description = [{
    Rewrites `tile.descriptor_load`, `tile.descriptor_store` and
    `tile.descriptor_reduce` into `tile.load`, `tile.store` and
    `tile.atomic_rmw` of a tensor of pointers `base + sum(i_d * stride_d)`,
    masked by `0 <= i_d < shape_d` along the checked dimensions; masked-off
    loads give the descriptor's padding (zero or NaN). Loads marked
    `tile.bulk_copy` (a target copies them itself) stay. Descriptors nothing
    uses any more are erased.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileFuseNestedLoopsPass : Pass<"tile-fuse-nested-loops"> {
  let summary = "fuse a loop marked tile.flatten with the loop inside it";
  let description = [{
    Rewrites an `scf.for` marked `tile.flatten` (`tl.range(...,
    flatten=True)`) whose body holds one `scf.for`, with bounds computed
    outside it and only ops without memory effects before it, as one loop
    over both: `t` in `[0, outer trips * inner trips)`, carrying the inner
    index (`t % inner trips`) and the outer induction variable. The ops before the inner loop (the prologue) run in
    an `scf.if` where a tile starts, their values carried to the other
    iterations; the inner loop's carried values restart from their initial
    values there (`arith.select`); the ops after it (the epilogue) run in an
    `scf.if` where a tile ends. Where the inner loop would run no times, an
    `scf.if` takes the original loop instead, without the inner one. The
    fused loop keeps `tile.flatten` and the outer loop's `tile.num_stages`
    (else the inner one's). Other marked loops lose the mark.

    A persistent matmul so becomes one loop the pipeliner runs across its
    tiles: the next tile's copies are in flight during this one's epilogue.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TestPrintAxisInfoPass : Pass<"test-print-axis-info"> {
  let summary = "report the axis analysis of every integer and pointer value";
  let description = [{
    Runs the axis analysis and attaches a remark to each op with an integer
    or pointer result (and to each op whose regions have such arguments)
    giving, per dimension, its contiguity, divisibility and constancy, and
    its constant value when known. For lit tests with `-verify-diagnostics`.
  }];
}

#endif // TESSERA_TRANSFORMS_PASSES_TD
