//===- TensorMaps.cpp - descriptor blocks copied by the TMA ---------------===//
//
// On sm_90a the tensor memory accelerator copies the blocks of descriptors
// the host can describe at launch (made from the kernel's arguments):
// tile-nvidia-select-bulk-copies marks the loads of wgmma operands before
// layouts; the pipeliner copies those of its loops through TmaCopies (one
// transaction barrier per buffer); tile-nvidia-lower-bulk-copies copies
// the rest into buffers of their own and waits. Each descriptor and box a
// copy reads becomes a kernel argument that holds its tensor map, encoded
// by the launcher from the description in kTensorMapAttr.
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/Passes.h"

#include "backends/common/Passes.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILENVIDIASELECTBULKCOPIESPASS
#define GEN_PASS_DEF_TILENVIDIAPIPELINEPASS
#define GEN_PASS_DEF_TILENVIDIALOWERBULKCOPIESPASS
#include "backends/nvidia/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {

/// Where the host finds a scalar of the kernel at launch: argument
/// `argument`, or the constant `value` where that is -1.
struct HostValue {
  int64_t argument = -1, value = 0;
};

/// `v` as the host knows it: a kernel argument or a constant, through
/// integer casts; none for anything computed in the kernel.
std::optional<HostValue> hostValue(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return HostValue{-1, constant.getSExtValue()};
    if (!isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(def))
      return std::nullopt;
    v = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(v);
  if (!isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return std::nullopt;
  return HostValue{arg.getArgNumber(), 0};
}

/// Whether kernel argument `index` is known divisible by 16.
bool divisibleBy16(func::FuncOp func, int64_t index) {
  auto divisibility =
      func.getArgAttrOfType<IntegerAttr>(index, "tile.divisibility");
  return divisibility && divisibility.getInt() % 16 == 0;
}

/// Triton's name of the element types TMA copies; empty for the others.
StringRef dtypeName(Type element) {
  if (element.isF16())
    return "fp16";
  if (element.isBF16())
    return "bf16";
  if (element.isF32())
    return "fp32";
  if (isa<Float8E4M3FNType>(element))
    return "fp8e4nv";
  if (isa<Float8E5M2Type>(element))
    return "fp8e5";
  if (element.isInteger(8))
    return "i8";
  if (element.isInteger(16))
    return "i16";
  if (element.isInteger(32))
    return "i32";
  return "";
}

/// The descriptor `value` where the host can encode its tensor map.
MakeTensorDescriptorOp mappableDescriptor(Value value) {
  auto desc = value.getDefiningOp<MakeTensorDescriptorOp>();
  auto func = desc ? desc->getParentOfType<func::FuncOp>() : func::FuncOp();
  if (!desc || !func)
    return {};
  std::optional<HostValue> base = hostValue(desc.getBase());
  if (!base || base->argument < 0 || !divisibleBy16(func, base->argument))
    return {};
  unsigned bytes = desc.getType().getBlockType().getElementTypeBitWidth() / 8;
  for (Value size : desc.getShape())
    if (!hostValue(size))
      return {};
  ValueRange strides = desc.getStrides();
  for (auto [d, stride] : llvm::enumerate(strides)) {
    std::optional<HostValue> v = hostValue(stride);
    if (!v)
      return {};
    bool last = d + 1 == strides.size();
    if (v->argument < 0 ? (last ? v->value != 1 : v->value * bytes % 16 != 0)
                        : (last || !divisibleBy16(func, v->argument)))
      return {};
  }
  return desc;
}

/// The shared layout a TMA copy of `block` fills: rows along the last
/// dimension, swizzled as widely as its bytes allow; null under 32 bytes.
NVMMASharedLayoutAttr bulkLayout(RankedTensorType block) {
  unsigned bits = block.getElementTypeBitWidth();
  int64_t bytes = block.getShape().back() * bits / 8;
  for (unsigned swizzle : {128u, 64u, 32u})
    if (bytes % swizzle == 0)
      return NVMMASharedLayoutAttr::get(block.getContext(), swizzle,
                                        /*transposed=*/false, bits);
  return {};
}

/// Whether TMA copies blocks of descriptor `desc` between global memory
/// and a buffer of `encoding`.
bool canCopyInto(Value desc, Attribute encoding) {
  auto layout = dyn_cast<NVMMASharedLayoutAttr>(encoding);
  RankedTensorType block = cast<TensorDescType>(desc.getType()).getBlockType();
  return layout && mappableDescriptor(desc) && block.getRank() == 2 &&
         !layout.getTransposed() && layout.getSwizzlingByteWidth() >= 32 &&
         layout.getElementBitWidth() == block.getElementTypeBitWidth() &&
         (block.getShape().back() * block.getElementTypeBitWidth() / 8) %
                 layout.getSwizzlingByteWidth() ==
             0;
}

/// The kernel argument holding the tensor map of descriptor `value` for
/// boxes of a buffer of `layout` (added at the end of the kernel's
/// arguments the first time).
Value tensorMap(Value value, NVMMASharedLayoutAttr layout) {
  auto desc = value.getDefiningOp<MakeTensorDescriptorOp>();
  auto func = desc->getParentOfType<func::FuncOp>();
  Builder b(desc.getContext());
  RankedTensorType block = desc.getType().getBlockType();
  unsigned bits = block.getElementTypeBitWidth();
  SmallVector<int64_t> box(block.getShape());
  box.back() = std::min<int64_t>(
      box.back(), layout.getSwizzlingByteWidth() * 8 / bits);
  auto sources = [&](ValueRange values, StringRef name) {
    SmallVector<int64_t> arguments, constants;
    for (Value v : values) {
      HostValue host = *hostValue(v);
      arguments.push_back(host.argument);
      constants.push_back(host.value);
    }
    return std::array<NamedAttribute, 2>{
        b.getNamedAttr(name, b.getDenseI64ArrayAttr(arguments)),
        b.getNamedAttr((name.drop_back() + "_values").str(),
                       b.getDenseI64ArrayAttr(constants))};
  };
  auto shape = sources(desc.getShape(), "shapes");
  auto strides = sources(desc.getStrides().drop_back(), "strides");
  SmallVector<NamedAttribute> entries{
      b.getNamedAttr("base", b.getI64IntegerAttr(
                                 hostValue(desc.getBase())->argument)),
      shape[0],
      shape[1],
      strides[0],
      strides[1],
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
      b.getNamedAttr("dtype", b.getStringAttr(dtypeName(
                                  block.getElementType()))),
      b.getNamedAttr("swizzle",
                     b.getI64IntegerAttr(layout.getSwizzlingByteWidth())),
      b.getNamedAttr("nan_padding", b.getBoolAttr(desc.getNanPadding()))};
  auto description = b.getDictionaryAttr(entries);
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kTensorMapAttr) == description)
      return func.getArgument(i);
  unsigned index = func.getNumArguments();
  auto attrs = b.getDictionaryAttr(
      {b.getNamedAttr(kTensorMapAttr, description)});
  if (failed(func.insertArgument(index, PointerType::get(b.getI8Type(), 0),
                                 attrs, desc.getLoc())))
    return {};
  return func.getArgument(index);
}

