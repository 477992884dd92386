//===- LowerDotOps.cpp - tile.dot on the tensor cores (mma.sync) ----------===//
//
// A dot in a `#tile_nvidia.mma` layout becomes one `mma.sync` per 16x8 tile
// of the result and instruction K of the operands. Which register holds
// which element comes from the layouts' linear forms: the lane-0 element of
// each register names it, and the fragment tables say where the
// instruction wants it (see backends/nvidia/IR/MmaLayouts.h).
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/LowerDotOps.h"

#include "backends/common/Lowering.h"
#include "backends/nvidia/IR/NvidiaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {

/// What the instruction multiplies.
struct MmaKind {
  NVVM::MMATypes aType, bType;
  /// Instruction K and the K elements a 32-bit register packs.
  int64_t k, kWidth;
  bool isInteger;
};

FailureOr<MmaKind> mmaKindOf(Type a, Type b, Type c) {
  auto ptxType = [](Type t) -> std::optional<NVVM::MMATypes> {
    if (t.isF16())
      return NVVM::MMATypes::f16;
    if (t.isBF16())
      return NVVM::MMATypes::bf16;
    if (t.isF32())
      return NVVM::MMATypes::tf32;
    if (t.isInteger(8))
      return NVVM::MMATypes::s8;
    if (isa<Float8E4M3FNType>(t))
      return NVVM::MMATypes::e4m3;
    if (isa<Float8E5M2Type>(t))
      return NVVM::MMATypes::e5m2;
    return std::nullopt;
  };
  std::optional<NVVM::MMATypes> aType = ptxType(a), bType = ptxType(b);
  bool accOk = c.isF32() || c.isInteger(32);
  if (!aType || !bType || !accOk ||
      a.getIntOrFloatBitWidth() != b.getIntOrFloatBitWidth() ||
      a.isInteger(8) != c.isInteger(32))
    return failure();
  int64_t bits = a.getIntOrFloatBitWidth();
  return MmaKind{*aType, *bType, 256 / bits, 32 / bits, c.isInteger(32)};
}

