//===- KernelDialects.cpp - the dialects a kernel in tile IR uses ---------===//

#include "ir/Tile/KernelDialects.h"

#include "ir/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

void mlir::tile::registerKernelDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  ub::UBDialect>();
  func::registerInlinerExtension(registry);
}
