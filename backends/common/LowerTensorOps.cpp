//===- LowerTensorOps.cpp - elementwise ops, views and layout changes -----===//

#include "backends/common/Lowering.h"

#include "ir/Layout/ConversionPlan.h"
#include "ir/Tile/TileOps.h"
#include "transforms/AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// For each register of `value`, the first register that holds an element
/// equal to its own in every thread: both lie in one run of equal elements
/// (the axis analysis' constancy) along every dimension. In a linear layout
/// the thread's bits flip the same coordinate bits of every register, so
/// registers whose coordinates agree above the runs' bits hold equal
/// elements wherever the thread is.
SmallVector<unsigned> firstEqualRegisters(const LoweringState &state,
                                          Value value, unsigned numRegs) {
  auto first = llvm::to_vector(llvm::seq<unsigned>(0, numRegs));
  std::optional<LinearLayout> layout = layoutOf(value.getType());
  const AxisInfo *info = state.axis.lookup(value);
  if (!layout || !info || !info->isInitialized() ||
      info->getRank() != layout->getNumOutDims() ||
      numRegisters(*layout) != numRegs)
    return first;
  std::map<SmallVector<int32_t>, unsigned> seen;
  for (unsigned reg = 0; reg < numRegs; ++reg) {
    SmallVector<int32_t> key = registerCoords(*layout, reg);
    for (auto [d, coord] : llvm::enumerate(key)) {
      // Runs are aligned to their length; the bits a power of two leaves.
      int64_t run = info->getConstancy(d);
      coord &= ~int32_t((run & -run) - 1);
    }
    first[reg] = seen.try_emplace(key, reg).first->second;
  }
  return first;
}

/// An arith or math op on tensors: the same op on each register, once for
/// registers the axis analysis proves equal.
class ElementwisePattern : public ConversionPattern {
public:
  ElementwisePattern(const TypeConverter &converter, LoweringState &state)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          &state.context),
        state(state) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions())
      return failure();
    SmallVector<Type> resultTypes;
    for (Type type : op->getResultTypes())
      resultTypes.push_back(
          getTypeConverter()->convertType(getElementTypeOrSelf(type)));
    size_t n = 1;
    for (ValueRange registers : operands)
      n = std::max(n, registers.size());
    SmallVector<unsigned> first =
        op->getNumResults() == 1
            ? firstEqualRegisters(state, op->getResult(0), n)
            : llvm::to_vector(llvm::seq<unsigned>(0, n));
    SmallVector<SmallVector<Value>> results(op->getNumResults());
    for (size_t i = 0; i < n; ++i) {
      if (first[i] != i) {
        for (SmallVector<Value> &values : results)
          values.push_back(values[first[i]]);
        continue;
      }
      OperationState scalarState(op->getLoc(), op->getName());
      for (ValueRange registers : operands)
        scalarState.operands.push_back(registers.size() == 1 ? registers[0]
                                                             : registers[i]);
      scalarState.types.append(resultTypes);
      scalarState.attributes = op->getAttrs();
      Operation *scalar = rewriter.create(scalarState);
      for (auto [values, result] : llvm::zip(results, scalar->getResults()))
        values.push_back(result);
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }

private:
  LoweringState &state;
};

class ConstantPattern : public LoweringPattern<arith::ConstantOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> layout = layoutOf(op.getType());
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!layout)
      return failure();
    if (!splat)
      return loweringError(
          op, "only splat tensor constants can be lowered");
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(), cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    replaceWithRegisters(
        rewriter, op, SmallVector<Value>(numRegisters(*layout), scalar));
    return success();
  }
};

class SplatPattern : public LoweringPattern<SplatOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> layout = layoutOf(op.getType());
    if (!layout)
      return failure();
    replaceWithRegisters(rewriter, op,
                         SmallVector<Value>(numRegisters(*layout),
                                            adaptor.getSrc().front()));
    return success();
  }
};

