//===- TileCombine.cpp - fold and combine tile ops ------------------------===//

#include "ir/Tile/TileOps.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tile-combine"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECOMBINEPASS
#include "transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True when `value` is a zero constant (scalar or splat, integer or float).
bool isZero(Value value) {
  return matchPattern(value, m_Zero()) || matchPattern(value, m_AnyZeroFloat());
}

/// True when `value` dominates `op` in structured code: a block argument of
/// an enclosing block, or defined earlier in an enclosing block.
bool isDefinedBefore(Value value, Operation *op) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner()->findAncestorOpInBlock(*op) != nullptr;
  Operation *def = value.getDefiningOp();
  Operation *ancestor = def->getBlock()->findAncestorOpInBlock(*op);
  return ancestor && def != ancestor && def->isBeforeInBlock(ancestor);
}

/// dot(a, b, 0) + c -> dot(a, b, c)
template <typename AddOp>
struct CombineDotAdd : public OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (auto [product, addend] : {std::pair(add.getLhs(), add.getRhs()),
                                   std::pair(add.getRhs(), add.getLhs())}) {
      auto dot = product.template getDefiningOp<DotOp>();
      if (!dot || !dot->hasOneUse() || !isZero(dot.getC()) ||
          dot.getMaxNumImpreciseAcc() != 0)
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(add, dot.getA(), dot.getB(), addend,
                                         dot.getPrecision(),
                                         dot.getMaxNumImpreciseAcc());
      return success();
    }
    return failure();
  }
};

/// select(m, load(p, m), o) -> load(p, m, o): where the mask is false the
/// load already yields its `other`, so the select can supply it.
struct CombineSelectMaskedLoad : public OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    auto load = select.getTrueValue().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse() || !load.getMask() || load.getIsVolatile())
      return failure();
    Value cond = select.getCondition(), mask = load.getMask();
    auto splat = mask.getDefiningOp<SplatOp>();
    if (mask != cond && !(splat && splat.getSrc() == cond))
      return failure();
    // The load stays where it is, so the new `other` must exist there.
    Value other = select.getFalseValue();
    if (!isDefinedBefore(other, load))
      return failure();
    rewriter.modifyOpInPlace(load,
                             [&] { load.getOtherMutable().assign(other); });
    rewriter.replaceOp(select, load.getResult());
    return success();
  }
};

/// addptr(addptr(p, a), b) -> addptr(p, a + b)
struct CombineAddPtrs : public OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || !inner->hasOneUse() ||
        inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), inner.getOffset(),
                                      op.getOffset());
    rewriter.modifyOpInPlace(op, [&] {
      op.getPtrMutable().assign(inner.getPtr());
      op.getOffsetMutable().assign(sum);
    });
    return success();
  }
};

struct TileCombinePass
    : public mlir::tile::impl::TileCombinePassBase<TileCombinePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateTileCombinePatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (op.getDialectNamespace() == TileDialect::getDialectNamespace())
        op.getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::tile::populateTileCombinePatterns(RewritePatternSet &patterns) {
  patterns.add<CombineDotAdd<arith::AddFOp>, CombineDotAdd<arith::AddIOp>,
               CombineSelectMaskedLoad, CombineAddPtrs>(patterns.getContext());
}
