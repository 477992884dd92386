//===- AssignLayouts.cpp - give every tensor a distributed layout ---------===//

#include "backends/common/Passes.h"

#include "ir/Tile/TileOps.h"
#include "transforms/AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "tile-assign-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTSPASS
#include "backends/common/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

RankedTensorType withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

unsigned bitWidthOf(Type element) {
  if (isa<PointerType>(element))
    return 64;
  return element.getIntOrFloatBitWidth();
}

class LayoutAssigner {
public:
  LayoutAssigner(ModuleOp module, unsigned numWarps, unsigned warpSize)
      : context(module.getContext()), builder(context), axis(module),
        numWarps(numWarps), warpSize(warpSize) {}

  void run(func::FuncOp func) {
    Block &entry = func.getBody().front();
    for (BlockArgument arg : entry.getArguments())
      if (auto tensor = dyn_cast<RankedTensorType>(arg.getType()))
        if (!tensor.getEncoding())
          arg.setType(withLayout(tensor, defaultLayout(tensor)));
    func.setType(FunctionType::get(context, entry.getArgumentTypes(),
                                   func.getResultTypes()));
    assignBlock(entry);
  }

private:
  /// A blocked layout for a tensor type, coalescing along the contiguous
  /// dimensions `pointers` has (when given).
  Attribute defaultLayout(RankedTensorType type, Value pointers = {}) {
    unsigned bits = bitWidthOf(getElementTypeOrSelf(
        pointers ? getPointeeType(pointers.getType()) : type));
    unsigned contiguity = 1;
    SmallVector<unsigned> order;
    if (pointers)
      if (const AxisInfo *info = axis.lookup(pointers)) {
        // The most contiguous dimension goes fastest (the last on ties).
        for (unsigned d = 0; d < info->getRank(); ++d)
          order.push_back(d);
        llvm::stable_sort(order, [&](unsigned a, unsigned b) {
          if (info->getContiguity(a) != info->getContiguity(b))
            return info->getContiguity(a) > info->getContiguity(b);
          return a > b;
        });
        contiguity =
            getAlignedContiguity(*info, order[0], std::max(1u, bits / 8));
      }
    return BlockedLayoutAttr::getDefault(context, type.getShape(), bits,
                                         numWarps, warpSize, contiguity, order);
  }