class MakeRangePattern : public LoweringPattern<MakeRangeOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(MakeRangeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> layout = layoutOf(op.getType());
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
    SmallVector<Value> values;
    Value start = i32Constant(rewriter, loc, op.getStart());
    for (ArrayRef<Value> coords : emitCoords(rewriter, loc, *layout, ids))
      values.push_back(op.getStart() ? Value(arith::AddIOp::create(
                                           rewriter, loc, coords[0], start))
                                     : coords[0]);
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

class AddPtrPattern : public LoweringPattern<AddPtrOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AddPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type pointee = getPointeeType(op.getType());
    Type element = memoryType(convertElement(pointee));
    ValueRange ptrs = adaptor.getPtr(), offsets = adaptor.getOffset();
    SmallVector<Value> values;
    for (size_t i = 0, e = std::max(ptrs.size(), offsets.size()); i < e; ++i) {
      Value ptr = ptrs.size() == 1 ? ptrs[0] : ptrs[i];
      Value offset = offsets.size() == 1 ? offsets[0] : offsets[i];
      values.push_back(LLVM::GEPOp::create(rewriter, op.getLoc(),
                                           ptr.getType(), element, ptr,
                                           ValueRange{offset}));
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

/// int_to_ptr and ptr_to_int, register by register.
template <typename Op, typename LLVMOp>
class AddressCastPattern : public LoweringPattern<Op> {
public:
  using LoweringPattern<Op>::LoweringPattern;

  LogicalResult
  matchAndRewrite(Op op, typename LoweringPattern<Op>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = this->convertElement(op.getType());
    SmallVector<Value> values;
    for (Value value : adaptor.getSrc())
      values.push_back(LLVMOp::create(rewriter, op.getLoc(), type, value));
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

/// A layout in shared memory holding every element once, row-major.
LinearLayout rowMajorShared(ArrayRef<int64_t> shape) {
  std::vector<LinearLayout::InDim> ins{{kOffset, {}}};
  for (int d = shape.size() - 1; d >= 0; --d)
    for (int64_t bit = 1; bit < shape[d]; bit <<= 1) {
      std::vector<int32_t> basis(shape.size(), 0);
      basis[d] = bit;
      ins[0].bases.push_back(std::move(basis));
    }
  std::vector<LinearLayout::OutDim> outs;
  for (auto [d, size] : llvm::enumerate(shape))
    outs.push_back({dimName(d), static_cast<int32_t>(size)});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

} // namespace

/// Consecutive registers that go to consecutive, aligned shared-memory
/// elements, up to 16 bytes.
unsigned mlir::tile::sharedVectorWidth(const LinearLayout &toOffset, Type element) {
  if (!element.isIntOrFloat() || element.isInteger(1))
    return 1;
  unsigned vec = std::min<unsigned>(
      toOffset.getNumConsecutive(kRegister, kOffset),
      std::max(1u, 16 / storageBytes(element)));
  // The other bits must not move a vector off its alignment.
  auto misaligns = [&](unsigned vec) {
    for (const LinearLayout::InDim &in : toOffset.getInDims())
      for (auto [bit, basis] : llvm::enumerate(in.bases))
        if (!(in.name == kRegister && (1u << bit) < vec) &&
            (basis[0] & (vec - 1)))
          return true;
    return false;
  };
  while (vec > 1 && misaligns(vec))
    vec /= 2;
  return vec;
}

namespace {

/// The registers of a tensor of 16-bit elements whose hardware bits reach
/// shared-memory element offsets by `toOffset`, loaded 8x8 matrices at a
/// time (TargetInfo::loadMatrices) where the layouts allow: a thread's
/// register pairs (or, transposed, its lanes 4 apart) are 16 contiguous
/// bytes of a matrix row, whose addresses the other bits keep 16-byte
/// aligned. None where they do not.
std::optional<SmallVector<Value>>
loadByMatrices(OpBuilder &b, Location loc, const LoweringState &state,
               const LinearLayout &toOffset, Type element, HardwareIds ids,
               llvm::function_ref<Value(Value)> elementAddress,
               unsigned maxVector) {
  const TargetInfo &target = state.target;
  int regBits = toOffset.getInDimSizeLog2(kRegister);
  // Rows are 8 elements of 16 bits, 16-byte aligned.
  if (!target.hasMatrixLoads() || storageBytes(element) != 2 || regBits < 1 ||
      toOffset.getInDimSizeLog2(kLane) != 5 || maxVector < 8)
    return std::nullopt;
  auto offsetOf = [&](StringRef dim, int bit) {
    return toOffset.getBasis(dim, bit)[0];
  };
  // The bits within a 16-byte row, and those that choose the row.
  using Bit = std::pair<StringRef, int>;
  SmallVector<Bit> inRow, rows;
  bool transpose = false;
  if (offsetOf(kRegister, 0) == 1 && offsetOf(kLane, 0) == 2 &&
      offsetOf(kLane, 1) == 4) {
    inRow = {{kRegister, 0}, {kLane, 0}, {kLane, 1}};
    rows = {{kLane, 2}, {kLane, 3}, {kLane, 4}};
  } else if (offsetOf(kLane, 2) == 1 && offsetOf(kLane, 3) == 2 &&
             offsetOf(kLane, 4) == 4) {
    transpose = true;
    inRow = {{kLane, 2}, {kLane, 3}, {kLane, 4}};
    rows = {{kRegister, 0}, {kLane, 0}, {kLane, 1}};
  } else {
    return std::nullopt;
  }
  for (const LinearLayout::InDim &in : toOffset.getInDims())
    for (auto [bit, basis] : llvm::enumerate(in.bases))
      if (!llvm::is_contained(inRow, Bit(in.name, bit)) && basis[0] % 8 != 0)
        return std::nullopt;
  // Registers 1 and 2 choose the matrix (x4; x2 with one of them).
  int matrixBits = std::min(2, regBits - 1);
  // The address each lane gives: its lane bits 0-2 pick the row, bits 3-4
  // the matrix; the registers above the matrix bits pick the group.
  std::vector<LinearLayout::InDim> ins{{kRegister, {}}, {kLane, {}}, {kWarp, {}}};
  for (int bit = 1 + matrixBits; bit < regBits; ++bit)
    ins[0].bases.push_back({offsetOf(kRegister, bit)});
  for (const Bit &row : rows)
    ins[1].bases.push_back({offsetOf(row.first, row.second)});
  for (int m = 0; m < 2; ++m)
    ins[1].bases.push_back({m < matrixBits ? offsetOf(kRegister, 1 + m) : 0});
  for (int bit = 0; bit < toOffset.getInDimSizeLog2(kWarp); ++bit)
    ins[2].bases.push_back({offsetOf(kWarp, bit)});
  LinearLayout addresses = llvm::cantFail(LinearLayout::create(
      std::move(ins),
      {toOffset.getOutDims().begin(), toOffset.getOutDims().end()}));

  Type stored = memoryType(element);
  auto pairType = VectorType::get(2, stored);
  SmallVector<Value> result(1 << regBits);
  SmallVector<SmallVector<Value>> offsets = emitCoords(b, loc, addresses, ids);
  for (auto [group, offset] : llvm::enumerate(offsets)) {
    SmallVector<Value> matrices = target.loadMatrices(
        b, loc, elementAddress(offset[0]), 1u << matrixBits, transpose);
    for (auto [i, packed] : llvm::enumerate(matrices)) {
      Value pair = LLVM::BitcastOp::create(b, loc, pairType, packed);
      for (unsigned e = 0; e < 2; ++e)
        result[(group << (1 + matrixBits)) | (i << 1) | e] = fromMemory(
            b, loc,
            LLVM::ExtractElementOp::create(b, loc, pair, i32Constant(b, loc, e)),
            element);
    }
  }
  return result;
}

/// Stores the registers `values` of a tensor in `layout` to the scratch of
/// the op being lowered, each element where `shared` places it, between two
/// barriers (earlier users of the scratch are done; readers wait for all
/// the stores). Fails, emitting nothing, where `layout` holds elements
/// `shared` does not place.
LogicalResult storeToScratch(OpBuilder &b, Location loc, LoweringState &state,
                             const LinearLayout &layout,
                             const LinearLayout &shared, ValueRange values,
                             Type element) {
  std::optional<LinearLayout> toOffset = layout.invertAndCompose(shared);
  if (!toOffset)
    return failure();
  unsigned bytes = storageBytes(element);
  state.requireScratch(b, shared.getTotalOutDimSize() * bytes);
  state.target.barrier(b, loc);
  storeToShared(b, loc, state, layout, *toOffset, values, element,
                [&](Value offset) {
                  return scratchElement(b, loc, state, offset, bytes);
                });
  state.target.barrier(b, loc);
  return success();
}

/// The registers of a tensor in layout `dst`, from its registers `values`
/// in `src`: moved within threads where they can be, else through shared
/// memory (with the planner's swizzle where it chose one).
FailureOr<SmallVector<Value>>
convertLayout(OpBuilder &b, Location loc, LoweringState &state,
              const LinearLayout &src, const LinearLayout &dst,
              ArrayRef<int64_t> shape, ValueRange values, Type element) {
  if (std::optional<SmallVector<unsigned>> map = mapRegisters(
          src, dst,
          [](ArrayRef<int32_t> c) { return SmallVector<int32_t>(c); })) {
    SmallVector<Value> result;
    for (unsigned s : *map)
      result.push_back(values[s]);
    return result;
  }
  unsigned bytes = storageBytes(element);
  std::optional<ConversionPlan> plan = planConversion(src, dst, bytes * 8);
  if (!plan)
    return failure();
  LinearLayout shared = plan->kind == ConversionKind::SharedMemory
                            ? plan->shared
                            : rowMajorShared(shape);
  std::optional<LinearLayout> dstToOffset = dst.invertAndCompose(shared);
  if (!dstToOffset ||
      failed(storeToScratch(b, loc, state, src, shared, values, element)))
    return failure();
  return loadFromShared(
      b, loc, state, dst, *dstToOffset, element,
      [&](Value offset) { return scratchElement(b, loc, state, offset, bytes); });
}

} // namespace

void mlir::tile::storeToShared(OpBuilder &b, Location loc,
                               const LoweringState &state,
                               const LinearLayout &layout,
                               const LinearLayout &toOffset, ValueRange values,
                               Type element,
                               llvm::function_ref<Value(Value)> elementAddress,
                               unsigned maxVector) {
  HardwareIds ids = emitHardwareIds(b, loc, state.target);
  SmallVector<SmallVector<Value>> offsets = emitCoords(b, loc, toOffset, ids);
  unsigned vec = std::min(sharedVectorWidth(toOffset, element), maxVector);
  for (unsigned r = 0; r < values.size(); r += vec) {
    if (isDuplicateRegister(layout, r))
      continue;
    Value address = elementAddress(offsets[r][0]);
    if (vec == 1) {
      storeShared(b, loc, address, values[r]);
      continue;
    }
    SmallVector<Value> parts;
    for (unsigned i = 0; i < vec; ++i)
      parts.push_back(toMemory(b, loc, values[r + i]));
    Value packed = packVector(b, loc, parts,
                              VectorType::get(vec, memoryType(element)));
    LLVM::StoreOp::create(b, loc, packed, address, vec * storageBytes(element));
  }
}

SmallVector<Value> mlir::tile::loadFromShared(
    OpBuilder &b, Location loc, const LoweringState &state,
    const LinearLayout &layout, const LinearLayout &toOffset, Type element,
    llvm::function_ref<Value(Value)> elementAddress, unsigned maxVector) {
  HardwareIds ids = emitHardwareIds(b, loc, state.target);
  if (std::optional<SmallVector<Value>> loaded = loadByMatrices(
          b, loc, state, toOffset, element, ids, elementAddress, maxVector))
    return *loaded;
  SmallVector<SmallVector<Value>> offsets = emitCoords(b, loc, toOffset, ids);
  unsigned vec = std::min(sharedVectorWidth(toOffset, element), maxVector);
  SmallVector<Value> result;
  for (unsigned r = 0, e = numRegisters(layout); r < e; r += vec) {
    Value address = elementAddress(offsets[r][0]);
    if (vec == 1) {
      result.push_back(loadShared(b, loc, address, element));
      continue;
    }
    auto vecType = VectorType::get(vec, memoryType(element));
    Value packed = LLVM::LoadOp::create(b, loc, vecType, address,
                                        vec * storageBytes(element));
    SmallVector<Value> parts;
    unpackVector(b, loc, packed, vec, parts);
    for (Value part : parts)
      result.push_back(fromMemory(b, loc, part, element));
  }
  return result;
}

namespace {

/// Lowers an op whose result holds elements of its operand found by a linear
/// map of coordinates (`toSrc`, with inverse `fromSrc`): registers move
/// within threads when both layouts allow, else through shared memory.
template <typename Op>
LogicalResult lowerByRegisterMap(
    Op op, ValueRange src, ConversionPatternRewriter &rewriter,
    LoweringState &state,
    llvm::function_ref<SmallVector<int32_t>(ArrayRef<int32_t>)> toSrc,
    llvm::function_ref<SmallVector<int32_t>(ArrayRef<int32_t>)> fromSrc) {
  std::optional<LinearLayout> srcLayout = layoutOf(op.getSrc().getType());
  std::optional<LinearLayout> dstLayout = layoutOf(op.getType());
  if (!srcLayout || !dstLayout)
    return failure();
  if (std::optional<SmallVector<unsigned>> map =
          mapRegisters(*srcLayout, *dstLayout, toSrc)) {
    SmallVector<Value> values;
    for (unsigned s : *map)
      values.push_back(src[s]);
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
  // The operand's registers seen in the result's shape, then converted.
  ArrayRef<int64_t> shape = op.getType().getShape();
  LinearLayout natural = mapBases(*srcLayout, shape, fromSrc);
  FailureOr<SmallVector<Value>> values = convertLayout(
      rewriter, op.getLoc(), state, natural, *dstLayout, shape, src,
      src.front().getType());
  if (failed(values))
    return loweringError(op, "no conversion into the result's layout");
  replaceWithRegisters(rewriter, op, *values);
  return success();
}

class BroadcastPattern : public LoweringPattern<BroadcastOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    auto identity = [](ArrayRef<int32_t> c) { return SmallVector<int32_t>(c); };
    return lowerByRegisterMap(
        op, adaptor.getSrc(), rewriter, state,
        [&](ArrayRef<int32_t> coords) {
          SmallVector<int32_t> result(coords);
          for (auto [d, size] : llvm::enumerate(srcShape))
            if (size == 1)
              result[d] = 0;
          return result;
        },
        identity);
  }
};

class ExpandDimsPattern : public LoweringPattern<ExpandDimsOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = op.getAxis();
    return lowerByRegisterMap(
        op, adaptor.getSrc(), rewriter, state,
        [&](ArrayRef<int32_t> coords) {
          SmallVector<int32_t> result(coords);
          result.erase(result.begin() + axis);
          return result;
        },
        [&](ArrayRef<int32_t> coords) {
          SmallVector<int32_t> result(coords);
          result.insert(result.begin() + axis, 0);
          return result;
        });
  }
};

class ReshapePattern : public LoweringPattern<ReshapeOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> from = op.getType().getShape();
    ArrayRef<int64_t> to = op.getSrc().getType().getShape();
    return lowerByRegisterMap(
        op, adaptor.getSrc(), rewriter, state,
        [&](ArrayRef<int32_t> coords) { return reshapeCoords(coords, from, to); },
        [&](ArrayRef<int32_t> coords) { return reshapeCoords(coords, to, from); });
  }
};

