//===- WarpGroupDots.cpp - what wgmma needs once loops are pipelined ------===//
//
// Two passes over warpgroup dots after tile-pipeline: the dots of a loop
// run asynchronously, each waited for just before its result is read, an
// accumulator that only feeds the next iteration's dot one in flight, and
// an arrive after them after their waits (tile-nvidia-async-warpgroup-dots);
// writes from registers into buffers
// wgmma reads are fenced (tile-nvidia-fence-async-shared).
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/Passes.h"

#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

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
    if (!isa<MemDescIndexOp, MemDescTransOp, MemDescSubsliceOp>(def))
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
      else if (isa<MemDescIndexOp, MemDescTransOp, MemDescSubsliceOp>(user))
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

struct TileNvidiaAsyncWarpGroupDotsPass
    : public mlir::tile::impl::TileNvidiaAsyncWarpGroupDotsPassBase<
          TileNvidiaAsyncWarpGroupDotsPass> {
  void runOnOperation() override {
    getOperation().walk(foldZeroAccumulator);
    SmallVector<scf::ForOp> loops;
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
      // buffer).
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
