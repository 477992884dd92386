//===- TileOps.cpp - verifiers, folders and canonicalizations of tile ops -===//

#include "ir/Tile/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_OP_CLASSES
#include "ir/Tile/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The shape of a value's type: empty for a scalar.
static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// A splat constant reshaped to `type`, or null when `value` is not one.
static Attribute reshapeSplatConstant(Attribute value, Type type) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(value);
  auto shaped = dyn_cast<ShapedType>(type);
  if (!splat || !shaped)
    return {};
  return SplatElementsAttr::get(shaped, splat.getSplatValue<Attribute>());
}

/// Folds an op that only changes the shape of `src`: to `src` when the type
/// is unchanged, to a constant when `src` is a splat constant.
static OpFoldResult foldShapeOp(Value src, Attribute srcConstant,
                                Type resultType) {
  if (src.getType() == resultType)
    return src;
  return reshapeSplatConstant(srcConstant, resultType);
}

/// Checks that a result has the shape the op's semantics give it.
static LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> shape,
                                       ArrayRef<int64_t> expected) {
  if (shape == expected)
    return success();
  return op->emitOpError() << "result shape " << shapeStr(shape)
                           << " should be " << shapeStr(expected);
}

namespace {
/// A shape-only op of a splat is a splat of the new shape:
/// `op(splat x) -> splat x`.
template <typename OpTy> struct ShapeOpOfSplat : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// Two shape-only ops of one kind in a row are one:
/// `op(op x) -> op x` (for broadcast and reshape).
template <typename OpTy>
struct ShapeOpOfSameOp : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().template getDefiningOp<OpTy>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getSrcMutable().assign(inner.getSrc());
      if constexpr (std::is_same_v<OpTy, ReshapeOp>)
        op.setAllowReorder(op.getAllowReorder() || inner.getAllowReorder());
    });
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// MakeRangeOp
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError() << "result must be 1-D, got rank " << type.getRank();
  int64_t start = getStart(), end = getEnd();
  if (start >= end)
    return emitOpError() << "start " << start << " must be less than end "
                         << end;
  if (end - start != type.getDimSize(0))
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range [" << start << ", " << end
                         << ") has " << end - start;
  return success();
}

//===----------------------------------------------------------------------===//
// SplatOp
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto value = adaptor.getSrc();
  if (!isa_and_present<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  auto resShape = getType().getShape();
  if (srcShape.size() != resShape.size())
    return emitOpError() << "operand of rank " << srcShape.size()
                         << " cannot broadcast to rank " << resShape.size()
                         << "; use tile.expand_dims first";
  for (auto [dim, sizes] : llvm::enumerate(llvm::zip(srcShape, resShape))) {
    auto [from, to] = sizes;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << dim << " of the operand has size "
                           << from << ", which is neither 1 nor the result's "
                           << to;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  return foldShapeOp(getSrc(), adaptor.getSrc(), getType());
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOpOfSplat<BroadcastOp>, ShapeOpOfSameOp<BroadcastOp>>(
      context);
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis > static_cast<int64_t>(srcShape.size()))
    return emitOpError() << "axis " << axis << " is out of range for an "
                         << "operand of rank " << srcShape.size()
                         << " (expected 0 to " << srcShape.size() << ")";
  SmallVector<int64_t> expected(srcShape);
  expected.insert(expected.begin() + axis, 1);
  return verifyResultShape(*this, getType().getShape(), expected);
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return foldShapeOp(getSrc(), adaptor.getSrc(), getType());
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ShapeOpOfSplat<ExpandDimsOp>>(context);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  int64_t from = getSrc().getType().getNumElements();
  int64_t to = getType().getNumElements();
  if (from != to)
    return emitOpError() << "operand has " << from << " elements but the "
                         << "result has " << to;
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  return foldShapeOp(getSrc(), adaptor.getSrc(), getType());
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOpOfSplat<ReshapeOp>, ShapeOpOfSameOp<ReshapeOp>>(context);
}

//===----------------------------------------------------------------------===//
// TransOp
//===----------------------------------------------------------------------===//

