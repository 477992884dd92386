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
            .Case<SwizzledSharedLayoutAttr, NVMMASharedLayoutAttr,
                  SharedLinearEncodingAttr, PaddedSharedLayoutAttr>(
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

int64_t MemDescType::getNumElements() const {
  int64_t elements = 1;
  for (int64_t size : getShape())
    elements *= size;
  return elements;
}

int64_t mlir::tile::getBufferBits(MemDescType type) {
  return getBufferElements(type) *
         int64_t(type.getElementType().getIntOrFloatBitWidth());
}

unsigned mlir::tile::getSharedLayoutRank(Attribute encoding) {
  if (auto swizzled = dyn_cast<SwizzledSharedLayoutAttr>(encoding))
    return swizzled.getOrder().size();
  if (auto linear = dyn_cast<SharedLinearEncodingAttr>(encoding))
    return linear.getLayout().getNumOutDims();
  if (auto padded = dyn_cast<PaddedSharedLayoutAttr>(encoding))
    return padded.getLayout().getNumOutDims();
  return 2;
}

int64_t mlir::tile::getTileSpan(MemDescType type) {
  int64_t elements = 1;
  for (int64_t size :
       type.getAllocShape().take_back(getSharedLayoutRank(type.getEncoding())))
    elements *= size;
  return getSharedPadding(type.getEncoding()).size(elements);
}

int64_t mlir::tile::getBufferElements(MemDescType type) {
  int64_t elements = getTileSpan(type);
  for (int64_t size :
       type.getShape().drop_back(getSharedLayoutRank(type.getEncoding())))
    elements *= size;
  return elements;
}

/// `!tile.memdesc<shape x type, encoding [, mutable] [, allocShape]>`.
Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape, allocShape;
  Type elementType;
  Attribute encoding;
  bool isMutable = false;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(encoding))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("mutable"))) {
      isMutable = true;
      continue;
    }
    if (parser.parseDimensionList(allocShape, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (allocShape.empty())
    allocShape = shape;
  return parser.getChecked<MemDescType>(parser.getContext(), shape,
                                        elementType, encoding, isMutable,
                                        allocShape);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << '<';
  for (int64_t size : getShape())
    printer << size << 'x';
  printer << getElementType() << ", " << getEncoding();
  if (getMutableMemory())
    printer << ", mutable";
  if (getAllocShape() != getShape()) {
    printer << ", ";
    llvm::interleave(getAllocShape(), printer, "x");
  }
  printer << '>';
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding, bool mutableMemory,
                                  ArrayRef<int64_t> allocShape) {
  if (shape.empty())
    return emitError() << "a shared-memory descriptor needs at least one "
                          "dimension";
  if (!isa<IntegerType, FloatType>(elementType))
    return emitError() << "shared memory holds integers or floats, got "
                       << elementType;
  if (!isa_and_nonnull<SharedLayoutAttrInterface>(encoding))
    return emitError() << "the encoding must be a shared-memory layout, got "
                       << encoding;
  if (allocShape.size() < shape.size())
    return emitError() << "the allocation (rank " << allocShape.size()
                       << ") cannot be of lower rank than the view (rank "
                       << shape.size() << ")";
  unsigned layoutRank = getSharedLayoutRank(encoding);
  if (shape.size() < layoutRank)
    return emitError() << "the view has " << shape.size()
                       << " dimensions, fewer than its layout's " << layoutRank;
  ArrayRef<int64_t> layoutShape = allocShape.take_back(shape.size());
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size <= 0 || layoutShape[d] <= 0)
      return emitError() << "dimensions must be positive";
    if (size > layoutShape[d])
      return emitError() << "dimension " << d << " of the view (" << size
                         << ") exceeds the allocation's (" << layoutShape[d]
                         << ")";
  }
  for (int64_t size : allocShape.take_back(layoutRank))
    if (!llvm::isPowerOf2_64(size))
      return emitError() << "the buffer's dimensions must be powers of two, "
                            "got "
                         << size;
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

llvm::Error mlir::tile::verifyTensorSize(ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t size : shape) {
    if (size < 1)
      return llvm::Error::success();
    if (elements > kMaxTensorElements / size) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "a tensor of shape ";
      llvm::interleave(shape, os, "x");
      os << " has more than " << kMaxTensorElements
         << " elements, the most a tensor may hold";
      return llvm::createStringError(text);
    }
    elements *= size;
  }
  return llvm::Error::success();
}

static LogicalResult checkPowerOfTwo(Operation *op, Type type, StringRef what,
                                     unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  if (llvm::Error error = verifyTensorSize(tensor.getShape()))
    return op->emitOpError()
           << what << " #" << index << ": " << llvm::toString(std::move(error));
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

LogicalResult mlir::tile::verifyTileTensors(Operation *root) {
  WalkResult result = root->walk([&](Operation *op) {
    for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
      if (failed(checkPowerOfTwo(op, type, "result", i)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (auto [i, type] : llvm::enumerate(block.getArgumentTypes()))
          if (failed(checkPowerOfTwo(op, type, "block argument", i)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
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
