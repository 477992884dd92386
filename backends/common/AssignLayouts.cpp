//===- AssignLayouts.cpp - give every tensor a distributed layout ---------===//

#include "backends/common/Passes.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Layout/LayoutBuilders.h"
#include "ir/Tile/LayoutInference.h"
#include "ir/Tile/TileOps.h"
#include "transforms/AxisInfo.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "tile-assign-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTSPASS
#define GEN_PASS_DEF_TILEREMOVECONVERSIONSPASS
#include "backends/common/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

Attribute layoutOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getEncoding();
}

/// The layout of `cat`'s result when its operands have `layout`: their
/// registers, the first operand's before the second's, which is the
/// operands' layout with one more register bit for the upper half of
/// dimension 0. Null where the operands' layout has no linear form.
Attribute concatenatedLayout(RankedTensorType operand) {
  std::optional<LinearLayout> layout = toLinearLayout(operand);
  if (!layout)
    return {};
  std::vector<LinearLayout::InDim> ins(layout->getInDims().begin(),
                                       layout->getInDims().end());
  std::vector<LinearLayout::OutDim> outs(layout->getOutDims().begin(),
                                         layout->getOutDims().end());
  auto registers = llvm::find_if(
      ins, [](const LinearLayout::InDim &in) { return in.name == kRegister; });
  if (registers == ins.end())
    registers = ins.insert(ins.begin(), {kRegister, {}});
  std::vector<int32_t> upperHalf(outs.size(), 0);
  upperHalf[0] = outs[0].size;
  registers->bases.push_back(upperHalf);
  outs[0].size *= 2;
  llvm::Expected<LinearLayout> result =
      LinearLayout::create(std::move(ins), std::move(outs));
  if (!result) {
    llvm::consumeError(result.takeError());
    return {};
  }
  return LinearEncodingAttr::get(operand.getContext(), *result);
}

/// Ops whose result element i is computed from operand elements i.
bool isElementwise(Operation *op) {
  return op->hasTrait<mlir::OpTrait::Elementwise>() ||
         isa<AddPtrOp, arith::SelectOp>(op);
}

unsigned bitWidthOf(Type element) {
  if (isa<PointerType>(element))
    return 64;
  return element.getIntOrFloatBitWidth();
}