/// Checks that `order` permutes the operand's `rank` dimensions.
static LogicalResult verifyPermutation(Operation *op, ArrayRef<int32_t> order,
                                       size_t rank) {
  if (order.size() != rank)
    return op->emitOpError() << "order has length " << order.size()
                             << " but the operand has rank " << rank;
  SmallVector<bool> seen(order.size(), false);
  for (int32_t dim : order) {
    if (dim < 0 || dim >= static_cast<int32_t>(order.size()) || seen[dim])
      return op->emitOpError()
             << "order [" << llvm::make_range(order.begin(), order.end())
             << "] is not a permutation of the operand's " << order.size()
             << " dimensions";
    seen[dim] = true;
  }
  return success();
}

/// `shape` with dimension i taken from dimension order[i].
static SmallVector<int64_t> permute(ArrayRef<int64_t> shape,
                                    ArrayRef<int32_t> order) {
  SmallVector<int64_t> permuted;
  for (int32_t dim : order)
    permuted.push_back(shape[dim]);
  return permuted;
}

LogicalResult TransOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  if (failed(verifyPermutation(*this, getOrder(), srcShape.size())))
    return failure();
  return verifyResultShape(*this, getType().getShape(),
                           permute(srcShape, getOrder()));
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  // trans(x) with the identity order -> x
  if (llvm::equal(getOrder(), llvm::seq<int32_t>(0, getOrder().size())))
    return getSrc();
  if (auto constant = reshapeSplatConstant(adaptor.getSrc(), getType()))
    return constant;
  // trans(trans x) -> one trans of x with the composed order
  auto inner = getSrc().getDefiningOp<TransOp>();
  if (!inner)
    return {};
  SmallVector<int32_t> composed;
  for (int32_t dim : getOrder())
    composed.push_back(inner.getOrder()[dim]);
  if (llvm::equal(composed, llvm::seq<int32_t>(0, composed.size())))
    return inner.getSrc();
  getSrcMutable().assign(inner.getSrc());
  setOrder(composed);
  return getResult();
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ShapeOpOfSplat<TransOp>>(context);
}

//===----------------------------------------------------------------------===//
// CatOp, JoinOp, SplitOp
//===----------------------------------------------------------------------===//

LogicalResult CatOp::verify() {
  auto srcShape = getLhs().getType().getShape();
  SmallVector<int64_t> expected(srcShape);
  expected[0] *= 2;
  return verifyResultShape(*this, getType().getShape(), expected);
}

LogicalResult JoinOp::verify() {
  SmallVector<int64_t> expected(shapeOf(getLhs().getType()));
  expected.push_back(2);
  return verifyResultShape(*this, getType().getShape(), expected);
}

LogicalResult GatherOp::verify() {
  RankedTensorType src = getSrc().getType(), indices = getIndices().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is not a dimension of a rank-"
                         << src.getRank() << " source";
  if (indices.getRank() != src.getRank())
    return emitOpError() << "the indices have rank " << indices.getRank()
                         << ", the source " << src.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) != src.getDimSize(d))
      return emitOpError() << "the indices' dimension " << d << " is "
                           << indices.getDimSize(d) << ", the source's "
                           << src.getDimSize(d);
  if (!indices.getElementType().isInteger())
    return emitOpError() << "the indices must be integers";
  if (getType().getElementType() != src.getElementType())
    return emitOpError() << "the result's element type is not the source's";
  return verifyResultShape(*this, getType().getShape(), indices.getShape());
}

LogicalResult HistogramOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  if (src.getRank() != 1 || result.getRank() != 1)
    return emitOpError() << "counts a 1-D tensor into a 1-D result";
  if (!src.getElementType().isInteger() ||
      !result.getElementType().isInteger(32))
    return emitOpError() << "counts integers into i32 bins";
  if (getMask() && (getMask().getType().getShape() != src.getShape() ||
                    !getMask().getType().getElementType().isInteger(1)))
    return emitOpError() << "the mask must be booleans of the source's shape";
  return success();
}