class MmaDotPattern : public LoweringPattern<DotOp> {
public:
  // Tried before the CUDA-core dot of backends/common.
  MmaDotPattern(const TypeConverter &converter, LoweringState &state)
      : LoweringPattern(converter, state, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto mma = dyn_cast_if_present<MmaLayoutAttr>(op.getType().getEncoding());
    if (!mma)
      return failure();
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    FailureOr<MmaKind> kind =
        mmaKindOf(aType.getElementType(), bType.getElementType(),
                  op.getType().getElementType());
    if (failed(kind))
      return loweringError(op, "the tensor cores do not multiply these types");
    auto isOperand = [&](RankedTensorType type, unsigned opIdx) {
      auto layout = dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
      return layout && layout.getOpIdx() == opIdx && layout.getParent() == mma &&
             layout.getKWidth() == kind->kWidth;
    };
    if (!isOperand(aType, 0) || !isOperand(bType, 1))
      return loweringError(op, "the operands of a dot in an mma layout must "
                               "have its dot_operand layouts with kWidth " +
                                   Twine(kind->kWidth));
    unsigned rank = aType.getRank();
    int64_t k = aType.getShape()[rank - 1];
    if (k % kind->k != 0)
      return loweringError(op, "K is smaller than the instruction's");

    Location loc = op.getLoc();
    Registers a(*layoutOf(aType), adaptor.getA());
    Registers b(*layoutOf(bType), adaptor.getB());
    Registers c(*layoutOf(op.getType()), adaptor.getC());
    SmallVector<Value> acc(adaptor.getC());
    bool split = op.getPrecision() == InputPrecision::tf32x3;
    unsigned m = rank - 2, n = rank - 1;

    // The 16x8 tiles this thread computes: those whose first element its
    // lane 0 holds, in register order.
    SmallVector<SmallVector<int32_t>> tiles;
    for (unsigned r = 0; r < acc.size(); ++r) {
      SmallVector<int32_t> at = registerCoords(c.layout, r);
      if (at[m] % 16 == 0 && at[n] % 8 == 0)
        tiles.push_back(at);
    }
    for (int64_t k0 = 0; k0 < k; k0 += kind->k) {
      for (const SmallVector<int32_t> &tile : tiles) {
        // Fragments as lane 0 holds them: A's registers hold rows +0, +8
        // at K +0, then at K + 4·kWidth; B's K +0 and K + 4·kWidth; C's
        // (0, 0..1) and (8, 0..1).
        SmallVector<SmallVector<Value>> aParts, bParts;
        for (int64_t half : {int64_t(0), 4 * kind->kWidth})
          for (int64_t row : {0, 8}) {
            SmallVector<int32_t> at(tile);
            at[m] += row;
            at[n] = k0 + half;
            aParts.push_back(a.run(at, n, kind->kWidth));
          }
        for (int64_t half : {int64_t(0), 4 * kind->kWidth}) {
          SmallVector<int32_t> at(tile);
          at[m] = k0 + half;
          bParts.push_back(b.run(at, m, kind->kWidth));
        }
        SmallVector<unsigned> cRegs;
        for (int64_t row : {0, 8})
          for (int64_t col : {0, 1}) {
            SmallVector<int32_t> at(tile);
            at[m] += row;
            at[n] += col;
            cRegs.push_back(c.at(at));
          }
        if (llvm::is_contained(cRegs, ~0u) ||
            llvm::any_of(aParts, [](auto &p) { return p.empty(); }) ||
            llvm::any_of(bParts, [](auto &p) { return p.empty(); }))
          return loweringError(op, "a thread does not hold the fragments of "
                                   "its tiles");
        SmallVector<Value> cValues;
        for (unsigned r : cRegs)
          cValues.push_back(acc[r]);
        if (split) {
          // tf32x3: a·b ≈ small(a)·big(b) + big(a)·small(b) + big(a)·big(b),
          // the small terms first.
          auto pack = [&](ArrayRef<SmallVector<Value>> parts, bool big) {
            SmallVector<Value> packed;
            for (const SmallVector<Value> &p : parts)
              packed.push_back(packTf32(rewriter, loc, p[0], big));
            return packed;
          };
          cValues = emitMma(rewriter, loc, *kind, pack(aParts, false),
                            pack(bParts, true), cValues);
          cValues = emitMma(rewriter, loc, *kind, pack(aParts, true),
                            pack(bParts, false), cValues);
          cValues = emitMma(rewriter, loc, *kind, pack(aParts, true),
                            pack(bParts, true), cValues);
        } else {
          SmallVector<Value> aPacked, bPacked;
          for (const SmallVector<Value> &p : aParts)
            aPacked.push_back(pack(rewriter, loc, *kind, p));
          for (const SmallVector<Value> &p : bParts)
            bPacked.push_back(pack(rewriter, loc, *kind, p));
          cValues = emitMma(rewriter, loc, *kind, aPacked, bPacked, cValues);
        }
        for (auto [r, v] : llvm::zip(cRegs, cValues))
          acc[r] = v;
      }
    }
    replaceWithRegisters(rewriter, op, acc);
    return success();
  }

private:
  /// A tensor's registers, found by the element lane 0 holds in them.
  struct Registers {
    Registers(LinearLayout layout, ValueRange values)
        : layout(std::move(layout)), values(values) {
      for (unsigned r = 0, e = numRegisters(this->layout); r < e; ++r)
        index.emplace(registerCoords(this->layout, r), r);
    }
    /// The register holding the element at `coords` in lane 0 of warp 0;
    /// ~0u where it holds none.
    unsigned at(ArrayRef<int32_t> coords) const {
      auto it = index.find(SmallVector<int32_t>(coords));
      return it == index.end() ? ~0u : it->second;
    }
    /// The values of `count` consecutive elements along dimension `along`
    /// from the one at `coords`; empty where lane 0 lacks one.
    SmallVector<Value> run(ArrayRef<int32_t> coords, unsigned along,
                           int64_t count) const {
      SmallVector<int32_t> at(coords);
      SmallVector<Value> run;
      for (int64_t i = 0; i < count; ++i, ++at[along]) {
        unsigned r = this->at(at);
        if (r == ~0u)
          return {};
        run.push_back(values[r]);
      }
      return run;
    }

