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

#define GET_OP_CLASSES
#include "backends/nvidia/IR/NvidiaOps.cpp.inc"

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
  addOperations<
#define GET_OP_LIST
#include "backends/nvidia/IR/NvidiaOps.cpp.inc"
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

//===----------------------------------------------------------------------===//
// WarpGroupDotOp
//===----------------------------------------------------------------------===//

LogicalResult WarpGroupDotOp::verify() {
  auto c = getC().getType();
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(c.getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError() << "the accumulator must have a version-3 "
                            "#tile_nvidia.mma layout, got "
                         << c;
  auto aMemory = dyn_cast<MemDescType>(getA().getType());
  auto aTensor = dyn_cast<RankedTensorType>(getA().getType());
  auto bMemory = cast<MemDescType>(getB().getType());
  ArrayRef<int64_t> a = aMemory ? aMemory.getShape() : aTensor.getShape();
  ArrayRef<int64_t> b = bMemory.getShape();
  if (a.size() != 2 || b.size() != 2 || c.getRank() != 2)
    return emitOpError() << "operands must be 2-D";
  if (a[1] != b[0] || c.getShape()[0] != a[0] || c.getShape()[1] != b[1])
    return emitOpError() << "a is " << a[0] << "x" << a[1] << ", b " << b[0]
                         << "x" << b[1] << " and c " << c.getShape()[0] << "x"
                         << c.getShape()[1] << ": they do not multiply";
  Type aElem =
      aMemory ? aMemory.getElementType() : aTensor.getElementType();
  Type bElem = bMemory.getElementType(), cElem = c.getElementType();
  auto isFloat8 = llvm::IsaPred<Float8E4M3FNType, Float8E5M2Type>;
  if (aElem != bElem && !(isFloat8(aElem) && isFloat8(bElem)))
    return emitOpError() << "a and b have different element types " << aElem
                         << " and " << bElem;
  if (!(cElem.isF32() || cElem.isInteger(32) ||
        (cElem.isF16() && aElem.isF16())) ||
      isa<IntegerType>(aElem) != isa<IntegerType>(cElem))
    return emitOpError() << "the accumulator must be f32 (i32 for integer "
                            "inputs, f16 or f32 for f16 inputs), got "
                         << cElem;
  if (aElem.isF32() && getPrecision() != InputPrecision::tf32)
    return emitOpError() << "fp32 inputs are multiplied as tf32: precision "
                            "must be tf32";
  bool sixteenBit = aElem.getIntOrFloatBitWidth() == 16;
  // A is MxK, B KxN; the contiguous dimension of a K-major operand is K.
  auto checkShared = [&](MemDescType type, StringRef name,
                         bool kIsDimZero) -> LogicalResult {
    auto nvmma = dyn_cast<NVMMASharedLayoutAttr>(type.getEncoding());
    if (!nvmma || nvmma.getSwizzlingByteWidth() < 32)
      return emitOpError() << name
                           << " must be in a #tile.nvmma_shared layout with a "
                              "32, 64 or 128-byte swizzle, got "
                           << type;
    bool kMajor = nvmma.getTransposed() == kIsDimZero;
    if (!kMajor && !sixteenBit)
      return emitOpError() << name << ": " << aElem
                           << " operands must have K contiguous";
    return success();
  };
  if (aMemory) {
    if (failed(checkShared(aMemory, "a", false)))
      return failure();
  } else {
    auto layout =
        dyn_cast_if_present<DotOperandLayoutAttr>(aTensor.getEncoding());
    if (!layout || layout.getOpIdx() != 0 || layout.getParent() != mma)
      return emitOpError() << "a in registers must have the "
                              "#tile.dot_operand layout of operand 0 of "
                           << mma;
  }
  return checkShared(bMemory, "b", true);
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA
//===----------------------------------------------------------------------===//

bool mlir::tile::nvidia::isBarrier(Type type) {
  auto memory = dyn_cast<MemDescType>(type);
  return memory && memory.getShape() == ArrayRef<int64_t>{1} &&
         memory.getElementType().isInteger(64);
}

/// A TMA copy's box: `coords` address it, and its buffer is in the NVMMA
/// layout whose swizzle the tensor map applies.
static LogicalResult verifyTmaBox(Operation *op, MemDescType buffer,
                                  size_t coords) {
  if (buffer.getRank() < 1 || buffer.getRank() > 5)
    return op->emitOpError() << "TMA copies boxes of 1 to 5 dimensions, got "
                             << buffer;
  if (coords != buffer.getRank())
    return op->emitOpError() << "needs " << buffer.getRank()
                             << " coordinates, got " << coords;
  if (!isa<NVMMASharedLayoutAttr>(buffer.getEncoding()))
    return op->emitOpError() << "the buffer must be in a #tile.nvmma_shared "
                                "layout, got "
                             << buffer;
  return success();
}

LogicalResult AsyncTmaCopyGlobalToLocalOp::verify() {
  if (!getResult().getType().getMutableMemory())
    return emitOpError() << "writes an immutable buffer";
  return verifyTmaBox(*this, getResult().getType(), getCoords().size());
}

LogicalResult AsyncTmaCopyLocalToGlobalOp::verify() {
  return verifyTmaBox(*this, getSrc().getType(), getCoords().size());
}