/// A blocked layout for a tensor of `type`, coalescing the accesses through
/// `pointers` (when given): the most contiguous dimension fastest, as many
/// elements a thread as are contiguous and aligned there (up to 16 bytes).
Attribute blockedLayoutFor(AxisInfoAnalysis &axis, RankedTensorType type,
                           Value pointers, unsigned numWarps,
                           unsigned warpSize) {
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
  return BlockedLayoutAttr::getDefault(type.getContext(), type.getShape(), bits,
                                       numWarps, warpSize, contiguity, order);
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
    return blockedLayoutFor(axis, type, pointers, numWarps, warpSize);
  }

  /// The layout a dot on the CUDA cores computes its result in (a matrix
  /// unit's stage may later choose its own): each thread a tile of the
  /// result as square as its share allows (wider than tall), so that a K
  /// step reads sm + sn operand values for sm * sn products; lanes, then
  /// warps along N, then M. Batched dots keep their accumulator's layout.
  Attribute dotLayout(DotOp dot) {
    auto type = cast<RankedTensorType>(dot.getType());
    if (type.getRank() != 2)
      return layoutOf(dot.getC());
    int64_t m = type.getShape()[0], n = type.getShape()[1];
    unsigned threads = numWarps * warpSize;
    unsigned share = std::max<int64_t>(1, m * n / threads);
    unsigned sn =
        std::min<int64_t>(n, 1u << llvm::divideCeil(llvm::Log2_32(share), 2));
    unsigned sm = std::min<int64_t>(m, std::max(1u, share / sn));
    unsigned tn = std::min<int64_t>(warpSize, std::max<int64_t>(1, n / sn));
    unsigned tm = warpSize / tn;
    unsigned wm =
        std::min<int64_t>(numWarps, std::max<int64_t>(1, m / (sm * tm)));
    unsigned wn = numWarps / wm;
    return BlockedLayoutAttr::get(context, {sm, sn}, {tm, tn}, {wm, wn},
                                  {1, 0});
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
        .Case([&](DescriptorLoadOp load) {
          // A block kept for the target to copy in bulk (the others were
          // lowered to pointers): rows of 16-byte vectors, as a contiguous
          // load would have.
          RankedTensorType type = load.getType();
          unsigned bits = bitWidthOf(type.getElementType());
          unsigned contiguity = std::min<int64_t>(
              std::max(1u, 128 / std::max(bits, 8u)), type.getShape().back());
          // The default order: the last dimension fastest.
          setLayout(load.getResult(),
                    BlockedLayoutAttr::getDefault(context, type.getShape(),
                                                  bits, numWarps, warpSize,
                                                  contiguity));
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
        .Case([&](GatherOp gather) {
          // Each result register is read at its index's place.
          Attribute layout = layoutOf(gather.getIndices());
          setLayout(gather.getResult(), layout);
        })
        .Case([&](HistogramOp histogram) {
          if (histogram.getMask())
            require(histogram, 1, layoutOf(histogram.getSrc()));
          setLayout(histogram.getResult(), defaultLayout(histogram.getType()));
        })
        .Case([&](CatOp cat) {
          Attribute layout = layoutOf(cat.getLhs());
          require(cat, 1, layout);
          Attribute result = concatenatedLayout(
              cast<RankedTensorType>(cat.getLhs().getType()));
          setLayout(cat.getResult(),
                    result ? result : defaultLayout(cat.getType()));
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
          Attribute layout = dotLayout(dot);
          require(dot, 2, layout);
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

/// Whether `layout` is one a backend anchors values to (a matrix unit's):
/// what is computed from such a value stays in its layout, and converts
/// move to its users instead.
bool isAnchor(Attribute layout) {
  return isa_and_present<DistributedLayoutAttrInterface>(layout) &&
         !isa<BlockedLayoutAttr, SliceLayoutAttr, LinearEncodingAttr,
              DotOperandLayoutAttr>(layout);
}

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
    if (!isElementwise(def) || isAnchor(layoutOf(def->getResult(0))))
      return failure();
    // A narrowing cast moves fewer bytes converted after it than before (an
    // f32 accumulator stored as f16).
    auto bits = [](Value v) {
      return bitWidthOf(getElementTypeOrSelf(v.getType()));
    };
    if (isa<CastOpInterface>(def) &&
        bits(def->getOperand(0)) > bits(convert.getResult()))
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

/// Whether `layout` describes tensors of any shape of its rank (a linear
/// layout is made for one shape, a dot operand for its dot).
bool servesEveryShape(Attribute layout) {
  return isa<DistributedLayoutAttrInterface>(layout) &&
         !isa<LinearEncodingAttr, DotOperandLayoutAttr>(layout);
}

/// convert_layout(broadcast x) -> broadcast(convert_layout x) to a layout
/// that serves every shape (a blocked or matrix-unit one), and
/// convert_layout(expand_dims x) -> expand_dims(convert_layout x) through
/// the slice of the layout wanted.
struct RematerializeShapeOps : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp convert,
                                PatternRewriter &rewriter) const override {
    Attribute layout = convert.getType().getEncoding();
    if (auto broadcast = convert.getSrc().getDefiningOp<BroadcastOp>()) {
      if (!servesEveryShape(layout))
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

/// Whether `value` costs little to have in another layout: it is made from
/// constants, splats, ranges and broadcasts by a few pure elementwise ops
/// (a causal mask), so converting it moves only what those start from.
bool isCheapAnywhere(Value value, unsigned depth = 4) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<arith::ConstantOp, SplatOp, MakeRangeOp, BroadcastOp, ExpandDimsOp>(
          def))
    return true;
  if (depth == 0 || !isElementwise(def) || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return !isa<RankedTensorType>(operand.getType()) ||
           isCheapAnywhere(operand, depth - 1);
  });
}

/// op(convert_layout a, b) -> convert_layout(op(a, convert_layout b)) for an
/// elementwise op whose operand `a` comes from an anchor layout (a dot's
/// result) and whose other operands cost little there (converts from it,
/// isCheapAnywhere): the op computes in the anchor's layout, and the convert
/// moves on to its users (a dot operand, a store).
struct ComputeInAnchorLayout : public RewritePattern {
  ComputeInAnchorLayout(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return failure();
    Attribute anchor;
    for (Value operand : op->getOperands())
      if (auto convert = operand.getDefiningOp<ConvertLayoutOp>())
        if (isAnchor(layoutOf(convert.getSrc()))) {
          anchor = layoutOf(convert.getSrc());
          break;
        }
    if (!anchor || type.getEncoding() == anchor)
      return failure();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(operand.getType());
      auto convert = operand.getDefiningOp<ConvertLayoutOp>();
      if (!tensor)
        operands.push_back(operand);
      else if (convert && layoutOf(convert.getSrc()) == anchor)
        operands.push_back(convert.getSrc());
      else if (isCheapAnywhere(operand))
        operands.push_back(ConvertLayoutOp::create(
            rewriter, op->getLoc(), withLayout(tensor, anchor), operand));
      else
        return failure();
    }
    Operation *clone = rewriter.clone(*op);
    clone->setOperands(operands);
    clone->getResult(0).setType(withLayout(type, anchor));
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, type, clone->getResult(0));
    return success();
  }
};

/// Whether `layout` keeps values where a matrix unit left them: an anchor,
/// or the linear layout a reshape or transpose of one makes.
bool followsAnchor(Attribute layout) {
  return isAnchor(layout) || isa_and_present<LinearEncodingAttr>(layout);
}

/// op(convert_layout x) -> convert_layout(op x), the op computing in
/// `layout` (its first operand the convert's).
void computeBeforeConvert(Operation *op, ConvertLayoutOp convert,
                          Attribute layout, PatternRewriter &rewriter) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Operation *clone = rewriter.clone(*op);
  clone->setOperand(0, convert.getSrc());
  clone->getResult(0).setType(withLayout(type, layout));
  rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, type, clone->getResult(0));
}

