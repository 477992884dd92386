//===- MatrixUnits.cpp - what the backends' matrix-unit stages share ------===//

#include "backends/common/MatrixUnits.h"

#include "ir/Tile/TileOps.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

Value mlir::tile::castAndConvert(OpBuilder &b, Location loc, Value value,
                                 Type element, Attribute layout) {
  auto type = cast<RankedTensorType>(value.getType());
  auto retyped = [&](Attribute encoding) {
    return RankedTensorType::get(type.getShape(), element, encoding);
  };
  Type from = type.getElementType();
  if (from != element) {
    auto cast = retyped(type.getEncoding());
    bool widen = from.getIntOrFloatBitWidth() < element.getIntOrFloatBitWidth();
    if (isa<FloatType>(element))
      value = widen ? Value(arith::ExtFOp::create(b, loc, cast, value))
                    : Value(arith::TruncFOp::create(b, loc, cast, value));
    else
      value = widen ? Value(arith::ExtSIOp::create(b, loc, cast, value))
                    : Value(arith::TruncIOp::create(b, loc, cast, value));
  }
  if (type.getEncoding() == layout)
    return value;
  return ConvertLayoutOp::create(b, loc, retyped(layout), value);
}

void mlir::tile::setDotLayouts(DotOp dot, Type aElement, Attribute aLayout,
                               Type bElement, Attribute bLayout,
                               Type accumulator, Attribute result) {
  RankedTensorType type = dot.getType();
  Location loc = dot.getLoc();
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : dot.getD().getUses())
    uses.push_back(&use);
  OpBuilder b(dot);
  Value x = castAndConvert(b, loc, dot.getA(), aElement, aLayout);
  Value y = castAndConvert(b, loc, dot.getB(), bElement, bLayout);
  Value c = castAndConvert(b, loc, dot.getC(), accumulator, result);
  dot.getAMutable().assign(x);
  dot.getBMutable().assign(y);
  dot.getCMutable().assign(c);
  dot.getD().setType(cast<RankedTensorType>(c.getType()));
  b.setInsertionPointAfter(dot);
  Value back = castAndConvert(b, loc, dot.getD(), type.getElementType(),
                              type.getEncoding());
  for (OpOperand *use : uses)
    use->set(back);
}

SmallVector<unsigned> mlir::tile::warpsForTiles(ArrayRef<int64_t> shape,
                                                unsigned numWarps, bool chained,
                                                int64_t tileM, int64_t tileN) {
  unsigned rank = shape.size();
  SmallVector<unsigned> warps(rank, 1);
  unsigned left = numWarps;
  if (rank == 3) {
    warps[0] = std::min<int64_t>(left, shape[0]);
    left /= warps[0];
  }
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  unsigned &wm = warps[rank - 2], &wn = warps[rank - 1];
  if (chained) {
    wm = std::min<int64_t>(left, std::max<int64_t>(1, m / tileM));
    wn = left / wm;
    return warps;
  }
  while (wm * wn < left) {
    if (m / tileM / wm >= n / tileM / wn && wm < m / tileM)
      wm *= 2;
    else if (wn < n / tileN)
      wn *= 2;
    else
      wm *= 2; // More warps than tiles: they hold copies.
  }
  return warps;
}

bool mlir::tile::isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(type);
}

bool mlir::tile::comesFromDot(Value value,
                              llvm::function_ref<bool(Operation *)> isDot) {
  SetVector<Operation *> backward;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  return succeeded(getBackwardSlice(value, &backward, options)) &&
         llvm::any_of(backward, isDot);
}

bool mlir::tile::isChained(DotOp dot,
                           llvm::function_ref<bool(Operation *)> isDot) {
  SetVector<Operation *> forward;
  getForwardSlice(dot.getD(), &forward);
  for (Operation *op : forward)
    if (auto next = dyn_cast<DotOp>(op))
      for (Value operand : {next.getA(), next.getB()})
        if (operand == dot.getD() ||
            (operand.getDefiningOp() &&
             forward.contains(operand.getDefiningOp())))
          return true;
  return comesFromDot(dot.getA(), isDot) || comesFromDot(dot.getB(), isDot);
}
