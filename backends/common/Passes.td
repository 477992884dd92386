//===- Passes.td - passes shared by the GPU backends --------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_COMMON_PASSES_TD
#define TESSERA_BACKENDS_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayoutsPass : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "give every tensor a layout, coalescing memory accesses";
  let description = [{
    Gives every tensor of the module a distributed layout for `num-warps`
    warps of `warp-size` lanes (taken from the module's `tile.num_warps` and
    `tile.warp_size` when set there, and recorded on it):

    - loads, stores and atomics get a blocked layout coalesced from the axis
      analysis: the most contiguous dimension fastest, 16-byte vectors where
      contiguity and alignment allow;
    - elementwise ops take the layout of their first tensor operand, splats,
      ranges and constants a default blocked layout;
    - a reduction's results are slices of its operand's layout, an
      expand_dims' operand a slice of its result's, a dot's operands
      dot_operand layouts of its result's;
    - values carried by loops and produced by branches keep one layout.

    Where an operand is not in the layout its op needs, a
    `tile.convert_layout` is inserted; canonicalisation removes those of
    splats and constants.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "warps per block (when the module does not say)">,
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "lanes per warp (when the module does not say)">,
  ];
}

def TileRemoveConversionsPass
    : Pass<"tile-remove-conversions", "::mlir::ModuleOp"> {
  let summary = "move layout conversions to where they cost least";
  let description = [{
    What tile-assign-layouts does after giving layouts, for passes that
    change layouts later (a backend's matrix-unit stage): a
    `tile.convert_layout` of an elementwise op, a broadcast or an
    expand_dims becomes the op on converted operands, so converts climb to
    the values that really need moving and vanish at splats, ranges and
    constants; a reduction to scalars reads its operand before the convert;
    and a tensor carried by a loop moves to the layout its update is
    computed in, so that the loop converts once before and after it rather
    than every iteration.
  }];
}

#endif // TESSERA_BACKENDS_COMMON_PASSES_TD
