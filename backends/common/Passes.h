//===- Passes.h - passes shared by the GPU backends -----------------------===//

#ifndef TESSERA_BACKENDS_COMMON_PASSES_H
#define TESSERA_BACKENDS_COMMON_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "backends/common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/common/Passes.h.inc"

/// The layout stage every backend runs: tile-assign-layouts for `numWarps`
/// warps of `warpSize` lanes, then canonicalize and cse.
LogicalResult runLayoutStage(ModuleOp module, unsigned numWarps,
                             unsigned warpSize);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_PASSES_H