/// An i1 constant.
Value constantBool(OpBuilder &b, Location loc, bool value) {
  return arith::ConstantIntOp::create(b, loc, value, 1);
}

/// The layout of a barrier word.
Attribute barrierLayout(MLIRContext *context) {
  return SwizzledSharedLayoutAttr::get(context, 1, 1, 1, {0});
}

/// Entry `index` (i32) of an array of barriers.
Value barrierAt(OpBuilder &b, Location loc, Value barriers, Value index) {
  auto type = cast<MemDescType>(barriers.getType());
  auto view = MemDescType::get({1}, type.getElementType(),
                               type.getEncoding(), true, type.getShape());
  return MemDescIndexOp::create(b, loc, view, barriers, index);
}

Value constantIndex(OpBuilder &b, Location loc, int64_t i) {
  return arith::ConstantIntOp::create(b, loc, i, 32);
}

/// TMA copies of one iteration's blocks, on one barrier per buffer.
class TmaCopies : public BulkCopies {
public:
  bool canCopy(DescriptorLoadOp load, Attribute encoding) const override {
    return canCopyInto(load.getDesc(), encoding);
  }

  Value track(OpBuilder &b, Location loc, unsigned count,
              unsigned arrivals) const override {
    auto type = MemDescType::get({int64_t(count), 1}, b.getI64Type(),
                                 barrierLayout(b.getContext()), true);
    Value barriers = LocalAllocOp::create(b, loc, type, Value());
    for (unsigned i = 0; i < count; ++i)
      InitBarrierOp::create(
          b, loc, barrierAt(b, loc, barriers, constantIndex(b, loc, i)),
          arrivals);
    return barriers;
  }