class TransPattern : public LoweringPattern<TransOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(TransOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int32_t> order = op.getOrder();
    return lowerByRegisterMap(
        op, adaptor.getSrc(), rewriter, state,
        [&](ArrayRef<int32_t> coords) {
          SmallVector<int32_t> result(coords.size());
          for (auto [i, o] : llvm::enumerate(order))
            result[o] = coords[i];
          return result;
        },
        [&](ArrayRef<int32_t> coords) {
          SmallVector<int32_t> result(coords.size());
          for (auto [i, o] : llvm::enumerate(order))
            result[i] = coords[o];
          return result;
        });
  }
};

/// The layout of a join of two tensors in `half`: the pair index as the
/// highest register bit.
LinearLayout pairLayout(const LinearLayout &half, ArrayRef<int64_t> shape) {
  LinearLayout natural =
      mapBases(half, shape, [](ArrayRef<int32_t> coords) {
        SmallVector<int32_t> result(coords);
        result.push_back(0);
        return result;
      });
  std::vector<LinearLayout::InDim> ins(natural.getInDims().begin(),
                                       natural.getInDims().end());
  std::vector<int32_t> pair(shape.size(), 0);
  pair.back() = 1;
  for (LinearLayout::InDim &in : ins)
    if (in.name == kRegister)
      in.bases.push_back(pair);
  return llvm::cantFail(LinearLayout::create(
      std::move(ins), std::vector<LinearLayout::OutDim>(
                          natural.getOutDims().begin(),
                          natural.getOutDims().end())));
}

