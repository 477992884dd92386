//===- LowerSharedMemoryOps.cpp - buffers, views and async copies ---------===//
//
// A shared-memory view becomes the address of its buffer and its offset in
// each dimension of the buffer's layout. Loads and stores of a whole buffer
// go through the linear layouts (vectorised, ldmatrix where the layouts
// allow); views that start elsewhere compute each element's address.
// Writes are bracketed by barriers; tile.async_wait ends with one.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Lowering.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A view in registers: its buffer's address and its offsets (i32 values).
struct View {
  Value base;
  SmallVector<Value> offsets;

  explicit View(ValueRange values)
      : base(values.front()), offsets(values.drop_front()) {}
  View(Value base, ArrayRef<Value> offsets) : base(base), offsets(offsets) {}

  void replace(ConversionPatternRewriter &rewriter, Operation *op) const {
    SmallVector<Value> values{base};
    llvm::append_range(values, offsets);
    replaceWithRegisters(rewriter, op, values);
  }
};

Value elementPointer(OpBuilder &b, Location loc, Value base, Type element,
                     Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), memoryType(element), base,
                             ValueRange{offset});
}

/// The place of the element at `offset` of a layout with `padding`.
Value padOffset(OpBuilder &b, Location loc, Value offset,
                const SharedPadding &padding) {
  Value padded = offset;
  for (auto [interval, pad] : llvm::zip(padding.intervals, padding.paddings)) {
    Value intervals = arith::ShRUIOp::create(
        b, loc, offset, i32Constant(b, loc, llvm::Log2_32(interval)));
    padded = arith::AddIOp::create(
        b, loc, padded,
        arith::ShLIOp::create(b, loc, intervals,
                              i32Constant(b, loc, llvm::Log2_32(pad))));
  }
  return padded;
}

/// How the registers of a tensor in `layout` reach the view's elements:
/// through `toOffset` (hardware bits to element offsets from `base`) where
/// the view is its buffer's whole tile or lies at a constant distance from
/// the tile's start (accessView), else through each register's own address.
/// Offsets are placed by the layout's `padding`.
struct Access {
  std::optional<LinearLayout> toOffset;
  Value base;
  SmallVector<Value> addresses;
  SharedPadding padding;

  /// The address of the element `toOffset` gives `offset`.
  Value address(OpBuilder &b, Location loc, Type element, Value offset) const {
    if (!padding.empty())
      offset = padOffset(b, loc, offset, padding);
    return elementPointer(b, loc, base, element, offset);
  }
  /// The most elements a vector through `toOffset` moves.
  unsigned maxVector() const {
    return padding.empty() ? ~0u : padding.maxVector();
  }
};

/// The element offset in a buffer of `shared` of a view at constant
/// `offsets` that are multiples of its `shape`, where the view's elements
/// all lie that far from the tile's first ones (`toOffset`'s offsets share
/// no bit with it); none otherwise.
std::optional<int32_t> constantDistance(const LinearLayout &shared,
                                        const LinearLayout &toOffset,
                                        ArrayRef<Value> offsets,
                                        ArrayRef<int64_t> shape) {
  LinearLayout::Point at;
  for (auto [d, value, size] : llvm::enumerate(offsets, shape)) {
    APInt c;
    if (!matchPattern(value, m_ConstantInt(&c)) || c.getSExtValue() % size)
      return std::nullopt;
    at.push_back({dimName(d), int32_t(c.getSExtValue())});
  }
  std::optional<LinearLayout> inverse = shared.invert();
  if (!inverse)
    return std::nullopt;
  int32_t distance = inverse->apply(at)[0].second;
  for (const LinearLayout::InDim &in : toOffset.getInDims())
    for (const std::vector<int32_t> &basis : in.bases)
      if (basis[0] & distance)
        return std::nullopt;
  return distance;
}

