//===- TestPrintAxisInfo.cpp - report the axis analysis as remarks --------===//

#include "ir/Tile/TileDialect.h"
#include "transforms/AxisInfo.h"
#include "transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "test-print-axis-info"

namespace mlir::tile {
#define GEN_PASS_DEF_TESTPRINTAXISINFOPASS
#include "transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
bool isAnalysed(Value value) {
  return isa<IntegerType, IndexType, PointerType>(
      getElementTypeOrSelf(value.getType()));
}

std::string describe(const AxisInfoAnalysis &analysis, Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (const AxisInfo *info = analysis.lookup(value))
    info->print(os);
  else
    os << "<unknown>";
  return text;
}

struct TestPrintAxisInfoPass
    : public mlir::tile::impl::TestPrintAxisInfoPassBase<
          TestPrintAxisInfoPass> {
  void runOnOperation() override {
    AxisInfoAnalysis analysis(getOperation());
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isAnalysed(arg))
              op->emitRemark() << "arg " << arg.getArgNumber() << ": "
                               << describe(analysis, arg);
      for (OpResult result : op->getResults()) {
        if (!isAnalysed(result))
          continue;
        InFlightDiagnostic remark = op->emitRemark();
        if (op->getNumResults() > 1)
          remark << "result " << result.getResultNumber() << ": ";
        remark << describe(analysis, result);
      }
    });
  }
};
} // namespace
