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

#include <mutex>
#include <vector>

namespace {
std::mutex extensionsMutex;
std::vector<void (*)(mlir::DialectRegistry &)> &extensions() {
  static std::vector<void (*)(mlir::DialectRegistry &)> list;
  return list;
}
} // namespace

void mlir::tile::addKernelDialects(void (*extension)(DialectRegistry &)) {
  std::lock_guard<std::mutex> lock(extensionsMutex);
  if (!llvm::is_contained(extensions(), extension))
    extensions().push_back(extension);
}

void mlir::tile::registerKernelDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  ub::UBDialect>();
  func::registerInlinerExtension(registry);
  std::lock_guard<std::mutex> lock(extensionsMutex);
  for (auto extension : extensions())
    extension(registry);
}
