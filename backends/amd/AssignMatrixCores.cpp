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

/// The MFMA instruction of `version` for a dot of `shape` x `k` with
/// operands of `element`, of tile `nonKDim` (16 or 32; 0: the larger that
/// fits); none where none divides it.
std::optional<Instruction> chooseMfma(unsigned version, ArrayRef<int64_t> shape,
                                      int64_t k, Type element,
                                      unsigned nonKDim) {
  for (unsigned tile : {32u, 16u}) {
    if (shape[0] % tile || shape[1] % tile || (nonKDim && tile != nonKDim))
      continue;
    for (unsigned kWidth : amd::mfmaKWidths(version, element))
      if (k % (kWidth * 64 / tile) == 0)
        return Instruction{tile, kWidth * 64 / tile, kWidth};
  }
  return std::nullopt;
}

/// The types the matrix cores multiply `dot`'s operands as, where
/// `hasInstruction` says which element types they take: f16 or bf16 as
/// they are (both alike); fp8 (e4m3, e5m2, mixed too) as it is where there
/// are instructions for it (the FNUZ formats on gfx942's MFMA, the OCP ones
/// on gfx950's MFMA and gfx12's WMMA), else widened to f16, as Triton does; f32 as
/// xf32 where there are (gfx942) and the dot allows tf32; int8 into integers;
/// none for others.
std::optional<std::pair<Type, Type>>
operandTypes(DotOp dot, function_ref<bool(Type)> hasInstruction) {
  Type a = dot.getA().getType().getElementType();
  Type b = dot.getB().getType().getElementType();
  Type result = dot.getType().getElementType();
  bool floats = isa<FloatType>(result) && result.getIntOrFloatBitWidth() <= 32;
  if (floats && isFloat8(a) && isFloat8(b)) {
    if (hasInstruction(a) && hasInstruction(b))
      return std::pair(a, b);
    Type f16 = Float16Type::get(a.getContext());
    return std::pair(f16, f16);
  }
  if (floats && (a.isF16() || a.isBF16()) && a == b)
    return std::pair(a, b);
  if (hasInstruction(a) && a.isF32() && b.isF32() && result.isF32() &&
      dot.getPrecision() == InputPrecision::tf32)
    return std::pair(a, b);
  if (a.isInteger(8) && b.isInteger(8) && result.isInteger(32))
    return std::pair(a, b);
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
    if (matrixInstrNonKDim != 0 && matrixInstrNonKDim != 16 &&
        matrixInstrNonKDim != 32)
      return fail("matrix-instr-nonkdim must be 0, 16 or 32, got " +
                  Twine(matrixInstrNonKDim));
    if (kpack != 1 && kpack != 2)
      return fail("kpack must be 1 or 2, got " + Twine(kpack));
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
    std::optional<std::pair<Type, Type>> operands =
        operandTypes(dot, [&](Type element) {
          return mfmaVersion ? !mfmaKWidths(mfmaVersion, element).empty()
                             : wmmaKWidth(wmmaVersion, element) != 0;
        });
    if (type.getRank() != 2 || !type.getEncoding() || !operands)
      return;
    auto [aElement, bElement] = *operands;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t k = dot.getA().getType().getShape()[1];
    MLIRContext *context = &getContext();
    Attribute layout;
    unsigned kWidth;
    // Chained dots (attention's) put all waves along M, so that one's
    // result rows are the next one's A rows.
    bool chained = isChained(dot, llvm::IsaPred<DotOp>);
    if (mfmaVersion) {
      std::optional<Instruction> mfma =
          chooseMfma(mfmaVersion, shape, k, aElement, matrixInstrNonKDim);
      if (!mfma)
        return;
      kWidth = mfma->kWidth;
      // kpack (version 3, as Triton's): a lane's run of K for several
      // instructions.
      if (mfmaVersion == 3 && k % (mfma->k * kpack) == 0)
        kWidth *= kpack;
      // Transposed, as Triton's: rows store as vectors, and a chained
      // dot's result is the next one's A as it lies.
      layout = MfmaLayoutAttr::get(
          context, mfmaVersion,
          warpsForTiles(shape, numWarps, chained, mfma->tile, mfma->tile),
          {mfma->tile, mfma->tile, mfma->k}, /*isTransposed=*/true);
    } else {
      if (shape[0] % 16 || shape[1] % 16 || k % 16)
        return;
      kWidth = wmmaKWidth(wmmaVersion, aElement);
      layout =
          WmmaLayoutAttr::get(context, wmmaVersion,
                              warpsForTiles(shape, numWarps, chained, 16, 16));
    }
    auto parent = cast<DistributedLayoutAttrInterface>(layout);
    Type accumulator = aElement.isInteger(8)
                           ? Type(IntegerType::get(context, 32))
                           : Type(Float32Type::get(context));
    setDotLayouts(
        dot, aElement, DotOperandLayoutAttr::get(context, 0, parent, kWidth),
        bElement, DotOperandLayoutAttr::get(context, 1, parent, kWidth),
        accumulator, layout);
  }
};

} // namespace
