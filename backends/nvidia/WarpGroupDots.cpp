//===- WarpGroupDots.cpp - what wgmma needs once loops are pipelined ------===//
//
// Two passes over warpgroup dots after tile-pipeline. In
// tile-nvidia-async-warpgroup-dots, a chained dot (attention's p v) is
// deferred to the next iteration where it can be, and then the dots of a
// loop run asynchronously, each waited for just before its result is
// read, an accumulator that only feeds the next iteration's dot one in
// flight, and an arrive after them after their waits. In
// tile-nvidia-fence-async-shared, writes from registers into buffers
// wgmma reads are fenced.
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/Passes.h"

#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILENVIDIAASYNCWARPGROUPDOTSPASS
#define GEN_PASS_DEF_TILENVIDIAFENCEASYNCSHAREDPASS
#include "backends/nvidia/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {
/// The allocation a shared-memory view is made from.
LocalAllocOp allocOf(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto alloc = dyn_cast<LocalAllocOp>(def))
      return alloc;
    if (!isSharedMemoryView(def))
      return {};
    view = def->getOperand(0);
  }
  return {};
}

/// The local stores into `alloc`'s buffer, through its views.
SmallVector<LocalStoreOp> storesInto(LocalAllocOp alloc) {
  SmallVector<LocalStoreOp> stores;
  SmallVector<Value> views{alloc.getResult()};
  while (!views.empty())
    for (Operation *user : views.pop_back_val().getUsers()) {
      if (auto store = dyn_cast<LocalStoreOp>(user))
        stores.push_back(store);
      else if (isSharedMemoryView(user))
        views.push_back(user->getResult(0));
    }
  return stores;
}

struct TileNvidiaFenceAsyncSharedPass
    : public mlir::tile::impl::TileNvidiaFenceAsyncSharedPassBase<
          TileNvidiaFenceAsyncSharedPass> {
  void runOnOperation() override {
    // Writes from registers into buffers warpgroup dots read.
    SetVector<Operation *> writes;
    getOperation().walk([&](WarpGroupDotOp dot) {
      for (Value operand : {dot.getA(), Value(dot.getB())}) {
        LocalAllocOp alloc =
            isa<MemDescType>(operand.getType()) ? allocOf(operand) : nullptr;
        if (!alloc)
          continue;
        if (alloc.getSrc())
          writes.insert(alloc);
        for (LocalStoreOp store : storesInto(alloc))
          writes.insert(store);
      }
    });
    for (Operation *write : writes) {
      if (isa_and_nonnull<FenceAsyncSharedOp>(write->getNextNode()))
        continue;
      OpBuilder b(write->getContext());
      b.setInsertionPointAfter(write);
      FenceAsyncSharedOp::create(b, write->getLoc());
    }
  }
};

/// Whether `view` is made from a buffer allocated before `loop` (the
/// buffers the pipeliner's copies fill, or a loop-invariant operand) that
/// nothing in the loop stores to from registers.
bool isStableOperand(Value view, scf::ForOp loop) {
  LocalAllocOp alloc = allocOf(view);
  return alloc && !loop->isAncestor(alloc) &&
         llvm::none_of(storesInto(alloc), [&](LocalStoreOp store) {
           return loop->isAncestor(store);
         });
}

/// Whether `use` needs the dot's result in registers: anything but the
/// accumulator of a later asynchronous dot, which the hardware chains.
bool readsResult(OpOperand &use, Block *body) {
  auto dot = dyn_cast<WarpGroupDotOp>(use.getOwner());
  return !(dot && dot.getIsAsync() && dot->getBlock() == body &&
           &use == &dot.getCMutable());
}

/// The first op of `body` that reads `value` (through nested regions too),
/// leaving out the terminator; null where none does.
Operation *firstReader(Value value, Block *body) {
  Operation *first = nullptr;
  for (OpOperand &use : value.getUses()) {
    Operation *op = body->findAncestorOpInBlock(*use.getOwner());
    if (!op || op == body->getTerminator() || !readsResult(use, body))
      continue;
    if (!first || op->isBeforeInBlock(first))
      first = op;
  }
  return first;
}