  Attribute layoutOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getEncoding();
  }

  /// Gives a result a layout (results keep one already given).
  void setLayout(Value result, Attribute layout) {
    if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
      result.setType(withLayout(tensor, layout));
  }

  /// Makes operand `i` of `op` have `layout`, converting it before `op`.
  void require(Operation *op, unsigned i, Attribute layout) {
    Value v = op->getOperand(i);
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    if (!tensor || tensor.getEncoding() == layout)
      return;
    builder.setInsertionPoint(op);
    Value converted = ConvertLayoutOp::create(builder, op->getLoc(),
                                              withLayout(tensor, layout), v);
    op->setOperand(i, converted);
  }

  void assignBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      assign(&op);
  }

  void assign(Operation *op) {
    TypeSwitch<Operation *>(op)
        .Case<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp>([&](Operation *mem) {
          Value ptr = mem->getOperand(0);
          auto tensor = dyn_cast<RankedTensorType>(ptr.getType());
          if (!tensor)
            return;
          Attribute layout = defaultLayout(tensor, ptr);
          for (unsigned i = 0; i < mem->getNumOperands(); ++i)
            require(mem, i, layout);
          for (Value r : mem->getResults())
            setLayout(r, layout);
        })
        .Case([&](ReduceOp reduce) {
          Attribute parent = layoutOf(reduce.getSrcs()[0]);
          for (unsigned i = 1; i < reduce.getSrcs().size(); ++i)
            require(reduce, i, parent);
          auto slice = SliceLayoutAttr::get(
              context, reduce.getAxis(),
              cast<DistributedLayoutAttrInterface>(parent));
          for (Value r : reduce.getResult())
            setLayout(r, slice);
        })
        .Case([&](ScanOp scan) {
          // Blocked layouts and their slices spread every axis over
          // registers, then lanes, then warps, as the scan's lowering needs.
          Attribute layout = layoutOf(scan.getSrcs()[0]);
          if (!isa<BlockedLayoutAttr, SliceLayoutAttr>(layout))
            layout = defaultLayout(
                cast<RankedTensorType>(scan.getSrcs()[0].getType()));
          for (unsigned i = 0; i < scan.getSrcs().size(); ++i)
            require(scan, i, layout);
          for (Value r : scan.getResult())
            setLayout(r, layout);
        })
        .Case([&](ExpandDimsOp expand) {
          Attribute layout = defaultLayout(expand.getType());
          require(expand, 0,
                  SliceLayoutAttr::get(
                      context, expand.getAxis(),
                      cast<DistributedLayoutAttrInterface>(layout)));
          setLayout(expand.getResult(), layout);
        })
        .Case([&](BroadcastOp broadcast) {
          // A blocked layout serves every shape of its rank.
          Attribute layout = layoutOf(broadcast.getSrc());
          if (!isa<BlockedLayoutAttr>(layout)) {
            layout = defaultLayout(broadcast.getType());
            require(broadcast, 0, layout);
          }
          setLayout(broadcast.getResult(), layout);
        })
        .Case([&](DotOp dot) {
          Attribute layout = layoutOf(dot.getC());
          auto parent = cast<DistributedLayoutAttrInterface>(layout);
          require(dot, 0, DotOperandLayoutAttr::get(context, 0, parent, 0));
          require(dot, 1, DotOperandLayoutAttr::get(context, 1, parent, 0));
          setLayout(dot.getD(), layout);
        })
        .Case([&](scf::ForOp loop) {
          // Pointers carried by a loop are coalesced as the accesses in the
          // body want them, converting once before the loop; other values
          // keep their initial layout.
          for (auto [i, arg, result] :
               llvm::enumerate(loop.getRegionIterArgs(), loop.getResults())) {
            auto tensor = dyn_cast<RankedTensorType>(arg.getType());
            if (!tensor)
              continue;
            unsigned operand = loop.getNumControlOperands() + i;
            if (isa<PointerType>(tensor.getElementType()))
              require(loop, operand, defaultLayout(tensor, arg));
            Type type = loop->getOperand(operand).getType();
            arg.setType(type);
            result.setType(type);
          }
          assignBlock(*loop.getBody());
          Operation *yield = loop.getBody()->getTerminator();
          for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
            if (isa<RankedTensorType>(arg.getType()))
              require(yield, i, layoutOf(arg));
        })
        .Case([&](scf::IfOp branch) {
          assignBlock(*branch.thenBlock());
          if (branch.elseBlock())
            assignBlock(*branch.elseBlock());
          Operation *thenYield = branch.thenBlock()->getTerminator();
          for (auto [i, result] : llvm::enumerate(branch.getResults())) {
            if (!isa<RankedTensorType>(result.getType()))
              continue;
            Attribute layout = layoutOf(thenYield->getOperand(i));
            require(branch.elseBlock()->getTerminator(), i, layout);
            setLayout(result, layout);
          }
        })
        .Case([&](scf::WhileOp loop) {
          for (auto [init, arg] :
               llvm::zip(loop.getInits(), loop.getBeforeArguments()))
            if (isa<RankedTensorType>(init.getType()))
              arg.setType(init.getType());
          assignBlock(loop.getBefore().front());
          Operation *condition = loop.getBefore().front().getTerminator();
          for (auto [i, arg, result] :
               llvm::enumerate(loop.getAfterArguments(), loop.getResults())) {
            Value forwarded = condition->getOperand(i + 1);
            if (isa<RankedTensorType>(forwarded.getType())) {
              arg.setType(forwarded.getType());
              result.setType(forwarded.getType());
            }
          }
          assignBlock(loop.getAfter().front());
          Operation *yield = loop.getAfter().front().getTerminator();
          for (auto [i, arg] : llvm::enumerate(loop.getBeforeArguments()))
            if (isa<RankedTensorType>(arg.getType()))
              require(yield, i, layoutOf(arg));
        })
        .Case([&](arith::ConstantOp constant) {
          auto tensor = dyn_cast<RankedTensorType>(constant.getType());
          if (!tensor)
            return;
          auto type = withLayout(tensor, defaultLayout(tensor));
          auto value = cast<DenseElementsAttr>(constant.getValue());
          constant.setValueAttr(value.reshape(type));
          setLayout(constant.getResult(), type.getEncoding());
        })
        .Default([&](Operation *other) {
          // Ops whose results follow their operands (elementwise ops,
          // addptr, select) take their first tensor operand's layout; ops
          // that make a tensor of a new shape take a default one.
          if (other->getNumRegions() != 0 || other->getNumResults() == 0)
            return;
          auto resultType =
              dyn_cast<RankedTensorType>(other->getResult(0).getType());
          if (!resultType)
            return;
          Attribute layout;
          bool sameShape =
              other->hasTrait<mlir::OpTrait::Elementwise>() ||
              isa<AddPtrOp, arith::SelectOp, ExternElementwiseOp>(other);
          if (sameShape)
            for (Value operand : other->getOperands())
              if (auto t = dyn_cast<RankedTensorType>(operand.getType()))
                if (t.getShape() == resultType.getShape() &&
                    (layout = t.getEncoding()))
                  break;
          if (!layout)
            layout = defaultLayout(resultType);
          if (sameShape)
            for (unsigned i = 0; i < other->getNumOperands(); ++i)
              require(other, i, layout);
          for (Value r : other->getResults())
            setLayout(r, layout);
        });
  }

  MLIRContext *context;
  OpBuilder builder;
  AxisInfoAnalysis axis;
  unsigned numWarps, warpSize;
};