LogicalResult SplitOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  if (srcShape.back() != 2)
    return emitOpError() << "the last dimension of the operand must have size "
                         << "2, got " << srcShape.back();
  ArrayRef<int64_t> expected = srcShape.drop_back();
  if (failed(
          verifyResultShape(*this, shapeOf(getOutLHS().getType()), expected)))
    return failure();
  if (expected.empty() && isa<RankedTensorType>(getOutLHS().getType()))
    return emitOpError() << "splitting a 1-D tensor gives scalars";
  if (getElementTypeOrSelf(getOutLHS()) != getSrc().getType().getElementType())
    return emitOpError() << "result element type must match the operand's";
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  // A conversion to CoalescedLayout stays until the backend resolves it: it
  // parts the layout of its result from its operand's.
  if (isa_and_present<CoalescedLayoutAttr>(getType().getEncoding()) &&
      !adaptor.getSrc())
    return {};
  // convert_layout to the same layout -> x; of a splat constant -> constant
  return foldShapeOp(getSrc(), adaptor.getSrc(), getType());
}

namespace {
/// convert_layout(convert_layout x) -> convert_layout x: only the final
/// layout matters.
struct ConvertOfConvert : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getSrcMutable().assign(inner.getSrc()); });
    return success();
  }
};

/// convert_layout(make_range) -> make_range in the layout wanted.
struct ConvertOfRange : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto range = op.getSrc().getDefiningOp<MakeRangeOp>();
    if (!range)
      return failure();
    rewriter.replaceOpWithNewOp<MakeRangeOp>(op, op.getType(), range.getStart(),
                                             range.getEnd());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  // Splats and ranges are made directly in the layout wanted.
  results
      .add<ConvertOfConvert, ConvertOfRange, ShapeOpOfSplat<ConvertLayoutOp>>(
          context);
}

//===----------------------------------------------------------------------===//
// AddPtrOp
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  auto ptrShape = shapeOf(getPtr().getType());
  auto offShape = shapeOf(getOffset().getType());
  if (isa<RankedTensorType>(getPtr().getType()) !=
          isa<RankedTensorType>(getOffset().getType()) ||
      ptrShape != offShape)
    return emitOpError() << "offset shape " << shapeStr(offShape)
                         << " must match the pointer shape "
                         << shapeStr(ptrShape);
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  // addptr(p, 0) -> p
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// LoadOp and StoreOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' is only meaningful with a mask";
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  // A volatile load must neither be merged with another nor removed.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
}

namespace {
/// A constant mask decides a load: all-true drops the mask, all-false gives
/// `other` without reading memory.
struct LoadWithConstantMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return failure();
    if (matchPattern(mask, m_One())) {
      rewriter.modifyOpInPlace(op, [&] {
        op.getMaskMutable().clear();
        op.getOtherMutable().clear();
      });
      return success();
    }
    if (matchPattern(mask, m_Zero()) && op.getOther() && !op.getIsVolatile()) {
      rewriter.replaceOp(op, op.getOther());
      return success();
    }
    return failure();
  }
};

/// A constant mask decides a store: all-true drops the mask, all-false
/// removes the store.
struct StoreWithConstantMask : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return failure();
    if (matchPattern(mask, m_One())) {
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
      return success();
    }
    if (matchPattern(mask, m_Zero())) {
      rewriter.eraseOp(op);
      return success();
    }
    return failure();
  }
};
} // namespace

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<LoadWithConstantMask>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<StoreWithConstantMask>(context);
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// Atomics act on 16-, 32- or 64-bit integers and floats.
static LogicalResult verifyAtomicElement(Operation *op, Type elementType) {
  if (!isa<IntegerType, FloatType>(elementType))
    return op->emitOpError()
           << "atomics act on integers and floats, got " << elementType;
  unsigned width = elementType.getIntOrFloatBitWidth();
  if (width != 16 && width != 32 && width != 64)
    return op->emitOpError() << "atomics act on 16-, 32- or 64-bit elements, "
                             << "got " << elementType;
  return success();
}