/// op(convert_layout x) -> convert_layout(op x) for a reshape or transpose
/// (`map` taking x's coordinates to the result's) of x in an anchor layout:
/// the elements stay in their registers, in the linear layout they make in
/// the new shape, and the convert moves on to the users (the halves of an
/// epilogue split into subtiles, Triton's EPILOGUE_SUBTILE).
using CoordinateMap =
    llvm::function_ref<SmallVector<int32_t>(ArrayRef<int32_t>)>;

LogicalResult computeInPlace(Operation *op, PatternRewriter &rewriter,
                             CoordinateMap map) {
  auto convert = op->getOperand(0).getDefiningOp<ConvertLayoutOp>();
  if (!convert || !followsAnchor(layoutOf(convert.getSrc())))
    return failure();
  auto source = cast<RankedTensorType>(convert.getSrc().getType());
  std::optional<LinearLayout> layout = toLinearLayout(source);
  if (!layout)
    return failure();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  LinearLayout moved = mapBases(*layout, type.getShape(), map);
  computeBeforeConvert(op, convert,
                       LinearEncodingAttr::get(op->getContext(), moved),
                       rewriter);
  return success();
}

struct ReshapeOfConvert : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp reshape,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> from = reshape.getSrc().getType().getShape();
    ArrayRef<int64_t> to = reshape.getType().getShape();
    return computeInPlace(reshape, rewriter, [&](ArrayRef<int32_t> coords) {
      return reshapeCoords(coords, from, to);
    });
  }
};

struct TransOfConvert : public OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp trans,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int32_t> order = trans.getOrder();
    return computeInPlace(trans, rewriter, [&](ArrayRef<int32_t> coords) {
      SmallVector<int32_t> result;
      for (int32_t d : order)
        result.push_back(coords[d]);
      return result;
    });
  }
};