    LinearLayout layout;
    ValueRange values;
    std::map<SmallVector<int32_t>, unsigned> index;
  };

  /// `values` (kWidth consecutive K elements) as the 32-bit register the
  /// instruction takes: f16 pairs as vector<2xf16>, the rest as i32.
  static Value pack(OpBuilder &b, Location loc, const MmaKind &kind,
                    ArrayRef<Value> values) {
    Type i32 = b.getI32Type();
    if (values.size() == 1)
      return LLVM::BitcastOp::create(b, loc, i32, values[0]);
    Type element = values[0].getType();
    // fp8 has no LLVM type: its bytes are packed as i8.
    bool asBytes = isa<Float8E4M3FNType, Float8E5M2Type>(element);
    if (asBytes)
      element = b.getI8Type();
    Value vector =
        LLVM::PoisonOp::create(b, loc, VectorType::get(values.size(), element));
    for (auto [i, v] : llvm::enumerate(values)) {
      Value scalar = asBytes ? arith::BitcastOp::create(b, loc, element, v) : v;
      vector = LLVM::InsertElementOp::create(
          b, loc, vector, scalar, i32Constant(b, loc, static_cast<int64_t>(i)));
    }
    if (kind.aType == NVVM::MMATypes::f16)
      return vector;
    return LLVM::BitcastOp::create(b, loc, i32, vector);
  }

  /// An f32 as tf32 bits: its high 19 bits (`big`), or the rest of it
  /// (`!big`), which the tensor cores see as a second tf32.
  static Value packTf32(OpBuilder &b, Location loc, Value value, bool big) {
    Type i32 = b.getI32Type();
    Value bits = LLVM::BitcastOp::create(b, loc, i32, value);
    Value high = LLVM::AndOp::create(
        b, loc, bits, i32Constant(b, loc, static_cast<int32_t>(0xffffe000)));
    if (big)
      return high;
    Value highFloat = LLVM::BitcastOp::create(b, loc, value.getType(), high);
    Value rest = LLVM::FSubOp::create(b, loc, value, highFloat);
    return LLVM::BitcastOp::create(b, loc, i32, rest);
  }

  static SmallVector<Value> emitMma(OpBuilder &b, Location loc,
                                    const MmaKind &kind, ValueRange a,
                                    ValueRange bValues, ValueRange c) {
    Type element = c[0].getType();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, element));
    Value d;
    if (kind.aType == NVVM::MMATypes::e4m3 ||
        kind.aType == NVVM::MMATypes::e5m2) {
      // nvvm.mma.sync does not take fp8 yet; its intrinsic exists (sm_89).
      SmallVector<Value> args(a);
      llvm::append_range(args, bValues);
      llvm::append_range(args, c);
      std::string name = ("llvm.nvvm.mma.m16n8k32.row.col.f32." +
                          NVVM::stringifyMMATypes(kind.aType) + "." +
                          NVVM::stringifyMMATypes(kind.bType) + ".f32")
                             .str();
      d = LLVM::CallIntrinsicOp::create(b, loc, resultType,
                                        b.getStringAttr(name), args)
              .getResult(0);
    }
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (kind.isInteger)
      overflow = NVVM::MMAIntOverflow::wrapped;
    if (!d)
      d = NVVM::MmaOp::create(
        b, loc, resultType, a, bValues, c, {16, 8, kind.k},
        /*b1Op=*/std::nullopt, overflow,
        std::array<NVVM::MMATypes, 2>{kind.aType, kind.bType},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> result;
    for (int64_t i = 0; i < 4; ++i)
      result.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return result;
  }
};

} // namespace

void mlir::tile::populateNvidiaDotPatterns(TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           LoweringState &state) {
  patterns.add<MmaDotPattern>(converter, state);
}