/// convert_layout(op(a, b)) -> op(convert_layout a, convert_layout b) for a
/// pure op that computes each element from the same elements of its
/// operands: recomputing it in the layout wanted is cheaper than moving its
/// result. Converts climb to the values that really need moving (loads,
/// arguments); those of ranges, splats and constants disappear.
struct RematerializeElementwise : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp convert,
                                PatternRewriter &rewriter) const override {
    Operation *def = convert.getSrc().getDefiningOp();
    if (!def || def->getNumResults() != 1 || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def))
      return failure();
    bool sameShape = def->hasTrait<mlir::OpTrait::Elementwise>() ||
                     isa<AddPtrOp, arith::SelectOp>(def);
    if (!sameShape)
      return failure();
    Attribute layout = convert.getType().getEncoding();
    SmallVector<Value> operands;
    for (Value operand : def->getOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(operand.getType());
      if (!tensor) {
        operands.push_back(operand);
        continue;
      }
      operands.push_back(ConvertLayoutOp::create(
          rewriter, convert.getLoc(), withLayout(tensor, layout), operand));
    }
    Operation *clone = rewriter.clone(*def);
    clone->setOperands(operands);
    clone->getResult(0).setType(convert.getType());
    rewriter.replaceOp(convert, clone->getResults());
    return success();
  }
};

/// convert_layout(broadcast x) -> broadcast(convert_layout x) to a blocked
/// layout, and convert_layout(expand_dims x) -> expand_dims(convert_layout x)
/// through the slice of the layout wanted.
struct RematerializeShapeOps : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp convert,
                                PatternRewriter &rewriter) const override {
    Attribute layout = convert.getType().getEncoding();
    if (auto broadcast = convert.getSrc().getDefiningOp<BroadcastOp>()) {
      if (!isa<BlockedLayoutAttr>(layout))
        return failure();
      Value src = ConvertLayoutOp::create(
          rewriter, convert.getLoc(),
          withLayout(broadcast.getSrc().getType(), layout), broadcast.getSrc());
      rewriter.replaceOpWithNewOp<BroadcastOp>(convert, convert.getType(), src);
      return success();
    }
    if (auto expand = convert.getSrc().getDefiningOp<ExpandDimsOp>()) {
      auto parent = dyn_cast<DistributedLayoutAttrInterface>(layout);
      if (!parent)
        return failure();
      auto slice = SliceLayoutAttr::get(getContext(), expand.getAxis(), parent);
      Value src = ConvertLayoutOp::create(
          rewriter, convert.getLoc(),
          withLayout(expand.getSrc().getType(), slice), expand.getSrc());
      rewriter.replaceOpWithNewOp<ExpandDimsOp>(convert, convert.getType(), src,
                                                expand.getAxis());
      return success();
    }
    return failure();
  }
};

struct TileAssignLayoutsPass
    : public mlir::tile::impl::TileAssignLayoutsPassBase<
          TileAssignLayoutsPass> {
  using TileAssignLayoutsPassBase::TileAssignLayoutsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    // The module says how many warps of how many lanes, or we tell it.
    auto readOrSet = [&](StringRef name, unsigned fallback) -> unsigned {
      if (auto attr = module->getAttrOfType<IntegerAttr>(name))
        return attr.getInt();
      module->setAttr(name, b.getI32IntegerAttr(fallback));
      return fallback;
    };
    unsigned warps = readOrSet("tile.num_warps", numWarps);
    unsigned lanes = readOrSet("tile.warp_size", warpSize);
    LayoutAssigner assigner(module, warps, lanes);
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        assigner.run(func);

    // Move converts up to the values that really need moving.
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<RematerializeElementwise, RematerializeShapeOps>(context);
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