/// split(convert_layout x) -> convert_layout(split x) for x in an anchor
/// layout where one register bit, and nothing else, walks the pairs: each
/// half keeps its registers.
struct SplitOfConvert : public OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp split,
                                PatternRewriter &rewriter) const override {
    auto convert = split.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!convert || !followsAnchor(layoutOf(convert.getSrc())))
      return failure();
    std::optional<LinearLayout> layout =
        toLinearLayout(convert.getSrc().getType());
    if (!layout)
      return failure();
    unsigned pairBits = 0;
    std::vector<LinearLayout::InDim> ins;
    for (const LinearLayout::InDim &in : layout->getInDims()) {
      LinearLayout::InDim half{in.name, {}};
      for (const std::vector<int32_t> &basis : in.bases) {
        if (!basis.back()) {
          half.bases.emplace_back(basis.begin(), basis.end() - 1);
          continue;
        }
        bool pairOnly = llvm::all_of(llvm::ArrayRef(basis).drop_back(),
                                     [](int32_t c) { return c == 0; });
        if (in.name != kRegister || !pairOnly)
          return failure();
        ++pairBits;
      }
      ins.push_back(std::move(half));
    }
    if (pairBits != 1)
      return failure();
    auto type = cast<RankedTensorType>(split.getOutLHS().getType());
    std::vector<LinearLayout::OutDim> outs;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      outs.push_back({dimName(d), static_cast<int32_t>(size)});
    llvm::Expected<LinearLayout> half =
        LinearLayout::create(std::move(ins), std::move(outs));
    if (!half) {
      llvm::consumeError(half.takeError());
      return failure();
    }
    RankedTensorType halfType =
        withLayout(type, LinearEncodingAttr::get(getContext(), *half));
    auto clone = SplitOp::create(rewriter, split.getLoc(), halfType, halfType,
                                 convert.getSrc());
    SmallVector<Value> results;
    for (Value result : clone->getResults())
      results.push_back(ConvertLayoutOp::create(rewriter, split.getLoc(),
                                                type, result));
    rewriter.replaceOp(split, results);
    return success();
  }
};

/// cast(convert_layout x) -> convert_layout(cast x) for a cast to a
/// narrower type: converted after it, fewer bytes move (an accumulator
/// stored as f16).
struct NarrowingCastOfConvert : public RewritePattern {
  NarrowingCastOfConvert(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<CastOpInterface>(op) || op->getNumOperands() != 1 ||
        op->getNumResults() != 1 || !isMemoryEffectFree(op))
      return failure();
    auto convert = op->getOperand(0).getDefiningOp<ConvertLayoutOp>();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!convert || !type ||
        bitWidthOf(type.getElementType()) >=
            bitWidthOf(convert.getType().getElementType()))
      return failure();
    computeBeforeConvert(op, convert, layoutOf(convert.getSrc()), rewriter);
    return success();
  }
};

/// reduce(convert_layout x) -> reduce(x) where every result is a scalar:
/// the reduction combines the same elements in any layout; and
/// reduce(convert_layout x) -> convert_layout(reduce(x)) where x is in an
/// anchor layout.
struct ReduceOfConvert : public OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> srcs;
    for (Value src : reduce.getSrcs()) {
      auto convert = src.getDefiningOp<ConvertLayoutOp>();
      if (!convert || (!srcs.empty() &&
                       layoutOf(convert.getSrc()) != layoutOf(srcs.front())))
        return failure();
      srcs.push_back(convert.getSrc());
    }
    if (llvm::none_of(reduce.getResultTypes(),
                      llvm::IsaPred<RankedTensorType>)) {
      rewriter.modifyOpInPlace(reduce,
                               [&] { reduce.getSrcsMutable().assign(srcs); });
      return success();
    }
    // Tensor results: from an anchor layout, the reduction runs there and
    // its (smaller) results are converted.
    Attribute anchor = layoutOf(srcs.front());
    if (!isAnchor(anchor))
      return failure();
    auto slice =
        SliceLayoutAttr::get(getContext(), reduce.getAxis(),
                             cast<DistributedLayoutAttrInterface>(anchor));
    Operation *clone = rewriter.clone(*reduce);
    clone->setOperands(srcs);
    SmallVector<Value> results;
    for (auto [old, result] :
         llvm::zip(reduce.getResults(), clone->getResults())) {
      result.setType(withLayout(old.getType(), slice));
      results.push_back(ConvertLayoutOp::create(rewriter, reduce.getLoc(),
                                                old.getType(), result));
    }
    rewriter.replaceOp(reduce, results);
    return success();
  }
};