/// Whether an atomic of `kind` applies to `element`.
static LogicalResult verifyRMWKind(Operation *op, RMWKind kind,
                                   Type element) {
  if (failed(verifyAtomicElement(op, element)))
    return failure();
  bool isFloat = isa<FloatType>(element);
  switch (kind) {
  case RMWKind::fadd:
    if (!isFloat)
      return op->emitOpError() << "'fadd' needs float elements, got "
                               << element << "; use 'add' for integers";
    break;
  case RMWKind::add:
  case RMWKind::umax:
  case RMWKind::umin:
  case RMWKind::And:
  case RMWKind::Or:
  case RMWKind::Xor:
    if (isFloat)
      return op->emitOpError() << "'" << stringifyRMWKind(kind)
                               << "' needs integer elements, got " << element;
    break;
  case RMWKind::max:
  case RMWKind::min:
  case RMWKind::xchg:
    break;
  }
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  return verifyRMWKind(*this, getKind(),
                       getElementTypeOrSelf(getVal().getType()));
}

LogicalResult AtomicCASOp::verify() {
  return verifyAtomicElement(*this, getElementTypeOrSelf(getVal().getType()));
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

static bool isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType, Float8E4M3B11FNUZType>(type);
}

LogicalResult DotOp::verify() {
  auto aType = getA().getType(), bType = getB().getType(),
       cType = getC().getType();
  int64_t rank = aType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "operands must be 2-D, or 3-D with a batch "
                         << "dimension, got rank " << rank;
  if (bType.getRank() != rank || cType.getRank() != rank)
    return emitOpError() << "a, b and c must have the same rank";
  auto a = aType.getShape(), b = bType.getShape(), c = cType.getShape();
  if (rank == 3 && (a[0] != b[0] || a[0] != c[0]))
    return emitOpError() << "batch dimensions differ: " << a[0] << ", " << b[0]
                         << " and " << c[0];
  int64_t m = a[rank - 2], k = a[rank - 1], n = b[rank - 1];
  if (b[rank - 2] != k)
    return emitOpError() << "a is " << m << "x" << k << " but b is "
                         << b[rank - 2] << "x" << n
                         << ": their inner dimensions differ";
  if (c[rank - 2] != m || c[rank - 1] != n)
    return emitOpError() << "accumulator is " << c[rank - 2] << "x"
                         << c[rank - 1] << " but a * b is " << m << "x" << n;
  Type aElem = aType.getElementType(), bElem = bType.getElementType(),
       cElem = cType.getElementType();
  if (aElem != bElem && !(isFloat8(aElem) && isFloat8(bElem)))
    return emitOpError() << "a and b have different element types " << aElem
                         << " and " << bElem;
  if (isa<IntegerType>(aElem) != isa<IntegerType>(cElem))
    return emitOpError() << "accumulator element type " << cElem
                         << " does not suit inputs of " << aElem;
  if (cElem.getIntOrFloatBitWidth() < aElem.getIntOrFloatBitWidth())
    return emitOpError() << "accumulator element type " << cElem
                         << " is narrower than the inputs' " << aElem;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp and ScanOp
//===----------------------------------------------------------------------===//

/// Checks a combiner region: 2N scalar arguments (the accumulated values,
/// then the new ones) of the operands' element types, returning N of them.
static LogicalResult verifyCombiner(Operation *op, Region &region,
                                    ValueRange srcs) {
  Block &block = region.front();
  unsigned n = srcs.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError()
           << "combiner must take " << 2 * n
           << " arguments (two per operand), got " << block.getNumArguments();
  for (unsigned i = 0; i < 2 * n; ++i) {
    Type expected = getElementTypeOrSelf(srcs[i % n].getType());
    if (block.getArgument(i).getType() != expected)
      return op->emitOpError()
             << "combiner argument #" << i << " has type "
             << block.getArgument(i).getType() << " but operand #" << i % n
             << " has elements of type " << expected;
  }
  Operation *terminator = block.getTerminator();
  if (terminator->getNumOperands() != n)
    return op->emitOpError()
           << "combiner returns " << terminator->getNumOperands()
           << " values but must return " << n;
  for (unsigned i = 0; i < n; ++i) {
    Type expected = getElementTypeOrSelf(srcs[i].getType());
    if (terminator->getOperand(i).getType() != expected)
      return op->emitOpError() << "combiner result #" << i << " has type "
                               << terminator->getOperand(i).getType()
                               << " but must be " << expected;
  }
  return success();
}

static LogicalResult verifyAxisAndCount(Operation *op, ValueRange srcs,
                                        unsigned numResults, int64_t axis) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one operand";
  if (numResults != srcs.size())
    return op->emitOpError() << "has " << srcs.size() << " operands but "
                             << numResults << " results";
  int64_t rank = cast<RankedTensorType>(srcs[0].getType()).getRank();
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "axis " << axis << " is out of range for "
                             << "operands of rank " << rank;
  return success();
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyAxisAndCount(*this, getSrcs(), getNumResults(), getAxis())))
    return failure();
  // The result's layout encoding, if any, is the backend's to choose.
  for (auto [i, src, result] : llvm::enumerate(getSrcs(), getResult())) {
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + getAxis());
    Type resultType = result.getType();
    if (shapeOf(resultType) != ArrayRef<int64_t>(shape) ||
        isa<RankedTensorType>(resultType) != !shape.empty() ||
        getElementTypeOrSelf(resultType) != srcType.getElementType())
      return emitOpError() << "result #" << i << " has type " << resultType
                           << " but reducing axis " << getAxis()
                           << " gives shape " << shapeStr(shape) << " of "
                           << srcType.getElementType();
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner(*this, getCombineOp(), getSrcs());
}

