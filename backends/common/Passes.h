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
/// warps of `warpSize` lanes; then the backend's matrix-unit passes, which
/// give dots the layouts of its matrix units, and tile-remove-conversions
/// after them; then canonicalize, cse and loop-invariant code motion; then,
/// where `numStages` is not 0 (a backend that pipelines loads), tile-pipeline
/// with that default depth (loops that feed dots get async copies into that
/// many buffers; a loop's own tile.num_stages wins); last the backend's
/// `addLatePasses`.
LogicalResult runLayoutStage(
    ModuleOp module, unsigned numWarps, unsigned warpSize,
    llvm::function_ref<void(OpPassManager &)> addMatrixUnitPasses = {},
    unsigned numStages = 0,
    llvm::function_ref<void(OpPassManager &)> addLatePasses = {});

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_PASSES_H