/// The layout the loop-carried tensor `i` of `loop` is better carried in:
/// where the value yielded for it is computed by elementwise ops in the
/// body from the argument, from converts, and from values that cost nothing
/// or nothing per iteration to have in any layout (splats, ranges,
/// constants, values from outside the loop), the layout most of those
/// converts come from. Carried in it, the loop converts once before and
/// once after instead of every iteration, and the other converts change
/// only their destination. Null where no such layout exists, where it is
/// the current one, or where the argument has uses other than the update
/// and converts.
Attribute betterCarriedLayout(scf::ForOp loop, unsigned i) {
  BlockArgument arg = loop.getRegionIterArg(i);
  if (!isa<RankedTensorType>(arg.getType()))
    return {}; // a scalar has no layout
  Operation *yield = loop.getBody()->getTerminator();
  llvm::SmallDenseMap<Attribute, unsigned> votes;
  Attribute better;
  llvm::SmallPtrSet<Operation *, 16> chain = {yield};
  SmallVector<Value> work = {yield->getOperand(i)};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == arg || !seen.insert(v).second ||
        !isa<RankedTensorType>(v.getType()))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !loop.getBody()->findAncestorOpInBlock(*def))
      continue; // from outside the loop
    if (auto convert = dyn_cast<ConvertLayoutOp>(def)) {
      Attribute from = layoutOf(convert.getSrc());
      if (++votes[from] > votes.lookup(better))
        better = from;
      continue;
    }
    if (isa<SplatOp, MakeRangeOp, arith::ConstantOp>(def))
      continue;
    if (!isElementwise(def) || !isMemoryEffectFree(def) ||
        def->getBlock() != loop.getBody())
      return {};
    chain.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  // Converts of the argument only change their source.
  for (Operation *user : arg.getUsers())
    if (!chain.contains(user) && !isa<ConvertLayoutOp>(user))
      return {};
  return better == layoutOf(arg) ? Attribute() : better;
}

/// Carries tensor `i` of `loop` in `layout`, converting at the loop's edges;
/// the converts this leaves inside are for the rewrite patterns to move.
void carryIn(scf::ForOp loop, unsigned i, Attribute layout) {
  BlockArgument arg = loop.getRegionIterArg(i);
  OpResult result = loop->getResult(i);
  auto old = cast<RankedTensorType>(arg.getType());
  RankedTensorType carried = withLayout(old, layout);
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  OpOperand &init = loop.getInitArgsMutable()[i];
  init.set(ConvertLayoutOp::create(b, loc, carried, init.get()));
  arg.setType(carried);
  result.setType(carried);
  b.setInsertionPointToStart(loop.getBody());
  auto inside = ConvertLayoutOp::create(b, loc, old, arg);
  arg.replaceAllUsesExcept(inside, inside);
  Operation *yield = loop.getBody()->getTerminator();
  b.setInsertionPoint(yield);
  yield->setOperand(
      i, ConvertLayoutOp::create(b, loc, carried, yield->getOperand(i)));
  b.setInsertionPointAfter(loop);
  auto after = ConvertLayoutOp::create(b, loc, old, result);
  result.replaceAllUsesExcept(after, after);
}

/// Moves converts up to the values that really need moving; then carries
/// loop tensors in the layout their updates are computed in, and moves the
/// converts that leaves.
LogicalResult removeConversions(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  patterns
      .add<RematerializeElementwise, RematerializeShapeOps, ReduceOfConvert,
           ComputeInAnchorLayout, ReshapeOfConvert, TransOfConvert,
           SplitOfConvert, NarrowingCastOfConvert>(context);
  ConvertLayoutOp::getCanonicalizationPatterns(patterns, context);
  FrozenRewritePatternSet frozen(std::move(patterns));
  if (failed(applyPatternsGreedily(module, frozen)))
    return failure();
  bool changed = false;
  module.walk([&](scf::ForOp loop) {
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
      if (Attribute better = betterCarriedLayout(loop, i)) {
        carryIn(loop, i, better);
        changed = true;
      }
  });
  if (changed && failed(applyPatternsGreedily(module, frozen)))
    return failure();
  return success();
}