LogicalResult ScanOp::verify() {
  if (failed(verifyAxisAndCount(*this, getSrcs(), getNumResults(), getAxis())))
    return failure();
  for (auto [i, src, result] : llvm::enumerate(getSrcs(), getResult()))
    if (src.getType() != result.getType())
      return emitOpError() << "result #" << i << " has type "
                           << result.getType() << " but operand #" << i
                           << " has type " << src.getType();
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner(*this, getCombineOp(), getSrcs());
}

//===----------------------------------------------------------------------===//
// ExternElementwiseOp, InlineAsmOp, PrintOp
//===----------------------------------------------------------------------===//

namespace {
/// What an op that may touch any memory has.
void addReadWrite(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}
} // namespace

LogicalResult ExternElementwiseOp::verify() {
  if (getSymbol().empty())
    return emitOpError() << "needs the name of the function to call";
  return success();
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!getPure())
    addReadWrite(effects);
}

LogicalResult InlineAsmOp::verify() {
  // Shapes are the Elementwise trait's to check.
  if (getResults().empty())
    return emitOpError() << "needs at least one result";
  // Each group is one assembly statement with `packed_element` registers
  // of each operand and result.
  if (getPackedElement() > kMaxPackedElements)
    return emitOpError() << "packs at most " << kMaxPackedElements
                         << " elements, got " << getPackedElement();
  return success();
}

void InlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!getPure())
    addReadWrite(effects);
}

LogicalResult ScopeRecordOp::verify() {
  auto pointee = cast<PointerType>(getBuffer().getType()).getPointeeType();
  if (!pointee.isInteger(64))
    return emitOpError() << "records go to a buffer of i64, got one of "
                         << pointee;
  if (getScope() < 0)
    return emitOpError() << "the scope's number must not be negative";
  if (getSlots() <= 0 || !llvm::isPowerOf2_32(getSlots()))
    return emitOpError() << "slots must be a power of two, got " << getSlots();
  if (getWarps() <= 0)
    return emitOpError() << "warps must be positive, got " << getWarps();
  return success();
}

