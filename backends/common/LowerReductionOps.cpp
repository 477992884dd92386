//===- LowerReductionOps.cpp - reductions and dot products ----------------===//
//
// A reduction along an axis runs in three steps, each only where the layout
// spreads the axis that way: within a thread's registers, across the lanes of
// a warp (butterfly shuffles), and across warps (through shared memory).
// The dot product runs on CUDA cores: each thread holds whole rows of A and
// columns of B for its elements of the result (dot_operand layouts).
//
//===----------------------------------------------------------------------===//

#include "backends/common/Lowering.h"

#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The hardware bits of `inDim` along which a reduction over `axis` must
/// combine: they move along the axis only. Fails when a bit moves along the
/// axis and another dimension at once.
FailureOr<SmallVector<int>> axisBits(const LinearLayout &layout,
                                     StringRef inDim, unsigned axis) {
  SmallVector<int> bits;
  if (!layout.hasInDim(inDim))
    return bits;
  int32_t free = 0;
  for (auto &[name, mask] : layout.getFreeVariableMasks())
    if (name == inDim)
      free = mask;
  for (int bit = 0; bit < layout.getInDimSizeLog2(inDim); ++bit) {
    ArrayRef<int32_t> basis = layout.getBasis(inDim, bit);
    if (!basis[axis] || (free & (1 << bit)))
      continue;
    for (auto [d, v] : llvm::enumerate(basis))
      if (d != axis && v)
        return failure();
    bits.push_back(bit);
  }
  return bits;
}

class ReducePattern : public LoweringPattern<ReduceOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    std::optional<LinearLayout> layout = layoutOf(op.getSrcs()[0].getType());
    if (!layout)
      return failure();
    for (Value src : op.getSrcs())
      if (layoutOf(src.getType()) != layout)
        return loweringError(
            op, "the operands of a reduction must share a layout");
    FailureOr<SmallVector<int>> laneBits = axisBits(*layout, kLane, axis);
    FailureOr<SmallVector<int>> warpBits = axisBits(*layout, kWarp, axis);
    if (failed(laneBits) || failed(warpBits))
      return loweringError(
          op, "the layout moves along the reduced axis and another at once");
    Region &combiner = op.getCombineOp();
    unsigned numOperands = op.getSrcs().size();

    // Within each thread: registers of one key (coordinates off the axis).
    std::map<SmallVector<int32_t>, unsigned> groupOf;
    SmallVector<SmallVector<int32_t>> keys;
    SmallVector<unsigned> firstRegister;
    SmallVector<SmallVector<Value>> acc;
    for (unsigned r = 0, e = numRegisters(*layout); r < e; ++r) {
      if (isDuplicateRegister(*layout, r))
        continue;
      SmallVector<int32_t> key = registerCoords(*layout, r);
      key[axis] = 0;
      SmallVector<Value> values;
      for (ValueRange registers : adaptor.getSrcs())
        values.push_back(registers[r]);
      auto [it, inserted] = groupOf.emplace(key, keys.size());
      if (inserted) {
        keys.push_back(key);
        firstRegister.push_back(r);
        acc.push_back(values);
      } else {
        acc[it->second] =
            emitCombine(rewriter, loc, combiner, acc[it->second], values);
      }
    }

    // Across lanes.
    for (int bit : *laneBits)
      for (SmallVector<Value> &values : acc) {
        SmallVector<Value> other;
        for (Value v : values)
          other.push_back(shuffleXor(rewriter, loc, state.target, v, 1u << bit));
        values = emitCombine(rewriter, loc, combiner, values, other);
      }

    // Across warps.
    if (!warpBits->empty())
      combineAcrossWarps(op, rewriter, *layout, *warpBits, firstRegister, acc);

    // The results, in the result's layout.
    SmallVector<SmallVector<Value>> results(numOperands);
    std::optional<LinearLayout> resultLayout =
        layoutOf(op.getResult()[0].getType());
    if (!resultLayout) {
      for (unsigned i = 0; i < numOperands; ++i)
        results[i].push_back(acc[0][i]);
      rewriter.replaceOpWithMultiple(op, std::move(results));
      return success();
    }
    auto insertAxis = [&](ArrayRef<int32_t> coords) {
      SmallVector<int32_t> full(coords);
      full.insert(full.begin() + axis, 0);
      return full;
    };
    for (const char *name : {kLane, kWarp})
      for (int bit = 0; bit < resultLayout->getInDimSizeLog2(name); ++bit) {
        SmallVector<int32_t> expected(layout->getBasis(name, bit));
        expected[axis] = 0;
        if (insertAxis(resultLayout->getBasis(name, bit)) != expected)
          return loweringError(
              op, "the result's layout is not a slice of the operand's");
      }
    for (unsigned r = 0, e = numRegisters(*resultLayout); r < e; ++r) {
      auto it = groupOf.find(insertAxis(registerCoords(*resultLayout, r)));
      if (it == groupOf.end())
        return loweringError(
            op, "the result's layout is not a slice of the operand's");
      for (unsigned i = 0; i < numOperands; ++i)
        results[i].push_back(acc[it->second][i]);
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }

