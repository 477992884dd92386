//===- AssignMfma.cpp - dots onto the matrix cores ------------------------===//

#include "backends/amd/Passes.h"

#include "backends/common/MatrixUnits.h"
#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEAMDASSIGNMFMAPASS
#include "backends/amd/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

namespace {

/// The instruction a dot of `shape` x K takes on matrix cores of
/// `version`: [M, N, K] of one instruction and the K elements a lane gives
/// it; none where no instruction divides the dot.
std::optional<std::pair<SmallVector<unsigned>, unsigned>>
chooseInstruction(unsigned version, ArrayRef<int64_t> shape, int64_t k) {
  for (unsigned mDim : {32u, 16u}) {
    if (shape[0] % mDim || shape[1] % mDim)
      continue;
    SmallVector<unsigned> kWidths{4};
    if (version == 4)
      kWidths.insert(kWidths.begin(), 8);
    for (unsigned kWidth : kWidths) {
      unsigned kDim = kWidth * 64 / mDim;
      if (k % kDim == 0)
        return std::pair(SmallVector<unsigned>{mDim, mDim, kDim}, kWidth);
    }
  }
  return std::nullopt;
}

struct TileAmdAssignMfmaPass
    : public mlir::tile::impl::TileAmdAssignMfmaPassBase<
          TileAmdAssignMfmaPass> {
  using TileAmdAssignMfmaPassBase::TileAmdAssignMfmaPassBase;

  void runOnOperation() override {
    if (mfmaVersion == 0)
      return;
    ModuleOp module = getOperation();
    if (mfmaVersion < 2 || mfmaVersion > 4) {
      module.emitError() << "mfma-version must be 2, 3 or 4 (0: none), got "
                         << mfmaVersion;
      return signalPassFailure();
    }
    auto numWarpsAttr = module->getAttrOfType<IntegerAttr>("tile.num_warps");
    auto warpSizeAttr = module->getAttrOfType<IntegerAttr>("tile.warp_size");
    if (!numWarpsAttr || !warpSizeAttr) {
      module.emitError("the mfma stage needs layouts: run tile-assign-layouts "
                       "first (the module has no tile.num_warps)");
      return signalPassFailure();
    }
    if (warpSizeAttr.getInt() != 64) {
      module.emitError() << "mfma runs on 64-lane waves; the module's are "
                         << warpSizeAttr.getInt() << " lanes";
      return signalPassFailure();
    }
    SmallVector<DotOp> dots;
    module.walk([&](DotOp dot) { dots.push_back(dot); });
    for (DotOp dot : dots)
      assign(dot, numWarpsAttr.getInt());
  }

  void assign(DotOp dot, unsigned numWarps) {
    RankedTensorType type = dot.getType();
    Type a = dot.getA().getType().getElementType();
    Type element = type.getElementType();
    if (type.getRank() != 2 || !type.getEncoding() ||
        !(a.isF16() || a.isBF16()) ||
        a != dot.getB().getType().getElementType() ||
        !isa<FloatType>(element) || element.getIntOrFloatBitWidth() > 32)
      return;
    ArrayRef<int64_t> shape = type.getShape();
    auto instruction = chooseInstruction(mfmaVersion, shape,
                                         dot.getA().getType().getShape()[1]);
    if (!instruction)
      return;
    auto [instrShape, kWidth] = *instruction;
    MLIRContext *context = &getContext();
    auto mfma =
        MfmaLayoutAttr::get(context, mfmaVersion,
                            warpsForTiles(shape, numWarps, /*chained=*/false,
                                          instrShape[0], instrShape[1]),
                            instrShape);
    Type f32 = Float32Type::get(context);
    Location loc = dot.getLoc();
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : dot.getD().getUses())
      uses.push_back(&use);
    OpBuilder b(dot);
    Value x =
        castAndConvert(b, loc, dot.getA(), a,
                       DotOperandLayoutAttr::get(context, 0, mfma, kWidth));
    Value y =
        castAndConvert(b, loc, dot.getB(), a,
                       DotOperandLayoutAttr::get(context, 1, mfma, kWidth));
    Value c = castAndConvert(b, loc, dot.getC(), f32, mfma);
    dot.getAMutable().assign(x);
    dot.getBMutable().assign(y);
    dot.getCMutable().assign(c);
    dot.getD().setType(cast<RankedTensorType>(c.getType()));

    b.setInsertionPointAfter(dot);
    Value result =
        castAndConvert(b, loc, dot.getD(), element, type.getEncoding());
    for (OpOperand *use : uses)
      use->set(result);
  }
};

} // namespace