/// Whether lanes and warps of `layout` never walk its last dimension (each
/// thread holds whole pairs of a join).
bool lastDimInRegisters(const LinearLayout &layout) {
  for (const char *name : {kLane, kWarp, kBlock})
    if (layout.hasInDim(name))
      for (int bit = 0; bit < layout.getInDimSizeLog2(name); ++bit)
        if (layout.getBasis(name, bit).back())
          return false;
  return true;
}

class JoinPattern : public LoweringPattern<JoinOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(JoinOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> dst = layoutOf(op.getType());
    if (!dst)
      return failure();
    auto dropLast = [](ArrayRef<int32_t> coords) {
      return SmallVector<int32_t>(coords.drop_back());
    };
    SmallVector<unsigned> map(numRegisters(*dst), 0);
    std::optional<LinearLayout> src = layoutOf(op.getLhs().getType());
    std::optional<SmallVector<unsigned>> found;
    if (src)
      found = mapRegisters(*src, *dst, dropLast);
    if (src && (!found || !lastDimInRegisters(*dst))) {
      // Both operands' registers, the pair index as the top register bit,
      // then converted.
      LinearLayout natural = pairLayout(*src, op.getType().getShape());
      SmallVector<Value> both(adaptor.getLhs());
      llvm::append_range(both, adaptor.getRhs());
      FailureOr<SmallVector<Value>> values = convertLayout(
          rewriter, op.getLoc(), state, natural, *dst,
          op.getType().getShape(), both, convertElement(op.getType()));
      if (failed(values))
        return loweringError(op, "no conversion into the result's layout");
      replaceWithRegisters(rewriter, op, *values);
      return success();
    }
    if (found)
      map = *found;
    if (!src && !lastDimInRegisters(*dst)) {
      // Two scalars over lanes: each thread picks by its element's index.
      Location loc = op.getLoc();
      HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
      SmallVector<Value> values;
      for (const SmallVector<Value> &coords :
           emitCoords(rewriter, loc, *dst, ids)) {
        Value second =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                  coords.back(), i32Constant(rewriter, loc, 0));
        values.push_back(arith::SelectOp::create(
            rewriter, loc, second, adaptor.getRhs()[0], adaptor.getLhs()[0]));
      }
      replaceWithRegisters(rewriter, op, values);
      return success();
    }
    if (!lastDimInRegisters(*dst))
      return loweringError(
          op, "a join's pairs must be in one thread's registers");
    SmallVector<Value> values;
    for (auto [r, s] : llvm::enumerate(map))
      values.push_back(registerCoords(*dst, r).back() ? adaptor.getRhs()[s]
                                                      : adaptor.getLhs()[s]);
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