/// Puts a wait for at most `pendings` dots in flight before `before`,
/// through which the later reads of `values` go.
void waitBefore(Operation *before, ValueRange values, unsigned pendings) {
  OpBuilder b(before);
  SmallVector<Value> inputs(values);
  auto wait = WarpGroupDotWaitOp::create(b, before->getLoc(),
                                         ValueRange(inputs).getTypes(), inputs,
                                         pendings);
  for (auto [value, waited] : llvm::zip(inputs, wait.getResults()))
    value.replaceUsesWithIf(waited, [&](OpOperand &use) {
      Operation *user = before->getBlock()->findAncestorOpInBlock(
          *use.getOwner());
      return user && user != wait && !user->isBeforeInBlock(wait);
    });
}

/// Where `reader`, the first op of the loop's body reading `value`, is a
/// branch and the only one (a fused loop's epilogue): waits for the dot
/// inside it, before the first read in each of its blocks. Returns whether
/// it did.
bool waitInBranch(Operation *reader, Value value, Block *body,
                  unsigned pendings) {
  auto branch = dyn_cast<scf::IfOp>(reader);
  if (!branch || llvm::is_contained(branch->getOperands(), value))
    return false;
  for (OpOperand &use : value.getUses()) {
    Operation *op = body->findAncestorOpInBlock(*use.getOwner());
    if (op && op != branch && op != body->getTerminator() &&
        readsResult(use, body))
      return false;
    if (isa<scf::YieldOp>(use.getOwner()) && branch->isAncestor(use.getOwner()))
      return false;
  }
  for (Region &region : branch->getRegions())
    if (!region.empty())
      if (Operation *first = firstReader(value, &region.front()))
        waitBefore(first, value, pendings);
  return true;
}

/// dot(a, b, select(c, 0, x)) -> dot(a, b, x, useC = !c): restarting an
/// accumulator writes no registers a dot in flight may read.
void foldZeroAccumulator(WarpGroupDotOp dot) {
  auto select = dot.getC().getDefiningOp<arith::SelectOp>();
  if (!select || dot.getUseC() || !select.getCondition().getType().isInteger(1))
    return;
  Value zero = select.getTrueValue();
  if (!matchPattern(zero, m_AnyZeroFloat()) && !matchPattern(zero, m_Zero()))
    return;
  OpBuilder b(dot);
  Value one = arith::ConstantOp::create(b, dot.getLoc(), b.getBoolAttr(true));
  Value useC =
      arith::XOrIOp::create(b, dot.getLoc(), select.getCondition(), one);
  dot.getCMutable().assign(select.getFalseValue());
  dot.getUseCMutable().assign(useC);
  if (select->use_empty())
    select->erase();
}

/// Ops that only view or broadcast a value. They go into the later stage
/// with their readers, so that what crosses between the stages is the
/// smaller value they are made from.
bool isReshaping(Operation *op) {
  return isa<ExpandDimsOp, BroadcastOp, SplatOp, MemDescIndexOp, MemDescTransOp,
             MemDescSubsliceOp, arith::ConstantOp>(op);
}

/// Whether `value` is a result of one of `ops`.
bool isResultOf(Value value, const SetVector<Operation *> &ops) {
  Operation *def = value.getDefiningOp();
  return def && ops.contains(def);
}

