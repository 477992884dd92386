//===- Stages.cpp - the backend stages, on IR text ------------------------===//

#include "backends/common/Stages.h"

#include "backends/common/Passes.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

std::string mlir::tile::assignLayouts(const std::string &tileIR,
                                      unsigned numWarps, unsigned warpSize) {
  DialectRegistry registry;
  registerKernelDialects(registry);
  MLIRContext context(registry);
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(messages);
    os << diag.getLocation() << ": " << diag.str() << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(tileIR, &context);
  if (!module)
    throw StageError("cannot parse the kernel's IR:\n" + messages);
  PassManager pm(&context);
  pm.addPass(createTileAssignLayoutsPass({numWarps, warpSize}));
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    throw StageError("layout assignment failed:\n" + messages);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}
