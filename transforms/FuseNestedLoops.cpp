//===- FuseNestedLoops.cpp - one loop from a loop and the loop inside it --===//
//
// A persistent kernel loops over tiles, and for each over K: the pipeliner
// only overlaps the copies of one tile's K loop, and drains at every tile.
// Fused into one loop over (tile, k), the copies of the next tile start
// while this one finishes, and its epilogue runs under them.
//
//===----------------------------------------------------------------------===//

#include "ir/Tile/TileDialect.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tile-fuse-nested-loops"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEFUSENESTEDLOOPSPASS
#include "transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The loop directly in `outer`'s body that can be fused with it: the only
/// one, with bounds `outer` does not compute and its induction type, after
/// ops without memory effects (the prologue runs again, and once ahead).
scf::ForOp fusableInner(scf::ForOp outer) {
  Block *body = outer.getBody();
  auto loops = body->getOps<scf::ForOp>();
  if (!llvm::hasSingleElement(loops))
    return {};
  scf::ForOp inner = *loops.begin();
  for (Value bound :
       {inner.getLowerBound(), inner.getUpperBound(), inner.getStep()})
    if (outer->isAncestor(bound.getParentRegion()->getParentOp()))
      return {};
  if (inner.getInductionVar().getType() != outer.getInductionVar().getType())
    return {};
  for (Operation &op : llvm::make_range(body->begin(), inner->getIterator()))
    if (!isMemoryEffectFree(&op))
      return {};
  return inner;
}

/// Ends a block of an scf.if or the body of a new loop with a yield of
/// `values`; their builders made one already where there are none.
void yield(OpBuilder &b, Location loc, ValueRange values) {
  if (!values.empty())
    scf::YieldOp::create(b, loc, values);
}

/// How many times a loop from `lower` to `upper` by `step` (> 0) runs.
Value tripCount(OpBuilder &b, Location loc, Value lower, Value upper,
                Value step, Value zero, Value one) {
  Value span = arith::SubIOp::create(b, loc, upper, lower);
  Value rounded = arith::AddIOp::create(
      b, loc, span, arith::SubIOp::create(b, loc, step, one));
  Value count = arith::DivSIOp::create(b, loc, rounded, step);
  return arith::MaxSIOp::create(b, loc, count, zero);
}

