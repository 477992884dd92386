//===- Layouts.cpp - layouts by their text, for the explicit level --------===//

#include "frontend/Layouts.h"

#include "frontend/BuilderImpl.h"
#include "ir/Layout/ConversionPlan.h"
#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;

namespace {
/// Layouts are parsed into one context, under a lock.
std::mutex contextMutex;

MLIRContext &layoutContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registerKernelDialects(registry);
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *context;
}

/// The linear form of the layout `text` over `shape`.
LinearLayout linearOf(const std::string &text, ArrayRef<int64_t> shape,
                      bool *shared = nullptr) {
  Attribute layout = parseLayoutAttribute(text, &layoutContext());
  for (int64_t d : shape)
    if (d <= 0 || (d & (d - 1)))
      throw FrontendError("a layout's shape must hold powers of two");
  if (auto distributed = dyn_cast<DistributedLayoutAttrInterface>(layout)) {
    if (distributed.getRank() != shape.size())
      throw FrontendError("the layout " + text + " is for rank " +
                          std::to_string(distributed.getRank()) +
                          ", not for a shape of rank " +
                          std::to_string(shape.size()));
    if (shared)
      *shared = false;
    return distributed.toLinearLayout(shape);
  }
  if (auto sharedLayout = dyn_cast<SharedLayoutAttrInterface>(layout)) {
    if (shared)
      *shared = true;
    return sharedLayout.toLinearLayout(shape);
  }
  throw FrontendError(text + " is not a layout");
}
} // namespace

std::vector<DimBases>
frontend::linearLayoutBases(const std::string &layout,
                            const std::vector<int64_t> &shape) {
  std::lock_guard<std::mutex> lock(contextMutex);
  LinearLayout linear = linearOf(layout, shape);
  std::vector<DimBases> result;
  for (const LinearLayout::InDim &in : linear.getInDims())
    result.push_back({in.name, in.bases});
  return result;
}

int64_t frontend::bankConflicts(const std::string &layout,
                                const std::string &shared,
                                const std::vector<int64_t> &shape,
                                unsigned elementBitWidth) {
  std::lock_guard<std::mutex> lock(contextMutex);
  bool isShared = false;
  LinearLayout distributed = linearOf(layout, shape, &isShared);
  if (isShared)
    throw FrontendError(
        "bank_conflicts needs a distributed layout first, got " + layout);
  LinearLayout buffer = linearOf(shared, shape, &isShared);
  if (!isShared)
    throw FrontendError("bank_conflicts needs a shared layout second, got " +
                        shared);
  // Banks follow from a linear layout's offsets, which padding moves.
  if (!getSharedPadding(parseLayoutAttribute(shared, &layoutContext())).empty())
    throw FrontendError("bank_conflicts does not measure padded layouts (" +
                        shared + ")");
  BankTraffic traffic =
      measureBankTraffic(distributed, distributed, buffer, elementBitWidth);
  return traffic.storeWavefronts - traffic.idealStoreWavefronts;
}
