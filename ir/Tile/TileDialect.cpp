//===- TileDialect.cpp - the tile dialect, its types and enums -----------===//

#include "ir/Tile/TileDialect.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

#include "ir/Tile/TileDialect.cpp.inc"
#include "ir/Tile/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ir/Tile/TileTypes.cpp.inc"

namespace {
/// Layouts print once, as `#blocked = #tile.blocked<...>` aliases at the top,
/// and by name where used.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    StringRef name =
        llvm::TypeSwitch<Attribute, StringRef>(attr)
            .Case<BlockedLayoutAttr>([](auto) { return "blocked"; })
            .Case<SliceLayoutAttr>([](auto) { return "slice"; })
            .Case<LinearEncodingAttr>([](auto) { return "linear"; })
            .Case<DotOperandLayoutAttr>([](auto) { return "dot_op"; })
            .Case<SwizzledSharedLayoutAttr, NVMMASharedLayoutAttr>(
                [](auto) { return "shared"; })
            .Default([](Attribute) { return StringRef(); });
    if (name.empty())
      return AliasResult::NoAlias;
    os << name;
    return AliasResult::OverridableAlias;
  }
};

/// Every tile op may be inlined: none refers to its enclosing function.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TileDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "ir/Tile/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface, TileOpAsmInterface>();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ir/Tile/TileTypes.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, int addressSpace) {
  if (!isa<IntegerType, FloatType, PointerType>(pointeeType))
    return emitError() << "pointee must be an integer, a float or a pointer, "
                          "got "
                       << pointeeType;
  if (addressSpace < 0)
    return emitError() << "address space must be non-negative, got "
                       << addressSpace;
  return success();
}

Type mlir::tile::getSameShapeAs(Type like, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), elementType,
                                 tensor.getEncoding());
  return elementType;
}

Type mlir::tile::getPointeeType(Type type) {
  auto ptr = dyn_cast<PointerType>(getElementTypeOrSelf(type));
  if (!ptr)
    return {};
  return getSameShapeAs(type, ptr.getPointeeType());
}

Type mlir::tile::getI1SameShape(Type type) {
  return getSameShapeAs(type, IntegerType::get(type.getContext(), 1));
}

static LogicalResult checkPowerOfTwo(Operation *op, Type type, StringRef what,
                                     unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  for (auto [dim, size] : llvm::enumerate(tensor.getShape())) {
    if (ShapedType::isDynamic(size))
      return op->emitOpError()
             << what << " #" << index << " has a dynamic "
             << "dimension " << dim << "; tile tensors have static shapes";
    if (!llvm::isPowerOf2_64(size))
      return op->emitOpError()
             << what << " #" << index << " has dimension " << dim << " of size "
             << size << ", which is not a power of two";
  }
  return success();
}

LogicalResult mlir::tile::OpTrait::verifyPowerOfTwoShapes(Operation *op) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(checkPowerOfTwo(op, type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(checkPowerOfTwo(op, type, "result", i)))
      return failure();
  return success();
}
