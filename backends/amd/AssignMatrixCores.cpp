//===- AssignMatrixCores.cpp - dots onto the matrix cores -----------------===//

#include "backends/amd/Passes.h"

#include "backends/common/MatrixUnits.h"
#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEAMDASSIGNMATRIXCORESPASS
#include "backends/amd/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

namespace {

/// An instruction for a dot: its result layout's tile (M = N) and K, and
/// the K elements a lane gives it.
struct Instruction {
  unsigned tile, k, kWidth;
};

/// The MFMA instruction of `version` for a dot of `shape` x `k`; none where
/// none divides it.
std::optional<Instruction> chooseMfma(unsigned version, ArrayRef<int64_t> shape,
                                      int64_t k) {
  for (unsigned tile : {32u, 16u}) {
    if (shape[0] % tile || shape[1] % tile)
      continue;
    for (unsigned kWidth : {8u, 4u}) {
      unsigned kDim = kWidth * 64 / tile;
      if ((kWidth == 4 || version == 4) && k % kDim == 0)
        return Instruction{tile, kDim, kWidth};
    }
  }
  return std::nullopt;
}

struct TileAmdAssignMatrixCoresPass
    : public mlir::tile::impl::TileAmdAssignMatrixCoresPassBase<
          TileAmdAssignMatrixCoresPass> {
  using TileAmdAssignMatrixCoresPassBase::TileAmdAssignMatrixCoresPassBase;

  void runOnOperation() override {
    if (mfmaVersion == 0 && wmmaVersion == 0)
      return;
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &message) {
      module.emitError(message);
      signalPassFailure();
    };
    if (mfmaVersion && wmmaVersion)
      return fail("a GPU has MFMA or WMMA, not both: give mfma-version or "
                  "wmma-version");
    if (mfmaVersion && (mfmaVersion < 2 || mfmaVersion > 4))
      return fail("mfma-version must be 2, 3 or 4 (0: none), got " +
                  Twine(mfmaVersion));
    if (wmmaVersion > 2)
      return fail("wmma-version must be 1 or 2 (0: none), got " +
                  Twine(wmmaVersion));
    auto numWarps = module->getAttrOfType<IntegerAttr>("tile.num_warps");
    auto warpSize = module->getAttrOfType<IntegerAttr>("tile.warp_size");
    if (!numWarps || !warpSize)
      return fail("the matrix-core stage needs layouts: run "
                  "tile-assign-layouts first (the module has no "
                  "tile.num_warps)");
    unsigned lanes = mfmaVersion ? 64 : 32;
    if (warpSize.getInt() != lanes)
      return fail(Twine(mfmaVersion ? "mfma" : "wmma") + " runs on " +
                  Twine(lanes) + "-lane waves; the module's have " +
                  Twine(warpSize.getInt()));
    SmallVector<DotOp> dots;
    module.walk([&](DotOp dot) { dots.push_back(dot); });
    for (DotOp dot : dots)
      assign(dot, numWarps.getInt());
  }

  void assign(DotOp dot, unsigned numWarps) {
    RankedTensorType type = dot.getType();
    Type operand = dot.getA().getType().getElementType();
    Type element = type.getElementType();
    if (type.getRank() != 2 || !type.getEncoding() ||
        !(operand.isF16() || operand.isBF16()) ||
        operand != dot.getB().getType().getElementType() ||
        !isa<FloatType>(element) || element.getIntOrFloatBitWidth() > 32)
      return;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t k = dot.getA().getType().getShape()[1];
    MLIRContext *context = &getContext();
    Attribute layout;
    unsigned kWidth;
    if (mfmaVersion) {
      std::optional<Instruction> mfma = chooseMfma(mfmaVersion, shape, k);
      if (!mfma)
        return;
      kWidth = mfma->kWidth;
      layout =
          MfmaLayoutAttr::get(context, mfmaVersion,
                              warpsForTiles(shape, numWarps, /*chained=*/false,
                                            mfma->tile, mfma->tile),
                              {mfma->tile, mfma->tile, mfma->k});
    } else {
      if (shape[0] % 16 || shape[1] % 16 || k % 16)
        return;
      kWidth = wmmaVersion == 1 ? 16 : 8;
      layout = WmmaLayoutAttr::get(
          context, wmmaVersion,
          warpsForTiles(shape, numWarps, /*chained=*/false, 16, 16));
    }
    auto parent = cast<DistributedLayoutAttrInterface>(layout);
    Type f32 = Float32Type::get(context);
    Location loc = dot.getLoc();
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : dot.getD().getUses())
      uses.push_back(&use);
    OpBuilder b(dot);
    Value x =
        castAndConvert(b, loc, dot.getA(), operand,
                       DotOperandLayoutAttr::get(context, 0, parent, kWidth));
    Value y =
        castAndConvert(b, loc, dot.getB(), operand,
                       DotOperandLayoutAttr::get(context, 1, parent, kWidth));
    Value c = castAndConvert(b, loc, dot.getC(), f32, layout);
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
