//===- LowerAsyncOps.cpp - mbarriers and TMA copies as PTX ----------------===//
//
// Hopper's transaction-counting barriers and tensor memory accelerator
// copies, as inline PTX on 32-bit shared-memory addresses. The ops a single
// thread issues (barrier set-up, expect-tx, TMA copies) are predicated in
// the instruction, so every thread runs the same code.
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/LowerDotOps.h"

#include "backends/common/Lowering.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "backends/nvidia/NvidiaTargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {

/// The 32-bit shared-memory address of a whole buffer (a memdesc's
/// lowered values: its base and its offsets, which must be zero).
FailureOr<Value> bufferAddress(OpBuilder &b, Location loc, Operation *op,
                               ValueRange view) {
  if (!llvm::all_of(view.drop_front(),
                    [](Value v) { return matchPattern(v, m_Zero()); }))
    return loweringError(op, "it takes whole buffers, not views into them");
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), view.front())
      .getResult();
}

/// Whether this is thread 0 of the block (of the region's warps in a
/// tile.warp_specialize).
Value isFirstThread(OpBuilder &b, Location loc, const TargetInfo &target) {
  Value tid = target.threadId(b, loc);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
}

void emit(OpBuilder &b, Location loc, ValueRange operands, StringRef text,
          StringRef constraints) {
  inlineAsm(b, loc, LLVM::LLVMVoidType::get(b.getContext()), operands, text,
            constraints);
}

/// "{$first, ..., $(first+n-1)}": the coordinates operands of a TMA copy,
/// innermost dimension first as PTX wants them.
std::string coordinateList(unsigned first, unsigned n) {
  std::string text = "{";
  for (unsigned i = 0; i < n; ++i)
    text += (i ? ", $" : "$") + std::to_string(first + n - 1 - i);
  return text + "}";
}

/// The boxes a TMA copy of a whole `buffer` moves: the tensor map's box is
/// at most the swizzle wide, and the buffer's column tiles of that width
/// follow one another. Each box's byte offset in the buffer and element
/// offset along the innermost dimension.
SmallVector<std::pair<int64_t, int64_t>> boxesOf(MemDescType buffer) {
  auto layout = cast<NVMMASharedLayoutAttr>(buffer.getEncoding());
  ArrayRef<int64_t> shape = buffer.getShape();
  int64_t bits = buffer.getElementType().getIntOrFloatBitWidth();
  int64_t swizzle = layout.getSwizzlingByteWidth();
  int64_t inner = shape.back();
  int64_t width = swizzle ? std::min(inner, swizzle * 8 / bits) : inner;
  int64_t rows = buffer.getNumElements() / inner;
  SmallVector<std::pair<int64_t, int64_t>> boxes;
  for (int64_t column = 0; column < inner; column += width)
    boxes.push_back({column / width * rows * width * bits / 8, column});
  return boxes;
}

/// `coords` of a TMA copy with `delta` added to the innermost.
SmallVector<Value> shiftInnermost(OpBuilder &b, Location loc,
                                  ArrayRef<ValueRange> coords, int64_t delta) {
  SmallVector<Value> shifted;
  for (ValueRange c : coords)
    shifted.push_back(c.front());
  if (delta)
    shifted.back() = arith::AddIOp::create(
        b, loc, shifted.back(), arith::ConstantIntOp::create(b, loc, delta, 32));
  return shifted;
}

/// `address` (an i32 shared-memory address) plus `bytes`.
Value offsetAddress(OpBuilder &b, Location loc, Value address, int64_t bytes) {
  if (!bytes)
    return address;
  return arith::AddIOp::create(b, loc, address,
                               arith::ConstantIntOp::create(b, loc, bytes, 32));
}

/// `body` where `pred` (i1) holds: its operands are `operands` from $1 on,
/// with `constraints`, then `coords` (a TMA copy's, one i32 each).
void emitWhere(OpBuilder &b, Location loc, Value pred, ValueRange operands,
               ArrayRef<ValueRange> coords, StringRef constraints,
               const Twine &body) {
  SmallVector<Value> all{
      arith::ExtUIOp::create(b, loc, b.getI32Type(), pred).getResult()};
  llvm::append_range(all, operands);
  std::string allConstraints =
      constraints.empty() ? "r" : ("r," + constraints).str();
  for (ValueRange c : coords) {
    all.push_back(c.front());
    allConstraints += ",r";
  }
  emit(b, loc, all,
       ("{ .reg .pred p; setp.ne.b32 p, $0, 0;\n@p " + body + "; }").str(),
       allConstraints);
}

/// `instruction(n)` once per box of the whole `buffer` at `address`, where
/// `pred` holds: its operands are the box's shared address ($1), the tensor
/// map ($2), `barrier` where given ($3), then the box's coordinates from
/// $n.
void forEachBox(OpBuilder &b, Location loc, Value pred, MemDescType buffer,
                Value address, Value map, Value barrier,
                ArrayRef<ValueRange> coords,
                function_ref<std::string(unsigned)> instruction) {
  SmallVector<Value> operands{address, map};
  if (barrier)
    operands.push_back(barrier);
  StringRef constraints = barrier ? "r,l,r" : "r,l";
  for (auto [offset, column] : boxesOf(buffer)) {
    operands.front() = offsetAddress(b, loc, address, offset);
    SmallVector<Value> shifted = shiftInnermost(b, loc, coords, column);
    SmallVector<ValueRange> ranges(shifted.begin(), shifted.end());
    emitWhere(b, loc, pred, operands, ranges, constraints,
              instruction(operands.size() + 1));
  }
}