  void copy(OpBuilder &b, Location loc, Value tracker, Value slot,
            ArrayRef<DescriptorLoadOp> loads, ArrayRef<Value> views,
            SmallVectorImpl<Operation *> &made,
            bool readersDone) const override {
    // Every warpgroup is done with the buffer about to be refilled.
    auto module =
        b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    auto warps = module->getAttrOfType<IntegerAttr>("tile.num_warps");
    if (!readersDone && (!warps || warps.getInt() > 4))
      made.push_back(BarrierOp::create(b, loc));
    Value barrier = barrierAt(b, loc, tracker, slot);
    Value yes = constantBool(b, loc, true);
    int64_t bytes = 0;
    for (DescriptorLoadOp load : loads) {
      RankedTensorType block = load.getType();
      bytes += block.getNumElements() * block.getElementTypeBitWidth() / 8;
    }
    made.push_back(BarrierExpectOp::create(b, loc, barrier, bytes, yes));
    for (auto [i, view] : llvm::enumerate(views)) {
      DescriptorLoadOp load = loads[i];
      auto layout = cast<NVMMASharedLayoutAttr>(
          cast<MemDescType>(view.getType()).getEncoding());
      made.push_back(AsyncTmaCopyGlobalToLocalOp::create(
          b, loc, tensorMap(load.getDesc(), layout), load.getIndices(), view,
          barrier,
          yes));
    }
  }

  void wait(OpBuilder &b, Location loc, Value tracker, Value slot,
            Value round) const override {
    Value phase =
        arith::AndIOp::create(b, loc, round, constantIndex(b, loc, 1));
    WaitBarrierOp::create(b, loc, barrierAt(b, loc, tracker, slot), phase);
  }

  void arrive(OpBuilder &b, Location loc, Value tracker, Value slot,
              Value pred) const override {
    ArriveBarrierOp::create(b, loc, barrierAt(b, loc, tracker, slot), 1,
                            pred);
  }

  /// With 8 or more warps computing, the copying warpgroup gives up its
  /// registers to them: each block starts with the most registers per
  /// thread its threads can all have (ptxas allocates that many where a
  /// kernel sets its registers), the copying warpgroup keeps 40 and the
  /// others share the rest.
  void setRegisters(WarpSpecializeOp op, unsigned numWarps) const override {
    unsigned copying = op.getPartitionNumWarps()[0];
    if (numWarps < 8 || numWarps % 4 || op.getPartitionNumWarps().size() != 1)
      return;
    unsigned threads = (numWarps + copying) * 32;
    unsigned start = std::min(255u, 65536 / threads) / 8 * 8;
    unsigned kept = 40;
    unsigned computing =
        std::min(256u, (start * threads - kept * copying * 32) /
                           (numWarps * 32) / 8 * 8);
    Builder b(op.getContext());
    op.setPartitionNumRegsAttr(b.getDenseI32ArrayAttr({int32_t(kept)}));
    op.setDefaultNumRegsAttr(b.getI32IntegerAttr(computing));
  }

  void release(OpBuilder &b, Location loc, Value tracker) const override {
    auto count = cast<MemDescType>(tracker.getType()).getShape().front();
    for (int64_t i = 0; i < count; ++i)
      InvalBarrierOp::create(
          b, loc, barrierAt(b, loc, tracker, constantIndex(b, loc, i)));
    LocalDeallocOp::create(b, loc, tracker);
  }

