//===- Pipeline.cpp - software pipelining of loops that feed dots ---------===//
//
// The loads of a loop that feed dot operands become asynchronous copies
// into multi-buffered shared memory (a buffer per stage, one more for a dot
// that reads shared memory in place), issued `stages - 1` iterations ahead
// (see tile-pipeline in Passes.td). The loop is first rewritten in place:
// copies and a commit where the loads were, a wait and local loads where
// the converts were; then scf::pipelineForLoop expands it by the schedule.
// A backend that copies descriptor blocks in bulk (BulkCopies) gets those
// loads: its copies, tracked per buffer, replace them, and its wait the
// commit-group wait.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Passes.h"

#include "ir/Layout/ConversionPlan.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>
#include <numeric>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINEPASS
#include "backends/common/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A load whose every use, directly or through one transpose (attention's
/// `tl.dot(q, tl.trans(k))`), is a convert into a dot-operand layout, or
/// else is a store into shared memory (for a dot that reads it there). A
/// tile.load, or a descriptor load the target copies in bulk (`bulk`).
struct OperandLoad {
  Operation *load;
  TransOp trans;
  SmallVector<ConvertLayoutOp> converts;
  SmallVector<LocalAllocOp> allocs;
  bool bulk = false;

  RankedTensorType type() const {
    return cast<RankedTensorType>(load->getResult(0).getType());
  }

  /// The ops reading the loaded value: its converts, or its allocs.
  SmallVector<Operation *> reads() const {
    SmallVector<Operation *> ops(converts.begin(), converts.end());
    llvm::append_range(ops, allocs);
    return ops;
  }
};

/// The first op of the loop's body reading what `loads` load.
Operation *firstReadOf(ArrayRef<OperandLoad> loads) {
  Operation *first = nullptr;
  for (const OperandLoad &operand : loads)
    for (Operation *read : operand.reads())
      if (!first || read->isBeforeInBlock(first))
        first = read;
  return first;
}

bool isDotOperandConvert(Operation *op) {
  auto convert = dyn_cast<ConvertLayoutOp>(op);
  return convert && isa_and_nonnull<DotOperandLayoutAttr>(
                        convert.getType().getEncoding());
}

/// A store of a tensor into a buffer of its own that is only read.
bool isSharedStore(Operation *op) {
  auto alloc = dyn_cast<LocalAllocOp>(op);
  return alloc && llvm::none_of(alloc->getUsers(), llvm::IsaPred<LocalStoreOp>);
}

/// The shared layout a tile loaded in `loaded` goes through: rows along the
/// load's contiguous dimension, their 16-byte chunks XORed by the row within
/// 128-byte lines (as Triton lays out mma operands), so that async copies
/// write and ldmatrix reads whole chunks without bank conflicts.
Attribute chooseSharedLayout(RankedTensorType loaded) {
  LinearLayout layout = *toLinearLayout(loaded);
  unsigned rank = loaded.getRank(), fastest = rank - 1;
  int32_t best = 0;
  for (unsigned d = 0; d < rank; ++d)
    if (int32_t n = layout.getNumConsecutive(kRegister, dimName(d)); n > best)
      best = n, fastest = d;
  SmallVector<unsigned> order{fastest};
  for (int d = rank - 1; d >= 0; --d)
    if (unsigned(d) != fastest)
      order.push_back(d);
  int64_t bytes =
      std::max<int64_t>(1, loaded.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t rowBytes = loaded.getShape()[fastest] * bytes;
  unsigned vec = std::max<int64_t>(1, 16 / bytes);
  unsigned perPhase = std::max<int64_t>(1, 128 / rowBytes);
  unsigned maxPhase = std::clamp<int64_t>(rowBytes / 16, 1, 8);
  return SwizzledSharedLayoutAttr::get(loaded.getContext(), vec, perPhase,
                                       maxPhase, order);
}

/// The layout of `operand`'s buffers, in the load's orientation: the one
/// the stores chose (before a transpose), else a swizzled one.
Attribute bufferLayout(OperandLoad &operand) {
  if (operand.allocs.empty())
    return chooseSharedLayout(operand.type());
  Attribute encoding = operand.allocs.front().getType().getEncoding();
  if (operand.trans)
    encoding = transposeSharedLayout(encoding, operand.trans.getOrder());
  return encoding;
}

SmallVector<OperandLoad> findOperandLoads(scf::ForOp loop,
                                          const BulkCopies *bulk) {
  SmallVector<OperandLoad> loads;
  for (Operation &op : loop.getBody()->getOperations()) {
    auto load = dyn_cast<LoadOp>(op);
    auto descriptorLoad = dyn_cast<DescriptorLoadOp>(op);
    if (!(load && !load.getIsVolatile()) &&
        !(descriptorLoad && bulk && op.hasAttr(kBulkCopyAttr)))
      continue;
    auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!type || !type.getEncoding() ||
        !type.getElementType().isIntOrFloat() || op.use_empty())
      continue;
    OperandLoad operand{&op, {}, {}, {}, bool(descriptorLoad)};
    Operation *user = *op.getUsers().begin();
    if (op.hasOneUse() && isa<TransOp>(user))
      operand.trans = cast<TransOp>(user);
    Operation *value = operand.trans ? operand.trans : &op;
    if (value->use_empty())
      continue;
    if (llvm::all_of(value->getUsers(), isDotOperandConvert)) {
      for (Operation *user : value->getUsers())
        operand.converts.push_back(cast<ConvertLayoutOp>(user));
    } else if (llvm::all_of(value->getUsers(), isSharedStore)) {
      for (Operation *user : value->getUsers())
        operand.allocs.push_back(cast<LocalAllocOp>(user));
      // One buffer layout serves them all.
      Attribute encoding = operand.allocs.front().getType().getEncoding();
      if (llvm::any_of(operand.allocs, [&](LocalAllocOp alloc) {
            return alloc.getType().getEncoding() != encoding;
          }))
        continue;
    } else {
      continue;
    }
    // Bulk copies fill buffers that dots read in place.
    if (operand.bulk &&
        (operand.allocs.empty() ||
         !bulk->canCopy(descriptorLoad, bufferLayout(operand))))
      continue;
    loads.push_back(std::move(operand));
  }
  return loads;
}

