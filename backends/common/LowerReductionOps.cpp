//===- LowerReductionOps.cpp - reductions and dot products ----------------===//
//
// A reduction along an axis runs in three steps, each only where the layout
// spreads the axis that way: within a thread's registers, across the lanes of
// a warp (butterfly shuffles), and across warps (through shared memory).
// A scan runs the same three steps in order (sequentially in registers,
// Hillis-Steele across lanes, warp totals through shared memory), then adds
// each element's prefix from the earlier lanes, warps and register blocks.
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

Value mlir::tile::mulAdd(OpBuilder &b, Location loc, Value acc, int64_t scale,
                         Value add) {
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, acc, i32Constant(b, loc, scale)),
      add);
}

namespace {

/// The shared-memory address of operand `operand` in slot `slot`, slots of
/// `slotBytes` holding operands of `operandBytes` each.
Value slotAddress(OpBuilder &b, Location loc, const LoweringState &state,
                  Value slot, unsigned slotBytes, unsigned operand,
                  unsigned operandBytes) {
  return sharedAddress(b, loc, state,
                       mulAdd(b, loc, slot, slotBytes,
                              i32Constant(b, loc, operand * operandBytes)));
}

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

/// The i32 whose bit j is bit `bits[j]` of `id`.
Value gatherBits(OpBuilder &b, Location loc, Value id, ArrayRef<int> bits) {
  Value result = i32Constant(b, loc, 0);
  for (auto [j, bit] : llvm::enumerate(bits)) {
    Value one = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, id, i32Constant(b, loc, bit)),
        i32Constant(b, loc, 1));
    result = arith::OrIOp::create(
        b, loc, result,
        arith::ShLIOp::create(b, loc, one, i32Constant(b, loc, j)));
  }
  return result;
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
    state.requireScratch(rewriter, operandBytes * acc[0].size());

    HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
    SmallVector<SmallVector<Value>> coords =
        emitCoords(rewriter, loc, layout, ids);
    // The warp's index along the axis.
    Value warpIndex = gatherBits(rewriter, loc, ids.warp, warpBits);
    // Slot of (key, warp): key * warps + warp, the key linearised row-major
    // over the dimensions off the axis.
    auto operandAddress = [&](unsigned group, Value warp, unsigned operand) {
      Value key = i32Constant(rewriter, loc, 0);
      for (auto [d, c] : llvm::enumerate(coords[firstRegister[group]]))
        if (d != axis)
          key = mulAdd(rewriter, loc, key, shape[d], c);
      Value slot = mulAdd(rewriter, loc, key, warps, warp);
      return slotAddress(rewriter, loc, state, slot, bytes, operand,
                         operandBytes);
    };
    state.target.barrier(rewriter, loc);
    for (auto [g, values] : llvm::enumerate(acc))
      for (auto [i, v] : llvm::enumerate(values))
        storeShared(rewriter, loc, operandAddress(g, warpIndex, i), v);
    state.target.barrier(rewriter, loc);
    for (auto [g, values] : llvm::enumerate(acc)) {
      SmallVector<Value> total;
      for (int64_t w = 0; w < warps; ++w) {
        SmallVector<Value> partial;
        for (auto [i, v] : llvm::enumerate(values))
          partial.push_back(
              loadShared(rewriter, loc,
                         operandAddress(g, i32Constant(rewriter, loc, w), i),
                         v.getType()));
        total = w ? emitCombine(rewriter, loc, op.getCombineOp(), total,
                                partial)
                  : partial;
      }
      values = total;
    }
  }
};

/// How a layout spreads a scanned axis: the axis index of an element is
/// `low + lowSize * (lane part + lanes * (warp part + warps * high))`, where
/// `low` and `high` come from registers, the lane part from the contiguous
/// lane bits from `laneShift`, and the warp part from `warpBits`.
struct ScanAxis {
  int64_t lowSize = 1;
  int laneShift = 0;
  int64_t lanes = 1;
  SmallVector<int> warpBits;
  int64_t warps = 1;
};

