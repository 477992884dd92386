//===- NvidiaDialect.cpp - NVIDIA's layouts and ops -----------------------===//

#include "backends/nvidia/IR/NvidiaDialect.h"

#include "backends/nvidia/IR/MmaLayouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

#include "backends/nvidia/IR/NvidiaDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "backends/nvidia/IR/NvidiaAttrs.cpp.inc"

namespace {
/// Tensor-core layouts print once, as `#mma = #tile_nvidia.mma<...>`.
struct NvidiaOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (!isa<MmaLayoutAttr>(attr))
      return AliasResult::NoAlias;
    os << "mma";
    return AliasResult::OverridableAlias;
  }
};
} // namespace

void TileNvidiaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "backends/nvidia/IR/NvidiaAttrs.cpp.inc"
      >();
  addInterfaces<NvidiaOpAsmInterface>();
}

//===----------------------------------------------------------------------===//
// MmaLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned version, ArrayRef<unsigned> warpsPerCTA,
                      ArrayRef<unsigned> instrShape) {
  if (version != 2 && version != 3)
    return emitError() << "mma version " << version
                       << " is not supported (2: mma.sync, 3: wgmma)";
  if (warpsPerCTA.size() != 2 && warpsPerCTA.size() != 3)
    return emitError() << "an mma layout is for rank 2 or 3, got "
                       << warpsPerCTA.size() << " warpsPerCTA entries";
  for (unsigned w : warpsPerCTA)
    if (!llvm::isPowerOf2_32(w))
      return emitError() << "warpsPerCTA must hold powers of two, got " << w;
  if (version == 2) {
    if (instrShape != ArrayRef<unsigned>{16, 8})
      return emitError() << "mma version 2 computes [16, 8] tiles: "
                            "instrShape must be [16, 8]";
    return success();
  }
  if (warpsPerCTA.size() != 2 || warpsPerCTA[0] % 4 != 0)
    return emitError() << "mma version 3 is for rank 2 with whole "
                          "warpgroups along M: warpsPerCTA must be [4k, n]";
  if (instrShape.size() != 3 || instrShape[0] != 16 || instrShape[1] < 8 ||
      instrShape[1] > 256 || !llvm::isPowerOf2_32(instrShape[1]) ||
      !llvm::is_contained({8u, 16u, 32u}, instrShape[2]))
    return emitError() << "mma version 3 computes [16, N, K] tiles a warp "
                          "(N a power of two from 8 to 256, K 8, 16 or 32)";
  return success();
}

LogicalResult MmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != getRank())
    return emitError() << "layout " << *this << " is for rank " << getRank()
                       << " but the tensor has rank " << shape.size();
  return success();
}

LinearLayout MmaLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  if (getVersion() == 3)
    return mmaV3Layout(shape, getWarpsPerCTA(), getInstrShape()[1]);
  return mmaV2Layout(shape, getWarpsPerCTA());
}

LinearLayout MmaLayoutAttr::toDotOperandLinearLayout(ArrayRef<int64_t> shape,
                                                     unsigned opIdx,
                                                     unsigned kWidth) const {
  // wgmma takes A from registers; B always comes from shared memory, and
  // its registers are mma.sync's.
  if (getVersion() == 3 && opIdx == 0)
    return mmaV3OperandLayout(shape, getWarpsPerCTA(), std::max(1u, kWidth));
  return mmaV2OperandLayout(shape, getWarpsPerCTA(), opIdx,
                            std::max(1u, kWidth));
}

unsigned MmaLayoutAttr::getRank() const { return getWarpsPerCTA().size(); }
unsigned MmaLayoutAttr::getWarpSize() const { return 32; }
unsigned MmaLayoutAttr::getNumWarps() const {
  unsigned warps = 1;
  for (unsigned w : getWarpsPerCTA())
    warps *= w;
  return warps;
}