private:
  /// Each warp writes its partial results to shared memory; then every
  /// thread combines those of the warps along the axis.
  void combineAcrossWarps(ReduceOp op, ConversionPatternRewriter &rewriter,
                          const LinearLayout &layout, ArrayRef<int> warpBits,
                          ArrayRef<unsigned> firstRegister,
                          SmallVector<SmallVector<Value>> &acc) const {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    auto shape = cast<RankedTensorType>(op.getSrcs()[0].getType()).getShape();
    int64_t keysCount = 1;
    for (auto [d, size] : llvm::enumerate(shape))
      if (d != axis)
        keysCount *= size;
    int64_t warps = int64_t(1) << warpBits.size();
    unsigned bytes = 0;
    for (Value v : acc[0])
      bytes = std::max(bytes, storageBytes(v.getType()));
    int64_t operandBytes = keysCount * warps * bytes;
    state.requireShared(operandBytes * acc[0].size());

    HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
    SmallVector<SmallVector<Value>> coords =
        emitCoords(rewriter, loc, layout, ids);
    // The warp's index along the axis.
    Value warpIndex = i32Constant(rewriter, loc, 0);
    for (auto [j, bit] : llvm::enumerate(warpBits)) {
      Value b = arith::AndIOp::create(
          rewriter, loc,
          arith::ShRUIOp::create(rewriter, loc, ids.warp,
                                 i32Constant(rewriter, loc, bit)),
          i32Constant(rewriter, loc, 1));
      warpIndex = arith::OrIOp::create(
          rewriter, loc, warpIndex,
          arith::ShLIOp::create(rewriter, loc, b,
                                i32Constant(rewriter, loc, j)));
    }
    // Slot of (key, warp): key * warps + warp, the key linearised row-major
    // over the dimensions off the axis.
    auto slotAddress = [&](unsigned group, Value warp, unsigned operand) {
      Value key = i32Constant(rewriter, loc, 0);
      for (auto [d, c] : llvm::enumerate(coords[firstRegister[group]])) {
        if (d == axis)
          continue;
        key = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, key,
                                  i32Constant(rewriter, loc, shape[d])),
            c);
      }
      Value slot = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, key,
                                i32Constant(rewriter, loc, warps)),
          warp);
      Value offset = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, slot,
                                i32Constant(rewriter, loc, bytes)),
          i32Constant(rewriter, loc, operand * operandBytes));
      return sharedAddress(rewriter, loc, state, offset);
    };
    state.target.barrier(rewriter, loc);
    for (auto [g, values] : llvm::enumerate(acc))
      for (auto [i, v] : llvm::enumerate(values))
        storeShared(rewriter, loc, slotAddress(g, warpIndex, i), v);
    state.target.barrier(rewriter, loc);
    for (auto [g, values] : llvm::enumerate(acc)) {
      SmallVector<Value> total;
      for (int64_t w = 0; w < warps; ++w) {
        SmallVector<Value> partial;
        for (auto [i, v] : llvm::enumerate(values))
          partial.push_back(loadShared(
              rewriter, loc,
              slotAddress(g, i32Constant(rewriter, loc, w), i), v.getType()));
        total = w ? emitCombine(rewriter, loc, op.getCombineOp(), total,
                                partial)
                  : partial;
      }
      values = total;
    }
  }
};