/// `value` (of the loop's induction type) as an i32.
Value toI32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType(), i32 = b.getI32Type();
  if (isa<IndexType>(type))
    return arith::IndexCastOp::create(b, loc, i32, value);
  if (type.getIntOrFloatBitWidth() > 32)
    return arith::TruncIOp::create(b, loc, i32, value);
  if (type.getIntOrFloatBitWidth() < 32)
    return arith::ExtSIOp::create(b, loc, i32, value);
  return value;
}

/// The iteration `loop` is in (from 0, or from `before` where loops before
/// it share its buffers), and `count`, both of its induction type.
std::pair<Value, Value> iterationAnd(OpBuilder &b, Location loc,
                                     scf::ForOp loop, unsigned count,
                                     Value before = {}) {
  Value iteration = arith::DivSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getInductionVar(),
                            loop.getLowerBound()),
      loop.getStep());
  if (before)
    iteration = arith::AddIOp::create(b, loc, iteration, before);
  Type type = iteration.getType();
  Value countValue =
      isa<IndexType>(type)
          ? Value(arith::ConstantIndexOp::create(b, loc, count))
          : Value(arith::ConstantIntOp::create(b, loc, type, count));
  return {iteration, countValue};
}

/// Which of `count` buffers the current iteration of `loop` uses (an i32
/// in [0, count)); iterationAnd's `before`.
Value emitSlot(OpBuilder &b, Location loc, scf::ForOp loop, unsigned count,
               Value before = {}) {
  auto [iteration, countValue] = iterationAnd(b, loc, loop, count, before);
  return toI32(b, loc, arith::RemSIOp::create(b, loc, iteration, countValue));
}

/// The slot (emitSlot) and how many times the buffers went round before
/// (the round, an i32).
std::pair<Value, Value> emitSlotAndRound(OpBuilder &b, Location loc,
                                         scf::ForOp loop, unsigned count,
                                         Value before = {}) {
  auto [iteration, countValue] = iterationAnd(b, loc, loop, count, before);
  Value slot = arith::RemSIOp::create(b, loc, iteration, countValue);
  Value round = arith::DivSIOp::create(b, loc, iteration, countValue);
  return {toI32(b, loc, slot), toI32(b, loc, round)};
}

/// Ops of the loop's body that the copies need in the same iteration: their
/// operands' definitions, through loop-carried values to what the body
/// yields for them. Fails where that takes in an op stage 0 cannot hold.
FailureOr<DenseSet<Operation *>>
copyStage(scf::ForOp loop, ArrayRef<Operation *> roots,
          const DenseSet<Operation *> &bulkCopies = {}) {
  Block *body = loop.getBody();
  DenseSet<Operation *> stage;
  SmallVector<Operation *> worklist(roots.begin(), roots.end());
  auto need = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == body && arg.getArgNumber() > 0)
        value = body->getTerminator()->getOperand(arg.getArgNumber() - 1);
      else
        return;
    }
    Operation *def = value.getDefiningOp();
    if (def && def->getBlock() == body && stage.insert(def).second)
      worklist.push_back(def);
  };
  for (Operation *root : roots)
    stage.insert(root);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    // Branches without effects too: a fused loop's prologue.
    bool allowed = isa<AsyncCopyGlobalToLocalOp, AsyncCommitGroupOp, LoadOp,
                       DescriptorLoadOp>(op) ||
                   bulkCopies.contains(op) ||
                   (isMemoryEffectFree(op) &&
                    (op->getNumRegions() == 0 || isa<scf::IfOp>(op)));
    if (!allowed)
      return failure();
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        need(operand);
    });
  }
  return stage;
}

/// `mask` (null: none) and `pred` (i1), shaped like `ptrType`.
Value maskWith(RewriterBase &rewriter, Location loc, Value mask, Value pred,
               Type ptrType) {
  Type maskType = getI1SameShape(ptrType);
  Value splat = pred;
  if (isa<RankedTensorType>(maskType))
    splat = SplatOp::create(rewriter, loc, maskType, pred);
  return mask ? Value(arith::AndIOp::create(rewriter, loc, mask, splat))
              : splat;
}

/// Makes `op` do nothing where `pred` is false, for the iterations the
/// expanded loop runs past the end; null where it cannot.
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  rewriter.setInsertionPoint(op);
  if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op)) {
    Value mask = maskWith(rewriter, op->getLoc(), copy.getMask(), pred,
                          copy.getPtrs().getType());
    rewriter.modifyOpInPlace(op, [&] { copy.getMaskMutable().assign(mask); });
    return op;
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    Value mask = maskWith(rewriter, op->getLoc(), load.getMask(), pred,
                          load.getPtr().getType());
    rewriter.modifyOpInPlace(op, [&] { load.getMaskMutable().assign(mask); });
    return op;
  }
  // A store past the end writes a buffer no one reads again.
  if (isa<AsyncCommitGroupOp, AsyncWaitOp, BarrierOp, LocalStoreOp>(op) ||
      isMemoryEffectFree(op))
    return op;
  return nullptr;
}

/// Where the loop's loads were read: its converts become local loads of the
/// iteration's buffer of `buffer`, its allocs that buffer (`viewType`, with
/// `operand`'s transpose); the load goes. `before` as for iterationAnd.
void readBuffers(RewriterBase &rewriter, scf::ForOp loop, OperandLoad &operand,
                 Value buffer, MemDescType viewType, Value before = {}) {
  for (Operation *read : operand.reads()) {
    rewriter.setInsertionPoint(read);
    Location at = read->getLoc();
    Value slot =
        emitSlot(rewriter, at, loop, viewType.getAllocShape().front(), before);
    Value view = MemDescIndexOp::create(rewriter, at, viewType, buffer, slot);
    if (TransOp trans = operand.trans) {
      ArrayRef<int32_t> order = trans.getOrder();
      SmallVector<int64_t> shape, allocShape{viewType.getAllocShape().front()};
      for (int32_t dim : order) {
        shape.push_back(viewType.getShape()[dim]);
        allocShape.push_back(viewType.getLayoutShape()[dim]);
      }
      auto transposed = MemDescType::get(
          shape, viewType.getElementType(),
          transposeSharedLayout(viewType.getEncoding(), order), true,
          allocShape);
      view = MemDescTransOp::create(rewriter, at, transposed, view,
                                    trans.getOrderAttr());
    }
    if (auto convert = dyn_cast<ConvertLayoutOp>(read))
      rewriter.replaceOpWithNewOp<LocalLoadOp>(convert, convert.getType(),
                                               view);
    else
      rewriter.replaceOp(read, view);
  }
  if (operand.trans)
    rewriter.eraseOp(operand.trans);
  rewriter.eraseOp(operand.load);
}

