//===- tessera-opt.cpp - mlir-opt for Tessera's dialects and passes -------===//

#include "ir/Tile/TileDialect.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::ub::UBDialect>();
  mlir::func::registerInlinerExtension(registry);

  // The generic passes the default pipeline uses, runnable on their own too.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerSymbolDCEPass();
  mlir::registerSCCPPass();
  mlir::tile::registerTransformsPasses();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Tessera optimizer driver: tile dialect passes\n", registry));
}