class DotPattern : public LoweringPattern<DotOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> a = layoutOf(op.getA().getType());
    std::optional<LinearLayout> b = layoutOf(op.getB().getType());
    std::optional<LinearLayout> c = layoutOf(op.getType());
    if (!a || !b || !c)
      return failure();
    unsigned rank = c->getNumOutDims();
    unsigned mDim = rank - 2, nDim = rank - 1;
    int64_t k = op.getA().getType().getShape()[rank - 1];
    // A's and B's lanes and warps must hold the rows and columns of the
    // result elements of the same threads.
    auto rowOf = [&](ArrayRef<int32_t> coords) {
      SmallVector<int32_t> result(coords);
      result[nDim] = 0;
      return result;
    };
    auto columnOf = [&](ArrayRef<int32_t> coords) {
      SmallVector<int32_t> result(coords);
      result[mDim] = 0;
      return result;
    };
    if (!mapRegisters(*a, *c, rowOf) || !mapRegisters(*b, *c, columnOf))
      return loweringError(
          op, "the operands are not in dot_operand layouts of the result's");
    std::map<SmallVector<int32_t>, unsigned> aRegisters, bRegisters;
    for (unsigned r = 0, e = numRegisters(*a); r < e; ++r)
      aRegisters.emplace(registerCoords(*a, r), r);
    for (unsigned r = 0, e = numRegisters(*b); r < e; ++r)
      bRegisters.emplace(registerCoords(*b, r), r);

    Location loc = op.getLoc();
    Type accType = getElementTypeOrSelf(op.getType());
    SmallVector<Value> acc(adaptor.getC());
    SmallVector<SmallVector<int32_t>> cCoords;
    for (unsigned r = 0; r < acc.size(); ++r)
      cCoords.push_back(registerCoords(*c, r));
    for (int64_t kk = 0; kk < k; ++kk) {
      for (unsigned r = 0; r < acc.size(); ++r) {
        SmallVector<int32_t> aKey = rowOf(cCoords[r]), bKey = columnOf(cCoords[r]);
        aKey[nDim] = kk;
        bKey[mDim] = kk;
        auto aIt = aRegisters.find(aKey), bIt = bRegisters.find(bKey);
        if (aIt == aRegisters.end() || bIt == bRegisters.end())
          return loweringError(
              op, "a thread does not hold the whole row or column it needs");
        Value x = widen(rewriter, loc, adaptor.getA()[aIt->second], accType);
        Value y = widen(rewriter, loc, adaptor.getB()[bIt->second], accType);
        if (isa<FloatType>(accType))
          acc[r] = math::FmaOp::create(rewriter, loc, x, y, acc[r]);
        else
          acc[r] = arith::AddIOp::create(
              rewriter, loc, arith::MulIOp::create(rewriter, loc, x, y),
              acc[r]);
      }
    }
    replaceWithRegisters(rewriter, op, acc);
    return success();
  }

private:
  static Value widen(OpBuilder &b, Location loc, Value value, Type type) {
    Type from = value.getType();
    if (from == type)
      return value;
    if (isa<FloatType>(type)) {
      if (!isa<FloatType>(from))
        return arith::SIToFPOp::create(b, loc, type, value);
      if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, loc, type, value);
      return arith::TruncFOp::create(b, loc, type, value);
    }
    return arith::ExtSIOp::create(b, loc, type, value);
  }
};

} // namespace

void mlir::tile::populateReductionOpPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             LoweringState &state) {
  patterns.add<ReducePattern, DotPattern>(converter, state);
}