/// The later stage of a loop of two chained warpgroup dots (attention's
/// q kᵀ, then p v with p computed from the first's result, into the
/// accumulator the loop carries): the second dot, the ops that compute
/// its accumulator from the carried value, the arrives after it, and the
/// views and broadcasts only these read. Empty where `loop` is not such a
/// loop, where anything in it but dots and barriers touches memory (a
/// copy could overwrite what the deferred dot reads), where its buffers
/// are too few, or where the stages cannot be split. The ops are in the
/// loop's order.
SetVector<Operation *> chainedDotStage(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto dots = llvm::to_vector(body->getOps<WarpGroupDotOp>());
  if (dots.size() != 2 || isa<MemDescType>(dots[1].getA().getType()))
    return {};
  WarpGroupDotOp first = dots[0], second = dots[1];
  for (Operation &op : body->without_terminator())
    if (!isa<WarpGroupDotOp, WaitBarrierOp, ArriveBarrierOp>(op) &&
        !isMemoryEffectFree(&op))
      return {};
  // Buffers the loop's copies fill in turn (one more dimension than the
  // operand) need three: the one being filled, the first dot's and the
  // deferred second's. With two, the copies would wait for each
  // iteration's end.
  for (WarpGroupDotOp dot : dots)
    for (Value operand : dot->getOperands()) {
      auto type = dyn_cast<MemDescType>(operand.getType());
      if (!type)
        continue;
      if (!isStableOperand(operand, loop))
        return {};
      MemDescType buffers = allocOf(operand).getType();
      if (buffers.getRank() > type.getRank() && buffers.getShape()[0] < 3)
        return {};
    }
  // The second dot's p is computed from the first's result.
  SetVector<Operation *> feeding;
  feeding.insert(second.getA().getDefiningOp());
  for (unsigned i = 0; i < feeding.size() && !feeding.contains(first); ++i)
    if (feeding[i] && feeding[i]->getBlock() == body)
      for (Value operand : feeding[i]->getOperands())
        feeding.insert(operand.getDefiningOp());
  if (!feeding.contains(first))
    return {};
  // Its result is the loop's carried accumulator, read by nothing else.
  Operation *yield = body->getTerminator();
  if (!second.getD().hasOneUse() || *second.getD().user_begin() != yield)
    return {};
  unsigned carried = second.getD().use_begin()->getOperandNumber();

  // The readers of the carried accumulator, up to the second dot.
  SetVector<Operation *> late;
  SmallVector<Value> reached{loop.getRegionIterArg(carried)};
  while (!reached.empty())
    for (Operation *user : reached.pop_back_val().getUsers()) {
      Operation *op = body->findAncestorOpInBlock(*user);
      if (op == yield)
        continue;
      if (!op || second->isBeforeInBlock(op))
        return {};
      if (late.insert(op))
        llvm::append_range(reached, op->getResults());
    }
  if (!late.contains(second))
    return {};
  for (auto arrive : body->getOps<ArriveBarrierOp>())
    if (second->isBeforeInBlock(arrive))
      late.insert(arrive);
  for (Operation &op : llvm::reverse(body->without_terminator()))
    if (isReshaping(&op) && !op.use_empty() &&
        llvm::all_of(op.getUsers(), [&](Operation *user) {
          return late.contains(body->findAncestorOpInBlock(*user));
        }))
      late.insert(&op);

  // The earlier stage reads nothing of the later one but through the
  // loop's carried values, and the later one reads carried values only
  // it yields (an earlier stage's would be an iteration ahead).
  ValueRange yielded = loop.getYieldedValues();
  for (Operation &op : body->without_terminator()) {
    bool opLate = late.contains(&op);
    WalkResult result = op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand);
        bool carriedArg =
            arg && arg.getOwner() == body && arg != loop.getInductionVar();
        if (!opLate && isResultOf(operand, late))
          return WalkResult::interrupt();
        if (carriedArg &&
            opLate != isResultOf(yielded[arg.getArgNumber() - 1], late))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return {};
  }
  SetVector<Operation *> ordered;
  for (Operation &op : body->without_terminator())
    if (late.contains(&op))
      ordered.insert(&op);
  return ordered;
}