/// The op reading `alloc` in place that feeds its result back to itself
/// through `loop` (a dot accumulating over the loop), if any: such a dot may
/// run asynchronously, still reading its buffer an iteration later.
Operation *inPlaceReader(scf::ForOp loop, LocalAllocOp alloc) {
  Operation *yield = loop.getBody()->getTerminator();
  // The value carried in, or chosen over a fresh one (a fused loop's
  // accumulator restarting at each tile).
  auto carries = [](Value operand, Value carried) {
    if (auto select = operand.getDefiningOp<arith::SelectOp>())
      operand = select.getFalseValue();
    return operand == carried;
  };
  for (Operation *reader : alloc->getUsers())
    for (OpOperand &use : reader->getUses())
      if (use.getOwner() == yield &&
          llvm::any_of(reader->getOperands(), [&](Value operand) {
            return carries(operand,
                           loop.getRegionIterArg(use.getOperandNumber()));
          }))
        return reader;
  return nullptr;
}

bool accumulatesInPlace(scf::ForOp loop, LocalAllocOp alloc) {
  return inPlaceReader(loop, alloc) != nullptr;
}

/// The buffers an operand needs: one per stage, and one more where a dot
/// that accumulates over the loop reads the buffer in place, as Hopper's
/// asynchronous wgmma does (the copies of iteration i then go to the buffer
/// of iteration i - 2, which every warpgroup is done with before the
/// barrier of i). Dots waited for at once (attention's) need none, nor do
/// copies issued `late`: the dot of iteration i - 1 is waited for before
/// them, and a barrier (pointer copies) or each bulk copy waits for every
/// warpgroup.
unsigned buffersOf(scf::ForOp loop, const OperandLoad &operand,
                   unsigned stages, bool late) {
  if (late)
    return stages;
  return llvm::any_of(operand.allocs,
                      [&](LocalAllocOp alloc) {
                        return accumulatesInPlace(loop, alloc);
                      })
             ? stages + 1
             : stages;
}

/// Whether an iteration's copies go after its dots rather than before them.
/// Issued first, they have S - 1 whole iterations to land and the dots wait
/// for their issue; issued last, the dots start at the barrier and the
/// copies have S - 2 iterations and the end of this one. Measured on the
/// H100 (fp16, 3 and 4 stages): last is faster where each warp's share of
/// the iteration's dots is 2^18 multiply-adds or more (128x128x64 or
/// 128x256x64 tiles, attention's two dots), first where it is half that
/// (128x128x32, 64x256x32). Those were mma.sync dots (tile.dot). Hopper's
/// warpgroup dots, reading their buffers in place, count where pointer
/// copies feed them: issued last, after the wait for the previous
/// iteration's dots and a barrier, the copies need no spare buffer (as
/// upstream Triton issues them). Fed by bulk copies, they stay first:
/// counted, the H100 measured descriptor matmuls up to 4% and attention
/// with 128x128 tiles 3.5% slower. The product of a fused loop (whose
/// operand loads `loads` are) counts, whatever its dot became: issued last,
/// its bulk copies need no spare buffer, for which the buffer of its
/// epilogue leaves no room with such tiles.
bool copiesLate(scf::ForOp loop, ArrayRef<OperandLoad> loads) {
  auto module = loop->getParentOfType<ModuleOp>();
  auto warps = module ? module->getAttrOfType<IntegerAttr>("tile.num_warps")
                      : IntegerAttr();
  if (!warps)
    return false;
  int64_t macs = 0;
  auto count = [&](ArrayRef<int64_t> shape, int64_t k) {
    macs += k * std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                std::multiplies<int64_t>());
  };
  if (loop->hasAttr(kFlattenAttr) && loads.size() == 2) {
    // A and B share K, the dimension of one of A's matching one of B's.
    ArrayRef<int64_t> a = loads[0].type().getShape(),
                      b = loads[1].type().getShape();
    for (unsigned i = 0; a.size() == 2 && b.size() == 2 && i < 2; ++i)
      for (unsigned j = 0; j < 2 && !macs; ++j)
        if (a[i] == b[j])
          macs = a[0] * a[1] * b[1 - j];
  }
  for (auto dot : loop.getBody()->getOps<DotOp>())
    count(dot.getType().getShape(), dot.getA().getType().getShape().back());
  if (macs == 0 && llvm::none_of(loads, [](const OperandLoad &operand) {
        return operand.bulk;
      })) {
    // A dot reading buffers in place: its first operand is A (M x K), in
    // shared memory or registers.
    SmallPtrSet<Operation *, 2> dots;
    for (const OperandLoad &operand : loads)
      for (LocalAllocOp alloc : operand.allocs) {
        Operation *dot = inPlaceReader(loop, alloc);
        if (!dot || !dots.insert(dot).second)
          continue;
        Type a = dot->getOperand(0).getType();
        auto memory = dyn_cast<MemDescType>(a);
        count(
            cast<RankedTensorType>(dot->getResult(0).getType()).getShape(),
            (memory ? memory.getShape() : cast<RankedTensorType>(a).getShape())
                .back());
      }
  }
  return macs / warps.getInt() >= (int64_t(1) << 18);
}

