//===- Stages.cpp - the backend stages, on IR text ------------------------===//

#include "backends/common/Stages.h"

#include "backends/common/Diagnostics.h"
#include "backends/common/Passes.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

std::string mlir::tile::assignLayouts(const std::string &tileIR,
                                      unsigned numWarps, unsigned warpSize) {
  DialectRegistry registry;
  registerKernelDialects(registry);
  MLIRContext context(registry);
  tile::DiagnosticCollector diagnostics(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(tileIR, &context);
  if (!module)
    throw StageError("cannot parse the kernel's IR:\n" + diagnostics.text());
  LayoutStage stage;
  stage.numWarps = numWarps;
  stage.warpSize = warpSize;
  if (failed(runLayoutStage(*module, stage)))
    throw StageError("layout assignment failed:\n" + diagnostics.text());
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// A location as compilers print it (`file:line:col`), for the kernel's
/// source lines; others as MLIR prints them.
static void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return;
  }
  os << loc;
}

void mlir::tile::DiagnosticCollector::collect(Diagnostic &diag) {
  llvm::raw_string_ostream os(messages);
  printLocation(os, diag.getLocation());
  os << ": " << diag.str() << "\n";
  for (const Diagnostic &note : diag.getNotes()) {
    // The op a pass failed on, in generic form: noise for a kernel's author.
    if (StringRef(note.str()).starts_with("see current operation"))
      continue;
    printLocation(os, note.getLocation());
    os << ": note: " << note.str() << "\n";
  }
}
