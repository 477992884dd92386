//===- LowerDotOps.cpp - dots on the tensor cores (mma.sync, wgmma) -------===//
//
// A dot in a version-2 `#tile_nvidia.mma` layout becomes one `mma.sync` per
// 16x8 tile of the result and instruction K of the operands; a warpgroup
// dot (version 3) one `wgmma` per 64xN tile and K step, its operands read
// from shared memory through 64-bit matrix descriptors. Which register holds
// which element comes from the layouts' linear forms: the lane-0 element of
// each register names it, and the fragment tables say where the
// instruction wants it (see backends/nvidia/IR/MmaLayouts.h).
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/LowerDotOps.h"

#include "backends/common/Lowering.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "backends/nvidia/NvidiaTargetInfo.h"

#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

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
  bool accOk = c.isF32() || c.isInteger(32) || (c.isF16() && a.isF16());
  if (!aType || !bType || !accOk ||
      a.getIntOrFloatBitWidth() != b.getIntOrFloatBitWidth() ||
      a.isInteger(8) != c.isInteger(32))
    return failure();
  int64_t bits = a.getIntOrFloatBitWidth();
  return MmaKind{*aType, *bType, 256 / bits, 32 / bits, c.isInteger(32)};
}

/// A tensor's registers, with mma.sync's A fragments.
struct Registers : RegisterIndex {
  using RegisterIndex::RegisterIndex;

  /// The 4 registers' worth of mma.sync's (and register-A wgmma's) A
  /// fragment whose first element lane 0 holds at `tile` with K `k0` (M is
  /// dimension `m`, K dimension `k`): rows +0, +8 at K +0, then at
  /// K + 4·kWidth; a part is empty where lane 0 lacks it.
  SmallVector<SmallVector<Value>> aFragment(ArrayRef<int32_t> tile,
                                            unsigned m, unsigned k, int64_t k0,
                                            int64_t kWidth) const {
    SmallVector<SmallVector<Value>> parts;
    for (int64_t half : {int64_t(0), 4 * kWidth})
      for (int32_t row : {0, 8}) {
        SmallVector<int32_t> at(tile);
        at[m] += row;
        at[k] = k0 + half;
        parts.push_back(run(at, k, kWidth));
      }
    return parts;
  }
};