/// Defers `late` (chainedDotStage's) of each iteration of `loop` to
/// the next one, after its first dot: the second dot then computes on the
/// tensor cores while the warps compute the next iteration's softmax
/// (FlashAttention-3's overlap within a warpgroup). The first iteration's
/// earlier stage runs before the loop and the last one's later stage
/// after it, all under a check that the loop runs at all; the values the
/// later stage reads of the earlier one, and its induction value, are
/// carried.
void deferLateStage(scf::ForOp loop, const SetVector<Operation *> &late) {
  Block *body = loop.getBody();
  auto isLate = [&](Value value) { return isResultOf(value, late); };
  SetVector<Value> crossing;
  for (Operation *op : late)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == body && !late.contains(def))
          crossing.insert(operand);
    });
  Operation *firstDot = *body->getOps<WarpGroupDotOp>().begin();
  ValueRange yielded = loop.getYieldedValues();
  unsigned numCarried = loop.getNumRegionIterArgs();
  Location loc = loop.getLoc();
  // The later stage reads `values` as the new loop carries them: the
  // carried values, then `crossing`, then the induction value.
  auto cloneLate = [&](OpBuilder &b, ValueRange values) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), values.back());
    mapping.map(loop.getRegionIterArgs(), values.take_front(numCarried));
    mapping.map(crossing.getArrayRef(),
                values.slice(numCarried, crossing.size()));
    for (Operation *op : late)
      b.clone(*op, mapping);
    return mapping;
  };

  OpBuilder b(loop);
  Value entered =
      arith::CmpIOp::create(b, loc,
                            loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                  : arith::CmpIPredicate::slt,
                            loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), entered,
                                 /*addThenBlock=*/true, /*addElseBlock=*/true);
  b.setInsertionPointToStart(guard.elseBlock());
  scf::YieldOp::create(b, loc, loop.getInitArgs());

  // The first iteration's earlier stage.
  b.setInsertionPointToStart(guard.thenBlock());
  IRMapping prologue;
  prologue.map(loop.getInductionVar(), loop.getLowerBound());
  prologue.map(loop.getRegionIterArgs(), loop.getInitArgs());
  for (Operation &op : body->without_terminator())
    if (!late.contains(&op))
      b.clone(op, prologue);

  // The loop: each iteration's earlier stage, with the previous one's
  // later stage after its first dot.
  SmallVector<Value> inits;
  for (auto [init, value] : llvm::zip(loop.getInitArgs(), yielded))
    inits.push_back(isLate(value) ? init : prologue.lookupOrDefault(value));
  for (Value value : crossing)
    inits.push_back(prologue.lookup(value));
  inits.push_back(loop.getLowerBound());
  Value second =
      arith::AddIOp::create(b, loc, loop.getLowerBound(), loop.getStep());
  auto build = [&](OpBuilder &kb, Location, Value iv, ValueRange args) {
    IRMapping early, previous;
    early.map(loop.getInductionVar(), iv);
    early.map(loop.getRegionIterArgs(), args.take_front(numCarried));
    for (Operation &op : body->without_terminator()) {
      if (late.contains(&op))
        continue;
      kb.clone(op, early);
      if (&op == firstDot)
        previous = cloneLate(kb, args);
    }
    SmallVector<Value> results;
    for (Value value : yielded)
      results.push_back(isLate(value) ? previous.lookup(value)
                                      : early.lookupOrDefault(value));
    for (Value value : crossing)
      results.push_back(early.lookup(value));
    results.push_back(iv);
    scf::YieldOp::create(kb, loc, results);
  };
  auto kernel =
      scf::ForOp::create(b, loc, second, loop.getUpperBound(), loop.getStep(),
                         inits, build, loop.getUnsignedCmp());
  kernel->setDiscardableAttrs(loop->getDiscardableAttrDictionary());

  // The last iteration's later stage.
  IRMapping epilogue = cloneLate(b, kernel.getResults());
  SmallVector<Value> results;
  for (auto [value, result] : llvm::zip(yielded, kernel.getResults()))
    results.push_back(isLate(value) ? epilogue.lookup(value) : result);
  scf::YieldOp::create(b, loc, results);
  loop->replaceAllUsesWith(guard.getResults());
  loop->erase();
}