/// Gives the tensors of an explicit-level kernel in CoalescedLayout
/// (#tile.coalesced) their layouts, as Gluon does: each load, store, atomic
/// or async copy through pointers in it gives them, and its other operands,
/// the blocked layout that coalesces it; the values computed from them, and
/// those they are computed from, get the layouts that follow
/// (ir/Tile/LayoutInference.h), loops and branches keeping one layout per
/// carried value. Two accesses wanting two layouts of one value, or a value
/// no access reaches, are errors.
LogicalResult resolveCoalescedLayouts(ModuleOp module, unsigned numWarps,
                                      unsigned warpSize) {
  auto isCoalesced = [](Value v) {
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    return tensor && isa_and_present<CoalescedLayoutAttr>(tensor.getEncoding());
  };
  auto leftCoalesced = [&]() -> Operation * {
    Operation *found = nullptr;
    module.walk([&](Operation *op) {
      if (llvm::any_of(op->getResults(), isCoalesced)) {
        found = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  };
  if (!leftCoalesced())
    return success();
  // Values given a layout here, and the access that gave it.
  DenseMap<Value, Operation *> origin;
  // A value, the layout it gets, the access that gives it, and the use
  // through which it was reached from the value's user (null otherwise).
  struct Item {
    Value value;
    Attribute layout;
    Operation *access;
    OpOperand *use = nullptr;
  };
  SmallVector<Item> worklist;
  AxisInfoAnalysis axis(module);
  module.walk([&](Operation *op) {
    if (!isa<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp,
             AsyncCopyGlobalToLocalOp>(op) ||
        !isCoalesced(op->getOperand(0)))
      return;
    Value pointers = op->getOperand(0);
    Attribute layout =
        blockedLayoutFor(axis, cast<RankedTensorType>(pointers.getType()),
                         pointers, numWarps, warpSize);
    for (OpOperand &operand : op->getOpOperands())
      if (isa<RankedTensorType>(operand.get().getType()))
        worklist.push_back({operand.get(), layout, op, &operand});
    for (Value result : op->getResults())
      worklist.push_back({result, layout, op});
  });
  // The values that hold one layout with `v` across a loop or a branch.
  auto tied = [](Value v) {
    SmallVector<Value> values;
    auto tieLoop = [&](scf::ForOp loop, unsigned i) {
      values.append({loop.getInitArgs()[i], loop.getRegionIterArgs()[i],
                     loop.getResults()[i],
                     loop.getBody()->getTerminator()->getOperand(i)});
    };
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
        if (arg.getArgNumber() >= loop.getNumInductionVars())
          tieLoop(loop, arg.getArgNumber() - loop.getNumInductionVars());
    } else if (auto loop = v.getDefiningOp<scf::ForOp>()) {
      tieLoop(loop, cast<OpResult>(v).getResultNumber());
    } else if (auto branch = v.getDefiningOp<scf::IfOp>()) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      values.push_back(branch.thenYield().getOperand(i));
      if (branch.elseBlock())
        values.push_back(branch.elseYield().getOperand(i));
    }
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() >= loop.getNumControlOperands())
          tieLoop(loop, use.getOperandNumber() - loop.getNumControlOperands());
      } else if (isa<scf::YieldOp>(user)) {
        Operation *parent = user->getParentOp();
        if (auto loop = dyn_cast<scf::ForOp>(parent))
          tieLoop(loop, use.getOperandNumber());
        else if (isa<scf::IfOp>(parent))
          values.push_back(parent->getResult(use.getOperandNumber()));
      }
    }
    return values;
  };
  while (!worklist.empty()) {
    auto [v, layout, access, use] = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!isCoalesced(v)) {
      auto given = origin.find(v);
      if (given == origin.end() || layoutOf(v) == layout)
        continue;
      // A value computed from nothing but its operands (a range, a splat,
      // one that canonicalisation merged with a twin) is computed again
      // for the use that wants another layout.
      if (use && def && def->getNumResults() == 1 &&
          def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
        OpBuilder builder(def);
        v = builder.clone(*def)->getResult(0);
        use->set(v);
      } else {
        InFlightDiagnostic error =
            (def ? def : access)->emitError()
            << "a tensor in CoalescedLayout gets two layouts: " << layoutOf(v)
            << " and " << layout
            << " from two accesses; give it one (gl.convert_layout)";
        error.attachNote(given->second->getLoc())
            << "the access that wants " << layoutOf(v);
        error.attachNote(access->getLoc())
            << "the access that wants " << layout;
        return error;
      }
      def = v.getDefiningOp();
    }
    v.setType(withLayout(v.getType(), layout));
    if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def))
      constant.setValueAttr(cast<DenseElementsAttr>(constant.getValue())
                                .reshape(cast<ShapedType>(v.getType())));
    origin[v] = access;
    auto push = [&](Value next, Attribute nextLayout, OpOperand *through) {
      if (nextLayout && isa<RankedTensorType>(next.getType()))
        worklist.push_back({next, nextLayout, access, through});
    };
    for (Value t : tied(v))
      push(t, layout, nullptr);
    if (def)
      for (OpOperand &operand : def->getOpOperands())
        push(operand.get(),
             inferOperandLayout(def, operand.getOperandNumber(), layout),
             &operand);
    for (OpOperand &user : v.getUses())
      for (Value result : user.getOwner()->getResults())
        push(
            result,
            inferResultLayout(user.getOwner(), user.getOperandNumber(), layout),
            nullptr);
  }
  if (Operation *op = leftCoalesced())
    return op->emitError() << "a tensor in CoalescedLayout reaches no load or "
                              "store to coalesce: give it a layout";
  return success();
}