class SplitPattern : public LoweringPattern<SplitOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(SplitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> src = layoutOf(op.getSrc().getType());
    std::optional<LinearLayout> dst = layoutOf(op.getOutLHS().getType());
    if (!src)
      return failure();
    auto appendZero = [](ArrayRef<int32_t> coords) {
      SmallVector<int32_t> result(coords);
      result.push_back(0);
      return result;
    };
    ValueRange srcValues = adaptor.getSrc();
    SmallVector<Value> converted;
    if (dst && (!lastDimInRegisters(*src) ||
                !mapRegisters(*src, *dst, appendZero))) {
      // Into a layout with both halves of each pair in one thread.
      LinearLayout natural =
          pairLayout(*dst, op.getSrc().getType().getShape());
      FailureOr<SmallVector<Value>> values = convertLayout(
          rewriter, op.getLoc(), state, *src, natural,
          op.getSrc().getType().getShape(), srcValues,
          convertElement(op.getSrc().getType()));
      if (failed(values))
        return loweringError(op, "no conversion into the results' layout");
      converted = *values;
      srcValues = converted;
      src = natural;
    }
    if (!dst && !lastDimInRegisters(*src)) {
      // Into scalars: both elements in every thread's registers.
      std::vector<LinearLayout::InDim> ins;
      for (const LinearLayout::InDim &in : src->getInDims())
        ins.push_back({in.name, in.name == kRegister
                                    ? std::vector<std::vector<int32_t>>{{1}}
                                    : std::vector<std::vector<int32_t>>(
                                          in.bases.size(), {0})});
      llvm::Expected<LinearLayout> both =
          LinearLayout::create(std::move(ins), {{dimName(0), 2}});
      if (!both) {
        llvm::consumeError(both.takeError());
        return loweringError(op, "no layout holds both elements");
      }
      FailureOr<SmallVector<Value>> values =
          convertLayout(rewriter, op.getLoc(), state, *src, *both, {2},
                        srcValues, convertElement(op.getSrc().getType()));
      if (failed(values))
        return loweringError(op, "no conversion of the pair to each thread");
      converted = *values;
      srcValues = converted;
      src = *both;
    }
    if (!lastDimInRegisters(*src))
      return loweringError(
          op, "a split's pairs must be in one thread's registers");
    std::map<SmallVector<int32_t>, unsigned> registers;
    for (unsigned s = 0, e = numRegisters(*src); s < e; ++s)
      registers.emplace(registerCoords(*src, s), s);
    unsigned n = dst ? numRegisters(*dst) : 1;
    SmallVector<SmallVector<Value>> results(2);
    for (unsigned r = 0; r < n; ++r) {
      SmallVector<int32_t> coords =
          dst ? registerCoords(*dst, r) : SmallVector<int32_t>();
      for (int half = 0; half < 2; ++half) {
        coords.push_back(half);
        results[half].push_back(srcValues[registers.at(coords)]);
        coords.pop_back();
      }
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

/// Concatenation in an unspecified order (Triton's `can_reorder`): the
/// registers of both operands.
class CatPattern : public LoweringPattern<CatOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(CatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> dst = layoutOf(op.getType());
    if (!dst || numRegisters(*dst) !=
                    adaptor.getLhs().size() + adaptor.getRhs().size())
      return loweringError(
          op, "the concatenated layout must hold both operands' registers");
    SmallVector<Value> values(adaptor.getLhs());
    llvm::append_range(values, adaptor.getRhs());
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

class ConvertLayoutPattern : public LoweringPattern<ConvertLayoutOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<LinearLayout> src = layoutOf(op.getSrc().getType());
    std::optional<LinearLayout> dst = layoutOf(op.getType());
    if (!src || !dst)
      return failure();
    FailureOr<SmallVector<Value>> values = convertLayout(
        rewriter, op.getLoc(), state, *src, *dst, op.getType().getShape(),
        adaptor.getSrc(), convertElement(op.getType()));
    if (failed(values))
      return loweringError(op, "the result holds elements the operand does not");
    replaceWithRegisters(rewriter, op, *values);
    return success();
  }
};

/// tl.gather: the source goes to shared memory row-major; each register of
/// the result (in its indices' layout) is read back at its coordinates with
/// the index in place of the axis.
class GatherPattern : public LoweringPattern<GatherOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType();
    std::optional<LinearLayout> src = layoutOf(srcType);
    std::optional<LinearLayout> dst = layoutOf(op.getType());
    if (!src || !dst)
      return failure();
    ArrayRef<int64_t> shape = srcType.getShape();
    Type element = convertElement(srcType);
    if (failed(storeToScratch(rewriter, loc, state, *src, rowMajorShared(shape),
                              adaptor.getSrc(), element)))
      return failure();

    HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
    SmallVector<SmallVector<Value>> coords =
        emitCoords(rewriter, loc, *dst, ids);
    ValueRange indices = adaptor.getIndices();
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> values;
    for (auto [r, coord] : llvm::enumerate(coords)) {
      Value index = indices[r];
      unsigned bits = index.getType().getIntOrFloatBitWidth();
      if (bits > 32)
        index = arith::TruncIOp::create(rewriter, loc, i32, index);
      else if (bits < 32)
        index = arith::ExtUIOp::create(rewriter, loc, i32, index);
      Value offset = i32Constant(rewriter, loc, 0);
      int64_t stride = 1;
      for (int d = shape.size() - 1; d >= 0; --d) {
        Value c = d == static_cast<int>(op.getAxis()) ? index : coord[d];
        offset = arith::AddIOp::create(
            rewriter, loc, offset,
            arith::MulIOp::create(rewriter, loc, c,
                                  i32Constant(rewriter, loc, stride)));
        stride *= shape[d];
      }
      values.push_back(loadShared(
          rewriter, loc,
          scratchElement(rewriter, loc, state, offset, storageBytes(element)),
          element));
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

/// tl.histogram: the bins are i32 counters in shared memory; each element
/// is counted once (by the thread and register that own it) with an atomic
/// add of 1 to its bin, or of 0 to bin 0 where it is masked off or outside
/// the bins.
class HistogramPattern : public LoweringPattern<HistogramOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(HistogramOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<LinearLayout> src = layoutOf(op.getSrc().getType());
    std::optional<LinearLayout> dst = layoutOf(op.getType());
    if (!src || !dst)
      return failure();
    int64_t bins = op.getType().getNumElements();
    Type i32 = rewriter.getI32Type();
    state.requireScratch(rewriter, bins * 4);
    auto binAddress = [&](Value bin) {
      return scratchElement(rewriter, loc, state, bin, 4);
    };
    HardwareIds ids = emitHardwareIds(rewriter, loc, state.target);
    SmallVector<SmallVector<Value>> binsHeld =
        emitCoords(rewriter, loc, *dst, ids);
    state.target.barrier(rewriter, loc);
    for (const SmallVector<Value> &bin : binsHeld)
      storeShared(rewriter, loc, binAddress(bin[0]),
                  i32Constant(rewriter, loc, 0));
    state.target.barrier(rewriter, loc);

    Value canonical = emitIsCanonicalThread(rewriter, loc, *src, ids);
    for (auto [r, value] : llvm::enumerate(adaptor.getSrc())) {
      if (isDuplicateRegister(*src, r))
        continue;
      // Compared as unsigned, at 32 bits at least (bins may outnumber the
      // values of a narrower type).
      Value wide = value;
      if (value.getType().getIntOrFloatBitWidth() < 32)
        wide = arith::ExtUIOp::create(rewriter, loc, i32, value);
      Value inRange = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, wide,
          arith::ConstantOp::create(
              rewriter, loc, rewriter.getIntegerAttr(wide.getType(), bins)));
      Value counted = arith::AndIOp::create(rewriter, loc, canonical, inRange);
      if (op.getMask())
        counted =
            arith::AndIOp::create(rewriter, loc, counted, adaptor.getMask()[r]);
      Value bin = wide.getType() == i32
                      ? wide
                      : arith::TruncIOp::create(rewriter, loc, i32, wide);
      bin = arith::SelectOp::create(rewriter, loc, counted, bin,
                                    i32Constant(rewriter, loc, 0));
      LLVM::AtomicRMWOp::create(
          rewriter, loc, LLVM::AtomicBinOp::add, binAddress(bin),
          arith::ExtUIOp::create(rewriter, loc, i32, counted),
          LLVM::AtomicOrdering::monotonic);
    }
    state.target.barrier(rewriter, loc);
    SmallVector<Value> counts;
    for (const SmallVector<Value> &bin : binsHeld)
      counts.push_back(loadShared(rewriter, loc, binAddress(bin[0]), i32));
    replaceWithRegisters(rewriter, op, counts);
    return success();
  }
};

