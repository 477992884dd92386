//===- LowerDescriptors.cpp - tensor descriptors as masked memory ops -----===//
//
// A block access of a tensor descriptor becomes what it means element by
// element: a tensor of pointers base + sum(index_d * stride_d), masked by
// 0 <= index_d < shape_d along the checked dimensions. Every target runs
// this before choosing layouts; one that copies blocks in bulk (Hopper's
// TMA) first marks the loads it will copy itself (kBulkCopyAttr), which
// stay.
//
//===----------------------------------------------------------------------===//

#include "ir/Tile/TileOps.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERDESCRIPTORSPASS
#include "transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The element addresses of one block and where they lie in the tensor.
struct BlockAddresses {
  Value pointers;
  Value mask; // null when no dimension is checked
};

/// `v`, of shape [shape[d]], as a tensor of `shape` constant along every
/// dimension but d.
Value spread(OpBuilder &b, Location loc, Value v, unsigned d,
             ArrayRef<int64_t> shape) {
  Type element = cast<RankedTensorType>(v.getType()).getElementType();
  SmallVector<int64_t> current{shape[d]};
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (i == d)
      continue;
    unsigned axis = i < d ? 0 : current.size();
    current.insert(current.begin() + axis, 1);
    v = ExpandDimsOp::create(b, loc, RankedTensorType::get(current, element),
                             v, axis);
  }
  if (ArrayRef<int64_t>(current) == shape)
    return v;
  return BroadcastOp::create(b, loc, RankedTensorType::get(shape, element),
                             v);
}

BlockAddresses addressBlock(OpBuilder &b, Location loc,
                            MakeTensorDescriptorOp desc, ValueRange indices,
                            ArrayRef<int32_t> checked) {
  RankedTensorType block = desc.getType().getBlockType();
  ArrayRef<int64_t> shape = block.getShape();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value offsets, mask;
  for (unsigned d = 0; d < shape.size(); ++d) {
    auto row32 = RankedTensorType::get({shape[d]}, i32);
    auto row64 = RankedTensorType::get({shape[d]}, i64);
    Value position = arith::AddIOp::create(
        b, loc, SplatOp::create(b, loc, row32, indices[d]),
        MakeRangeOp::create(b, loc, row32, 0, shape[d]));
    Value offset = arith::MulIOp::create(
        b, loc, arith::ExtSIOp::create(b, loc, row64, position),
        SplatOp::create(b, loc, row64, desc.getStrides()[d]));
    offset = spread(b, loc, offset, d, shape);
    offsets = offsets ? arith::AddIOp::create(b, loc, offsets, offset).getResult()
                      : offset;
    if (!llvm::is_contained(checked, static_cast<int32_t>(d)))
      continue;
    // Unsigned: a negative position is past any shape.
    Value inside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, position,
        SplatOp::create(b, loc, row32, desc.getShape()[d]));
    inside = spread(b, loc, inside, d, shape);
    mask = mask ? arith::AndIOp::create(b, loc, mask, inside).getResult()
                : inside;
  }
  Type pointer = desc.getBase().getType();
  Value bases =
      SplatOp::create(b, loc, RankedTensorType::get(shape, pointer),
                      desc.getBase());
  return {AddPtrOp::create(b, loc, bases.getType(), bases, offsets), mask};
}

/// `value` (a scalar) known to be a multiple of `divisor`, where nothing
/// says so yet: a hint on the op that makes it, or on the argument.
void hintDivisibility(Value value, int64_t divisor) {
  Builder b(value.getContext());
  if (Operation *def = value.getDefiningOp()) {
    if (!def->hasAttr("tile.divisibility"))
      def->setAttr("tile.divisibility", b.getDenseI64ArrayAttr({divisor}));
    return;
  }
  auto arg = cast<BlockArgument>(value);
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (func && !func.getArgAttr(arg.getArgNumber(), "tile.divisibility"))
    func.setArgAttr(arg.getArgNumber(), "tile.divisibility",
                    b.getI32IntegerAttr(divisor));
}

