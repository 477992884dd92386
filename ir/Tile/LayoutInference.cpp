//===- LayoutInference.cpp - an op's layouts from one another -------------===//

#include "ir/Tile/LayoutInference.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Layout/LayoutBuilders.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

RankedTensorType mlir::tile::withLayout(Type type, Attribute layout) {
  return cast<RankedTensorType>(type).cloneWithEncoding(layout);
}

Attribute mlir::tile::permutedLayout(Attribute layout, ArrayRef<int32_t> order,
                                     ArrayRef<int64_t> shape) {
  MLIRContext *context = layout.getContext();
  if (isa<CoalescedLayoutAttr>(layout))
    return layout;
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout)) {
    SmallVector<unsigned> size, threads, warps, fastest;
    SmallVector<unsigned> position(order.size());
    for (auto [i, dim] : llvm::enumerate(order)) {
      size.push_back(blocked.getSizePerThread()[dim]);
      threads.push_back(blocked.getThreadsPerWarp()[dim]);
      warps.push_back(blocked.getWarpsPerCTA()[dim]);
      position[dim] = i;
    }
    for (unsigned dim : blocked.getOrder())
      fastest.push_back(position[dim]);
    return BlockedLayoutAttr::get(context, size, threads, warps, fastest);
  }
  auto distributed = dyn_cast<DistributedLayoutAttrInterface>(layout);
  if (!distributed)
    return {};
  return LinearEncodingAttr::get(
      context, permuteOuts(distributed.toLinearLayout(shape), order));
}

Attribute mlir::tile::reshapedLayout(Attribute layout, ArrayRef<int64_t> from,
                                     ArrayRef<int64_t> to) {
  if (isa<CoalescedLayoutAttr>(layout))
    return layout;
  auto distributed = dyn_cast<DistributedLayoutAttrInterface>(layout);
  if (!distributed)
    return {};
  return LinearEncodingAttr::get(
      layout.getContext(),
      reshapeRowMajor(distributed.toLinearLayout(from), to));
}

namespace {

/// Whether operand `index` of `op` holds each element where `op`'s result
/// holds the element computed from it: elementwise ops and loads, for the
/// operands of the result's shape.
bool sharesLayout(Operation *op, unsigned index) {
  if (op->getNumResults() == 0 || op->getNumRegions() != 0 ||
      isa<DotOp, ConvertLayoutOp>(op))
    return false;
  if (isa<GatherOp>(op) && index != 1)
    return false;
  auto operand = dyn_cast<RankedTensorType>(op->getOperand(index).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return operand && result && operand.getShape() == result.getShape() &&
         (isMemoryEffectFree(op) || isa<LoadOp>(op));
}

/// The layout of `layout`'s tensors with dimension `axis` removed (a
/// reduction's result, expand_dims' operand); CoalescedLayout stays itself.
Attribute withoutAxis(Attribute layout, unsigned axis) {
  if (isa<CoalescedLayoutAttr>(layout))
    return layout;
  auto parent = dyn_cast<DistributedLayoutAttrInterface>(layout);
  if (!parent)
    return {};
  return SliceLayoutAttr::get(layout.getContext(), axis, parent);
}

/// The layout of `layout`'s tensors with dimension `axis` added back (a
/// reduction's operand, expand_dims' result): a slice's parent; null for
/// other layouts.
Attribute withAxis(Attribute layout, unsigned axis) {
  if (isa<CoalescedLayoutAttr>(layout))
    return layout;
  auto slice = dyn_cast<SliceLayoutAttr>(layout);
  if (!slice || slice.getDim() != axis)
    return {};
  return slice.getParent();
}

} // namespace

Attribute mlir::tile::inferOperandLayout(Operation *op, unsigned index,
                                         Attribute layout) {
  return TypeSwitch<Operation *, Attribute>(op)
      .Case([&](ExpandDimsOp expand) {
        return withoutAxis(layout, expand.getAxis());
      })
      .Case([&](ReduceOp reduce) { return withAxis(layout, reduce.getAxis()); })
      .Case([&](ReshapeOp reshape) -> Attribute {
        return reshapedLayout(layout, reshape.getType().getShape(),
                              reshape.getSrc().getType().getShape());
      })
      .Case([&](TransOp trans) -> Attribute {
        // The inverse permutation takes the result back.
        SmallVector<int32_t> inverse(trans.getOrder().size());
        for (auto [i, dim] : llvm::enumerate(trans.getOrder()))
          inverse[dim] = i;
        return permutedLayout(layout, inverse, trans.getType().getShape());
      })
      .Case([&](BroadcastOp) { return layout; })
      .Default([&](Operation *other) -> Attribute {
        return sharesLayout(other, index) ? layout : Attribute();
      });
}

Attribute mlir::tile::inferResultLayout(Operation *op, unsigned index,
                                        Attribute layout) {
  return TypeSwitch<Operation *, Attribute>(op)
      .Case([&](ExpandDimsOp expand) {
        return withAxis(layout, expand.getAxis());
      })
      .Case([&](ReduceOp reduce) {
        return withoutAxis(layout, reduce.getAxis());
      })
      .Case([&](ReshapeOp reshape) -> Attribute {
        return reshapedLayout(layout, reshape.getSrc().getType().getShape(),
                              reshape.getType().getShape());
      })
      .Case([&](TransOp trans) -> Attribute {
        return permutedLayout(layout, trans.getOrder(),
                              trans.getSrc().getType().getShape());
      })
      .Case([&](BroadcastOp) { return layout; })
      .Default([&](Operation *other) -> Attribute {
        return sharesLayout(other, index) ? layout : Attribute();
      });
}