FailureOr<ScanAxis> scanAxisOf(const LinearLayout &layout, unsigned axis,
                               int64_t size) {
  FailureOr<SmallVector<int>> registerBits = axisBits(layout, kRegister, axis);
  FailureOr<SmallVector<int>> laneBits = axisBits(layout, kLane, axis);
  FailureOr<SmallVector<int>> warpBits = axisBits(layout, kWarp, axis);
  if (failed(registerBits) || failed(laneBits) || failed(warpBits))
    return failure();
  auto step = [&](StringRef dim, int bit) {
    return layout.getBasis(dim, bit)[axis];
  };
  SmallVector<int32_t> registerSteps;
  for (int bit : *registerBits)
    registerSteps.push_back(step(kRegister, bit));
  llvm::sort(registerSteps);

  ScanAxis result;
  int64_t expected = 1;
  auto *nextRegister = registerSteps.begin();
  for (; nextRegister != registerSteps.end() && *nextRegister == expected;
       ++nextRegister)
    expected *= 2;
  result.lowSize = expected;
  for (auto [j, bit] : llvm::enumerate(*laneBits)) {
    if (step(kLane, bit) != expected || bit != (*laneBits)[0] + int(j))
      return failure();
    expected *= 2;
  }
  if (!laneBits->empty())
    result.laneShift = (*laneBits)[0];
  result.lanes = int64_t(1) << laneBits->size();
  for (int bit : *warpBits) {
    if (step(kWarp, bit) != expected)
      return failure();
    expected *= 2;
  }
  result.warpBits = *warpBits;
  result.warps = int64_t(1) << warpBits->size();
  for (; nextRegister != registerSteps.end(); ++nextRegister) {
    if (*nextRegister != expected)
      return failure();
    expected *= 2;
  }
  if (expected != size)
    return failure();
  return result;
}

/// Values of a scan that may be missing at run time (`valid` false); null
/// `valid` means always present.
struct Partial {
  SmallVector<Value> values;
  Value valid;
};

