//===- LowerMatrixCores.cpp - dots on the matrix cores (MFMA, WMMA) -------===//
//
// A dot in a `#tile_amd.mfma` or `#tile_amd.wmma` layout becomes one matrix
// instruction per tile of the result (32x32 or 16x16) and instruction K of
// the operands. Which register holds which element comes from the layouts'
// linear forms: the lane-0 element of each register names it, and the
// ISAs' matrix layouts say where the instruction wants it
// (backends/amd/IR/MfmaLayouts.h).
//
//===----------------------------------------------------------------------===//

#include "backends/amd/LowerMatrixCores.h"

#include "backends/amd/IR/AmdDialect.h"
#include "backends/common/Lowering.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

namespace {

/// One matrix instruction and how its operands lie in lane 0.
struct Instruction {
  /// LLVM's intrinsic; MFMA's take three more i32s (cbsz, abid, blgp).
  std::string name;
  bool isMfma;
  /// The result tile (M = N), K, and the K elements a lane gives.
  unsigned tile, k, kWidth;
  /// bf16 operands as i16 (the intrinsic's type).
  bool bf16AsI16;
  /// The rows lane 0 holds in D's registers (its column is the tile's
  /// first).
  SmallVector<int32_t> rows;
};

Instruction mfmaOf(MfmaLayoutAttr mfma, Type element) {
  unsigned tile = mfma.getInstrShape()[0], k = mfma.getInstrShape()[2];
  unsigned kWidth = k * tile / 64;
  std::string shape = std::to_string(tile) + "x" + std::to_string(tile) + "x" +
                      std::to_string(k);
  std::string type = element.isF16() ? "f16" : "bf16";
  // CDNA2's 4-element forms (bf16 as i16, "1k"), CDNA4's 8-element ones.
  std::string name = kWidth == 8 ? "llvm.amdgcn.mfma.f32." + shape + "." + type
                                 : "llvm.amdgcn.mfma.f32." + shape + type +
                                       (element.isBF16() ? ".1k" : "");
  SmallVector<int32_t> rows;
  for (int32_t i = 0; i < int32_t(tile * tile / 64); ++i)
    rows.push_back(tile == 32 ? 8 * (i / 4) + i % 4 : i);
  return {name, true, tile, k, kWidth, element.isBF16() && kWidth == 4, rows};
}

Instruction wmmaOf(WmmaLayoutAttr wmma, Type element) {
  unsigned kWidth = wmma.getVersion() == 1 ? 16 : 8;
  // Overloaded on the operands' type: bf16 as i16.
  std::string name = "llvm.amdgcn.wmma.f32.16x16x16." +
                     std::string(element.isF16() ? "f16" : "bf16") +
                     ".v8f32.v" + std::to_string(kWidth) +
                     (element.isF16() ? "f16" : "i16");
  SmallVector<int32_t> rows;
  for (int32_t v = 0; v < 8; ++v)
    rows.push_back(wmma.getVersion() == 1 ? 2 * v : v);
  return {name, false, 16, 16, kWidth, element.isBF16(), rows};
}

/// `values` as one vector operand, `asI16` as a vector of i16.
Value packOperand(OpBuilder &b, Location loc, ArrayRef<Value> values,
                  bool asI16) {
  auto type = VectorType::get(values.size(), values[0].getType());
  Value vector = LLVM::PoisonOp::create(b, loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    vector = LLVM::InsertElementOp::create(b, loc, vector, v,
                                           i32Constant(b, loc, int64_t(i)));
  if (!asI16)
    return vector;
  return LLVM::BitcastOp::create(
      b, loc, VectorType::get(values.size(), b.getI16Type()), vector);
}

class MatrixCoreDotPattern : public LoweringPattern<DotOp> {
public:
  // Tried before the CUDA-core dot of backends/common.
  MatrixCoreDotPattern(const TypeConverter &converter, LoweringState &state)
      : LoweringPattern(converter, state, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Attribute layout = op.getType().getEncoding();
    if (!isa_and_nonnull<MfmaLayoutAttr, WmmaLayoutAttr>(layout))
      return failure();
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    Type element = aType.getElementType();
    if (!(element.isF16() || element.isBF16()) ||
        bType.getElementType() != element ||
        !op.getType().getElementType().isF32())
      return loweringError(op, "the matrix cores multiply f16 or bf16 "
                               "operands into f32 here");
    Instruction instr = isa<MfmaLayoutAttr>(layout)
                            ? mfmaOf(cast<MfmaLayoutAttr>(layout), element)
                            : wmmaOf(cast<WmmaLayoutAttr>(layout), element);
    auto isOperand = [&](RankedTensorType type, unsigned opIdx) {
      auto operand =
          dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
      return operand && operand.getOpIdx() == opIdx &&
             operand.getParent() == layout &&
             operand.getKWidth() == instr.kWidth;
    };
    if (!isOperand(aType, 0) || !isOperand(bType, 1))
      return loweringError(op, "the operands of a dot in a matrix-core "
                               "layout must have its dot_operand layouts "
                               "with kWidth " +
                                   Twine(instr.kWidth));
    int64_t k = aType.getShape()[1];
    if (k % instr.k != 0)
      return loweringError(op, "K is not a multiple of the instruction's");

    Location loc = op.getLoc();
    RegisterIndex a(*layoutOf(aType), adaptor.getA());
    RegisterIndex b(*layoutOf(bType), adaptor.getB());
    RegisterIndex c(*layoutOf(op.getType()), adaptor.getC());
    SmallVector<Value> acc(adaptor.getC());
    auto resultType = VectorType::get(instr.rows.size(), rewriter.getF32Type());
    int32_t tileSize = instr.tile;

    // The tiles this thread computes: those whose first element its lane 0
    // holds, in register order.
    SmallVector<SmallVector<int32_t>> tiles;
    for (unsigned r = 0; r < acc.size(); ++r) {
      SmallVector<int32_t> at = registerCoords(c.layout, r);
      if (at[0] % tileSize == 0 && at[1] % tileSize == 0)
        tiles.push_back(at);
    }
    for (int64_t k0 = 0; k0 < k; k0 += instr.k) {
      for (const SmallVector<int32_t> &tile : tiles) {
        SmallVector<Value> x = a.run({tile[0], int32_t(k0)}, 1, instr.kWidth);
        SmallVector<Value> y = b.run({int32_t(k0), tile[1]}, 0, instr.kWidth);
        SmallVector<unsigned> cRegs;
        for (int32_t row : instr.rows)
          cRegs.push_back(c.at({tile[0] + row, tile[1]}));
        if (x.empty() || y.empty() || llvm::is_contained(cRegs, ~0u))
          return loweringError(op, "a thread does not hold the fragments of "
                                   "its tiles");
        SmallVector<Value> cValues;
        for (unsigned r : cRegs)
          cValues.push_back(acc[r]);
        SmallVector<Value> args{packOperand(rewriter, loc, x, instr.bf16AsI16),
                                packOperand(rewriter, loc, y, instr.bf16AsI16),
                                packOperand(rewriter, loc, cValues, false)};
        if (instr.isMfma)
          args.append(3, i32Constant(rewriter, loc, 0));
        Value d = LLVM::CallIntrinsicOp::create(
                      rewriter, loc, resultType,
                      rewriter.getStringAttr(instr.name), args)
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
  patterns.add<MatrixCoreDotPattern>(converter, state);
}