/// The ops of `block` before `loop` that `roots` need, in order; none
/// where one may not run again on other warps: ops with memory effects
/// (a descriptor's aside), regions or tensor results.
std::optional<SmallVector<Operation *>> sliceBefore(scf::ForOp loop,
                                                    ArrayRef<Value> roots) {
  Block *block = loop->getBlock();
  DenseSet<Operation *> needed;
  SmallVector<Value> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != block || !needed.insert(def).second)
      continue;
    if (def->getNumRegions() ||
        llvm::any_of(def->getResultTypes(), llvm::IsaPred<RankedTensorType>) ||
        !(isMemoryEffectFree(def) || isa<MakeTensorDescriptorOp>(def)))
      return std::nullopt;
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : *block)
    if (needed.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// Arrives on `free` for the previous iteration's buffers (of `count`)
/// after the last op of `loop`'s body reading `buffers`; not in the first.
void freePrevious(RewriterBase &rewriter, scf::ForOp loop,
                  const BulkCopies &bulk, Value free, ArrayRef<Value> buffers,
                  unsigned count) {
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  Operation *lastRead = nullptr;
  for (Value buffer : buffers)
    for (Operation *view : buffer.getUsers())
      for (Value viewed : view->getResults())
        for (Operation *read : viewed.getUsers())
          if (Operation *top = body->findAncestorOpInBlock(*read))
            if (!lastRead || lastRead->isBeforeInBlock(top))
              lastRead = top;
  rewriter.setInsertionPointAfter(lastRead);
  auto [iteration, total] = iterationAnd(rewriter, loc, loop, count);
  Type type = iteration.getType();
  Value one = arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getIntegerAttr(type, 1));
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getZeroAttr(type));
  Value back = arith::SubIOp::create(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, iteration, total),
      one);
  Value previous = toI32(rewriter, loc,
                         arith::RemSIOp::create(rewriter, loc, back, total));
  Value started = arith::CmpIOp::create(rewriter, loc,
                                        arith::CmpIPredicate::ne, iteration,
                                        zero);
  bulk.arrive(rewriter, loc, free, previous, started);
}

/// The warps that issue a specialized loop's copies.
constexpr unsigned kCopyingWarps = 4;

/// Whether `op`, or an op in it, writes global memory.
bool writesMemory(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<StoreOp, AtomicRMWOp, AtomicCASOp, DescriptorStoreOp,
                   DescriptorReduceOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The ops of `loop`'s body that the copies replacing `loads` run ahead
/// (copyStage); none where the loop cannot be pipelined.
std::optional<DenseSet<Operation *>> copiesAhead(scf::ForOp loop,
                                                 ArrayRef<OperandLoad> loads) {
  // Loads issued iterations ahead must not pass the loop's own writes;
  // those of a fused persistent loop's epilogue write what no load reads
  // (its output tiles), as Triton's pipeliner assumes too.
  if (writesMemory(loop) && !loop->hasAttr(kFlattenAttr))
    return std::nullopt;
  // What the loads need must be computable ahead (stage 0), and the loop's
  // results must not come from there: the expanded loop runs those ops for
  // iterations past the end.
  SmallVector<Operation *> loadOps;
  for (const OperandLoad &operand : loads)
    loadOps.push_back(operand.load);
  FailureOr<DenseSet<Operation *>> ahead = copyStage(loop, loadOps);
  if (failed(ahead))
    return std::nullopt;
  Block *body = loop.getBody();
  for (auto [yielded, result] :
       llvm::zip(body->getTerminator()->getOperands(), loop.getResults()))
    if (Operation *def = yielded.getDefiningOp();
        def && ahead->contains(def) && !result.use_empty())
      return std::nullopt;
  return std::move(*ahead);
}

/// A loop being warp-specialized: its operand loads, all bulk copies; the
/// ops of its body computing them (copiesAhead); which of the values it
/// carries those read (copierInputs).
struct SpecializedLoop {
  scf::ForOp loop;
  SmallVector<OperandLoad> loads;
  DenseSet<Operation *> ahead;
  SmallVector<unsigned> carried;

  /// Whether a dot accumulating over the loop reads its buffers, still
  /// reading them in the next iteration (one in flight).
  bool readInFlight() {
    return llvm::any_of(loads, [&](OperandLoad &operand) {
      return llvm::any_of(operand.allocs, [&](LocalAllocOp alloc) {
        return accumulatesInPlace(loop, alloc);
      });
    });
  }
};

/// Finds what the copying warps need from before `s.loop` and appends it
/// to `roots`: the loop's bounds, what `ahead` reads from outside the loop
/// and the initial values of what it carries (`s.carried`). Fails where
/// that is a tensor.
LogicalResult copierInputs(SpecializedLoop &s, SmallVectorImpl<Value> &roots) {
  scf::ForOp loop = s.loop;
  Block *body = loop.getBody();
  llvm::append_range(roots, ValueRange{loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep()});
  for (Operation *op : s.ahead) {
    if (!isa<DescriptorLoadOp>(op) &&
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
      return failure();
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand);
        if (arg && arg.getOwner() == body && arg.getArgNumber() > 0)
          s.carried.push_back(arg.getArgNumber() - 1);
        else if (!loop->isAncestor(operand.getParentRegion()->getParentOp()))
          roots.push_back(operand);
      }
    });
  }
  llvm::sort(s.carried);
  s.carried.erase(llvm::unique(s.carried), s.carried.end());
  for (unsigned i : s.carried) {
    if (isa<RankedTensorType>(loop.getInitArgs()[i].getType()))
      return failure();
    roots.push_back(loop.getInitArgs()[i]);
  }
  return success();
}

bool hasPositiveStep(scf::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  return step && *step > 0;
}

/// `done` (null: 0) plus the iterations `loop` runs (its step positive).
Value addIterations(OpBuilder &b, Location loc, Value done, scf::ForOp loop) {
  Value step = loop.getStep();
  Type type = step.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value span = arith::MaxSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound()),
      zero);
  Value iterations = arith::DivSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, span,
                            arith::SubIOp::create(b, loc, step, one)),
      step);
  return done ? Value(arith::AddIOp::create(b, loc, done, iterations))
              : iterations;
}