class ScanPattern : public LoweringPattern<ScanOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    bool reverse = op.getReverse();
    auto type = cast<RankedTensorType>(op.getSrcs()[0].getType());
    std::optional<LinearLayout> layout = layoutOf(type);
    if (!layout)
      return failure();
    for (Value src : op.getSrcs())
      if (layoutOf(src.getType()) != layout)
        return loweringError(op, "the operands of a scan must share a layout");
    int64_t size = type.getShape()[axis];
    FailureOr<ScanAxis> spread = scanAxisOf(*layout, axis, size);
    if (failed(spread))
      return loweringError(op, "the layout does not spread the scanned axis "
                               "over registers, then lanes, then warps");
    int64_t block = spread->lowSize * spread->lanes * spread->warps;
    Region &combiner = op.getCombineOp();
    unsigned numOperands = op.getSrcs().size();
    auto combine = [&](ValueRange lhs, ValueRange rhs) {
      return emitCombine(rewriter, loc, combiner, lhs, rhs);
    };

    // Groups of registers that a thread scans alone: one key (coordinates
    // with the axis at the start of its register block), `lowSize`
    // registers in axis order.
    unsigned numRegs = numRegisters(*layout);
    SmallVector<SmallVector<Value>> values(numRegs);
    std::map<SmallVector<int32_t>, unsigned> groupOf;
    SmallVector<SmallVector<int32_t>> keys;
    SmallVector<SmallVector<unsigned>> members;
    for (unsigned r = 0; r < numRegs; ++r) {
      for (ValueRange registers : adaptor.getSrcs())
        values[r].push_back(registers[r]);
      if (isDuplicateRegister(*layout, r))
        continue;
      SmallVector<int32_t> key = registerCoords(*layout, r);
      int64_t low = key[axis] % spread->lowSize;
      key[axis] -= low;
      auto [it, inserted] = groupOf.emplace(key, keys.size());
      if (inserted) {
        keys.push_back(key);
        members.emplace_back(spread->lowSize);
      }
      members[it->second][reverse ? spread->lowSize - 1 - low : low] = r;
    }

    // Within each thread, in scan order; each group's total is its last.
    SmallVector<SmallVector<Value>> totals;
    for (ArrayRef<unsigned> regs : members) {
      for (unsigned j = 1; j < regs.size(); ++j)
        values[regs[j]] = combine(values[regs[j - 1]], values[regs[j]]);
      totals.push_back(values[regs.back()]);
    }

    // Across lanes: inclusive totals by Hillis-Steele, then each lane's
    // exclusive prefix from the lane before it.
    HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
    auto lanePosition = [&]() {
      Value index = arith::AndIOp::create(
          rewriter, loc,
          arith::ShRUIOp::create(rewriter, loc, ids.lane,
                                 i32Constant(rewriter, loc, spread->laneShift)),
          i32Constant(rewriter, loc, spread->lanes - 1));
      return scanPosition(rewriter, loc, index, spread->lanes, reverse);
    }();
    auto laneBefore = [&](int64_t distance) {
      int64_t offset = (distance << spread->laneShift) * (reverse ? 1 : -1);
      return arith::AddIOp::create(rewriter, loc, ids.lane,
                                   i32Constant(rewriter, loc, offset));
    };
    auto shuffleAll = [&](ValueRange in, Value lane) {
      SmallVector<Value> out;
      for (Value v : in)
        out.push_back(shuffleIndex(rewriter, loc, state.target, v, lane));
      return out;
    };
    auto atLeast = [&](Value position, int64_t bound) {
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge,
                                   position, i32Constant(rewriter, loc, bound));
    };
    SmallVector<std::optional<Partial>> prefixes(keys.size());
    if (spread->lanes > 1) {
      for (int64_t distance = 1; distance < spread->lanes; distance *= 2) {
        Value source = laneBefore(distance);
        Value valid = atLeast(lanePosition, distance);
        for (SmallVector<Value> &total : totals) {
          SmallVector<Value> combined =
              combine(shuffleAll(total, source), total);
          for (auto [t, c] : llvm::zip(total, combined))
            t = arith::SelectOp::create(rewriter, loc, valid, c, t);
        }
      }
      Value source = laneBefore(1);
      Value valid = atLeast(lanePosition, 1);
      for (auto [g, total] : llvm::enumerate(totals))
        prefixes[g] = Partial{shuffleAll(total, source), valid};
    }

    // Across warps: the last lane of each warp shares its totals through
    // shared memory; every thread combines those of the warps before its
    // own, and of all of them for the block's total.
    SmallVector<SmallVector<Value>> blockTotals(keys.size());
    if (spread->warps > 1) {
      Value warpIndex = gatherBits(rewriter, loc, ids.warp, spread->warpBits);
      Value warpPosition =
          scanPosition(rewriter, loc, warpIndex, spread->warps, reverse);
      SmallVector<SmallVector<Value>> warpTotals =
          exchangeWarpTotals(op, rewriter, *layout, *spread, keys, members,
                             totals, ids, lanePosition, warpIndex);
      for (unsigned g = 0; g < keys.size(); ++g) {
        // Running totals of the warps in scan order; a warp's prefix is the
        // total of those before it.
        SmallVector<Value> running, prefix;
        for (int64_t j = 0; j < spread->warps; ++j) {
          ArrayRef<Value> next =
              warpTotals[g * spread->warps +
                         (reverse ? spread->warps - 1 - j : j)];
          if (j == 1)
            prefix = running;
          if (j > 1) {
            Value here = arith::CmpIOp::create(
                rewriter, loc, arith::CmpIPredicate::eq, warpPosition,
                i32Constant(rewriter, loc, j));
            for (auto [p, r] : llvm::zip(prefix, running))
              p = arith::SelectOp::create(rewriter, loc, here, r, p);
          }
          running = j ? combine(running, next) : SmallVector<Value>(next);
        }
        prepend(rewriter, loc, combiner, prefixes[g],
                Partial{prefix, atLeast(warpPosition, 1)});
        blockTotals[g] = running;
      }
    } else {
      // The lane last in scan order holds the block's total.
      Value last = arith::OrIOp::create(
          rewriter, loc,
          arith::AndIOp::create(
              rewriter, loc, ids.lane,
              i32Constant(rewriter, loc,
                          ~((spread->lanes - 1) << spread->laneShift))),
          i32Constant(rewriter, loc,
                      (reverse ? 0 : spread->lanes - 1) << spread->laneShift));
      for (auto [g, total] : llvm::enumerate(totals))
        blockTotals[g] = spread->lanes > 1 ? shuffleAll(total, last) : total;
    }

    // Across register blocks: the totals of the blocks before.
    std::map<SmallVector<int32_t>, SmallVector<unsigned>> blocksOf;
    for (auto [g, key] : llvm::enumerate(keys)) {
      SmallVector<int32_t> line(key);
      line[axis] = 0;
      SmallVector<unsigned> &blocks = blocksOf[line];
      blocks.resize(size / block);
      int64_t high = key[axis] / block;
      blocks[reverse ? size / block - 1 - high : high] = g;
    }
    for (auto &[line, blocks] : blocksOf) {
      SmallVector<Value> carry;
      for (unsigned g : blocks) {
        if (!carry.empty())
          prepend(rewriter, loc, combiner, prefixes[g], Partial{carry, {}});
        carry = carry.empty() ? blockTotals[g] : combine(carry, blockTotals[g]);
      }
    }

    // Every element: its prefix, then its scan within the thread.
    for (auto [g, regs] : llvm::enumerate(members))
      if (prefixes[g])
        for (unsigned r : regs)
          values[r] = combinePartial(rewriter, loc, combiner, *prefixes[g],
                                     Partial{values[r], {}})
                          .values;
    SmallVector<SmallVector<Value>> results(numOperands);
    for (unsigned r = 0; r < numRegs; ++r) {
      SmallVector<int32_t> coords = registerCoords(*layout, r);
      unsigned canonical = r;
      if (isDuplicateRegister(*layout, r)) {
        int64_t low = coords[axis] % spread->lowSize;
        coords[axis] -= low;
        canonical = members[groupOf.at(coords)]
                           [reverse ? spread->lowSize - 1 - low : low];
      }
      for (unsigned i = 0; i < numOperands; ++i)
        results[i].push_back(values[canonical][i]);
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }

private:
  /// The position in scan order of index `index` (i32) of `count`.
  static Value scanPosition(OpBuilder &b, Location loc, Value index,
                            int64_t count, bool reverse) {
    if (!reverse)
      return index;
    return arith::XOrIOp::create(b, loc, index, i32Constant(b, loc, count - 1));
  }

  /// `first` then `second` in scan order: their combination where both are
  /// present, else the one that is.
  static Partial combinePartial(OpBuilder &b, Location loc, Region &combiner,
                                const Partial &first, const Partial &second) {
    Partial result{emitCombine(b, loc, combiner, first.values, second.values),
                   {}};
    for (auto [r, f, s] :
         llvm::zip(result.values, first.values, second.values)) {
      if (first.valid)
        r = arith::SelectOp::create(b, loc, first.valid, r, s);
      if (second.valid)
        r = arith::SelectOp::create(b, loc, second.valid, r, f);
    }
    if (first.valid && second.valid)
      result.valid = arith::OrIOp::create(b, loc, first.valid, second.valid);
    return result;
  }

  /// Puts `earlier` before `prefix`.
  static void prepend(OpBuilder &b, Location loc, Region &combiner,
                      std::optional<Partial> &prefix, Partial earlier) {
    prefix = prefix ? combinePartial(b, loc, combiner, earlier, *prefix)
                    : std::move(earlier);
  }

  /// Writes the totals of each group that the last lane of each warp (in
  /// scan order) holds to shared memory, and reads back those of every warp
  /// along the axis: `warps` entries per group, in warp index order.
  SmallVector<SmallVector<Value>>
  exchangeWarpTotals(ScanOp op, ConversionPatternRewriter &rewriter,
                     const LinearLayout &layout, const ScanAxis &spread,
                     ArrayRef<SmallVector<int32_t>> keys,
                     ArrayRef<SmallVector<unsigned>> members,
                     ArrayRef<SmallVector<Value>> totals, HardwareIds ids,
                     Value lanePosition, Value warpIndex) const {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    auto shape = cast<RankedTensorType>(op.getSrcs()[0].getType()).getShape();
    int64_t block = spread.lowSize * spread.lanes * spread.warps;
    // Slot of (group, warp): the group's coordinates with the axis index
    // replaced by `high * warps + warp`, row-major.
    SmallVector<int64_t> slotShape(shape);
    slotShape[axis] = shape[axis] / block * spread.warps;
    int64_t slots = 1;
    for (int64_t extent : slotShape)
      slots *= extent;
    unsigned bytes = 0;
    for (Value v : totals[0])
      bytes = std::max(bytes, storageBytes(v.getType()));
    int64_t operandBytes = slots * bytes;
    state.requireScratch(rewriter, operandBytes * totals[0].size());

    SmallVector<SmallVector<Value>> coords =
        emitCoords(rewriter, loc, layout, ids);
    auto operandAddress = [&](unsigned group, Value warp, unsigned operand) {
      Value slot = i32Constant(rewriter, loc, 0);
      for (auto [d, coord] : llvm::enumerate(coords[members[group][0]])) {
        Value c = coord;
        if (d == axis)
          c = arith::AddIOp::create(
              rewriter, loc, warp,
              i32Constant(rewriter, loc,
                          keys[group][axis] / block * spread.warps));
        slot = mulAdd(rewriter, loc, slot, slotShape[d], c);
      }
      return slotAddress(rewriter, loc, state, slot, bytes, operand,
                         operandBytes);
    };
    auto write = [&] {
      for (auto [g, values] : llvm::enumerate(totals))
        for (auto [i, v] : llvm::enumerate(values))
          storeShared(rewriter, loc, operandAddress(g, warpIndex, i), v);
    };
    state.target.barrier(rewriter, loc);
    if (spread.lanes > 1)
      emitIf(rewriter, loc,
             arith::CmpIOp::create(
                 rewriter, loc, arith::CmpIPredicate::eq, lanePosition,
                 i32Constant(rewriter, loc, spread.lanes - 1)),
             write);
    else
      write();
    state.target.barrier(rewriter, loc);
    SmallVector<SmallVector<Value>> result;
    for (auto [g, values] : llvm::enumerate(totals))
      for (int64_t w = 0; w < spread.warps; ++w) {
        SmallVector<Value> &loaded = result.emplace_back();
        for (auto [i, v] : llvm::enumerate(values))
          loaded.push_back(
              loadShared(rewriter, loc,
                         operandAddress(g, i32Constant(rewriter, loc, w), i),
                         v.getType()));
      }
    return result;
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
        acc[r] = multiplyAdd(rewriter, loc, adaptor.getA()[aIt->second],
                             adaptor.getB()[bIt->second], acc[r]);
      }
    }
    replaceWithRegisters(rewriter, op, acc);
    return success();
  }
};

} // namespace

Value mlir::tile::convertDotOperand(OpBuilder &b, Location loc, Value value,
                                    Type type) {
  if (value.getType() == type)
    return value;
  Type from = getElementTypeOrSelf(value), to = getElementTypeOrSelf(type);
  if (isa<FloatType>(to)) {
    if (!isa<FloatType>(from))
      return arith::SIToFPOp::create(b, loc, type, value);
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, type, value);
    return arith::TruncFOp::create(b, loc, type, value);
  }
  return arith::ExtSIOp::create(b, loc, type, value);
}

Value mlir::tile::multiplyAdd(OpBuilder &b, Location loc, Value x, Value y,
                              Value acc) {
  Type type = acc.getType();
  x = convertDotOperand(b, loc, x, type);
  y = convertDotOperand(b, loc, y, type);
  if (isa<FloatType>(getElementTypeOrSelf(type)))
    return math::FmaOp::create(b, loc, x, y, acc);
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, x, y),
                               acc);
}

void mlir::tile::populateReductionOpPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             LoweringState &state) {
  patterns.add<ReducePattern, ScanPattern, DotPattern>(converter, state);
}