/// `values` (kWidth consecutive K elements) as the 32-bit register the
/// instruction takes: f16 pairs as vector<2xf16> where `halfPairs`, the
/// rest as i32.
Value pack(OpBuilder &b, Location loc, ArrayRef<Value> values,
           bool halfPairs) {
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
  if (halfPairs)
    return vector;
  return LLVM::BitcastOp::create(b, loc, i32, vector);
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
        SmallVector<SmallVector<Value>> aParts =
            a.aFragment(tile, m, n, k0, kind->kWidth);
        SmallVector<SmallVector<Value>> bParts;
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
          bool f16 = kind->aType == NVVM::MMATypes::f16;
          for (const SmallVector<Value> &p : aParts)
            aPacked.push_back(pack(rewriter, loc, p, f16));
          for (const SmallVector<Value> &p : bParts)
            bPacked.push_back(pack(rewriter, loc, p, f16));
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
    if (element.isF16()) {
      // f16 accumulators: (0, 0..1) and (8, 0..1) as two f16 pairs.
      Value low = pack(b, loc, {c[0], c[1]}, true),
            high = pack(b, loc, {c[2], c[3]}, true);
      Type pair = low.getType();
      auto pairs =
          LLVM::LLVMStructType::getLiteral(b.getContext(), {pair, pair});
      Value d = NVVM::MmaOp::create(
          b, loc, pairs, a, bValues, ValueRange{low, high}, {16, 8, kind.k},
          /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
          std::array<NVVM::MMATypes, 2>{kind.aType, kind.bType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      SmallVector<Value> result;
      for (int64_t i = 0; i < 4; ++i)
        result.push_back(LLVM::ExtractElementOp::create(
            b, loc, LLVM::ExtractValueOp::create(b, loc, d, i / 2),
            i32Constant(b, loc, i % 2)));
      return result;
    }
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
    // Integer sums saturate at the i32 range, as Triton's mma.sync does.
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (kind.isInteger)
      overflow = NVVM::MMAIntOverflow::satfinite;
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

/// The PTX name of a wgmma operand type.
std::optional<StringRef> wgmmaType(Type t) {
  if (t.isF16())
    return StringRef("f16");
  if (t.isBF16())
    return StringRef("bf16");
  if (t.isF32())
    return StringRef("tf32");
  if (t.isInteger(8))
    return StringRef("s8");
  if (isa<Float8E4M3FNType>(t))
    return StringRef("e4m3");
  if (isa<Float8E5M2Type>(t))
    return StringRef("e5m2");
  return std::nullopt;
}

/// An operand of a warpgroup dot in shared memory: its view's address, the
/// byte offset of each element, and the descriptor bits other than the
/// address.
struct SharedOperand {
  Value base;
  LinearLayout toOffset; // (dim0, dim1) -> element offset
  int64_t elementBytes;
  uint64_t descriptorBits;
  /// Whether K is the contiguous dimension (else wgmma reads it transposed).
  bool kMajor;

  /// The byte offset of the element at (`row`, `col`).
  int64_t byteOffset(int32_t row, int32_t col) const {
    LinearLayout::Point p =
        toOffset.apply({{dimName(0), row}, {dimName(1), col}});
    return int64_t(p[0].second) * elementBytes;
  }
};

/// The descriptor bits of an operand whose K is dimension `kDim` of `type`
/// (PTX ISA "matrix descriptor"): the stride between groups of 8 rows of
/// swizzle width (SBO), between tiles of that width along M or N where K is
/// not contiguous (LBO), and the swizzle mode.
FailureOr<SharedOperand> sharedOperand(Operation *op, MemDescType type,
                                       ValueRange view, unsigned kDim) {
  auto nvmma = dyn_cast<NVMMASharedLayoutAttr>(type.getEncoding());
  if (!nvmma || type.getRank() != 2)
    return loweringError(op, "wgmma reads 2-D NVMMA shared layouts only");
  auto isZero = [](Value v) { return matchPattern(v, m_Zero()); };
  if (!llvm::all_of(view.drop_front(), isZero))
    return loweringError(op, "wgmma reads whole buffers, not views into them");
  std::optional<LinearLayout> inverse =
      nvmma.toLinearLayout(type.getLayoutShape()).invert();
  if (!inverse)
    return loweringError(op, "the shared layout is not invertible");
  int64_t swizzle = nvmma.getSwizzlingByteWidth();
  unsigned contiguous = nvmma.getTransposed() ? 0 : 1;
  bool kMajor = contiguous == kDim;
  int64_t rows = type.getLayoutShape()[1 - contiguous];
  uint64_t sbo = 8 * swizzle, lbo = kMajor ? 0 : rows * swizzle;
  uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  uint64_t bits = ((lbo >> 4) & 0x3fff) << 16 |
                  ((sbo >> 4) & 0x3fff) << 32 | mode << 62;
  int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  return SharedOperand{view.front(), *inverse, bytes, bits, kMajor};
}

/// The inline-assembly register constraint of a value of `type`.
std::string registerConstraint(Type type) {
  if (type.isF32())
    return "f";
  if (type.isF64())
    return "d";
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits == 64 ? "l" : bits == 16 ? "h" : "r";
}

/// `wgmma.wait_group n` with `values` passing through it, so that nothing
/// reads them before it (NVVM's wait ties no registers).
SmallVector<Value> waitGroup(OpBuilder &b, Location loc, ValueRange values,
                             int64_t pending) {
  std::string text =
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  if (values.empty()) {
    inlineAsm(b, loc, Type(), {}, text, "");
    return {};
  }
  SmallVector<std::string> outputs, inputs;
  SmallVector<Type> types;
  for (auto [i, v] : llvm::enumerate(values)) {
    types.push_back(v.getType());
    outputs.push_back("=" + registerConstraint(v.getType()));
    inputs.push_back(std::to_string(i));
  }
  std::string constraints =
      llvm::join(outputs, ",") + "," + llvm::join(inputs, ",");
  if (values.size() == 1)
    return {inlineAsm(b, loc, types.front(), values, text, constraints)
                .getResult(0)};
  auto result = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  Value waited =
      inlineAsm(b, loc, result, values, text, constraints).getResult(0);
  SmallVector<Value> out;
  for (unsigned i = 0; i < values.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, waited, i));
  return out;
}

void callIntrinsic(OpBuilder &b, Location loc, StringRef name) {
  LLVM::CallIntrinsicOp::create(b, loc, b.getStringAttr(name), ValueRange());
}

/// The text of one `wgmma.mma_async` with `n` accumulator registers
/// ($0 ..), A's descriptor or (`registerA`) its 4 registers, B's
/// descriptor, and the i32 whose being non-zero makes it accumulate;
/// `transposes` are the trans-a and trans-b immediates (16-bit types only;
/// integer types take no scale either).
std::string wgmmaText(StringRef form, int64_t n, bool isInteger,
                      std::optional<std::pair<bool, bool>> transposes,
                      bool registerA) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t aOperands = registerA ? 4 : 1;
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << n + aOperands + 1
     << ", 0;\nwgmma.mma_async.sync.aligned." << form << " {";
  for (int64_t i = 0; i < n; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, ";
  if (registerA)
    os << "{$" << n << ", $" << n + 1 << ", $" << n + 2 << ", $" << n + 3
       << "}";
  else
    os << "$" << n;
  os << ", $" << n + aOperands << ", p";
  if (!isInteger)
    os << ", 1, 1";
  // A from registers takes no trans-a.
  if (transposes && !registerA)
    os << ", " << int(transposes->first);
  if (transposes)
    os << ", " << int(transposes->second);
  os << ";\n}";
  return text;
}

class WarpGroupDotPattern : public LoweringPattern<WarpGroupDotOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto mma = cast<MmaLayoutAttr>(op.getType().getEncoding());
    int64_t instrN = mma.getInstrShape()[1], instrK = mma.getInstrShape()[2];
    auto aMemory = dyn_cast<MemDescType>(op.getA().getType());
    auto aTensor = dyn_cast<RankedTensorType>(op.getA().getType());
    Type aElement =
        aMemory ? aMemory.getElementType() : aTensor.getElementType();
    Type bElement = op.getB().getType().getElementType();
    std::optional<StringRef> aName = wgmmaType(aElement),
                             bName = wgmmaType(bElement);
    if (!aName || !bName)
      return loweringError(op, "wgmma does not multiply these types");
    // A from shared memory, or its registers (as mma.sync's A fragment,
    // each warp's 16 rows).
    std::optional<SharedOperand> a;
    std::optional<Registers> aRegisters;
    if (aMemory) {
      FailureOr<SharedOperand> shared =
          sharedOperand(op, aMemory, adaptor.getA(), /*kDim=*/1);
      if (failed(shared))
        return failure();
      a = *shared;
    } else {
      aRegisters.emplace(*layoutOf(aTensor), adaptor.getA());
    }
    FailureOr<SharedOperand> b =
        sharedOperand(op, op.getB().getType(), adaptor.getB(), /*kDim=*/0);
    if (failed(b))
      return failure();
    bool isInteger = aElement.isInteger(8);
    int64_t kWidth = 32 / aElement.getIntOrFloatBitWidth();
    std::optional<std::pair<bool, bool>> transposes;
    if (aElement.getIntOrFloatBitWidth() == 16)
      transposes = std::pair(a && !a->kMajor, !b->kMajor);
    int64_t k = op.getB().getType().getShape()[0];

    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto i64Constant = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, value);
    };
    LinearLayout cLayout = *layoutOf(op.getType());
    Registers c(cLayout, adaptor.getC());
    SmallVector<Value> acc(adaptor.getC());

    // Each operand's address for this warpgroup: the view's, plus the
    // warpgroup's offset from warp 0's (the warp bits above the 4 warps of
    // a warpgroup) in the operand's bytes.
    Value aBase = a ? LLVM::PtrToIntOp::create(rewriter, loc, i64, a->base)
                    : Value();
    Value bBase = LLVM::PtrToIntOp::create(rewriter, loc, i64, b->base);
    Value warp = emitHardwareIds(rewriter, loc, state.target).warp;
    for (auto [bit, basis] :
         llvm::enumerate(cLayout.getInDims()[2].bases)) {
      if (bit < 2)
        continue;
      Value set = arith::AndIOp::create(
          rewriter, loc,
          arith::ShRUIOp::create(rewriter, loc, warp,
                                 i32Constant(rewriter, loc, bit)),
          i32Constant(rewriter, loc, 1));
      set = arith::ExtUIOp::create(rewriter, loc, i64, set);
      auto add = [&](Value &base, int64_t bytes) {
        if (bytes)
          base = arith::AddIOp::create(
              rewriter, loc, base,
              arith::MulIOp::create(rewriter, loc, set, i64Constant(bytes)));
      };
      if (a)
        add(aBase, basis[0] ? a->byteOffset(basis[0], 0) : 0);
      add(bBase, basis[1] ? b->byteOffset(0, basis[1]) : 0);
    }
    // Each operand's descriptor at its base; a tile's adds its offset in
    // 16-byte units to the start address field, which does not overflow:
    // every shared address is under 2^18 bytes.
    auto baseDescriptor = [&](Value base,
                              const SharedOperand &operand) -> Value {
      Value shifted =
          arith::ShRUIOp::create(rewriter, loc, base, i64Constant(4));
      Value field = arith::AndIOp::create(rewriter, loc, shifted,
                                          i64Constant(0x3fff));
      return arith::OrIOp::create(rewriter, loc, field,
                                  i64Constant(int64_t(operand.descriptorBits)));
    };
    auto descriptor = [&](Value base, int64_t offset) -> Value {
      if (!offset)
        return base;
      return arith::AddIOp::create(rewriter, loc, base,
                                   i64Constant(offset >> 4));
    };

    // Warp 0's 64xN tiles: the registers whose lane-0 element starts one.
    SmallVector<SmallVector<int32_t>> tiles;
    for (unsigned r = 0; r < acc.size(); ++r) {
      SmallVector<int32_t> at = registerCoords(cLayout, r);
      if (at[0] % 64 == 0 && at[1] % instrN == 0)
        tiles.push_back(at);
    }
    // f16 accumulators go two to a 32-bit register: instruction register
    // i / 2 holds the f32 form's i and i + 1 (columns +0, +1).
    bool halfAccumulators = acc.front().getType().isF16();
    int64_t outputs = halfAccumulators ? instrN / 4 : instrN / 2;
    Type registerType =
        halfAccumulators ? rewriter.getI32Type() : acc.front().getType();
    std::string form = ("m64n" + Twine(instrN) + "k" + Twine(instrK) + "." +
                        (isInteger          ? "s32."
                         : halfAccumulators ? "f16."
                                            : "f32.") +
                        *aName + "." + *bName)
                           .str();
    std::string text = wgmmaText(form, outputs, isInteger, transposes, !a);
    std::string constraints;
    for (int64_t i = 0; i < outputs; ++i)
      constraints += "=" + registerConstraint(registerType) + ",";
    constraints += a ? "l,l,r" : "r,r,r,r,l,r";
    for (int64_t i = 0; i < outputs; ++i)
      constraints += "," + std::to_string(i);
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(outputs, registerType));

    // The accumulator registers of each tile: instruction register i is
    // row 8 ((i / 2) % 2), column 8 (i / 4) + i % 2 of the tile, in lane 0.
    SmallVector<SmallVector<unsigned>> tileRegs;
    for (const SmallVector<int32_t> &tile : tiles) {
      SmallVector<unsigned> &regs = tileRegs.emplace_back();
      for (int64_t i = 0; i < instrN / 2; ++i) {
        unsigned r = c.at({int32_t(tile[0] + 8 * ((i / 2) % 2)),
                           int32_t(tile[1] + 8 * (i / 4) + i % 2)});
        if (r == ~0u)
          return loweringError(op, "a thread does not hold the accumulator "
                                   "of its wgmma tiles");
        regs.push_back(r);
      }
    }

    // A's registers are packed before the fence: written after it, ptxas
    // has to fence each wgmma again.
    SmallVector<SmallVector<Value>> aPacked;
    for (int64_t k0 = 0; !a && k0 < k; k0 += instrK)
      for (const SmallVector<int32_t> &tile : tiles) {
        SmallVector<Value> &packed = aPacked.emplace_back();
        for (ArrayRef<Value> part :
             aRegisters->aFragment(tile, 0, 1, k0, kWidth)) {
          if (part.empty())
            return loweringError(op, "a thread does not hold the A "
                                     "fragment of its wgmma tiles");
          packed.push_back(pack(rewriter, loc, part, false));
        }
      }
    // The first k step adds C only where useC holds; the rest add up.
    Value accumulate = i32Constant(rewriter, loc, 1);
    Value addsC = accumulate;
    if (op.getUseC())
      addsC = arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(),
                                     adaptor.getUseC().front());
    // The instruction's accumulator registers: `acc`'s, or with f16
    // accumulators its pairs packed (instruction register i of a tile
    // holds registers 2i and 2i + 1 of `regs`). Packed, they stay so until
    // the wgmmas are waited for: unpacking reads them.
    SmallVector<Value> dRegisters;
    SmallVector<unsigned> dFirst; // each one's (first) register of `acc`
    for (const SmallVector<unsigned> &regs : tileRegs)
      for (int64_t i = 0; i < outputs; ++i) {
        unsigned first = regs[halfAccumulators ? 2 * i : i];
        dFirst.push_back(first);
        dRegisters.push_back(
            halfAccumulators
                ? pack(rewriter, loc, {acc[first], acc[regs[2 * i + 1]]}, false)
                : acc[first]);
      }
    // fp8 products summed at most maxNumImpreciseAcc of K at a time in the
    // tensor cores' precision: each group of k steps starts from zero
    // (scale-d 0) and, waited for, is added to `total` in fp32 (f16
    // accumulators keep their own precision).
    int64_t bound = op.getMaxNumImpreciseAcc();
    bool split = isa<FloatType>(aElement) &&
                 aElement.getIntOrFloatBitWidth() == 8 && !halfAccumulators &&
                 bound > 0 && bound <= k;
    int64_t group = std::max(bound, instrK);
    SmallVector<Value> total;
    if (split) {
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getF32FloatAttr(0.0f));
      for (Value value : dRegisters)
        total.push_back(op.getUseC()
                            ? arith::SelectOp::create(rewriter, loc,
                                                      adaptor.getUseC().front(),
                                                      value, zero)
                            : value);
    }
    Value restart = i32Constant(rewriter, loc, 0);
    callIntrinsic(rewriter, loc, "llvm.nvvm.wgmma.fence.sync.aligned");
    Value aDescriptor = a ? baseDescriptor(aBase, *a) : Value();
    Value bDescriptor = baseDescriptor(bBase, *b);
    const SmallVector<Value> *nextPacked = aPacked.begin();
    for (int64_t k0 = 0; k0 < k; k0 += instrK) {
      bool groupStart = split && k0 % group == 0;
      if (groupStart && k0)
        callIntrinsic(rewriter, loc, "llvm.nvvm.wgmma.fence.sync.aligned");
      for (auto [t, tile] : llvm::enumerate(tiles)) {
        SmallVector<Value> operands;
        if (a)
          operands.push_back(
              descriptor(aDescriptor, a->byteOffset(tile[0], k0)));
        else
          llvm::append_range(operands, *nextPacked++);
        operands.push_back(descriptor(bDescriptor, b->byteOffset(k0, tile[1])));
        operands.push_back(groupStart ? restart : k0 ? accumulate : addsC);
        MutableArrayRef<Value> tileD =
            MutableArrayRef(dRegisters).slice(t * outputs, outputs);
        llvm::append_range(operands, tileD);
        Value d = inlineAsm(rewriter, loc, resultType, operands, text,
                            constraints)
                      .getResult(0);
        for (int64_t i = 0; i < outputs; ++i)
          tileD[i] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
      }
      if (split && ((k0 + instrK) % group == 0 || k0 + instrK >= k)) {
        callIntrinsic(rewriter, loc,
                      "llvm.nvvm.wgmma.commit_group.sync.aligned");
        dRegisters = waitGroup(rewriter, loc, dRegisters, 0);
        for (auto [sum, part] : llvm::zip(total, dRegisters))
          sum = arith::AddFOp::create(rewriter, loc, sum, part);
      }
    }
    if (split) {
      dRegisters = total;
    } else {
      callIntrinsic(rewriter, loc, "llvm.nvvm.wgmma.commit_group.sync.aligned");
      // f16 accumulators are waited for here, to be unpacked (so their
      // dots are not left in flight as f32 ones may be).
      if (!op.getIsAsync() || halfAccumulators)
        dRegisters = waitGroup(rewriter, loc, dRegisters, 0);
    }
    for (auto [i, value] : llvm::enumerate(dRegisters)) {
      if (!halfAccumulators) {
        acc[dFirst[i]] = value;
        continue;
      }
      Value pair = LLVM::BitcastOp::create(
          rewriter, loc, VectorType::get(2, acc.front().getType()), value);
      const SmallVector<unsigned> &regs = tileRegs[i / outputs];
      for (int64_t j = 0; j < 2; ++j)
        acc[regs[2 * (i % outputs) + j]] = LLVM::ExtractElementOp::create(
            rewriter, loc, pair, i32Constant(rewriter, loc, j));
    }
    replaceWithRegisters(rewriter, op, acc);
    return success();
  }
};

class WarpGroupDotWaitPattern : public LoweringPattern<WarpGroupDotWaitOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> flat;
    for (ValueRange values : adaptor.getInputs())
      llvm::append_range(flat, values);
    SmallVector<Value> waited =
        waitGroup(rewriter, op.getLoc(), flat, op.getPendings());
    SmallVector<SmallVector<Value>> results;
    unsigned next = 0;
    for (ValueRange values : adaptor.getInputs()) {
      results.emplace_back(waited.begin() + next,
                           waited.begin() + next + values.size());
      next += values.size();
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

class FenceAsyncSharedPattern : public LoweringPattern<FenceAsyncSharedOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callIntrinsic(rewriter, op.getLoc(),
                  "llvm.nvvm.fence.proxy.async.shared_cta");
    state.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateNvidiaDotPatterns(TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           LoweringState &state) {
  patterns.add<MmaDotPattern, WarpGroupDotPattern, WarpGroupDotWaitPattern,
               FenceAsyncSharedPattern>(converter, state);
}
