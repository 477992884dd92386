//===- tessera-opt.cpp - mlir-opt for Tessera's dialects and passes -------===//

#include "backends/amd/AmdTargetInfo.h"
#include "backends/common/Passes.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "backends/nvidia/NvidiaTargetInfo.h"
#include "ir/Tile/KernelDialects.h"
#include "transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerKernelDialects(registry);
  registry.insert<mlir::tile::nvidia::TileNvidiaDialect>();

  // The generic passes the default pipeline uses, runnable on their own too.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerSymbolDCEPass();
  mlir::registerSCCPPass();
  mlir::tile::registerTransformsPasses();
  mlir::tile::registerBackendCommonPasses();
  mlir::tile::registerNvidiaPasses();
  mlir::tile::registerAmdPasses();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Tessera optimizer driver: tile dialect passes\n", registry));
}
