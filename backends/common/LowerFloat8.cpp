//===- LowerFloat8.cpp - conversions to and from fp8 in integer code ------===//
//
// LLVM has no fp8 types: the type converter keeps fp8 values as i8, and
// these patterns convert between them and wider floats with integer
// arithmetic, for every target. Conversions to fp8 round to nearest even
// and saturate (values beyond the largest finite one, infinities included,
// become it; NaN stays NaN), as the GPUs' own conversions do.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// An fp8 format: mantissa bits, exponent bias, the codes of its largest
/// finite value and of NaN (without the sign), whether it has infinities,
/// and whether it is an FNUZ format (no negative zero: its code, 0x80, is
/// the one NaN).
struct Float8Format {
  unsigned mantissa;
  int bias;
  unsigned largest, nan;
  bool hasInfinity;
  bool fnuz = false;
};

std::optional<Float8Format> float8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Float8Format{3, 7, 0x7E, 0x7F, false};
  if (isa<Float8E5M2Type>(type))
    return Float8Format{2, 15, 0x7B, 0x7F, true};
  if (isa<Float8E4M3FNUZType>(type))
    return Float8Format{3, 8, 0x7F, 0x80, false, true};
  if (isa<Float8E5M2FNUZType>(type))
    return Float8Format{2, 16, 0x7F, 0x80, false, true};
  return std::nullopt;
}

Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, type, value);
}

/// f32 or f64 `x` to the code of `format` (i8).
Value truncToFloat8(OpBuilder &b, Location loc, Value x,
                    const Float8Format &format) {
  auto floatType = cast<FloatType>(x.getType());
  unsigned width = floatType.getWidth();
  unsigned mantissa = floatType.getFPMantissaWidth() - 1;
  int bias = width == 32 ? 127 : 1023;
  Type intType = b.getIntegerType(width);
  auto c = [&](int64_t v) { return intConstant(b, loc, intType, v); };
  auto bitsOf = [&](Value f) {
    return arith::BitcastOp::create(b, loc, intType, f).getResult();
  };

  Value bits = bitsOf(x);
  Value sign = arith::ShRUIOp::create(b, loc, bits, c(width - 1));
  Value magnitude =
      arith::AndIOp::create(b, loc, bits, c((int64_t(1) << (width - 1)) - 1));
  unsigned shift = mantissa - format.mantissa;
  int64_t rebias = int64_t(bias - format.bias) << mantissa;

  // Normal results: rebias the exponent, then round the mantissa to nearest
  // even (a carry out of the mantissa moves to the exponent, as it should).
  Value rebased = arith::SubIOp::create(b, loc, magnitude, c(rebias));
  Value odd = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rebased, c(shift)), c(1));
  Value normal = arith::ShRUIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, rebased,
          arith::AddIOp::create(b, loc, odd,
                                c((int64_t(1) << (shift - 1)) - 1))),
      c(shift));

  // Subnormal results: adding a power of two whose last mantissa bit is the
  // format's smallest subnormal rounds the value to a multiple of it; the
  // mantissa bits of the sum past the power's count them.
  int64_t magicBits = int64_t(bias - format.bias + int(shift) + 1) << mantissa;
  Value magic = arith::BitcastOp::create(b, loc, floatType, c(magicBits));
  Value sum = arith::AddFOp::create(
      b, loc, arith::BitcastOp::create(b, loc, floatType, magnitude), magic);
  Value subnormal = arith::SubIOp::create(b, loc, bitsOf(sum), c(magicBits));

  int64_t smallestNormal = int64_t(bias - format.bias + 1) << mantissa;
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            magnitude, c(smallestNormal));
  Value code = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  code = arith::MinUIOp::create(b, loc, code, c(format.largest));
  Value signBit = arith::ShLIOp::create(b, loc, sign, c(7));
  if (format.fnuz) // Zero has no sign.
    signBit = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, code, c(0)),
        c(0), signBit);
  code = arith::OrIOp::create(b, loc, code, signBit);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  // NaN keeps its sign where the format has NaNs of both.
  Value nan =
      format.fnuz
          ? c(format.nan)
          : arith::OrIOp::create(b, loc, c(format.nan), signBit).getResult();
  code = arith::SelectOp::create(b, loc, isNaN, nan, code);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

/// The code `code` (i8) of `format` as f32 (exactly).
Value extFromFloat8(OpBuilder &b, Location loc, Value code,
                    const Float8Format &format) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return intConstant(b, loc, i32, v); };
  unsigned exponentBits = 7 - format.mantissa;
  Value bits = arith::ExtUIOp::create(b, loc, i32, code);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(7)), c(31));
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(format.mantissa)),
      c((1 << exponentBits) - 1));
  Value mantissa =
      arith::AndIOp::create(b, loc, bits, c((1 << format.mantissa) - 1));
  Value mantissa32 =
      arith::ShLIOp::create(b, loc, mantissa, c(23 - format.mantissa));

  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, exponent, c(127 - format.bias)),
          c(23)),
      mantissa32);
  // Subnormals: the mantissa times the smallest subnormal, exactly.
  Value subnormal = arith::BitcastOp::create(
      b, loc, i32,
      arith::MulFOp::create(
          b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
          arith::ConstantFloatOp::create(
              b, loc, b.getF32Type(),
              APFloat(
                  std::ldexp(1.0f, 1 - format.bias - int(format.mantissa))))));
  Value isSubnormal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, exponent, c(0));
  Value result =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  // Infinities and NaNs.
  Value magnitude = arith::AndIOp::create(b, loc, bits, c(0x7F));
  if (format.hasInfinity) {
    Value isSpecial = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, exponent, c((1 << exponentBits) - 1));
    result = arith::SelectOp::create(
        b, loc, isSpecial,
        arith::OrIOp::create(b, loc, mantissa32, c(0x7F800000)), result);
  }
  result = arith::OrIOp::create(b, loc, result, sign);
  if (!format.hasInfinity) {
    Value isNaN =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              format.fnuz ? bits : magnitude, c(format.nan));
    result = arith::SelectOp::create(b, loc, isNaN, c(0x7FC00000), result);
  }
  return arith::BitcastOp::create(b, loc, b.getF32Type(), result);
}

/// `value` (a float) as `type` (a float).
Value castFloat(OpBuilder &b, Location loc, Value value, Type type) {
  unsigned from = value.getType().getIntOrFloatBitWidth();
  unsigned to = type.getIntOrFloatBitWidth();
  if (value.getType() == type)
    return value;
  if (from < to)
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

class TruncToFloat8 : public OpConversionPattern<arith::TruncFOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<Float8Format> format = float8Format(op.getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    // Narrower sources widen to f32 exactly first.
    Value x = adaptor.getIn();
    if (x.getType().getIntOrFloatBitWidth() < 32)
      x = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), x);
    rewriter.replaceOp(op, truncToFloat8(rewriter, loc, x, *format));
    return success();
  }
};

class ExtFromFloat8 : public OpConversionPattern<arith::ExtFOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<Float8Format> format = float8Format(op.getIn().getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    // Every fp8 value is exact in f16, bf16 and wider.
    Value wide = extFromFloat8(rewriter, loc, adaptor.getIn(), *format);
    rewriter.replaceOp(op, castFloat(rewriter, loc, wide, op.getType()));
    return success();
  }
};

} // namespace

void mlir::tile::populateFloat8Patterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<TruncToFloat8, ExtFromFloat8>(converter, patterns.getContext(),
                                             /*benefit=*/2);
}