/// Rewrites
///
///   for o in outer: prologue(o); x = for i in inner: body; epilogue(o, x)
///
/// as one loop over t in [0, |outer| * |inner|), i = t % |inner|, where the
/// prologue runs when i is the first (its values carried to the rest), the
/// inner loop's carried values restart from their initial values there, and
/// the epilogue runs when i is the last. An inner loop that runs no times
/// takes the original nest, without it.
void fuse(scf::ForOp outer, scf::ForOp inner) {
  Location loc = outer.getLoc();
  Block *body = outer.getBody();
  OpBuilder b(outer);
  Type type = outer.getInductionVar().getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value outerCount =
      tripCount(b, loc, outer.getLowerBound(), outer.getUpperBound(),
                outer.getStep(), zero, one);
  Value innerCount =
      tripCount(b, loc, inner.getLowerBound(), inner.getUpperBound(),
                inner.getStep(), zero, one);
  Value runsInner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          innerCount, zero);
  auto nest = scf::IfOp::create(b, loc, outer.getResultTypes(), runsInner,
                                /*withElseRegion=*/true);
  outer->replaceAllUsesWith(nest.getResults());

  // The prologue's values the rest of the body reads: carried from the
  // iteration that computed them.
  SmallVector<Operation *> prologue;
  SmallVector<Value> kept;
  for (Operation &op : llvm::make_range(body->begin(), inner->getIterator()))
    prologue.push_back(&op);
  for (Operation *op : prologue)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !llvm::is_contained(prologue,
                                       body->findAncestorOpInBlock(*user));
          }))
        kept.push_back(result);
  auto emitPrologue = [&](OpBuilder &at, IRMapping &mapping) {
    for (Operation *op : prologue)
      at.clone(*op, mapping);
  };

  // The fused loop's carried values: the outer loop's, the inner loop's,
  // the prologue's; first those of the prologue run for the first tile.
  b.setInsertionPointToStart(nest.thenBlock());
  IRMapping first;
  first.map(outer.getInductionVar(), outer.getLowerBound());
  first.map(outer.getRegionIterArgs(), outer.getInitArgs());
  emitPrologue(b, first);
  SmallVector<Value> inits(outer.getInitArgs());
  for (Value init : inner.getInitArgs())
    inits.push_back(first.lookupOrDefault(init));
  for (Value value : kept)
    inits.push_back(first.lookup(value));
  // And where it is: the inner index (from 0) and the outer induction
  // variable, counted rather than divided out of the fused one.
  inits.push_back(zero);
  inits.push_back(outer.getLowerBound());
  unsigned numOuter = outer.getNumRegionIterArgs();
  unsigned numInner = inner.getNumRegionIterArgs();
  Value total = arith::MulIOp::create(b, loc, outerCount, innerCount);
  auto fused = scf::ForOp::create(b, loc, zero, total, one, inits);
  fused->setAttrs(outer->getAttrs());
  if (!fused->hasAttr(kNumStagesAttr))
    if (Attribute stages = inner->getAttr(kNumStagesAttr))
      fused->setAttr(kNumStagesAttr, stages);
  yield(b, loc, fused.getResults().take_front(numOuter));

  Block *fusedBody = fused.getBody();
  ValueRange args = fused.getRegionIterArgs();
  ValueRange outerArgs = args.take_front(numOuter);
  ValueRange innerArgs = args.slice(numOuter, numInner);
  ValueRange keptArgs = args.slice(numOuter + numInner, kept.size());
  Value k = args[args.size() - 2], outerIv = args.back();
  b.setInsertionPointToStart(fusedBody);
  Value innerIv = arith::AddIOp::create(
      b, loc, inner.getLowerBound(),
      arith::MulIOp::create(b, loc, k, inner.getStep()));
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k, zero);
  Value isLast =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k,
                            arith::SubIOp::create(b, loc, innerCount, one));

  IRMapping mapping;
  mapping.map(outer.getInductionVar(), outerIv);
  mapping.map(outer.getRegionIterArgs(), outerArgs);
  // The prologue, where a tile starts.
  ValueRange started = keptArgs;
  if (!kept.empty()) {
    auto start = scf::IfOp::create(b, loc, ValueRange(keptArgs).getTypes(),
                                   isFirst, /*withElseRegion=*/true);
    OpBuilder in = start.getThenBodyBuilder();
    IRMapping prologueMapping = mapping;
    emitPrologue(in, prologueMapping);
    SmallVector<Value> values;
    for (Value value : kept)
      values.push_back(prologueMapping.lookup(value));
    scf::YieldOp::create(in, loc, values);
    OpBuilder otherwise = start.getElseBodyBuilder();
    scf::YieldOp::create(otherwise, loc, keptArgs);
    started = start.getResults();
  }
  mapping.map(kept, started);
  // The inner body, its carried values restarting with each tile.
  mapping.map(inner.getInductionVar(), innerIv);
  for (auto [arg, init, carried] :
       llvm::zip(inner.getRegionIterArgs(), inner.getInitArgs(), innerArgs))
    mapping.map(arg, arith::SelectOp::create(b, loc, isFirst,
                                             mapping.lookupOrDefault(init),
                                             carried));
  for (Operation &op : inner.getBody()->without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> innerNext;
  for (Value value : inner.getBody()->getTerminator()->getOperands())
    innerNext.push_back(mapping.lookupOrDefault(value));
  mapping.map(inner.getResults(), innerNext);
  // The epilogue, where a tile ends.
  auto end = scf::IfOp::create(b, loc, ValueRange(outerArgs).getTypes(),
                               isLast, /*withElseRegion=*/true);
  {
    OpBuilder in = end.getThenBodyBuilder();
    for (Operation *op = inner->getNextNode(); op != body->getTerminator();
         op = op->getNextNode())
      in.clone(*op, mapping);
    SmallVector<Value> values;
    for (Value value : body->getTerminator()->getOperands())
      values.push_back(mapping.lookupOrDefault(value));
    yield(in, loc, values);
    OpBuilder otherwise = end.getElseBodyBuilder();
    yield(otherwise, loc, outerArgs);
  }
  SmallVector<Value> yielded(end.getResults());
  llvm::append_range(yielded, innerNext);
  llvm::append_range(yielded, started);
  Value nextK = arith::AddIOp::create(b, loc, k, one);
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      nextK, innerCount);
  yielded.push_back(arith::SelectOp::create(b, loc, wraps, zero, nextK));
  yielded.push_back(arith::SelectOp::create(
      b, loc, wraps, arith::AddIOp::create(b, loc, outerIv, outer.getStep()),
      outerIv));
  yield(b, loc, yielded);

  // Else the nest as it was, its inner loop gone (it would not run).
  Block *otherwise = nest.elseBlock();
  if (otherwise->empty()) {
    outer->moveBefore(otherwise, otherwise->end());
    b.setInsertionPointToEnd(otherwise);
    scf::YieldOp::create(b, loc, outer.getResults());
  } else {
    outer->moveBefore(otherwise->getTerminator());
  }
  inner->replaceAllUsesWith(inner.getInitArgs());
  inner->erase();
  outer->removeAttr(kFlattenAttr);
}

struct TileFuseNestedLoopsPass
    : public mlir::tile::impl::TileFuseNestedLoopsPassBase<
          TileFuseNestedLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kFlattenAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp outer : loops) {
      if (scf::ForOp inner = fusableInner(outer))
        fuse(outer, inner);
      else
        outer->removeAttr(kFlattenAttr);
    }
  }
};

} // namespace