class ProgramIdPattern : public LoweringPattern<ProgramIdOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ProgramIdOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, state.target.programId(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

class NumProgramsPattern : public LoweringPattern<NumProgramsOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(NumProgramsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, state.target.numPrograms(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

/// A call of the external function on each register.
class ExternElementwisePattern
    : public LoweringPattern<ExternElementwiseOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ExternElementwiseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = convertElement(op.getType());
    SmallVector<Type> argTypes;
    for (Value src : op.getSrcs())
      argTypes.push_back(convertElement(src.getType()));
    auto module = op->getParentOfType<ModuleOp>();
    auto funcType = LLVM::LLVMFunctionType::get(resultType, argTypes);
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(op.getSymbol());
    if (!func) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      func = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getSymbol(),
                                      funcType);
    } else if (func.getFunctionType() != funcType) {
      return loweringError(
          op, "the external function is called with two signatures");
    }
    size_t n = 1;
    for (ValueRange registers : adaptor.getSrcs())
      n = std::max(n, registers.size());
    SmallVector<Value> values;
    for (size_t i = 0; i < n; ++i) {
      SmallVector<Value> args;
      for (ValueRange registers : adaptor.getSrcs())
        args.push_back(registers.size() == 1 ? registers[0] : registers[i]);
      values.push_back(
          LLVM::CallOp::create(rewriter, op.getLoc(), func, args).getResult());
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

/// The assembly of tl.inline_asm_elementwise once per `packed_element`
/// registers. Elements narrower than 32 bits share 32-bit registers of the
/// assembly (vectors in LLVM); a last group a thread fills only in part is
/// padded with zeros, whose results are dropped.
class InlineAsmPattern : public LoweringPattern<InlineAsmOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(InlineAsmOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned pack = op.getPackedElement();
    // Elements of `type` in one register of the assembly.
    auto perRegister = [&](Type type) {
      unsigned bits = type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 64;
      return std::min(bits < 32 ? 32 / bits : 1u, pack);
    };
    auto registerType = [&](Type element) -> Type {
      unsigned per = perRegister(element);
      return per > 1 ? VectorType::get(per, element) : element;
    };
    SmallVector<Type> asmTypes;
    for (Type result : op.getResultTypes()) {
      Type element = convertElement(result);
      for (unsigned k = 0; k < pack; k += perRegister(element))
        asmTypes.push_back(registerType(element));
    }
    Type asmType =
        asmTypes.size() == 1
            ? asmTypes[0]
            : LLVM::LLVMStructType::getLiteral(getContext(), asmTypes);

    size_t n = 1;
    for (ValueRange registers : adaptor.getArgs())
      n = std::max(n, registers.size());
    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (size_t base = 0; base < n; base += pack) {
      SmallVector<Value> operands;
      for (auto [arg, registers] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
        Type element = convertElement(arg.getType());
        auto at = [&](size_t i) -> Value {
          if (registers.size() == 1)
            return registers[0];
          if (i < registers.size())
            return registers[i];
          return LLVM::ZeroOp::create(rewriter, loc, element);
        };
        unsigned per = perRegister(element);
        for (unsigned k = 0; k < pack; k += per) {
          if (per == 1) {
            operands.push_back(at(base + k));
            continue;
          }
          Value packed =
              LLVM::UndefOp::create(rewriter, loc, registerType(element));
          for (unsigned e = 0; e < per; ++e)
            packed = LLVM::InsertElementOp::create(
                rewriter, loc, packed, at(base + k + e),
                i32Constant(rewriter, loc, e));
          operands.push_back(packed);
        }
      }
      Value out =
          LLVM::InlineAsmOp::create(
              rewriter, loc, asmType, operands, op.getAsmString(),
              op.getConstraints(), /*has_side_effects=*/!op.getPure(),
              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
              LLVM::AsmDialectAttr::get(getContext(), LLVM::AsmDialect::AD_ATT),
              ArrayAttr())
              .getRes();
      unsigned field = 0;
      for (auto [r, result] : llvm::enumerate(op.getResultTypes())) {
        unsigned per = perRegister(convertElement(result));
        for (unsigned k = 0; k < pack; k += per, ++field) {
          Value value =
              asmTypes.size() == 1
                  ? out
                  : LLVM::ExtractValueOp::create(rewriter, loc, out, field);
          for (unsigned e = 0; e < per; ++e)
            if (base + k + e < n)
              results[r].push_back(per == 1
                                       ? value
                                       : LLVM::ExtractElementOp::create(
                                             rewriter, loc, value,
                                             i32Constant(rewriter, loc, e)));
        }
      }
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

} // namespace

void mlir::tile::populateTensorOpPatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          LoweringState &state) {
  patterns.add<ElementwisePattern>(converter, state);
  patterns.add<AddressCastPattern<IntToPtrOp, LLVM::IntToPtrOp>,
               AddressCastPattern<PtrToIntOp, LLVM::PtrToIntOp>>(converter,
                                                                 state);
  patterns
      .add<ConstantPattern, SplatPattern, MakeRangePattern, AddPtrPattern,
           BroadcastPattern, ExpandDimsPattern, ReshapePattern, TransPattern,
           JoinPattern, SplitPattern, CatPattern, ConvertLayoutPattern,
           ProgramIdPattern, NumProgramsPattern, ExternElementwisePattern,
           InlineAsmPattern, GatherPattern, HistogramPattern>(converter, state);
}