/// The layouts of an explicit-level kernel suit the target: each
/// distributed layout is made for warps of its lanes and for the kernel's
/// warps (Gluon's checks, made once the target is known).
LogicalResult verifyExplicitLayouts(ModuleOp module, unsigned numWarps,
                                    unsigned warpSize) {
  auto check = [&](Operation *op, Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    auto layout = dyn_cast_if_present<DistributedLayoutAttrInterface>(
        tensor.getEncoding());
    if (!layout)
      return op->emitError()
             << "a tensor of the explicit level has no distributed layout: "
             << type;
    if (layout.getWarpSize() != warpSize)
      return op->emitError()
             << "the layout " << layout
             << " has threads per warp that multiply to "
             << layout.getWarpSize() << ", but the target's warps have "
             << warpSize << " lanes";
    if (layout.getNumWarps() != numWarps)
      return op->emitError()
             << "the layout " << layout
             << " has warps per CTA that multiply to " << layout.getNumWarps()
             << ", but the kernel has num_warps=" << numWarps;
    return success();
  };
  WalkResult result = module.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (failed(check(op, v.getType())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct TileAssignLayoutsPass
    : public mlir::tile::impl::TileAssignLayoutsPassBase<
          TileAssignLayoutsPass> {
  using TileAssignLayoutsPassBase::TileAssignLayoutsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTileTensors(module)))
      return signalPassFailure();
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
    llvm::Error invalid = verifyWarpSize(lanes);
    if (!invalid)
      invalid = verifyNumWarps(warps, kMaxThreadsPerBlock / lanes);
    if (invalid) {
      module.emitError() << llvm::toString(std::move(invalid));
      return signalPassFailure();
    }
    // An explicit-level kernel keeps its layouts: only CoalescedLayout's
    // are chosen for it.
    if (module->hasAttr(kExplicitLayoutsAttr)) {
      if (failed(resolveCoalescedLayouts(module, warps, lanes)) ||
          failed(verifyExplicitLayouts(module, warps, lanes)))
        signalPassFailure();
      return;
    }
    LayoutAssigner assigner(module, warps, lanes);
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        assigner.run(func);
    if (failed(removeConversions(module)))
      signalPassFailure();
  }
};

struct TileRemoveConversionsPass
    : public mlir::tile::impl::TileRemoveConversionsPassBase<
          TileRemoveConversionsPass> {
  void runOnOperation() override {
    if (failed(removeConversions(getOperation())))
      signalPassFailure();
  }
};
} // namespace

LogicalResult mlir::tile::runLayoutStage(ModuleOp module,
                                         const LayoutStage &stage) {
  PassManager pm(module.getContext());
  if (module->hasAttr(kExplicitLayoutsAttr)) {
    // The kernel chose its layouts, buffers, copies and matrix
    // instructions: nothing is chosen for it but CoalescedLayout's.
    pm.addPass(createTileAssignLayoutsPass({stage.numWarps, stage.warpSize}));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  } else {
    if (stage.addBulkCopySelection)
      stage.addBulkCopySelection(pm);
    pm.addPass(createTileLowerDescriptorsPass());
    pm.addPass(createTileAssignLayoutsPass({stage.numWarps, stage.warpSize}));
    if (stage.addMatrixUnitPasses) {
      stage.addMatrixUnitPasses(pm);
      pm.addPass(createTileRemoveConversionsPass());
    }
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    // Converts of values a loop does not change (attention's q) run once.
    pm.addPass(createLoopInvariantCodeMotionPass());
    if (stage.numStages) {
      pm.addPass(createPipelinePass(stage.numStages, stage.bulkCopies,
                                    stage.asyncCopies));
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    }
  }
  if (stage.fmaDots)
    pm.addPass(createTileFmaDotsPass({stage.sharedBytes}));
  if (stage.addLatePasses)
    stage.addLatePasses(pm);
  return pm.run(module);
}