  bool predicate(RewriterBase &rewriter, Operation *op,
                 Value pred) const override {
    if (isa<BarrierOp>(op))
      return true; // every thread runs it, as it must
    auto andPred = [&](OpOperand &operand) {
      rewriter.setInsertionPoint(op);
      Value both =
          arith::AndIOp::create(rewriter, op->getLoc(), operand.get(), pred);
      rewriter.modifyOpInPlace(op, [&] { operand.set(both); });
      return true;
    };
    if (auto expect = dyn_cast<BarrierExpectOp>(op))
      return andPred(expect.getPredMutable());
    if (auto copy = dyn_cast<AsyncTmaCopyGlobalToLocalOp>(op))
      return andPred(copy.getPredMutable());
    return false;
  }
};

/// Whether `value` reaches only operands A and B of dots that wgmma will
/// compute, K-major where the element type needs it (K along the block's
/// last dimension: A as loaded, B transposed).
bool feedsWarpgroupDots(Value value, bool transposed, unsigned numWarps) {
  if (value.use_empty())
    return false;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto trans = dyn_cast<TransOp>(user)) {
      if (transposed ||
          !feedsWarpgroupDots(trans.getResult(), true, numWarps))
        return false;
      continue;
    }
    auto dot = dyn_cast<DotOp>(user);
    if (!dot || use.getOperandNumber() > 1 || dot.getType().getRank() != 2 ||
        dot.getType().getShape()[0] % 64 != 0 || numWarps % 4 != 0)
      return false;
    Type element = dot.getA().getType().getElementType();
    if (element.isF32() && dot.getPrecision() != InputPrecision::tf32)
      return false;
    bool kLast = (use.getOperandNumber() == 0) != transposed;
    if (element.getIntOrFloatBitWidth() != 16 && !kLast)
      return false;
  }
  return true;
}

struct TileNvidiaSelectBulkCopiesPass
    : public mlir::tile::impl::TileNvidiaSelectBulkCopiesPassBase<
          TileNvidiaSelectBulkCopiesPass> {
  using TileNvidiaSelectBulkCopiesPassBase::
      TileNvidiaSelectBulkCopiesPassBase;

  void runOnOperation() override {
    if (llvm::Error invalid = verifyNumWarps(numWarps)) {
      getOperation().emitError() << llvm::toString(std::move(invalid));
      return signalPassFailure();
    }
    if (computeCapability != 90)
      return;
    // Blocks TMA copies: two dimensions of at most 256, rows of 32 bytes or
    // more.
    auto copyable = [](Value desc) {
      RankedTensorType block =
          cast<TensorDescType>(desc.getType()).getBlockType();
      NVMMASharedLayoutAttr layout = bulkLayout(block);
      return block.getRank() == 2 && layout &&
             !dtypeName(block.getElementType()).empty() &&
             llvm::all_of(block.getShape(),
                          [](int64_t size) { return size <= 256; }) &&
             canCopyInto(desc, layout);
    };
    getOperation()->walk([&](Operation *op) {
      bool bulk = false;
      if (auto load = dyn_cast<DescriptorLoadOp>(op))
        bulk = copyable(load.getDesc()) &&
               feedsWarpgroupDots(load.getResult(), false, numWarps);
      else if (auto store = dyn_cast<DescriptorStoreOp>(op))
        bulk = copyable(store.getDesc());
      if (bulk)
        op->setAttr(kBulkCopyAttr, UnitAttr::get(&getContext()));
    });
  }
};

struct TileNvidiaPipelinePass
    : public mlir::tile::impl::TileNvidiaPipelinePassBase<
          TileNvidiaPipelinePass> {
  using TileNvidiaPipelinePassBase::TileNvidiaPipelinePassBase;

  void runOnOperation() override {
    if (failed(pipelineLoops(getOperation(), numStages, &tmaCopies())))
      signalPassFailure();
  }
};