LogicalResult PrintOp::verify() {
  size_t numSigned = getIsSigned().size();
  if (numSigned != 0 && numSigned != getArgs().size())
    return emitOpError() << "isSigned has " << numSigned << " entries but "
                         << "there are " << getArgs().size() << " arguments";
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory and asynchronous copies
//===----------------------------------------------------------------------===//

/// Checks that a tensor and a shared-memory view hold the same elements.
static LogicalResult verifySameElements(Operation *op, RankedTensorType tensor,
                                        MemDescType memory) {
  if (tensor.getShape() != memory.getShape())
    return op->emitOpError()
           << "the tensor's shape " << shapeStr(tensor.getShape())
           << " differs from the shared-memory view's "
           << shapeStr(memory.getShape());
  if (tensor.getElementType() != memory.getElementType())
    return op->emitOpError() << "the tensor's elements (" << tensor.getElementType()
                             << ") differ from the shared-memory view's ("
                             << memory.getElementType() << ")";
  return success();
}

static LogicalResult verifyMutable(Operation *op, MemDescType memory) {
  if (memory.getMutableMemory())
    return success();
  return op->emitOpError() << "writes an immutable shared-memory buffer";
}

/// Checks that a view made from `src` keeps its element type, encoding,
/// mutability and allocation.
static LogicalResult verifySameBuffer(Operation *op, MemDescType src,
                                      MemDescType result) {
  if (src.getElementType() != result.getElementType() ||
      src.getEncoding() != result.getEncoding() ||
      src.getMutableMemory() != result.getMutableMemory() ||
      src.getAllocShape() != result.getAllocShape())
    return op->emitOpError()
           << "the view must keep the element type, encoding, mutability and "
              "allocation shape of "
           << src << ", got " << result;
  return success();
}

Attribute mlir::tile::transposeSharedLayout(Attribute encoding,
                                            ArrayRef<int32_t> order) {
  if (llvm::equal(order, llvm::seq<int32_t>(0, order.size())))
    return encoding;
  if (auto swizzled = dyn_cast<SwizzledSharedLayoutAttr>(encoding)) {
    if (swizzled.getOrder().size() != order.size())
      return {};
    // Source dimension order[i] is dimension i of the view.
    SmallVector<unsigned> position(order.size());
    for (auto [i, dim] : llvm::enumerate(order))
      position[dim] = i;
    SmallVector<unsigned> newOrder;
    for (unsigned dim : swizzled.getOrder())
      newOrder.push_back(position[dim]);
    return SwizzledSharedLayoutAttr::get(
        encoding.getContext(), swizzled.getVec(), swizzled.getPerPhase(),
        swizzled.getMaxPhase(), newOrder);
  }
  if (auto linear = dyn_cast<SharedLinearEncodingAttr>(encoding)) {
    if (linear.getLayout().getNumOutDims() != order.size())
      return {};
    return SharedLinearEncodingAttr::get(encoding.getContext(),
                                         permuteOuts(linear.getLayout(), order),
                                         linear.getAlignment());
  }
  if (auto padded = dyn_cast<PaddedSharedLayoutAttr>(encoding)) {
    if (padded.getLayout().getNumOutDims() != order.size())
      return {};
    return PaddedSharedLayoutAttr::get(
        encoding.getContext(), padded.getIntervals(), padded.getPaddings(),
        permuteOuts(padded.getLayout(), order));
  }
  if (auto nvmma = dyn_cast<NVMMASharedLayoutAttr>(encoding)) {
    if (order.size() != 2)
      return {};
    return NVMMASharedLayoutAttr::get(
        encoding.getContext(), nvmma.getSwizzlingByteWidth(),
        !nvmma.getTransposed(), nvmma.getElementBitWidth());
  }
  return {};
}

LogicalResult LocalAllocOp::verify() {
  MemDescType type = getType();
  if (type.getAllocShape() != type.getShape())
    return emitOpError() << "allocates a whole buffer: the result's shape "
                         << shapeStr(type.getShape())
                         << " must be its allocation shape "
                         << shapeStr(type.getAllocShape());
  if (!getSrc())
    return type.getMutableMemory()
               ? success()
               : emitOpError() << "an allocation without a source must be "
                                  "mutable";
  return verifySameElements(*this, cast<RankedTensorType>(getSrc().getType()),
                            type);
}

LogicalResult LocalDeallocOp::verify() {
  if (!getSrc().getDefiningOp<LocalAllocOp>())
    return emitOpError() << "frees a buffer, the result of a tile.local_alloc";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifySameElements(*this, getType(), getSrc().getType());
}

LogicalResult LocalStoreOp::verify() {
  if (failed(verifyMutable(*this, getDst().getType())))
    return failure();
  return verifySameElements(*this, getValue().getType(), getDst().getType());
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getRank() < 2)
    return emitOpError() << "indexes the first of at least two dimensions, "
                            "the view has "
                         << src.getRank();
  if (failed(verifyResultShape(*this, result.getShape(),
                               src.getShape().drop_front())))
    return failure();
  return verifySameBuffer(*this, src, result);
}