/// `later`, a loop after `first` in its block also marked for warp
/// specialization, as one whose copies can go through `first`'s buffers
/// after first's: loads of the same blocks into the same layouts, the
/// same induction type and stages, a positive step and no dot reading
/// its buffers in flight; none where not.
std::optional<SpecializedLoop> sharingBuffers(SpecializedLoop &first,
                                              scf::ForOp later,
                                              const BulkCopies &bulk) {
  if (later.getInductionVar().getType() !=
          first.loop.getInductionVar().getType() ||
      later->getAttr(kNumStagesAttr) != first.loop->getAttr(kNumStagesAttr) ||
      !hasPositiveStep(later))
    return std::nullopt;
  SmallVector<OperandLoad> loads = findOperandLoads(later, &bulk);
  if (loads.size() != first.loads.size())
    return std::nullopt;
  for (auto [mine, theirs] : llvm::zip(loads, first.loads))
    if (!mine.bulk || mine.type() != theirs.type() ||
        bufferLayout(mine) != bufferLayout(theirs))
      return std::nullopt;
  std::optional<DenseSet<Operation *>> ahead = copiesAhead(later, loads);
  if (!ahead)
    return std::nullopt;
  SpecializedLoop s{later, std::move(loads), std::move(*ahead), {}};
  if (s.readInFlight())
    return std::nullopt;
  return s;
}

/// Warp specialization of `loop` (`tl.range(..., warp_specialize=True)`),
/// whose operand loads `loads` are all bulk copies and whose ops `ahead`
/// compute them, together with the loops after it in the kernel that are
/// marked too and can share its buffers (sharingBuffers; with nothing
/// writing memory between them: causal attention's two loops). The kernel
/// becomes a tile.warp_specialize whose default region is the kernel as
/// it was, and whose one partition of kCopyingWarps warps runs a copy of
/// each loop, one after the other, with only its `ahead` in it. There each
/// iteration waits for its buffers to be free, then issues its copies; the
/// default region's loops wait for them and free the buffers once their
/// dots are done with them. `stages` buffers per operand, each with a
/// barrier tracking its copies and one its readers; the loops' iterations
/// count on from one loop to the next. Fails (leaving the loop as it was)
/// where the copying warps would need more than scalars computed without
/// side effects.
LogicalResult specializeLoops(scf::ForOp loop, SmallVector<OperandLoad> loads,
                              DenseSet<Operation *> ahead, unsigned stages,
                              const BulkCopies &bulk) {
  auto func = dyn_cast<func::FuncOp>(loop->getParentOp());
  auto module = loop->getParentOfType<ModuleOp>();
  auto warps = module ? module->getAttrOfType<IntegerAttr>("tile.num_warps")
                      : IntegerAttr();
  if (!func || !warps)
    return failure();
  SmallVector<SpecializedLoop, 2> group;
  group.push_back({loop, std::move(loads), std::move(ahead), {}});
  // What the copying warps run before their loops.
  SmallVector<Value> roots;
  std::optional<SmallVector<Operation *>> before;
  if (failed(copierInputs(group.front(), roots)) ||
      !(before = sliceBefore(loop, roots)))
    return failure();
  bool inFlight = group.front().readInFlight();
  for (Operation *op = loop->getNextNode();
       op && !inFlight && hasPositiveStep(loop); op = op->getNextNode()) {
    auto later = dyn_cast<scf::ForOp>(op);
    if (!later || !later->hasAttr(kWarpSpecializeAttr)) {
      if (writesMemory(op))
        break;
      continue;
    }
    std::optional<SpecializedLoop> next =
        sharingBuffers(group.front(), later, bulk);
    SmallVector<Value> more(roots);
    std::optional<SmallVector<Operation *>> slice;
    if (!next || failed(copierInputs(*next, more)) ||
        !(slice = sliceBefore(loop, more)))
      break;
    roots = std::move(more);
    before = std::move(slice);
    group.push_back(std::move(*next));
  }

  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  unsigned readers = warps.getInt() * 32;
  Block &entry = func.getBody().front();
  rewriter.setInsertionPointToStart(&entry);
  SmallVector<Value> buffers;
  SmallVector<MemDescType> viewTypes;
  for (OperandLoad &operand : group.front().loads) {
    RankedTensorType type = operand.type();
    SmallVector<int64_t> shape{int64_t(stages)};
    llvm::append_range(shape, type.getShape());
    Attribute encoding = bufferLayout(operand);
    buffers.push_back(LocalAllocOp::create(
        rewriter, loc, MemDescType::get(shape, type.getElementType(), encoding),
        Value()));
    viewTypes.push_back(MemDescType::get(type.getShape(),
                                         type.getElementType(), encoding, true,
                                         shape));
  }
  Value full = bulk.track(rewriter, loc, stages);
  Value free = bulk.track(rewriter, loc, stages, readers);

  // The kernel from here on is the default region.
  auto specialized = WarpSpecializeOp::create(
      rewriter, loc, rewriter.getDenseI32ArrayAttr({int32_t(kCopyingWarps)}),
      DenseI32ArrayAttr(), IntegerAttr(), 1);
  Block &computing = specialized.getDefaultRegion().emplaceBlock();
  Block &copying = specialized.getPartitionRegions()[0].emplaceBlock();
  computing.getOperations().splice(
      computing.begin(), entry.getOperations(),
      std::next(specialized->getIterator()),
      entry.getTerminator()->getIterator());
  for (Block *block : {&computing, &copying}) {
    rewriter.setInsertionPointToEnd(block);
    WarpYieldOp::create(rewriter, loc);
  }
  bulk.setRegisters(specialized, warps.getInt());

  // The copying warps' loops.
  rewriter.setInsertionPointToStart(&copying);
  IRMapping map;
  for (Operation *op : *before)
    rewriter.clone(*op, map);
  Value one = arith::ConstantIntOp::create(rewriter, loc, 1, 32);
  Value done;
  for (SpecializedLoop &s : group) {
    Block *body = s.loop.getBody();
    SmallVector<Value> inits;
    for (unsigned i : s.carried)
      inits.push_back(map.lookupOrDefault(s.loop.getInitArgs()[i]));
    auto copier = scf::ForOp::create(
        rewriter, loc, map.lookupOrDefault(s.loop.getLowerBound()),
        map.lookupOrDefault(s.loop.getUpperBound()),
        map.lookupOrDefault(s.loop.getStep()), inits);
    map.map(s.loop.getInductionVar(), copier.getInductionVar());
    for (auto [i, index] : llvm::enumerate(s.carried))
      map.map(s.loop.getRegionIterArg(index), copier.getRegionIterArg(i));
    Block *copierBody = copier.getBody();
    if (!copierBody->empty())
      rewriter.eraseOp(copierBody->getTerminator());
    rewriter.setInsertionPointToEnd(copierBody);
    for (Operation &op : body->without_terminator())
      if (s.ahead.contains(&op))
        rewriter.clone(op, map);
    SmallVector<Value> yielded;
    for (unsigned i : s.carried)
      yielded.push_back(
          map.lookupOrDefault(body->getTerminator()->getOperand(i)));
    scf::YieldOp::create(rewriter, loc, yielded);
    SmallVector<DescriptorLoadOp> copied;
    for (OperandLoad &operand : s.loads)
      copied.push_back(cast<DescriptorLoadOp>(
          map.lookup(operand.load->getResult(0)).getDefiningOp()));
    rewriter.setInsertionPoint(copied.back());
    auto [slot, round] = emitSlotAndRound(rewriter, loc, copier, stages, done);
    bulk.wait(rewriter, loc, free, slot,
              arith::AddIOp::create(rewriter, loc, round, one));
    SmallVector<Value> views;
    for (auto [buffer, viewType] : llvm::zip(buffers, viewTypes))
      views.push_back(
          MemDescIndexOp::create(rewriter, loc, viewType, buffer, slot));
    SmallVector<Operation *> made;
    bulk.copy(rewriter, loc, full, slot, copied, views, made,
              /*readersDone=*/true);
    for (DescriptorLoadOp load : copied)
      rewriter.eraseOp(load);
    rewriter.setInsertionPointAfter(copier);
    if (&s != &group.back())
      done = addIterations(rewriter, loc, done, copier);
  }

  // The computing warps' loops read the buffers once the copies land.
  done = Value();
  for (SpecializedLoop &s : group) {
    Block *body = s.loop.getBody();
    Operation *firstRead = firstReadOf(s.loads);
    rewriter.setInsertionPoint(firstRead);
    auto [readSlot, readRound] =
        emitSlotAndRound(rewriter, loc, s.loop, stages, done);
    bulk.wait(rewriter, loc, full, readSlot, readRound);
    for (auto [operand, buffer, viewType] :
         llvm::zip(s.loads, buffers, viewTypes))
      readBuffers(rewriter, s.loop, operand, buffer, viewType, done);
    // The addresses the copies took.
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation &op : llvm::make_early_inc_range(
               llvm::reverse(body->without_terminator())))
        if (op.use_empty() && isMemoryEffectFree(&op)) {
          rewriter.eraseOp(&op);
          erased = true;
        }
    }
    // A dot accumulating over the loop still reads its buffers in the next
    // iteration (one in flight): an iteration's buffers are free after the
    // next one's last read, by which the dot is waited for. Else at the end
    // of the iteration (a backend waiting for dots there waits before it).
    if (inFlight) {
      freePrevious(rewriter, s.loop, bulk, free, buffers, stages);
    } else {
      rewriter.setInsertionPoint(body->getTerminator());
      Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
      bulk.arrive(rewriter, loc, free,
                  emitSlot(rewriter, loc, s.loop, stages, done), yes);
    }
    rewriter.setInsertionPointAfter(s.loop);
    if (&s != &group.back())
      done = addIterations(rewriter, loc, done, s.loop);
  }

  bulk.release(rewriter, loc, full);
  bulk.release(rewriter, loc, free);
  for (Value buffer : llvm::reverse(buffers))
    LocalDeallocOp::create(rewriter, loc, buffer);
  return success();
}

