//===- Passes.h - target-independent passes on tile IR --------------------===//

#ifndef TESSERA_TRANSFORMS_PASSES_H
#define TESSERA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace tile {

#define GEN_PASS_DECL
#include "transforms/Passes.h.inc"

/// Adds tile-combine's cross-op patterns (not the ops' own canonicalizations).
void populateTileCombinePatterns(RewritePatternSet &patterns);

/// The default target-independent pipeline, run on a module before a backend
/// takes over: inline helpers into kernels, combine, canonicalize, CSE, hoist
/// loop invariants, fuse the loop nests marked tile.flatten, and drop
/// functions nothing calls any more.
void buildDefaultPipeline(OpPassManager &pm);

/// Registers every pass above and the `tile-default-pipeline` pipeline.
void registerTransformsPasses();

} // namespace tile
} // namespace mlir

#endif // TESSERA_TRANSFORMS_PASSES_H