FailureOr<Access> accessView(OpBuilder &b, Location loc,
                             const LoweringState &state, Operation *op,
                             MemDescType type, const View &view,
                             const LinearLayout &layout, Type element) {
  if (type.getRank() != getSharedLayoutRank(type.getEncoding()))
    return loweringError(op, "the view has dimensions that stack buffers; "
                             "index them with tile.memdesc_index first");
  LinearLayout shared = cast<SharedLayoutAttrInterface>(type.getEncoding())
                            .toLinearLayout(type.getLayoutShape());
  Access access;
  access.base = view.base;
  access.padding = getSharedPadding(type.getEncoding());
  bool wholeTile =
      type.getShape() == type.getLayoutShape() &&
      llvm::all_of(view.offsets, [](Value v) { return matchPattern(v, m_Zero()); });
  if (wholeTile && (access.toOffset = layout.invertAndCompose(shared)))
    return access;
  // A view within the tile: its registers placed in the whole tile.
  std::vector<LinearLayout::OutDim> outs;
  for (auto [d, size] : llvm::enumerate(type.getLayoutShape()))
    outs.push_back({dimName(d), int32_t(size)});
  auto placed = LinearLayout::create(
      std::vector<LinearLayout::InDim>(layout.getInDims().begin(),
                                       layout.getInDims().end()),
      outs);
  if (!placed)
    llvm::consumeError(placed.takeError());
  else if (std::optional<LinearLayout> toOffset =
               placed->invertAndCompose(shared);
           toOffset && access.padding.empty())
    if (std::optional<int32_t> distance = constantDistance(
            shared, *toOffset, view.offsets, type.getShape())) {
      access.toOffset = toOffset;
      access.base = elementPointer(b, loc, view.base, element,
                                   i32Constant(b, loc, *distance));
      return access;
    }
  std::optional<LinearLayout> inverse = shared.invert();
  if (!inverse)
    return loweringError(op, "the shared layout is not invertible");
  // offset(coords + view offsets), bit by bit of the coordinates.
  HardwareIds ids = emitHardwareIds(b, loc, state.target);
  for (ArrayRef<Value> coords : emitCoords(b, loc, layout, ids)) {
    Value offset = i32Constant(b, loc, 0);
    for (auto [d, in] : llvm::enumerate(inverse->getInDims())) {
      Value c = arith::AddIOp::create(b, loc, coords[d], view.offsets[d]);
      for (auto [bit, basis] : llvm::enumerate(in.bases)) {
        if (!basis[0])
          continue;
        Value set = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, c, i32Constant(b, loc, bit)),
            i32Constant(b, loc, 1));
        offset = arith::XOrIOp::create(
            b, loc, offset,
            arith::MulIOp::create(b, loc, set, i32Constant(b, loc, basis[0])));
      }
    }
    access.addresses.push_back(access.address(b, loc, element, offset));
  }
  return access;
}

/// Stores a tensor's registers through `access`.
void storeThrough(OpBuilder &b, Location loc, const LoweringState &state,
                  const Access &access, const LinearLayout &layout,
                  ValueRange values, Type element) {
  if (access.toOffset) {
    storeToShared(
        b, loc, state, layout, *access.toOffset, values, element,
        [&](Value offset) { return access.address(b, loc, element, offset); },
        access.maxVector());
    return;
  }
  for (auto [r, value] : llvm::enumerate(values))
    if (!isDuplicateRegister(layout, r))
      storeShared(b, loc, access.addresses[r], value);
}

class LocalAllocPattern : public LoweringPattern<LocalAllocOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(LocalAllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto offset = op->getAttrOfType<IntegerAttr>(kBufferOffsetAttr);
    if (!offset)
      return loweringError(op, "the buffer has no place in shared memory "
                               "(run tile-allocate-shared-memory)");
    MemDescType type = op.getType();
    View view(sharedBase(rewriter, loc, state, offset.getInt()),
              SmallVector<Value>(type.getRank(), i32Constant(rewriter, loc, 0)));
    // Earlier users of these bytes (scratch, dead buffers) are done.
    state.target.barrier(rewriter, loc);
    if (op.getSrc()) {
      auto tensor = cast<RankedTensorType>(op.getSrc().getType());
      Type element = convertElement(tensor);
      FailureOr<Access> access =
          accessView(rewriter, loc, state, op, type, view, *layoutOf(tensor),
                     element);
      if (failed(access))
        return failure();
      storeThrough(rewriter, loc, state, *access, *layoutOf(tensor),
                   adaptor.getSrc(), element);
      state.target.barrier(rewriter, loc);
    }
    view.replace(rewriter, op);
    return success();
  }
};