/// Expands `loop` by `schedule` (op, stage), predicating what runs past its
/// end with `bulk`'s copies or else `predicate`.
LogicalResult expandLoop(scf::ForOp loop,
                         std::vector<std::pair<Operation *, unsigned>> schedule,
                         const BulkCopies *bulk) {
  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &out) {
        out = schedule;
      };
  options.peelEpilogue = false;
  options.supportDynamicLoops = true;
  options.predicateFn = [bulk](RewriterBase &rewriter, Operation *op,
                               Value pred) -> Operation * {
    if (bulk && bulk->predicate(rewriter, op, pred))
      return op;
    return predicate(rewriter, op, pred);
  };
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  if (failed(scf::pipelineForLoop(rewriter, loop, options)))
    return loop.emitError("the loop's loads could not be pipelined");
  return success();
}

/// The shared layout `operand`'s buffer takes on a target without
/// asynchronous copies, where its tile is stored from the load's layout and
/// read in its convert's: the conflict-free swizzle the conversion planner
/// picks for that trip, else chooseSharedLayout's.
Attribute prefetchLayout(OperandLoad &operand) {
  RankedTensorType loaded = operand.type();
  if (operand.converts.empty() || !operand.allocs.empty())
    return bufferLayout(operand);
  RankedTensorType read = operand.trans ? operand.trans.getType() : loaded;
  std::optional<LinearLayout> src = toLinearLayout(read),
                              dst = toLinearLayout(
                                  operand.converts.front().getType());
  std::optional<ConversionPlan> plan;
  if (src && dst)
    plan = planConversion(
        *src, *dst,
        std::max(8u, loaded.getElementType().getIntOrFloatBitWidth()));
  if (!plan || plan->kind != ConversionKind::SharedMemory || !plan->swizzle ||
      (operand.trans && read.getRank() != 2))
    return chooseSharedLayout(loaded);
  Attribute layout = SwizzledSharedLayoutAttr::get(
      loaded.getContext(), plan->swizzle->vec, plan->swizzle->perPhase,
      plan->swizzle->maxPhase, plan->swizzle->order);
  // Back to the load's orientation (a 2-d transpose is its own inverse).
  return operand.trans ? transposeSharedLayout(layout, operand.trans.getOrder())
                       : layout;
}