/// Where `pred` (i1, or none) holds in the block's thread 0.
Value firstThreadWhere(OpBuilder &b, Location loc, const TargetInfo &target,
                       Value pred) {
  Value first = isFirstThread(b, loc, target);
  return pred ? arith::AndIOp::create(b, loc, first, pred).getResult()
              : first;
}

/// `instruction` (with the barrier's address as $1) where `pred` (i1)
/// holds.
LogicalResult onBarrier(ConversionPatternRewriter &rewriter, Operation *op,
                        ValueRange barrier, Value pred,
                        const std::string &instruction) {
  Location loc = op->getLoc();
  FailureOr<Value> bar = bufferAddress(rewriter, loc, op, barrier);
  if (failed(bar))
    return failure();
  emitWhere(rewriter, loc, pred, *bar, {}, "r", instruction);
  rewriter.eraseOp(op);
  return success();
}

class InitBarrierPattern : public LoweringPattern<InitBarrierOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(InitBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Earlier users of the word are done before it is set up, and every
    // thread sees it set up after.
    Location loc = op.getLoc();
    state.target.barrier(rewriter, loc);
    if (failed(onBarrier(rewriter, op, adaptor.getBarrier(),
                         isFirstThread(rewriter, loc, state.target),
                         "mbarrier.init.shared::cta.b64 [$1], " +
                             std::to_string(op.getCount()))))
      return failure();
    state.target.barrier(rewriter, loc);
    return success();
  }
};

class InvalBarrierPattern : public LoweringPattern<InvalBarrierOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(InvalBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    state.target.barrier(rewriter, op.getLoc());
    return onBarrier(rewriter, op, adaptor.getBarrier(),
                     isFirstThread(rewriter, op.getLoc(), state.target),
                     "mbarrier.inval.shared::cta.b64 [$1]");
  }
};

class BarrierExpectPattern : public LoweringPattern<BarrierExpectOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return onBarrier(rewriter, op, adaptor.getBarrier(),
                     firstThreadWhere(rewriter, op.getLoc(), state.target,
                                      adaptor.getPred().front()),
                     "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], " +
                         std::to_string(op.getBytes()));
  }
};

class ArriveBarrierPattern : public LoweringPattern<ArriveBarrierOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ArriveBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return onBarrier(rewriter, op, adaptor.getBarrier(),
                     adaptor.getPred().front(),
                     "mbarrier.arrive.shared::cta.b64 _, [$1], " +
                         std::to_string(op.getCount()));
  }
};

class WaitBarrierPattern : public LoweringPattern<WaitBarrierOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(WaitBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> bar =
        bufferAddress(rewriter, loc, op, adaptor.getBarrier());
    if (failed(bar))
      return failure();
    // try_wait suspends the thread for a while; loop until the phase is
    // done.
    emit(rewriter, loc, {*bar, adaptor.getPhase().front()},
         "{ .reg .pred done;\n"
         "wait_barrier:\n"
         "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
         "@!done bra.uni wait_barrier; }",
         "r,r");
    rewriter.eraseOp(op);
    return success();
  }
};

class TmaLoadPattern : public LoweringPattern<AsyncTmaCopyGlobalToLocalOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AsyncTmaCopyGlobalToLocalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> dst =
        bufferAddress(rewriter, loc, op, adaptor.getResult());
    FailureOr<Value> bar =
        bufferAddress(rewriter, loc, op, adaptor.getBarrier());
    if (failed(dst) || failed(bar))
      return failure();
    unsigned rank = op.getCoords().size();
    forEachBox(rewriter, loc,
               firstThreadWhere(rewriter, loc, state.target,
                                adaptor.getPred().front()),
               op.getResult().getType(), *dst, adaptor.getDesc().front(), *bar,
               adaptor.getCoords(), [&](unsigned first) {
                 return ("cp.async.bulk.tensor." + Twine(rank) +
                         "d.shared::cluster.global.mbarrier::complete_tx::"
                         "bytes [$1], [$2, " +
                         coordinateList(first, rank) + "], [$3]")
                     .str();
               });
    rewriter.eraseOp(op);
    return success();
  }
};

class TmaStorePattern : public LoweringPattern<AsyncTmaCopyLocalToGlobalOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AsyncTmaCopyLocalToGlobalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> src = bufferAddress(rewriter, loc, op, adaptor.getSrc());
    if (failed(src))
      return failure();
    unsigned rank = op.getCoords().size();
    Value first = isFirstThread(rewriter, loc, state.target);
    forEachBox(rewriter, loc, first, op.getSrc().getType(), *src,
               adaptor.getDesc().front(), Value(), adaptor.getCoords(),
               [&](unsigned firstCoord) {
                 return ("cp.async.bulk.tensor." + Twine(rank) +
                         "d.global.shared::cta.bulk_group [$2, " +
                         coordinateList(firstCoord, rank) + "], [$1]")
                     .str();
               });
    emitWhere(rewriter, loc, first, {}, {}, "",
              "cp.async.bulk.commit_group");
    rewriter.eraseOp(op);
    return success();
  }
};

class TmaStoreWaitPattern : public LoweringPattern<AsyncTmaStoreWaitOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AsyncTmaStoreWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emit(rewriter, op.getLoc(), {},
         "cp.async.bulk.wait_group.read " +
             std::to_string(op.getPendings()) + ";",
         "");
    // Only the issuing thread waited; the others wait for it.
    state.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateNvidiaAsyncPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             LoweringState &state) {
  patterns.add<InitBarrierPattern, InvalBarrierPattern, BarrierExpectPattern,
               ArriveBarrierPattern, WaitBarrierPattern, TmaLoadPattern,
               TmaStorePattern, TmaStoreWaitPattern>(converter, state);
}
