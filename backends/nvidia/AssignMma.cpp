//===- AssignMma.cpp - dots onto the tensor cores -------------------------===//

#include "backends/nvidia/Passes.h"

#include "backends/common/MatrixUnits.h"

#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "tile-nvidia-assign-mma"

namespace mlir::tile {
#define GEN_PASS_DEF_TILENVIDIAASSIGNMMAPASS
#include "backends/nvidia/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

bool mlir::tile::nvidia::comesFromDot(Value value) {
  return tile::comesFromDot(value, llvm::IsaPred<DotOp, WarpGroupDotOp>);
}

bool mlir::tile::nvidia::isChained(DotOp dot) {
  return tile::isChained(dot, llvm::IsaPred<DotOp, WarpGroupDotOp>);
}

namespace {

/// The element types the tensor cores multiply a dot's operands as on a
/// GPU of `capability`; none where they cannot.
std::optional<std::pair<Type, Type>> mmaOperandTypes(DotOp dot,
                                                     unsigned capability) {
  Type a = dot.getA().getType().getElementType();
  Type b = dot.getB().getType().getElementType();
  Type c = dot.getType().getElementType();
  if (isa<FloatType>(c) && c.getIntOrFloatBitWidth() > 32)
    return std::nullopt;
  if ((a.isF16() || a.isBF16()) && a == b)
    return std::pair(a, b);
  if (a.isF32() && b.isF32() && dot.getPrecision() != InputPrecision::ieee)
    return std::pair(a, b);
  if (a.isInteger(8) && b.isInteger(8) && isa<IntegerType>(c))
    return std::pair(a, b);
  auto isOcpFp8 = llvm::IsaPred<Float8E4M3FNType, Float8E5M2Type>;
  if (isFloat8(a) && isFloat8(b)) {
    // sm_89 multiplies OCP fp8 (both formats, mixed too); earlier GPUs,
    // and AMD's FNUZ formats, are multiplied as f16.
    if (capability >= 89 && isOcpFp8(a) && isOcpFp8(b))
      return std::pair(a, b);
    Type f16 = Float16Type::get(a.getContext());
    return std::pair(f16, f16);
  }
  return std::nullopt;
}

/// K of the mma.sync instruction for operands of `type`.
int64_t instructionK(Type type) {
  return 256 / type.getIntOrFloatBitWidth();
}

/// The K elements of `type` a 32-bit operand register packs.
unsigned kWidthOf(Type type) { return 32 / type.getIntOrFloatBitWidth(); }

/// What the tensor cores accumulate a result of `element` from `operand`s
/// in: f16 for an f16 result of f16 operands (as Triton, for out_dtype
/// float16), else f32, or i32 for integers.
Type accumulatorOf(Type element, Type operand) {
  MLIRContext *context = element.getContext();
  if (element.isF16() && operand.isF16())
    return element;
  return isa<FloatType>(element) ? Type(Float32Type::get(context))
                                 : Type(IntegerType::get(context, 32));
}

/// How `numWarps` warps (a multiple of 4) tile a wgmma dot of `shape`:
/// warpgroups along M while M has 64 rows for each, then along N; all along
/// M for `chained` dots, so that one's result is the next one's A in the
/// same threads.
SmallVector<unsigned> warpgroupWarpsFor(ArrayRef<int64_t> shape,
                                        unsigned numWarps, bool chained) {
  if (chained)
    return {numWarps, 1};
  SmallVector<unsigned> warps{4, 1};
  while (warps[0] * warps[1] < numWarps) {
    if (shape[0] > 16 * warps[0])
      warps[0] *= 2;
    else
      warps[1] *= 2;
  }
  return warps;
}

/// The fastest dimension of a blocked layout `value` has, seen through
/// transposes (whose own layouts say nothing of how the data lies): the
/// dimension its elements are loaded along.
std::optional<unsigned> fastestDimension(Value value) {
  if (auto trans = value.getDefiningOp<TransOp>()) {
    std::optional<unsigned> source = fastestDimension(trans.getSrc());
    if (!source)
      return std::nullopt;
    // Dimension i of the result is dimension order[i] of the source.
    for (auto [i, dim] : llvm::enumerate(trans.getOrder()))
      if (unsigned(dim) == *source)
        return i;
    return std::nullopt;
  }
  auto tensor = cast<RankedTensorType>(value.getType());
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(tensor.getEncoding()))
    return blocked.getOrder()[0];
  return std::nullopt;
}

/// The NVMMA layout wgmma reads `operand` from as `element`s, `kDim` its K
/// dimension: the operand's contiguous dimension (fastestDimension) where
/// the instruction may read it so (16-bit types), else K; the widest
/// swizzle (128, 64 or 32 bytes) that divides that dimension's bytes. None
/// where the dimension is under 32 bytes.
NVMMASharedLayoutAttr chooseOperandLayout(Value operand, Type element,
                                          unsigned kDim) {
  auto tensor = cast<RankedTensorType>(operand.getType());
  ArrayRef<int64_t> shape = tensor.getShape();
  unsigned bits = element.getIntOrFloatBitWidth();
  unsigned contiguous = kDim;
  if (bits == 16) {
    if (std::optional<unsigned> fastest = fastestDimension(operand)) {
      contiguous = *fastest;
    } else if (std::optional<LinearLayout> linear = toLinearLayout(tensor)) {
      // The dimension a thread's registers hold more consecutive elements
      // of.
      if (linear->getNumConsecutive(kRegister, dimName(1 - kDim)) >
          linear->getNumConsecutive(kRegister, dimName(kDim)))
        contiguous = 1 - kDim;
    }
  }
  int64_t bytes = shape[contiguous] * bits / 8;
  for (unsigned swizzle : {128u, 64u, 32u})
    if (bytes % swizzle == 0)
      return NVMMASharedLayoutAttr::get(element.getContext(), swizzle,
                                        contiguous == 0, bits);
  return {};
}

struct TileNvidiaAssignMmaPass
    : public mlir::tile::impl::TileNvidiaAssignMmaPassBase<
          TileNvidiaAssignMmaPass> {
  using TileNvidiaAssignMmaPassBase::TileNvidiaAssignMmaPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto numWarpsAttr = module->getAttrOfType<IntegerAttr>("tile.num_warps");
    if (!numWarpsAttr) {
      module.emitError("the mma stage needs layouts: run tile-assign-layouts "
                       "first (the module has no tile.num_warps)");
      return signalPassFailure();
    }
    unsigned numWarps = numWarpsAttr.getInt();
    SmallVector<DotOp> dots;
    module.walk([&](DotOp dot) { dots.push_back(dot); });
    for (DotOp dot : dots)
      if (!dot.getType().getEncoding()) {
        dot.emitOpError("has no layout: run tile-assign-layouts before the "
                        "mma stage");
        return signalPassFailure();
      }
    for (DotOp dot : dots)
      assign(dot, numWarps);
  }