/// Pipelines `loop` on a target without asynchronous copies (AMD's), as
/// upstream Triton's AMD stream pipeliner does: each operand load is issued
/// `stages - 1` iterations ahead into registers, and its tile stored into
/// shared memory at the end of the iteration before the one reading it,
/// after that iteration's dots. Two stages take one buffer per operand
/// (the store waits for every thread to be done reading it); deeper ones
/// two, so that the store goes to the buffer the next iteration reads.
LogicalResult prefetchLoop(scf::ForOp loop, MutableArrayRef<OperandLoad> loads,
                           unsigned stages) {
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  unsigned count = stages == 2 ? 1 : 2;
  SmallVector<Operation *> prefetches;
  SmallVector<Value> buffers;
  SmallVector<MemDescType> viewTypes;
  for (OperandLoad &operand : loads) {
    RankedTensorType type = operand.type();
    Attribute encoding = prefetchLayout(operand);
    SmallVector<int64_t> shape{int64_t(count)};
    llvm::append_range(shape, type.getShape());
    rewriter.setInsertionPoint(loop);
    buffers.push_back(LocalAllocOp::create(
        rewriter, operand.load->getLoc(),
        MemDescType::get(shape, type.getElementType(), encoding), Value()));
    viewTypes.push_back(MemDescType::get(type.getShape(), type.getElementType(),
                                         encoding, true, shape));
    rewriter.setInsertionPoint(operand.load);
    prefetches.push_back(rewriter.clone(*operand.load));
  }
  FailureOr<DenseSet<Operation *>> stage0 = copyStage(loop, prefetches);
  if (failed(stage0))
    return loop.emitError("the pipeliner lost track of the loads' operands");

  // The stores, last in the body (tile.local_store waits for every thread
  // before and after writing); the reads, of the iteration's buffer.
  rewriter.setInsertionPoint(body->getTerminator());
  Operation *beforeStores = body->getTerminator()->getPrevNode();
  for (auto [prefetch, buffer, viewType] :
       llvm::zip(prefetches, buffers, viewTypes)) {
    Value slot = emitSlot(rewriter, loc, loop, count);
    Value view = MemDescIndexOp::create(rewriter, loc, viewType, buffer, slot);
    LocalStoreOp::create(rewriter, loc, prefetch->getResult(0), view);
  }
  Operation *firstStore = beforeStores->getNextNode();
  for (auto [operand, buffer, viewType] : llvm::zip(loads, buffers, viewTypes))
    readBuffers(rewriter, loop, operand, buffer, viewType);
  // Stores past the end write buffers no one reads; they are done before
  // the buffers' bytes serve anything else.
  rewriter.setInsertionPointAfter(loop);
  BarrierOp::create(rewriter, loc);
  for (Value buffer : llvm::reverse(buffers))
    LocalDeallocOp::create(rewriter, loc, buffer);

  // The loads first, then the iteration's work, then the stores of the
  // next iteration's tiles.
  std::vector<std::pair<Operation *, unsigned>> schedule;
  for (Operation &op : body->without_terminator())
    if (stage0->contains(&op))
      schedule.emplace_back(&op, 0);
  for (Operation &op : body->without_terminator()) {
    if (&op == firstStore)
      break;
    if (!stage0->contains(&op))
      schedule.emplace_back(&op, stages - 1);
  }
  for (Operation *op = firstStore; op != body->getTerminator();
       op = op->getNextNode())
    schedule.emplace_back(op, stages - 2);
  return expandLoop(loop, std::move(schedule), nullptr);
}

/// Rewrites the operand loads of `loop` as copies into buffers and local
/// loads of them, and pipelines it over `stages` stages.
/// The deepest pipeline: each stage is a buffer of every operand and a
/// prologue copy of the loop's loads, so deeper ones need more shared memory
/// than GPUs have and take the compiler minutes (100 stages: 52 s, 11 GB).
constexpr unsigned kMaxStages = 16;