class LocalDeallocPattern : public LoweringPattern<LocalDeallocOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(LocalDeallocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

class LocalLoadPattern : public LoweringPattern<LocalLoadOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = convertElement(op.getType());
    LinearLayout layout = *layoutOf(op.getType());
    View view(adaptor.getSrc());
    FailureOr<Access> access = accessView(rewriter, loc, state, op,
                                          op.getSrc().getType(), view, layout,
                                          element);
    if (failed(access))
      return failure();
    SmallVector<Value> values;
    if (access->toOffset) {
      values = loadFromShared(
          rewriter, loc, state, layout, *access->toOffset, element,
          [&](Value offset) {
            return access->address(rewriter, loc, element, offset);
          },
          access->maxVector());
    } else {
      for (Value address : access->addresses)
        values.push_back(loadShared(rewriter, loc, address, element));
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

class LocalStorePattern : public LoweringPattern<LocalStoreOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tensor = op.getValue().getType();
    Type element = convertElement(tensor);
    LinearLayout layout = *layoutOf(tensor);
    View view(adaptor.getDst());
    FailureOr<Access> access = accessView(
        rewriter, loc, state, op, op.getDst().getType(), view, layout, element);
    if (failed(access))
      return failure();
    // Readers of the old contents are done before, and everyone sees the new
    // ones after.
    state.target.barrier(rewriter, loc);
    storeThrough(rewriter, loc, state, *access, layout, adaptor.getValue(),
                 element);
    state.target.barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

class MemDescIndexPattern : public LoweringPattern<MemDescIndexOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemDescType src = op.getSrc().getType();
    if (src.getRank() <= getSharedLayoutRank(src.getEncoding()))
      return loweringError(op, "only dimensions that stack buffers can be "
                               "indexed");
    Location loc = op.getLoc();
    View view(adaptor.getSrc());
    // Tiles, and the stacks of tiles in the dimensions after the index.
    int64_t stride = getTileSpan(src);
    for (int64_t size : src.getAllocShape()
                            .take_back(src.getRank() - 1)
                            .drop_back(getSharedLayoutRank(src.getEncoding())))
      stride *= size;
    Value index = adaptor.getIndex().front();
    if (!matchPattern(view.offsets[0], m_Zero()))
      index = arith::AddIOp::create(rewriter, loc, index, view.offsets[0]);
    Value elements = arith::MulIOp::create(rewriter, loc, index,
                                           i32Constant(rewriter, loc, stride));
    Value base = elementPointer(rewriter, loc, view.base,
                                convertElement(src.getElementType()), elements);
    View(base, ArrayRef<Value>(view.offsets).drop_front())
        .replace(rewriter, op);
    return success();
  }
};

class MemDescSubslicePattern : public LoweringPattern<MemDescSubsliceOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(MemDescSubsliceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    View view(adaptor.getSrc());
    // Folded, so that constant offsets stay constants (accessView).
    for (auto [offset, delta] : llvm::zip(view.offsets, op.getOffsets()))
      if (delta)
        offset = rewriter.createOrFold<arith::AddIOp>(
            op.getLoc(), offset, i32Constant(rewriter, op.getLoc(), delta));
    view.replace(rewriter, op);
    return success();
  }
};

class MemDescTransPattern : public LoweringPattern<MemDescTransOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(MemDescTransOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    View view(adaptor.getSrc());
    SmallVector<Value> offsets;
    for (int32_t dim : op.getOrder())
      offsets.push_back(view.offsets[dim]);
    View(view.base, offsets).replace(rewriter, op);
    return success();
  }
};

