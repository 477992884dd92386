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
#include "backends/common/MatrixUnits.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

namespace {

/// One matrix instruction and how its operands lie in lane 0.
struct Instruction {
  /// LLVM's intrinsic; MFMA's take three more i32s (cbsz, abid, blgp),
  /// integer WMMA a signedness flag before each operand and a clamp flag.
  std::string name;
  bool isMfma;
  /// The result tile (M = N), K, and the K elements a lane gives.
  unsigned tile, k, kWidth;
  /// The type the intrinsic takes a lane's operand elements as (a vector
  /// of the elements where null).
  Type operandType;
  /// The rows lane 0 holds in D's registers (its column is the tile's
  /// first; the other way round in a transposed MFMA layout).
  SmallVector<int32_t> rows;
};

/// MFMA's type of `kWidth` elements of `element`: bf16 as i16 where
/// `bf16AsI16`; 8-bit ones (int8, fp8) packed into an i32, an i64, or i32
/// vectors; null for a vector of the elements.
Type intrinsicOperandType(MLIRContext *context, Type element, unsigned kWidth,
                          bool bf16AsI16) {
  if (element.isBF16() && bf16AsI16)
    return VectorType::get(kWidth, IntegerType::get(context, 16));
  if (element.getIntOrFloatBitWidth() != 8)
    return {};
  if (kWidth <= 8)
    return IntegerType::get(context, 8 * kWidth);
  return VectorType::get(kWidth / 4, IntegerType::get(context, 32));
}

/// The intrinsics' name of an fp8 format: "fp8" (e4m3) or "bf8" (e5m2),
/// FNUZ on gfx942, OCP later.
std::string fp8Name(Type element) {
  return isa<Float8E5M2Type, Float8E5M2FNUZType>(element) ? "bf8" : "fp8";
}

/// The MFMA of `mfma`'s dots of `a` times `b`; a transposed layout's
/// computes B^T A^T, its operands swapped.
Instruction mfmaOf(MfmaLayoutAttr mfma, Type a, Type b) {
  if (mfma.getIsTransposed())
    std::swap(a, b);
  unsigned tile = mfma.getInstrShape()[0], k = mfma.getInstrShape()[2];
  unsigned kWidth = k * tile / 64;
  std::string shape = std::to_string(tile) + "x" + std::to_string(tile) + "x" +
                      std::to_string(k);
  bool integer = a.isInteger(8);
  std::string type = integer      ? "i8"
                     : a.isF16()  ? "f16"
                     : a.isBF16() ? "bf16"
                     : a.isF32()  ? "xf32"
                                  : fp8Name(a) + "." + fp8Name(b);
  // CDNA2's forms of 16-bit types and int8, 4 elements a lane (shape and
  // type run together; bf16 as i16, "1k"), and the later ones (a dot
  // between them).
  bool cdna2 = kWidth == 4;
  std::string name = std::string("llvm.amdgcn.mfma.") +
                     (integer ? "i32." : "f32.") + shape +
                     (cdna2 ? type + (a.isBF16() ? ".1k" : "") : "." + type);
  SmallVector<int32_t> rows;
  for (int32_t i = 0; i < int32_t(tile * tile / 64); ++i)
    rows.push_back(tile == 32 ? 8 * (i / 4) + i % 4 : i);
  Type operand = intrinsicOperandType(mfma.getContext(), a, kWidth, cdna2);
  return {name, true, tile, k, kWidth, operand, rows};
}

Instruction wmmaOf(WmmaLayoutAttr wmma, Type a, Type b) {
  unsigned kWidth = wmma.getVersion() == 1 ? 16 : 8;
  MLIRContext *context = wmma.getContext();
  // 8-bit types as i32 vectors, even of two.
  bool bytes = a.getIntOrFloatBitWidth() == 8;
  Type operand =
      bytes ? VectorType::get(kWidth / 4, IntegerType::get(context, 32))
            : intrinsicOperandType(context, a, kWidth, true);
  // Overloaded on the result's and the operands' types.
  std::string overloads =
      ".v8f32.v" + std::to_string(kWidth) + (a.isF16() ? "f16" : "i16");
  if (bytes)
    overloads = ".v" + std::to_string(kWidth / 4) + "i32";
  std::string name =
      a.isInteger(8) ? "llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32" + overloads
                     : "llvm.amdgcn.wmma.f32.16x16x16." +
                           (bytes ? fp8Name(a) + "." + fp8Name(b) + ".v8f32"
                                  : std::string(a.isF16() ? "f16" : "bf16")) +
                           overloads;
  SmallVector<int32_t> rows;
  for (int32_t v = 0; v < 8; ++v)
    rows.push_back(wmma.getVersion() == 1 ? 2 * v : v);
  return {name, false, 16, 16, kWidth, operand, rows};
}

/// `values` (2 or more) as one vector operand, fp8 as bytes, bitcast to
/// `type` where that is not null.
Value packOperand(OpBuilder &b, Location loc, ArrayRef<Value> values,
                  Type type) {
  SmallVector<Value> stored;
  for (Value value : values)
    stored.push_back(toMemory(b, loc, value));
  Value vector = packVector(
      b, loc, stored, VectorType::get(stored.size(), stored[0].getType()));
  if (!type)
    return vector;
  return LLVM::BitcastOp::create(b, loc, type, vector);
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
    Type element = aType.getElementType(), bElement = bType.getElementType();
    Type result = op.getType().getElementType();
    bool integers = element.isInteger(8);
    bool alike =
        bElement == element || (isFloat8(element) && isFloat8(bElement));
    auto mfma = dyn_cast<MfmaLayoutAttr>(layout);
    auto wmma = dyn_cast<WmmaLayoutAttr>(layout);
    unsigned version = mfma ? mfma.getVersion() : wmma.getVersion();
    Instruction instr = mfma ? mfmaOf(mfma, element, bElement)
                             : wmmaOf(wmma, element, bElement);
    // Both operands' types: fp8 formats mix only within OCP or FNUZ.
    bool exists = llvm::all_of(ArrayRef<Type>{element, bElement}, [&](Type t) {
      return mfma ? llvm::is_contained(mfmaKWidths(version, t), instr.kWidth)
                  : wmmaKWidth(version, t) == instr.kWidth;
    });
    if (!alike || !exists ||
        result != (integers ? Type(rewriter.getI32Type())
                            : Type(rewriter.getF32Type())))
      return loweringError(
          op, Twine(mfma ? "MFMA" : "WMMA") + " version " + Twine(version) +
                  " has no instruction of " + Twine(instr.kWidth) +
                  " K elements a lane for this dot's types (f16, bf16 and "
                  "int8, FNUZ fp8 on gfx942, OCP fp8 on gfx950 and gfx12, "
                  "f32 as xf32 on gfx942, into f32 or i32)");
    // Operands may hold a run of K for `pack` instructions a lane (kpack):
    // each takes its part of every lane's run.
    auto operandKWidth = [&](RankedTensorType type, unsigned opIdx) {
      auto operand =
          dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
      return operand && operand.getOpIdx() == opIdx &&
                     operand.getParent() == layout
                 ? operand.getKWidth()
                 : 0u;
    };
    unsigned kWidth = operandKWidth(aType, 0);
    if (kWidth == 0 || kWidth != operandKWidth(bType, 1) ||
        kWidth % instr.kWidth != 0 || (!mfma && kWidth != instr.kWidth))
      return loweringError(op, "the operands of a dot in a matrix-core "
                               "layout must have its dot_operand layouts "
                               "with a kWidth of " +
                                   Twine(instr.kWidth) +
                                   (mfma ? " or a multiple" : ""));
    unsigned pack = kWidth / instr.kWidth;
    int64_t k = aType.getShape()[1];
    if (k % (instr.k * pack) != 0)
      return loweringError(op, "K is not a multiple of the instructions'");

    Location loc = op.getLoc();
    RegisterIndex a(*layoutOf(aType), adaptor.getA());
    RegisterIndex b(*layoutOf(bType), adaptor.getB());
    RegisterIndex c(*layoutOf(op.getType()), adaptor.getC());
    SmallVector<Value> acc(adaptor.getC());
    auto resultType = VectorType::get(instr.rows.size(), result);
    // D^T = B^T A^T: lane 0's registers hold a row of the tile, not a
    // column.
    bool transposed = mfma && mfma.getIsTransposed();
    int32_t tileSize = instr.tile;

    // The tiles this thread computes: those whose first element its lane 0
    // holds, in register order.
    SmallVector<SmallVector<int32_t>> tiles;
    for (unsigned r = 0; r < acc.size(); ++r) {
      SmallVector<int32_t> at = registerCoords(c.layout, r);
      if (at[0] % tileSize == 0 && at[1] % tileSize == 0)
        tiles.push_back(at);
    }
    for (int64_t k0 = 0; k0 < k; k0 += instr.k * pack) {
      for (unsigned part = 0; part < pack; ++part)
        for (const SmallVector<int32_t> &tile : tiles) {
          // Lane 0's run of this instruction: its part of the pack's.
          auto at = int32_t(k0 + part * instr.kWidth);
          SmallVector<Value> x = a.run({tile[0], at}, 1, instr.kWidth);
          SmallVector<Value> y = b.run({at, tile[1]}, 0, instr.kWidth);
          SmallVector<unsigned> cRegs;
          for (int32_t row : instr.rows)
            cRegs.push_back(transposed ? c.at({tile[0], tile[1] + row})
                                       : c.at({tile[0] + row, tile[1]}));
          if (x.empty() || y.empty() || llvm::is_contained(cRegs, ~0u))
            return loweringError(op, "a thread does not hold the fragments of "
                                     "its tiles");
          SmallVector<Value> cValues;
          for (unsigned r : cRegs)
            cValues.push_back(acc[r]);
          Value xs = packOperand(rewriter, loc, x, instr.operandType);
          Value ys = packOperand(rewriter, loc, y, instr.operandType);
          Value cs = packOperand(rewriter, loc, cValues, Type());
          SmallVector<Value> args{xs, ys, cs};
          if (transposed)
            std::swap(args[0], args[1]);
          if (instr.isMfma) {
            args.append(3, i32Constant(rewriter, loc, 0));
          } else if (integers) {
            // Signed A and B, no clamping.
            auto flag = [&](bool value) -> Value {
              return LLVM::ConstantOp::create(rewriter, loc,
                                              rewriter.getI1Type(), value);
            };
            args = {flag(true), xs, flag(true), ys, cs, flag(false)};
          }
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
