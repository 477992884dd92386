//===- AmdDialect.cpp - AMD's layouts -------------------------------------===//

#include "backends/amd/IR/AmdDialect.h"

#include "backends/amd/IR/MfmaLayouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

#include "backends/amd/IR/AmdDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "backends/amd/IR/AmdAttrs.cpp.inc"

namespace {
/// Matrix-core layouts print once, as `#mfma = #tile_amd.mfma<...>`.
struct AmdOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<MfmaLayoutAttr>(attr))
      os << "mfma";
    else if (isa<WmmaLayoutAttr>(attr))
      os << "wmma";
    else
      return AliasResult::NoAlias;
    return AliasResult::OverridableAlias;
  }
};
} // namespace

void TileAmdDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "backends/amd/IR/AmdAttrs.cpp.inc"
      >();
  addInterfaces<AmdOpAsmInterface>();
}

namespace {
/// Waves in a block of `warpsPerCTA`.
unsigned countWarps(ArrayRef<unsigned> warpsPerCTA) {
  unsigned warps = 1;
  for (unsigned w : warpsPerCTA)
    warps *= w;
  return warps;
}

/// The rank and warps checks the AMD layouts share.
LogicalResult verifyWarps(function_ref<InFlightDiagnostic()> emitError,
                          StringRef name, ArrayRef<unsigned> warpsPerCTA) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "an " << name << " layout is for rank 2, got "
                       << warpsPerCTA.size() << " warpsPerCTA entries";
  for (unsigned w : warpsPerCTA)
    if (!llvm::isPowerOf2_32(w))
      return emitError() << "warpsPerCTA must hold powers of two, got " << w;
  return success();
}

LogicalResult verifyRank(function_ref<InFlightDiagnostic()> emitError,
                         Attribute layout, unsigned rank,
                         ArrayRef<int64_t> shape) {
  if (shape.size() != rank)
    return emitError() << "layout " << layout << " is for rank " << rank
                       << " but the tensor has rank " << shape.size();
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// MfmaLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
MfmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned version, ArrayRef<unsigned> warpsPerCTA,
                       ArrayRef<unsigned> instrShape, bool) {
  if (version < 2 || version > 4)
    return emitError() << "mfma version " << version
                       << " is not supported (2: gfx90a, 3: gfx942, 4: gfx950)";
  if (failed(verifyWarps(emitError, "mfma", warpsPerCTA)))
    return failure();
  if (instrShape.size() != 3 || instrShape[0] != instrShape[1] ||
      (instrShape[0] != 32 && instrShape[0] != 16) ||
      !llvm::isPowerOf2_32(instrShape[2]) || instrShape[2] < 4 ||
      instrShape[2] > 64)
    return emitError() << "mfma computes [32, 32, K] or [16, 16, K] tiles "
                          "(K a power of two from 4 to 64)";
  return success();
}

LogicalResult MfmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getRank(), shape);
}

LinearLayout MfmaLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return mfmaLayout(shape, getWarpsPerCTA(), getInstrShape()[0],
                    getIsTransposed());
}

LinearLayout MfmaLayoutAttr::toDotOperandLinearLayout(ArrayRef<int64_t> shape,
                                                      unsigned opIdx,
                                                      unsigned kWidth) const {
  return mfmaOperandLayout(shape, getWarpsPerCTA(), getInstrShape()[0], opIdx,
                           std::max(1u, kWidth));
}

unsigned MfmaLayoutAttr::getRank() const { return getWarpsPerCTA().size(); }
unsigned MfmaLayoutAttr::getWarpSize() const { return 64; }
unsigned MfmaLayoutAttr::getNumWarps() const {
  return countWarps(getWarpsPerCTA());
}

//===----------------------------------------------------------------------===//
// WmmaLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
WmmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned version, ArrayRef<unsigned> warpsPerCTA) {
  if (version != 1 && version != 2)
    return emitError() << "wmma version " << version
                       << " is not supported (1: gfx11, 2: gfx12)";
  return verifyWarps(emitError, "wmma", warpsPerCTA);
}

LogicalResult WmmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getRank(), shape);
}

LinearLayout WmmaLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return wmmaLayout(shape, getWarpsPerCTA(), getVersion());
}

LinearLayout WmmaLayoutAttr::toDotOperandLinearLayout(ArrayRef<int64_t> shape,
                                                      unsigned opIdx,
                                                      unsigned) const {
  return wmmaOperandLayout(shape, getWarpsPerCTA(), getVersion(), opIdx);
}

unsigned WmmaLayoutAttr::getRank() const { return getWarpsPerCTA().size(); }
unsigned WmmaLayoutAttr::getWarpSize() const { return 32; }
unsigned WmmaLayoutAttr::getNumWarps() const {
  return countWarps(getWarpsPerCTA());
}

SmallVector<unsigned> mlir::tile::amd::mfmaKWidths(unsigned version,
                                                   Type element) {
  bool ocpFp8 = isa<Float8E4M3FNType, Float8E5M2Type>(element);
  bool fnuzFp8 = isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(element);
  if (element.isF16() || element.isBF16())
    return version == 4 ? SmallVector<unsigned>{8, 4}
                        : SmallVector<unsigned>{4};
  if (element.isInteger(8))
    return version == 4   ? SmallVector<unsigned>{16, 8}
           : version == 3 ? SmallVector<unsigned>{8}
                          : SmallVector<unsigned>{4};
  if ((ocpFp8 && version == 4) || (fnuzFp8 && version == 3))
    return {8};
  if (element.isF32() && version == 3)
    return {2};
  return {};
}

unsigned mlir::tile::amd::wmmaKWidth(unsigned version, Type element) {
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(element);
  if (element.isF16() || element.isBF16() || element.isInteger(8) ||
      (fp8 && version == 2))
    return version == 1 ? 16 : 8;
  return 0;
}