class MemDescReinterpretPattern : public LoweringPattern<MemDescReinterpretOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(MemDescReinterpretOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    View view(adaptor.getSrc());
    if (!llvm::all_of(view.offsets,
                      [](Value v) { return matchPattern(v, m_Zero()); }))
      return loweringError(op, "reinterprets a view within a buffer");
    SmallVector<Value> zeros(op.getType().getRank(),
                             i32Constant(rewriter, op.getLoc(), 0));
    View(view.base, zeros).replace(rewriter, op);
    return success();
  }
};

/// Whether `value` is a constant whose elements are all zero.
bool isZeroConstant(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  Attribute element = splat ? splat.getSplatValue<Attribute>() : attr;
  if (auto i = dyn_cast<IntegerAttr>(element))
    return i.getValue().isZero();
  if (auto f = dyn_cast<FloatAttr>(element))
    return f.getValue().isPosZero();
  return false;
}

class AsyncCopyPattern : public LoweringPattern<AsyncCopyGlobalToLocalOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AsyncCopyGlobalToLocalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = op.getPtrs().getType();
    LinearLayout layout = *layoutOf(ptrType);
    Type element = convertElement(getPointeeType(ptrType));
    Type stored = memoryType(element);
    unsigned bytes = storageBytes(element);
    View view(adaptor.getDst());
    FailureOr<Access> access = accessView(
        rewriter, loc, state, op, op.getDst().getType(), view, layout, element);
    if (failed(access))
      return failure();
    unsigned vec = 1;
    SmallVector<SmallVector<Value>> offsets;
    if (access->toOffset) {
      vec = std::min(
          {sharedVectorWidth(*access->toOffset, element),
           memoryVectorWidth(state, op.getPtrs(), op.getMask(), stored),
           access->maxVector()});
      offsets = emitCoords(rewriter, loc, *access->toOffset,
                           emitHardwareIds(rewriter, loc, state.target));
    }
    unsigned copyBytes = vec * bytes;
    bool async = state.target.hasAsyncCopies() &&
                 (copyBytes == 4 || copyBytes == 8 || copyBytes == 16) &&
                 (!op.getOther() || isZeroConstant(op.getOther()));
    Type accessType = vec == 1 ? stored : VectorType::get(vec, stored);
    ValueRange ptrs = adaptor.getPtrs();
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      if (isDuplicateRegister(layout, r))
        continue;
      Value address = access->toOffset ? access->address(rewriter, loc, element,
                                                         offsets[r][0])
                                       : access->addresses[r];
      Value pred = op.getMask() ? adaptor.getMask()[r]
                                : arith::ConstantIntOp::create(rewriter, loc, 1, 1);
      if (async) {
        state.target.asyncCopy(rewriter, loc, address, ptrs[r], copyBytes,
                               pred);
        continue;
      }
      // At once, through registers.
      Value other;
      if (op.getOther()) {
        SmallVector<Value> parts;
        for (unsigned i = 0; i < vec; ++i)
          parts.push_back(toMemory(rewriter, loc, adaptor.getOther()[r + i]));
        other = packVector(rewriter, loc, parts, accessType);
      } else {
        other = LLVM::ZeroOp::create(rewriter, loc, accessType);
      }
      Value loaded = state.target.loadGlobal(
          rewriter, loc, ptrs[r], accessType, pred, other, op.getCache(),
          op.getEvict(), /*isVolatile=*/false);
      LLVM::StoreOp::create(rewriter, loc, loaded, address, vec * bytes);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

class AsyncCommitGroupPattern : public LoweringPattern<AsyncCommitGroupOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    state.target.asyncCommitGroup(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

class BarrierPattern : public LoweringPattern<BarrierOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(BarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    state.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

class AsyncWaitPattern : public LoweringPattern<AsyncWaitOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    state.target.asyncWait(rewriter, op.getLoc(), op.getNum());
    state.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateSharedMemoryOpPatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                LoweringState &state) {
  patterns.add<LocalAllocPattern, LocalDeallocPattern, LocalLoadPattern,
               LocalStorePattern, MemDescIndexPattern, MemDescSubslicePattern,
               MemDescTransPattern, MemDescReinterpretPattern, AsyncCopyPattern,
               AsyncCommitGroupPattern, AsyncWaitPattern, BarrierPattern>(
      converter, state);
}