struct TileNvidiaLowerBulkCopiesPass
    : public mlir::tile::impl::TileNvidiaLowerBulkCopiesPassBase<
          TileNvidiaLowerBulkCopiesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation()->walk([&](Operation *op) {
      if (isa<DescriptorLoadOp, DescriptorStoreOp>(op) &&
          op->hasAttr(kBulkCopyAttr))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      LogicalResult lowered = isa<DescriptorLoadOp>(op)
                                  ? lower(cast<DescriptorLoadOp>(op))
                                  : lower(cast<DescriptorStoreOp>(op));
      if (failed(lowered))
        return signalPassFailure();
    }
    // The descriptors now live in their tensor maps.
    getOperation()->walk([](MakeTensorDescriptorOp op) {
      if (op->use_empty())
        op->erase();
    });
  }

  /// The tensor map of `op`'s descriptor for boxes of its whole block.
  FailureOr<std::pair<Value, NVMMASharedLayoutAttr>>
  wholeBlockMap(Operation *op, Value desc) {
    RankedTensorType block =
        cast<TensorDescType>(desc.getType()).getBlockType();
    NVMMASharedLayoutAttr layout = bulkLayout(block);
    if (!layout || !canCopyInto(desc, layout))
      return op->emitOpError("is marked for a TMA copy it cannot have");
    Value map = tensorMap(desc, layout);
    if (!map)
      return op->emitOpError("its tensor map cannot be passed to the kernel");
    return std::pair(map, layout);
  }

  /// A TMA store: the block stored to a buffer, fenced for the async proxy
  /// (which waits for every thread), copied by one thread, and read out
  /// before the buffer is released.
  LogicalResult lower(DescriptorStoreOp store) {
    auto mapped = wholeBlockMap(store, store.getDesc());
    if (failed(mapped))
      return failure();
    auto [map, layout] = *mapped;
    OpBuilder b(store);
    Location loc = store.getLoc();
    // Registers go to the buffer in whatever layout they are in: converted
    // first, they would take a second trip through shared memory.
    Value value = store.getValue();
    auto convert = value.getDefiningOp<ConvertLayoutOp>();
    if (convert)
      value = convert.getSrc();
    auto block = cast<RankedTensorType>(value.getType());
    Value buffer = LocalAllocOp::create(
        b, loc, MemDescType::get(block.getShape(), block.getElementType(),
                                 layout),
        value);
    FenceAsyncSharedOp::create(b, loc);
    AsyncTmaCopyLocalToGlobalOp::create(b, loc, map, store.getIndices(),
                                        buffer);
    AsyncTmaStoreWaitOp::create(b, loc, 0);
    LocalDeallocOp::create(b, loc, buffer);
    store.erase();
    if (convert && convert->use_empty())
      convert->erase();
    return success();
  }

  LogicalResult lower(DescriptorLoadOp load) {
    RankedTensorType block = load.getType();
    auto mapped = wholeBlockMap(load, load.getDesc());
    if (failed(mapped))
      return failure();
    auto [map, layout] = *mapped;
    OpBuilder b(load);
    Location loc = load.getLoc();
    MLIRContext *context = load.getContext();
    Value buffer = LocalAllocOp::create(
        b, loc,
        MemDescType::get(block.getShape(), block.getElementType(), layout,
                         true),
        Value());
    Value barrier = LocalAllocOp::create(
        b, loc,
        MemDescType::get({1}, b.getI64Type(), barrierLayout(context), true),
        Value());
    Value yes = constantBool(b, loc, true);
    InitBarrierOp::create(b, loc, barrier, 1);
    BarrierExpectOp::create(
        b, loc, barrier,
        block.getNumElements() * block.getElementTypeBitWidth() / 8, yes);
    AsyncTmaCopyGlobalToLocalOp::create(b, loc, map, load.getIndices(), buffer,
                                        barrier, yes);
    WaitBarrierOp::create(b, loc, barrier, constantIndex(b, loc, 0));
    Value value = LocalLoadOp::create(b, loc, block, buffer);
    InvalBarrierOp::create(b, loc, barrier);
    LocalDeallocOp::create(b, loc, barrier);
    LocalDeallocOp::create(b, loc, buffer);
    load.replaceAllUsesWith(value);
    load.erase();
    return success();
  }
};

} // namespace

const BulkCopies &mlir::tile::nvidia::tmaCopies() {
  static const TmaCopies copies;
  return copies;
}