LogicalResult MemDescSubsliceOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  ArrayRef<int32_t> offsets = getOffsets();
  if (offsets.size() != src.getRank() || result.getRank() != src.getRank())
    return emitOpError() << "needs one offset per dimension of the view ("
                         << src.getRank() << "), and a result of that rank";
  for (unsigned d = 0; d < src.getRank(); ++d)
    if (offsets[d] < 0 || offsets[d] + result.getShape()[d] > src.getShape()[d])
      return emitOpError() << "the slice " << shapeStr(result.getShape())
                           << " at [" << llvm::make_range(offsets.begin(),
                                                          offsets.end())
                           << "] does not fit in "
                           << shapeStr(src.getShape());
  return verifySameBuffer(*this, src, result);
}

MemDescType mlir::tile::transposedMemDesc(MemDescType src,
                                          ArrayRef<int32_t> order) {
  Attribute encoding = transposeSharedLayout(src.getEncoding(), order);
  if (!encoding)
    return {};
  // The allocation's leading (buffer) dimensions stay where they are.
  SmallVector<int64_t> allocShape(src.getAllocShape().drop_back(order.size()));
  llvm::append_range(allocShape, permute(src.getLayoutShape(), order));
  return MemDescType::get(permute(src.getShape(), order), src.getElementType(),
                          encoding, src.getMutableMemory(), allocShape);
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType();
  ArrayRef<int32_t> order = getOrder();
  if (failed(verifyPermutation(*this, order, src.getRank())))
    return failure();
  MemDescType expected = transposedMemDesc(src, order);
  if (!expected)
    return emitOpError() << "cannot transpose the layout " << src.getEncoding();
  if (getType() != expected)
    return emitOpError() << "result type should be " << expected;
  return success();
}

bool mlir::tile::isSharedMemoryView(Operation *op) {
  return isa<MemDescIndexOp, MemDescSubsliceOp, MemDescTransOp,
             MemDescReinterpretOp>(op);
}

LogicalResult MemDescReinterpretOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getShape() != src.getLayoutShape())
    return emitOpError() << "reinterprets a whole buffer, not a part of "
                         << src;
  if (result.getAllocShape() != result.getShape())
    return emitOpError() << "makes a whole buffer: the result's shape must be "
                            "its allocation shape";
  if (result.getMutableMemory() != src.getMutableMemory())
    return emitOpError() << "keeps the buffer's mutability";
  if (getBufferBits(result) > getBufferBits(src))
    return emitOpError() << "the result (" << getBufferBits(result) / 8
                         << " bytes) is larger than the buffer ("
                         << getBufferBits(src) / 8 << " bytes)";
  return success();
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  MemDescType dst = getDst().getType();
  if (failed(verifyMutable(*this, dst)))
    return failure();
  auto pointee = cast<RankedTensorType>(getPointeeType(getPtrs().getType()));
  return verifySameElements(*this, pointee, dst);
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

LogicalResult MakeTensorDescriptorOp::verify() {
  RankedTensorType block = getType().getBlockType();
  if (getBase().getType().getPointeeType() != block.getElementType())
    return emitOpError() << "the base points to "
                         << getBase().getType().getPointeeType()
                         << " but the blocks hold " << block.getElementType();
  size_t rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError() << "needs one shape and one stride entry per "
                         << "dimension of the block (" << block.getRank()
                         << "), got " << getShape().size() << " and "
                         << getStrides().size();
  return success();
}