  void assign(DotOp dot, unsigned numWarps) {
    auto operands = mmaOperandTypes(dot, computeCapability);
    if (!operands)
      return;
    if (wgmma && computeCapability >= 90 &&
        assignWarpgroup(dot, numWarps, *operands))
      return;
    auto [operand, bOperandType] = *operands;
    RankedTensorType type = dot.getType();
    ArrayRef<int64_t> shape = type.getShape();
    unsigned rank = shape.size();
    int64_t k = dot.getA().getType().getShape()[rank - 1];
    if (shape[rank - 2] < 16 || shape[rank - 1] < 8 ||
        k < instructionK(operand))
      return;

    MLIRContext *context = &getContext();
    auto mma = MmaLayoutAttr::get(
        context, 2, warpsForTiles(shape, numWarps, isChained(dot), 16, 8), {16, 8});
    unsigned kWidth = kWidthOf(operand);
    Type element = type.getElementType();
    Type accumulator = accumulatorOf(element, operand);
    setDotLayouts(dot, operand,
                  DotOperandLayoutAttr::get(context, 0, mma, kWidth),
                  bOperandType,
                  DotOperandLayoutAttr::get(context, 1, mma, kWidth),
                  accumulator, mma);
  }

  /// Rewrites `dot` as a warpgroup dot (wgmma) whose operands are stored to
  /// shared memory in NVMMA layouts (A stays in registers where it comes
  /// from another dot); false, changing nothing, where wgmma cannot compute
  /// it (batched, M not a multiple of 64, operands whose contiguous
  /// dimension is under 32 bytes, fp32 as tf32x3, ...) or, for chained
  /// dots, is not asked to (wgmma-chained).
  bool assignWarpgroup(DotOp dot, unsigned numWarps,
                       std::pair<Type, Type> operands) {
    auto [aElement, bElement] = operands;
    RankedTensorType type = dot.getType();
    ArrayRef<int64_t> shape = type.getShape();
    // The operands as they were before they took the CUDA cores' layouts.
    auto source = [](Value operand) -> Value {
      if (auto convert = operand.getDefiningOp<ConvertLayoutOp>())
        return convert.getSrc();
      return operand;
    };
    Value aSource = source(dot.getA()), bSource = source(dot.getB());
    auto aType = cast<RankedTensorType>(aSource.getType());
    if (type.getRank() != 2 || numWarps % 4 != 0 || shape[0] % 64 != 0 ||
        (aElement.isF32() && dot.getPrecision() != InputPrecision::tf32))
      return false;
    int64_t k = aType.getShape()[1];
    int64_t instrK = instructionK(aElement);
    bool chained = isChained(dot);
    if (chained && !wgmmaChained)
      return false;
    SmallVector<unsigned> warps = warpgroupWarpsFor(shape, numWarps, chained);
    int64_t instrN = std::min<int64_t>(256, shape[1] / warps[1]);
    if (k % instrK != 0 || instrN < 8)
      return false;
    // An A computed from another dot (attention's p) stays in registers.
    bool registerA = chained && comesFromDot(dot.getA());
    NVMMASharedLayoutAttr aShared =
        chooseOperandLayout(aSource, aElement, /*kDim=*/1);
    NVMMASharedLayoutAttr bShared =
        chooseOperandLayout(bSource, bElement, /*kDim=*/0);
    if ((!aShared && !registerA) || !bShared)
      return false;

    MLIRContext *context = &getContext();
    auto mma = MmaLayoutAttr::get(context, 3, warps,
                                  {16, unsigned(instrN), unsigned(instrK)});
    Type element = type.getElementType();
    Type accumulator = accumulatorOf(element, aElement);
    Location loc = dot.getLoc();
    OpBuilder b(dot);
    // Each operand is stored where it is defined, so that one defined
    // outside a loop (attention's q) is stored once, and once for every
    // dot reading it in the same layout (causal attention's two loops).
    auto toShared = [&](Value value, Type element,
                        NVMMASharedLayoutAttr layout) -> Value {
      OpBuilder::InsertionGuard guard(b);
      if (Operation *def = value.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
      auto tensor = cast<RankedTensorType>(value.getType());
      value = castAndConvert(b, loc, value, element, tensor.getEncoding());
      auto type = MemDescType::get(tensor.getShape(), element, layout);
      for (Operation *user : value.getUsers())
        if (auto stored = dyn_cast<LocalAllocOp>(user);
            stored && stored.getType() == type &&
            llvm::all_of(stored->getUsers(), llvm::IsaPred<WarpGroupDotOp>))
          return stored;
      return LocalAllocOp::create(b, loc, type, value);
    };
    Value a = registerA
                  ? castAndConvert(b, loc, dot.getA(), aElement,
                                   DotOperandLayoutAttr::get(
                                       context, 0, mma, kWidthOf(aElement)))
                  : toShared(aSource, aElement, aShared);
    Value bOperand = toShared(bSource, bElement, bShared);
    Value c = castAndConvert(b, loc, dot.getC(), accumulator, mma);
    auto warpgroupDot =
        WarpGroupDotOp::create(b, loc, c.getType(), a, bOperand, c,
                               /*useC=*/Value(), dot.getPrecision(),
                               /*isAsync=*/false, dot.getMaxNumImpreciseAcc());
    Value result = castAndConvert(b, loc, warpgroupDot.getD(), element,
                                  type.getEncoding());
    dot.replaceAllUsesWith(result);
    dot.erase();
    return true;
  }
};
} // namespace