LogicalResult pipelineLoop(scf::ForOp loop, unsigned stages,
                           const BulkCopies *bulk, bool asyncCopies) {
  SmallVector<OperandLoad> loads = findOperandLoads(loop, bulk);
  if (loads.empty())
    return success();
  if (stages > kMaxStages)
    return loop.emitError() << "num_stages " << stages << " is more than "
                            << kMaxStages
                            << ", the deepest pipeline of a loop feeding dots";
  std::optional<DenseSet<Operation *>> ahead = copiesAhead(loop, loads);
  if (!ahead)
    return success();
  if (!asyncCopies &&
      llvm::none_of(loads, [](const OperandLoad &load) { return load.bulk; }))
    return prefetchLoop(loop, loads, stages);
  if (loop->hasAttr(kWarpSpecializeAttr) && bulk &&
      llvm::all_of(loads, [](const OperandLoad &load) { return load.bulk; }) &&
      succeeded(specializeLoops(loop, loads, *ahead, stages, *bulk)))
    return success();
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  bool late = copiesLate(loop, loads);

  // The copies, where the loads were: pointer loads one by one, closed by
  // one commit after the last; bulk copies together, where the last of
  // their loads was.
  SmallVector<Operation *> roots;
  SmallVector<Value> buffers, views, bulkViews;
  SmallVector<DescriptorLoadOp> bulkLoads;
  for (OperandLoad &operand : loads) {
    Operation *load = operand.load;
    RankedTensorType type = operand.type();
    Attribute encoding = bufferLayout(operand);
    unsigned count = buffersOf(loop, operand, stages, late);
    SmallVector<int64_t> shape{int64_t(count)};
    llvm::append_range(shape, type.getShape());
    rewriter.setInsertionPoint(loop);
    auto buffer = LocalAllocOp::create(
        rewriter, load->getLoc(),
        MemDescType::get(shape, type.getElementType(), encoding), Value());
    buffers.push_back(buffer);
    rewriter.setInsertionPoint(load);
    Value slot = emitSlot(rewriter, load->getLoc(), loop, count);
    auto viewType = MemDescType::get(type.getShape(), type.getElementType(),
                                     encoding, true, shape);
    Value view = MemDescIndexOp::create(rewriter, load->getLoc(), viewType,
                                        buffer, slot);
    views.push_back(view);
    if (operand.bulk) {
      bulkLoads.push_back(cast<DescriptorLoadOp>(load));
      bulkViews.push_back(view);
      continue;
    }
    auto pointerLoad = cast<LoadOp>(load);
    roots.push_back(AsyncCopyGlobalToLocalOp::create(
        rewriter, load->getLoc(), pointerLoad.getPtr(), view,
        pointerLoad.getMask(), pointerLoad.getOther(), pointerLoad.getCache(),
        pointerLoad.getEvict()));
  }
  auto last = [](ArrayRef<Operation *> ops) {
    return *llvm::max_element(ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
  };
  bool pointerCopies = !roots.empty();
  if (pointerCopies) {
    rewriter.setInsertionPointAfter(last(roots));
    roots.push_back(AsyncCommitGroupOp::create(rewriter, loc));
  }
  Value tracker;
  DenseSet<Operation *> bulkOps;
  // One barrier per stage and one more, so that a barrier is set up for
  // its next use only after every thread waited for its last.
  unsigned bulkCount = stages + 1;
  if (!bulkLoads.empty()) {
    rewriter.setInsertionPoint(loop);
    tracker = bulk->track(rewriter, loc, bulkCount);
    SmallVector<Operation *> bulkLoadOps(bulkLoads.begin(), bulkLoads.end());
    rewriter.setInsertionPoint(last(bulkLoadOps));
    Value slot = emitSlot(rewriter, loc, loop, bulkCount);
    SmallVector<Operation *> made;
    bulk->copy(rewriter, loc, tracker, slot, bulkLoads, bulkViews, made);
    bulkOps.insert(made.begin(), made.end());
    llvm::append_range(roots, made);
  }

  FailureOr<DenseSet<Operation *>> stage0 = copyStage(loop, roots, bulkOps);
  if (failed(stage0))
    return loop.emitError("the pipeliner lost track of the copies' operands");
  // Issued late into the buffer a dot of the last iteration may still be
  // reading in place (buffersOf gave it no spare), pointer copies wait for
  // every thread first; a backend running such dots asynchronously waits
  // for the last iteration's right after this one's, before this barrier.
  if (late && pointerCopies &&
      llvm::any_of(loads, [&](const OperandLoad &operand) {
        return llvm::any_of(operand.allocs, [&](LocalAllocOp alloc) {
          return accumulatesInPlace(loop, alloc);
        });
      })) {
    Operation *firstCopy =
        *llvm::min_element(roots, [](Operation *a, Operation *b) {
          return a->isBeforeInBlock(b);
        });
    rewriter.setInsertionPoint(firstCopy);
    stage0->insert(BarrierOp::create(rewriter, loc));
  }

  // The waits before the first read; each convert reads its buffer, each
  // store's readers read the buffer instead.
  Operation *firstRead = firstReadOf(loads);
  Operation *beforeWaits = firstRead->getPrevNode();
  rewriter.setInsertionPoint(firstRead);
  if (pointerCopies)
    AsyncWaitOp::create(rewriter, loc, stages - 2);
  if (tracker) {
    auto [slot, round] = emitSlotAndRound(rewriter, loc, loop, bulkCount);
    bulk->wait(rewriter, loc, tracker, slot, round);
  }
  Operation *wait =
      beforeWaits ? beforeWaits->getNextNode() : &body->front();
  for (auto [operand, buffer, copied] : llvm::zip(loads, buffers, views))
    readBuffers(rewriter, loop, operand, buffer,
                cast<MemDescType>(copied.getType()));
  // Copies past the end (masked off, they still write zeros) land before
  // the buffers' bytes serve anything else; bulk copies past the end are
  // not issued, and every other one was waited for.
  rewriter.setInsertionPointAfter(loop);
  if (pointerCopies)
    AsyncWaitOp::create(rewriter, loc, 0);
  if (tracker)
    bulk->release(rewriter, loc, tracker);
  for (Value buffer : llvm::reverse(buffers))
    LocalDeallocOp::create(rewriter, loc, buffer);

  // The schedule: the waits, then the copies (after the wait's barrier, so
  // they may overwrite what the last iteration read) and the rest, in the
  // order copiesLate picks.
  std::vector<std::pair<Operation *, unsigned>> schedule;
  for (Operation &op : body->without_terminator())
    if (op.isBeforeInBlock(wait))
      if (!stage0->contains(&op))
        schedule.emplace_back(&op, stages - 1);
  schedule.emplace_back(wait, stages - 1);
  auto addCopies = [&] {
    for (Operation &op : body->without_terminator())
      if (stage0->contains(&op))
        schedule.emplace_back(&op, 0);
  };
  if (!late)
    addCopies();
  for (Operation &op : body->without_terminator())
    if (wait->isBeforeInBlock(&op) && !stage0->contains(&op))
      schedule.emplace_back(&op, stages - 1);
  if (late)
    addCopies();

  return expandLoop(loop, std::move(schedule), bulk);
}

unsigned stagesOf(scf::ForOp loop, unsigned fallback) {
  if (auto stages = loop->getAttrOfType<IntegerAttr>(kNumStagesAttr))
    return stages.getInt();
  return fallback;
}

struct TilePipelinePass
    : public mlir::tile::impl::TilePipelinePassBase<TilePipelinePass> {
  using TilePipelinePassBase::TilePipelinePassBase;
  TilePipelinePass(unsigned stages, const BulkCopies *bulk, bool async)
      : bulk(bulk) {
    numStages = stages;
    asyncCopies = async;
  }

  void runOnOperation() override {
    if (failed(pipelineLoops(getOperation(), numStages, bulk, asyncCopies)))
      signalPassFailure();
  }

  const BulkCopies *bulk = nullptr;
};

} // namespace

mlir::tile::BulkCopies::~BulkCopies() = default;

void mlir::tile::BulkCopies::setRegisters(WarpSpecializeOp, unsigned) const {}

LogicalResult mlir::tile::pipelineLoops(ModuleOp module, unsigned numStages,
                                        const BulkCopies *bulk,
                                        bool asyncCopies) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    bool innermost = true;
    loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
    if (innermost && stagesOf(loop, numStages) >= 2)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops)
    if (failed(
            pipelineLoop(loop, stagesOf(loop, numStages), bulk, asyncCopies)))
      return failure();
  return success();
}

std::unique_ptr<Pass> mlir::tile::createPipelinePass(unsigned numStages,
                                                     const BulkCopies *bulk,
                                                     bool asyncCopies) {
  return std::make_unique<TilePipelinePass>(numStages, bulk, asyncCopies);
}