struct TileNvidiaAsyncWarpGroupDotsPass
    : public mlir::tile::impl::TileNvidiaAsyncWarpGroupDotsPassBase<
          TileNvidiaAsyncWarpGroupDotsPass> {
  void runOnOperation() override {
    getOperation().walk(foldZeroAccumulator);
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SetVector<Operation *> late = chainedDotStage(loop);
      if (!late.empty())
        deferLateStage(loop, late);
    }
    loops.clear();
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      makeAsync(loop);
  }

  /// Starts the warpgroup dots of `loop`'s body whose shared-memory
  /// operands nothing in the loop writes, and waits for each just before
  /// its result is read later in the iteration, else before the loop goes
  /// round; a dot accumulating over the loop is waited for when it is
  /// started again (one in flight, as the pipeliner's spare buffer allows).
  /// Every one is waited for after the loop.
  void makeAsync(scf::ForOp loop) {
    Block *body = loop.getBody();
    SmallVector<WarpGroupDotOp> dots;
    for (auto dot : body->getOps<WarpGroupDotOp>())
      if (llvm::all_of(dot->getOperands(), [&](Value operand) {
            return !isa<MemDescType>(operand.getType()) ||
                   isStableOperand(operand, loop);
          }))
        dots.push_back(dot);
    if (dots.empty())
      return;
    for (WarpGroupDotOp dot : dots)
      dot.setIsAsync(true);
    // How many of the dots start before `op` in an iteration.
    auto startedBefore = [&](Operation *op) {
      return unsigned(llvm::count_if(dots, [&](WarpGroupDotOp dot) {
        return dot->isBeforeInBlock(op);
      }));
    };
    Operation *yield = body->getTerminator();
    unsigned count = dots.size();
    for (auto [i, dot] : llvm::enumerate(dots)) {
      Value result = dot.getD();
      if (Operation *reader = firstReader(result, body)) {
        unsigned pendings = startedBefore(reader) - i - 1;
        if (!waitInBranch(reader, result, body, pendings)) {
          waitBefore(reader, result, pendings);
          continue;
        }
      }
      // Accumulated over the loop and read by nothing else (a matmul's
      // loop): the previous iteration's is waited for once this one
      // starts, one in flight (the pipeliner gave its operands a spare
      // buffer, or issues the copies into its buffers after the dots and
      // a barrier, which this wait, right after the dot, precedes).
      auto carried = llvm::find(yield->getOperands(), result);
      if (carried != yield->operand_end()) {
        Value previous = loop.getRegionIterArg(
            std::distance(yield->operand_begin(), carried));
        if (dot.getC() == previous && !firstReader(previous, body)) {
          waitBefore(dot->getNextNode(), result, count);
          continue;
        }
      }
      // Else done before the loop goes round. ptxas serializes every wgmma
      // of a kernel where a register of one in flight may be read, and it
      // does not follow the groups round the loop.
      waitBefore(yield, result, count - i - 1);
    }
    // An arrive after the iteration's dots (the pipeliner's, freeing the
    // buffers they read) comes after their waits.
    Operation *lastWait = nullptr;
    for (auto wait : body->getOps<WarpGroupDotWaitOp>())
      lastWait = wait;
    for (auto arrive :
         llvm::make_early_inc_range(body->getOps<ArriveBarrierOp>()))
      if (lastWait && dots.back()->isBeforeInBlock(arrive) &&
          arrive->isBeforeInBlock(lastWait))
        arrive->moveAfter(lastWait);
    // Every dot is done after the loop, its results read through the wait.
    SmallVector<Value> results;
    for (auto [yielded, result] :
         llvm::zip(yield->getOperands(), loop.getResults()))
      if (isa_and_nonnull<WarpGroupDotOp, WarpGroupDotWaitOp>(
              yielded.getDefiningOp()))
        results.push_back(result);
    OpBuilder b(loop->getContext());
    b.setInsertionPointAfter(loop);
    auto done = WarpGroupDotWaitOp::create(
        b, loop.getLoc(), ValueRange(results).getTypes(), results, 0);
    for (auto [result, waited] : llvm::zip(results, done.getResults()))
      result.replaceAllUsesExcept(waited, done);
  }
};
} // namespace
