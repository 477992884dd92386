//===- CpuCarried.cpp - large loop-carried tiles in the program's memory --===//
//
// A tile a loop carries (a matmul's accumulator) would be one phi for each
// of its elements in the loop's header: 16384 for a 128x128 tile, and LLVM's
// passes look through a block's phis over and over (minutes). Here each
// loop-carried tile of numbers (not pointers, not booleans) of at least
// kMinElements elements lives in a buffer of
// the program's shared memory instead: stored before the loop, loaded at
// the top of each iteration and stored at its end, and loaded after it.
// Loads and stores of a whole tile are vectors; the loop carries nothing.
//
//===----------------------------------------------------------------------===//

#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kMinElements = 1024;

/// A buffer for tiles of `type`, row-major, holding `init`.
Value allocate(OpBuilder &b, Location loc, RankedTensorType type, Value init) {
  SmallVector<unsigned> order;
  for (unsigned d = type.getRank(); d-- > 0;)
    order.push_back(d);
  auto layout = SwizzledSharedLayoutAttr::get(b.getContext(), 1, 1, 1, order);
  auto memory = MemDescType::get(type.getShape(), type.getElementType(), layout,
                                 /*mutableMemory=*/true);
  return LocalAllocOp::create(b, loc, memory, init);
}

/// Moves iter_arg `i` of `loop` (a tile) to a buffer; the loop then passes
/// the argument through unchanged, which canonicalization removes.
void carryInMemory(scf::ForOp loop, unsigned i) {
  Location loc = loop.getLoc();
  auto type = cast<RankedTensorType>(loop.getInitArgs()[i].getType());
  OpBuilder b(loop);
  Value buffer = allocate(b, loc, type, loop.getInitArgs()[i]);

  BlockArgument arg = loop.getRegionIterArg(i);
  b.setInsertionPointToStart(loop.getBody());
  Value current = LocalLoadOp::create(b, loc, type, buffer);
  arg.replaceAllUsesWith(current);

  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  b.setInsertionPoint(yield);
  LocalStoreOp::create(b, loc, yield.getOperand(i), buffer);
  yield->setOperand(i, arg);

  b.setInsertionPointAfter(loop);
  Value final = LocalLoadOp::create(b, loc, type, buffer);
  loop.getResult(i).replaceAllUsesWith(final);
}

} // namespace

LogicalResult keepLoopCarriedTilesInMemory(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    bool carried = false;
    for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
      if (auto type = dyn_cast<RankedTensorType>(init.getType()))
        if (type.getEncoding() && type.getNumElements() >= kMinElements &&
            type.getElementType().isIntOrFloat() &&
            type.getElementTypeBitWidth() >= 8) {
          carryInMemory(loop, i);
          carried = true;
        }
    if (carried)
      loops.push_back(loop);
  });
  if (loops.empty())
    return success();
  // Drops the arguments passed through.
  RewritePatternSet patterns(module.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, module.getContext());
  SmallVector<Operation *> ops(loops.begin(), loops.end());
  return applyOpPatternsGreedily(ops, std::move(patterns));
}
