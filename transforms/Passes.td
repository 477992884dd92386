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
