//===- LowerMfma.cpp - dots on the matrix cores (MFMA) --------------------===//
//
// A dot in a `#tile_amd.mfma` layout becomes one MFMA instruction per tile
// of the result (32x32 or 16x16) and instruction K of the operands. Which
// register holds which element comes from the layouts' linear forms: the
// lane-0 element of each register names it, and the ISA's matrix layouts
// say where the instruction wants it (backends/amd/IR/MfmaLayouts.h).
//
//===----------------------------------------------------------------------===//

#include "backends/amd/LowerMfma.h"

#include "backends/amd/IR/AmdDialect.h"
#include "backends/common/Lowering.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

namespace {

/// LLVM's intrinsic for `mDim` x `mDim` tiles of `element` operands, `kWidth`
/// K elements a lane: the 4-element forms of CDNA2 (bf16 as i16, "1k"),
/// the 8-element ones of CDNA4.
std::string intrinsicName(Type element, unsigned mDim, unsigned kDim,
                          unsigned kWidth) {
  std::string shape = std::to_string(mDim) + "x" + std::to_string(mDim) + "x" +
                      std::to_string(kDim);
  std::string type = element.isF16() ? "f16" : "bf16";
  if (kWidth == 8)
    return "llvm.amdgcn.mfma.f32." + shape + "." + type;
  return "llvm.amdgcn.mfma.f32." + shape + type +
         (element.isBF16() ? ".1k" : "");
}

/// `values` as one vector operand; bf16 as i16 in the 4-element forms.
Value packOperand(OpBuilder &b, Location loc, ArrayRef<Value> values,
                  bool bf16AsI16) {
  auto type = VectorType::get(values.size(), values[0].getType());
  Value vector = LLVM::PoisonOp::create(b, loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    vector = LLVM::InsertElementOp::create(b, loc, vector, v,
                                           i32Constant(b, loc, int64_t(i)));
  if (!bf16AsI16)
    return vector;
  return LLVM::BitcastOp::create(
      b, loc, VectorType::get(values.size(), b.getI16Type()), vector);
}

class MfmaDotPattern : public LoweringPattern<DotOp> {
public:
  // Tried before the CUDA-core dot of backends/common.
  MfmaDotPattern(const TypeConverter &converter, LoweringState &state)
      : LoweringPattern(converter, state, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto mfma = dyn_cast_if_present<MfmaLayoutAttr>(op.getType().getEncoding());
    if (!mfma)
      return failure();
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    Type element = aType.getElementType();
    if (!(element.isF16() || element.isBF16()) ||
        bType.getElementType() != element ||
        !op.getType().getElementType().isF32())
      return loweringError(op, "the matrix cores multiply f16 or bf16 "
                               "operands into f32 here");
    unsigned mDim = mfma.getInstrShape()[0], kDim = mfma.getInstrShape()[2];
    unsigned kWidth = kDim * mDim / 64;
    auto isOperand = [&](RankedTensorType type, unsigned opIdx) {
      auto layout =
          dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
      return layout && layout.getOpIdx() == opIdx &&
             layout.getParent() == mfma && layout.getKWidth() == kWidth;
    };
    if (!isOperand(aType, 0) || !isOperand(bType, 1))
      return loweringError(op, "the operands of a dot in an mfma layout must "
                               "have its dot_operand layouts with kWidth " +
                                   Twine(kWidth));
    int64_t k = aType.getShape()[1];
    if (k % kDim != 0)
      return loweringError(op, "K is not a multiple of the instruction's");

    Location loc = op.getLoc();
    RegisterIndex a(*layoutOf(aType), adaptor.getA());
    RegisterIndex b(*layoutOf(bType), adaptor.getB());
    RegisterIndex c(*layoutOf(op.getType()), adaptor.getC());
    SmallVector<Value> acc(adaptor.getC());
    std::string name = intrinsicName(element, mDim, kDim, kWidth);
    bool bf16AsI16 = element.isBF16() && kWidth == 4;
    unsigned results = mDim * mDim / 64;
    auto resultType = VectorType::get(results, rewriter.getF32Type());
    // The rows lane 0 holds in D's registers (its column is the tile's
    // first): 32x32 rows 8 (i / 4) + i % 4, 16x16 rows i.
    auto rowOf = [&](unsigned i) {
      return mDim == 32 ? 8 * (i / 4) + i % 4 : i;
    };

    // The tiles this thread computes: those whose first element its lane 0
    // holds, in register order.
    SmallVector<SmallVector<int32_t>> tiles;
    for (unsigned r = 0; r < acc.size(); ++r) {
      SmallVector<int32_t> at = registerCoords(c.layout, r);
      if (at[0] % mDim == 0 && at[1] % mDim == 0)
        tiles.push_back(at);
    }
    for (int64_t k0 = 0; k0 < k; k0 += kDim) {
      for (const SmallVector<int32_t> &tile : tiles) {
        SmallVector<Value> x = a.run({tile[0], int32_t(k0)}, 1, kWidth);
        SmallVector<Value> y = b.run({int32_t(k0), tile[1]}, 0, kWidth);
        SmallVector<unsigned> cRegs;
        for (unsigned i = 0; i < results; ++i)
          cRegs.push_back(c.at({tile[0] + int32_t(rowOf(i)), tile[1]}));
        if (x.empty() || y.empty() || llvm::is_contained(cRegs, ~0u))
          return loweringError(op, "a thread does not hold the fragments of "
                                   "its tiles");
        SmallVector<Value> cValues;
        for (unsigned r : cRegs)
          cValues.push_back(acc[r]);
        Value zero = i32Constant(rewriter, loc, 0);
        SmallVector<Value> args{packOperand(rewriter, loc, x, bf16AsI16),
                                packOperand(rewriter, loc, y, bf16AsI16),
                                packOperand(rewriter, loc, cValues, false),
                                zero,
                                zero,
                                zero};
        Value d =
            LLVM::CallIntrinsicOp::create(rewriter, loc, resultType,
                                          rewriter.getStringAttr(name), args)
                .getResult(0);
        for (auto [i, r] : llvm::enumerate(cRegs))
          acc[r] = LLVM::ExtractElementOp::create(
              rewriter, loc, d, i32Constant(rewriter, loc, int64_t(i)));
      }
    }
    replaceWithRegisters(rewriter, op, acc);
    return success();
  }
};

} // namespace

void mlir::tile::populateAmdDotPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        LoweringState &state) {
  patterns.add<MfmaDotPattern>(converter, state);
}
