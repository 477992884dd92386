//===- FmaDots.cpp - CUDA-core dots, a K step at a time -------------------===//
//
// A dot that no matrix unit took is multiply-adds in each thread, on whole
// rows of A and columns of B in registers. Converted into those layouts at
// once, all of both operands are live before the first product (a thousand
// values and more: spills, and minutes in LLVM's register allocator). Here
// each operand goes to a buffer of its own instead, laid out so that one K
// step of a thread's rows or columns is contiguous, and the dot becomes one
// rank-1 update per K step, each reading its step's column of A and row of
// B just before it.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Passes.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEFMADOTSPASS
#include "backends/common/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The value `operand` converts into a dot-operand layout with a blocked
/// parent (a dot on the CUDA cores), or null.
Value convertedOperand(Value operand) {
  auto convert = operand.getDefiningOp<ConvertLayoutOp>();
  if (!convert || !convert->hasOneUse())
    return {};
  auto layout = dyn_cast_if_present<DotOperandLayoutAttr>(
      cast<RankedTensorType>(operand.getType()).getEncoding());
  if (!layout || !isa<BlockedLayoutAttr>(layout.getParent()))
    return {};
  return convert.getSrc();
}

/// `value` stored to a buffer of its own whose dimension `fast` is the
/// contiguous one, then its other matrix dimension, then the batch (no
/// swizzle).
Value toBuffer(OpBuilder &b, Location loc, Value value, unsigned fast) {
  auto tensor = cast<RankedTensorType>(value.getType());
  unsigned rank = tensor.getRank();
  SmallVector<unsigned> order{fast, fast == rank - 1 ? rank - 2 : rank - 1};
  if (rank == 3)
    order.push_back(0);
  auto layout = SwizzledSharedLayoutAttr::get(b.getContext(), 1, 1, 1, order);
  auto type = MemDescType::get(tensor.getShape(), tensor.getElementType(),
                               layout, /*mutableMemory=*/false);
  return LocalAllocOp::create(b, loc, type, value);
}

/// Step `k` of `buffer` along dimension `kDim`, loaded in the layout of
/// `operand` (the dot operand it replaces).
Value loadStep(OpBuilder &b, Location loc, Value buffer, unsigned kDim,
               int64_t k, RankedTensorType operand) {
  auto memory = cast<MemDescType>(buffer.getType());
  SmallVector<int64_t> shape(memory.getShape());
  shape[kDim] = 1;
  SmallVector<int32_t> offsets(shape.size(), 0);
  offsets[kDim] = int32_t(k);
  auto viewType =
      MemDescType::get(shape, memory.getElementType(), memory.getEncoding(),
                       /*mutableMemory=*/false, memory.getShape());
  Value view = MemDescSubsliceOp::create(b, loc, viewType, buffer, offsets);
  auto type = RankedTensorType::get(shape, operand.getElementType(),
                                    operand.getEncoding());
  return LocalLoadOp::create(b, loc, type, view);
}

/// Splits `dot` where its operands fit in `maxBytes` of shared memory
/// together; larger dots keep their operands in registers.
void splitDot(DotOp dot, int64_t maxBytes) {
  auto type = cast<RankedTensorType>(dot.getType());
  unsigned rank = type.getRank();
  if (rank != 2 && rank != 3)
    return;
  Value a = convertedOperand(dot.getA()), b = convertedOperand(dot.getB());
  if (!a || !b)
    return;
  auto aType = cast<RankedTensorType>(dot.getA().getType());
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  int64_t k = aType.getShape()[rank - 1];
  int64_t bytes = (aType.getNumElements() * aType.getElementTypeBitWidth() +
                   bType.getNumElements() * bType.getElementTypeBitWidth()) /
                  8;
  if (k < 2 || bytes > maxBytes)
    return;
  OpBuilder builder(dot);
  Location loc = dot.getLoc();
  // A's rows (M, its dimension rank - 2) and B's columns (N, rank - 1)
  // contiguous.
  Value aBuffer = toBuffer(builder, loc, a, rank - 2);
  Value bBuffer = toBuffer(builder, loc, b, rank - 1);
  Value acc = dot.getC();
  for (int64_t step = 0; step < k; ++step) {
    Value x = loadStep(builder, loc, aBuffer, rank - 1, step, aType);
    Value y = loadStep(builder, loc, bBuffer, rank - 2, step, bType);
    auto next = cast<DotOp>(builder.clone(*dot));
    next->setOperands({x, y, acc});
    acc = next.getD();
  }
  Operation *aConvert = dot.getA().getDefiningOp();
  Operation *bConvert = dot.getB().getDefiningOp();
  dot.replaceAllUsesWith(acc);
  dot.erase();
  aConvert->erase();
  bConvert->erase();
}

struct TileFmaDotsPass
    : public mlir::tile::impl::TileFmaDotsPassBase<TileFmaDotsPass> {
  using TileFmaDotsPassBase::TileFmaDotsPassBase;

  void runOnOperation() override {
    SmallVector<DotOp> dots;
    getOperation().walk([&](DotOp dot) { dots.push_back(dot); });
    for (DotOp dot : dots)
      splitDot(dot, sharedBytes);
  }
};

} // namespace
