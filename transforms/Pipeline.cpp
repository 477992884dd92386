//===- Pipeline.cpp - the default target-independent pipeline -------------===//

#include "transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tile {
#define GEN_PASS_REGISTRATION
#include "transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

void mlir::tile::buildDefaultPipeline(OpPassManager &pm) {
  // Inline without the inliner's own simplification pipeline: the passes
  // below do that once, for the whole module.
  pm.addPass(
      createInlinerPass(/*opPipelines=*/{},
                        /*defaultPipelineBuilder=*/[](OpPassManager &) {}));
  pm.addPass(createTileCombinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createTileFuseNestedLoopsPass());
  pm.addPass(createSymbolDCEPass());
}

void mlir::tile::registerTransformsPasses() {
  registerTilePasses();
  PassPipelineRegistration<>(
      "tile-default-pipeline",
      "the target-independent pipeline: inline, tile-combine, canonicalize, "
      "cse, loop-invariant-code-motion, tile-fuse-nested-loops, symbol-dce",
      buildDefaultPipeline);
}