/// An aligned descriptor's base and strides but the last are multiples of
/// 16 bytes: hints for its accesses' vector widths, on the values
/// themselves (what the accesses make from them may be made again later).
void hintAligned(MakeTensorDescriptorOp desc) {
  if (!desc.getAligned())
    return;
  RankedTensorType block = desc.getType().getBlockType();
  int64_t bytes = std::max<int64_t>(1, block.getElementTypeBitWidth() / 8);
  hintDivisibility(desc.getBase(), 16);
  for (Value stride : desc.getStrides().drop_back())
    hintDivisibility(stride, std::max<int64_t>(1, 16 / bytes));
}

/// The dimensions an access checks: `boundaryCheck`, or all.
SmallVector<int32_t> checkedDims(std::optional<ArrayRef<int32_t>> given,
                                 unsigned rank) {
  if (given)
    return SmallVector<int32_t>(*given);
  return llvm::to_vector(llvm::seq<int32_t>(0, rank));
}

/// The padding of `desc`'s blocks, as a tensor like `block`.
Value padding(OpBuilder &b, Location loc, MakeTensorDescriptorOp desc,
              RankedTensorType block) {
  Type element = block.getElementType();
  TypedAttr value;
  if (auto f = dyn_cast<FloatType>(element))
    value = b.getFloatAttr(
        f, desc.getNanPadding()
               ? APFloat::getNaN(f.getFloatSemantics())
               : APFloat::getZero(f.getFloatSemantics()));
  else
    value = b.getIntegerAttr(element, 0);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(block, value));
}

struct TileLowerDescriptorsPass
    : public mlir::tile::impl::TileLowerDescriptorsPassBase<
          TileLowerDescriptorsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    SetVector<MakeTensorDescriptorOp> descriptors;
    getOperation()->walk([&](Operation *op) {
      if (!isa<DescriptorLoadOp, DescriptorStoreOp, DescriptorReduceOp>(op) ||
          op->hasAttr(kBulkCopyAttr))
        return;
      accesses.push_back(op);
      if (auto desc = op->getOperand(0).getDefiningOp<MakeTensorDescriptorOp>())
        descriptors.insert(desc);
    });
    for (MakeTensorDescriptorOp desc : descriptors)
      hintAligned(desc);
    for (Operation *op : accesses)
      if (failed(lower(op)))
        return signalPassFailure();
    // Descriptors nothing reads any more.
    getOperation()->walk([](MakeTensorDescriptorOp op) {
      if (op->use_empty())
        op->erase();
    });
  }

  LogicalResult lower(Operation *op) {
    Value descValue = op->getOperand(0);
    auto desc = descValue.getDefiningOp<MakeTensorDescriptorOp>();
    if (!desc)
      return op->emitOpError()
             << "needs a descriptor made in the kernel or passed to it; "
             << "this one comes through a loop or branch";
    OpBuilder b(op);
    Location loc = op->getLoc();
    unsigned rank = desc.getType().getBlockType().getRank();
    if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
      SmallVector<int32_t> checked =
          checkedDims(load.getBoundaryCheck(), rank);
      BlockAddresses at =
          addressBlock(b, loc, desc, load.getIndices(), checked);
      Value other = at.mask ? padding(b, loc, desc, load.getType()) : Value();
      auto lowered =
          LoadOp::create(b, loc, at.pointers, at.mask, other, load.getCache(),
                         load.getEvict(), /*isVolatile=*/false);
      load.replaceAllUsesWith(lowered.getResult());
    } else if (auto store = dyn_cast<DescriptorStoreOp>(op)) {
      SmallVector<int32_t> checked =
          checkedDims(store.getBoundaryCheck(), rank);
      BlockAddresses at =
          addressBlock(b, loc, desc, store.getIndices(), checked);
      StoreOp::create(b, loc, at.pointers, store.getValue(), at.mask,
                      CacheModifier::none, EvictionPolicy::normal);
    } else {
      auto reduce = cast<DescriptorReduceOp>(op);
      BlockAddresses at = addressBlock(b, loc, desc, reduce.getIndices(),
                                       checkedDims(std::nullopt, rank));
      AtomicRMWOp::create(b, loc, reduce.getKind(), MemOrder::relaxed,
                          MemScope::gpu, at.pointers, reduce.getValue(),
                          at.mask);
    }
    op->erase();
    return success();
  }
};

} // namespace
