//===- WarpGroupDots.cpp - what wgmma needs once loops are pipelined ------===//
//
// Two passes over warpgroup dots after tile-pipeline: the dots of a
// pipelined loop whose accumulator only feeds the next iteration's dot run
// asynchronously, one in flight (tile-nvidia-async-warpgroup-dots); writes
// from registers into buffers wgmma reads are fenced
// (tile-nvidia-fence-async-shared).
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/Passes.h"

#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

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

struct TileNvidiaAsyncWarpGroupDotsPass
    : public mlir::tile::impl::TileNvidiaAsyncWarpGroupDotsPassBase<
          TileNvidiaAsyncWarpGroupDotsPass> {
  void runOnOperation() override {
    SmallVector<WarpGroupDotOp> dots;
    getOperation().walk([&](WarpGroupDotOp dot) { dots.push_back(dot); });
    for (WarpGroupDotOp dot : dots)
      makeAsync(dot);
  }

  /// Starts `dot` and waits for the previous iteration's where the loop
  /// carries its accumulator from dot to dot and nothing else reads it; the
  /// loop's result is waited for after it.
  void makeAsync(WarpGroupDotOp dot) {
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    auto carried = dyn_cast<BlockArgument>(dot.getC());
    if (!loop || !carried || carried.getOwner() != loop.getBody() ||
        !carried.hasOneUse() || !dot.getD().hasOneUse() ||
        !isa<MemDescType>(dot.getA().getType()) ||
        !isStableOperand(dot.getA(), loop) ||
        !isStableOperand(dot.getB(), loop))
      return;
    OpOperand &yielded = *dot.getD().getUses().begin();
    if (yielded.getOwner() != loop.getBody()->getTerminator() ||
        yielded.getOperandNumber() + 1 != carried.getArgNumber())
      return;
    OpBuilder b(dot);
    dot.setIsAsync(true);
    b.setInsertionPointAfter(dot);
    auto inFlight = WarpGroupDotWaitOp::create(
        b, dot.getLoc(), TypeRange{dot.getType()}, ValueRange{dot.getD()}, 1);
    yielded.set(inFlight.getResult(0));
    Value result = loop.getResult(yielded.getOperandNumber());
    b.setInsertionPointAfter(loop);
    auto done = WarpGroupDotWaitOp::create(
        b, dot.getLoc(), TypeRange{result.getType()}, ValueRange{result}, 0);
    result.replaceAllUsesExcept(done.getResult(0), done);
  }
};
} // namespace