/// `indices` address a block of `desc`, whose shape and element type
/// `block` (a loaded or stored value's type) has; `boundaryCheck` names
/// dimensions of it.
static LogicalResult verifyBlockAccess(Operation *op, TensorDescType desc,
                                       size_t indices, RankedTensorType block,
                                       std::optional<ArrayRef<int32_t>> checks) {
  RankedTensorType expected = desc.getBlockType();
  if (block.getShape() != expected.getShape() ||
      block.getElementType() != expected.getElementType())
    return op->emitOpError() << "the block is " << expected << " but the value "
                             << "is " << block;
  if (indices != static_cast<size_t>(expected.getRank()))
    return op->emitOpError() << "needs " << expected.getRank()
                             << " indices, got " << indices;
  for (int32_t d : checks.value_or(ArrayRef<int32_t>()))
    if (d < 0 || d >= expected.getRank())
      return op->emitOpError() << "boundary_check names dimension " << d
                               << " of a rank-" << expected.getRank()
                               << " block";
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  return verifyBlockAccess(*this, getDesc().getType(), getIndices().size(),
                           getType(), getBoundaryCheck());
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyBlockAccess(*this, getDesc().getType(), getIndices().size(),
                           getValue().getType(), getBoundaryCheck());
}

LogicalResult DescriptorReduceOp::verify() {
  if (failed(verifyBlockAccess(*this, getDesc().getType(),
                               getIndices().size(), getValue().getType(),
                               std::nullopt)))
    return failure();
  return verifyRMWKind(*this, getKind(), getValue().getType().getElementType());
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

LogicalResult WarpSpecializeOp::verify() {
  ArrayRef<int32_t> warps = getPartitionNumWarps();
  if (warps.size() != getPartitionRegions().size())
    return emitOpError() << "has " << getPartitionRegions().size()
                         << " partitions but " << warps.size()
                         << " partition_num_warps";
  if (llvm::any_of(warps, [](int32_t n) { return n <= 0; }))
    return emitOpError("partition_num_warps must be positive");
  std::optional<ArrayRef<int32_t>> regs = getPartitionNumRegs();
  if (!regs) {
    if (getDefaultNumRegs())
      return emitOpError("default_num_regs needs partition_num_regs");
    return success();
  }
  if (regs->size() != warps.size() || !getDefaultNumRegs())
    return emitOpError("partition_num_regs needs one count per partition "
                       "and default_num_regs");
  SmallVector<int32_t> counts(*regs);
  counts.push_back(*getDefaultNumRegs());
  if (llvm::any_of(counts,
                   [](int32_t n) { return n < 24 || n > 256 || n % 8; }))
    return emitOpError("register counts must be multiples of 8 in [24, 256]");
  // setmaxnreg is per warpgroup.
  if (llvm::any_of(warps, [](int32_t n) { return n % 4; }))
    return emitOpError("partitions that set their registers must have whole "
                       "warpgroups (multiples of 4 warps)");
  return success();
}

std::pair<unsigned, unsigned> WarpSpecializeOp::warpsOf(unsigned index,
                                                        unsigned numWarps) {
  if (index == 0)
    return {0, numWarps};
  unsigned first = numWarps;
  ArrayRef<int32_t> warps = getPartitionNumWarps();
  for (unsigned i = 0; i + 1 < index; ++i)
    first += warps[i];
  return {first, warps[index - 1]};
}

std::pair<WarpSpecializeOp, unsigned>
WarpSpecializeOp::regionOf(Region *region) {
  for (; region; region = region->getParentOp()->getParentRegion())
    if (auto op = dyn_cast<WarpSpecializeOp>(region->getParentOp()))
      return {op, region->getRegionNumber()};
  return {};
}

unsigned WarpSpecializeOp::totalWarps(unsigned numWarps) {
  auto [first, count] = warpsOf(getPartitionNumWarps().size(), numWarps);
  return first + count;
}
