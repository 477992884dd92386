//===- Lowering.h - pieces shared by the lowering's pattern files ---------===//
//
// Internal to backends/common: the state the patterns share, the helpers
// that turn layouts into index arithmetic, and the populate functions of
// each group of patterns.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_COMMON_LOWERING_H
#define TESSERA_BACKENDS_COMMON_LOWERING_H

#include "backends/common/TargetInfo.h"
#include "ir/Layout/LinearLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

namespace mlir::tile {

class AxisInfoAnalysis;

/// Where the scratch of each op starts: after the buffers live across it.
struct SharedAllocation {
  /// Ops that buffers live across (others: 0).
  DenseMap<Operation *, int64_t> scratchBases;
  /// The end of all buffers.
  int64_t buffersEnd = 0;
};
/// What the patterns share while one module is lowered.
struct LoweringState {
  MLIRContext &context;
  const TargetInfo &target;
  const AxisInfoAnalysis &axis;
  unsigned numWarps;
  /// The shared memory the kernel needs: its buffers (see
  /// allocateSharedMemory) and the scratch of every op.
  int64_t sharedBytes = 0;
  /// The module's dynamic shared memory (an external array in the shared
  /// address space).
  StringRef sharedSymbol;
  /// Where each op's scratch starts (an op's scratch is used between two
  /// barriers of its own, after the buffers live across the op).
  const SharedAllocation *allocation = nullptr;
  /// That of the op being lowered (bytes).
  int64_t scratchBase = 0;

  /// Reserves `bytes` of scratch for the op at `b`'s insertion point (the
  /// op being lowered) and makes sharedAddress address it.
  void requireScratch(OpBuilder &b, int64_t bytes);
};

/// The linear form of a tensor type's layout, fitted to its shape; null when
/// it has none.
std::optional<LinearLayout> layoutOf(Type type);
/// Registers each thread holds of a tensor in `layout`.
unsigned numRegisters(const LinearLayout &layout);
/// The coordinates register `reg` holds in lane 0 of warp 0: the part of
/// every element's coordinates the register alone decides.
SmallVector<int32_t> registerCoords(const LinearLayout &layout, unsigned reg);

/// A tensor's registers, found by the element lane 0 of warp 0 holds in
/// them (the same register holds the corresponding element in every
/// thread): how matrix-unit lowerings gather instruction fragments.
struct RegisterIndex {
  RegisterIndex(LinearLayout layout, ValueRange values);
  /// The register holding the element at `coords` in lane 0 of warp 0;
  /// ~0u where it holds none.
  unsigned at(ArrayRef<int32_t> coords) const;
  /// The values of `count` consecutive elements along dimension `along`
  /// from the one at `coords`; empty where lane 0 lacks one.
  SmallVector<Value> run(ArrayRef<int32_t> coords, unsigned along,
                         int64_t count) const;

  LinearLayout layout;
  ValueRange values;
  std::map<SmallVector<int32_t>, unsigned> index;
};

/// The lane and warp of the running thread.
struct HardwareIds {
  Value lane, warp;
};
HardwareIds emitHardwareIds(OpBuilder &b, Location loc,
                            const TargetInfo &target);

/// The coordinates (i32, one per output dimension of `layout`) of the
/// element each register holds in the running thread.
SmallVector<SmallVector<Value>> emitCoords(OpBuilder &b, Location loc,
                                           const LinearLayout &layout,
                                           HardwareIds ids);

/// For each register of `dst`, the register of `src` holding the element at
/// `toSrc` of its coordinates in the same thread; none when lanes and warps
/// of the two layouts do not hold matching elements. `toSrc` maps
/// coordinates of `dst` to those of `src` linearly.
std::optional<SmallVector<unsigned>>
mapRegisters(const LinearLayout &src, const LinearLayout &dst,
             llvm::function_ref<SmallVector<int32_t>(ArrayRef<int32_t>)> toSrc);

/// i1: this thread holds elements no other thread with smaller lane or warp
/// bits holds too (it is the one that writes them).
Value emitIsCanonicalThread(OpBuilder &b, Location loc,
                            const LinearLayout &layout, HardwareIds ids);
/// Registers whose elements an earlier register holds too.
bool isDuplicateRegister(const LinearLayout &layout, unsigned reg);

Value i32Constant(OpBuilder &b, Location loc, int64_t value);
/// `acc * scale + add` (i32): one step of a row-major linearisation.
Value mulAdd(OpBuilder &b, Location loc, Value acc, int64_t scale, Value add);
/// The address of byte `byteOffset` (an i32 value) of the scratch of the op
/// being lowered (LoweringState::requireScratch).
Value sharedAddress(OpBuilder &b, Location loc, const LoweringState &state,
                    Value byteOffset);
/// The address of element `index` (an i32 value) of that scratch, read as
/// elements of `bytes` bytes.
Value scratchElement(OpBuilder &b, Location loc, const LoweringState &state,
                     Value index, unsigned bytes);
/// The address of byte `offset` of the kernel's shared memory.
Value sharedBase(OpBuilder &b, Location loc, const LoweringState &state,
                 int64_t offset);

/// The byte offset in shared memory of a tile.local_alloc's buffer.
inline constexpr StringLiteral kBufferOffsetAttr = "tile.buffer_offset";
/// Gives every tile.local_alloc of `module` its place in shared memory
/// (kBufferOffsetAttr), by liveness: buffers whose lives overlap get
/// disjoint bytes, and the ops they live across their scratch after them.
SharedAllocation allocateSharedMemory(ModuleOp module);

/// Consecutive registers that go to consecutive, aligned shared-memory
/// elements (by `toOffset`, hardware bits to element offsets), up to 16
/// bytes.
unsigned sharedVectorWidth(const LinearLayout &toOffset, Type element);
/// How many consecutive registers a load or store through the tensor of
/// pointers `ptr` moves as one vector of `stored`: consecutive elements of
/// the layout, contiguous and aligned in memory (by the axis analysis), under
/// one `mask` value (when not null; any mask where the target has element
/// masks), at most the target's largest access.
unsigned memoryVectorWidth(const LoweringState &state, Value ptr, Value mask,
                           Type stored);
/// Stores the registers `values` of a tensor in `layout` to shared memory,
/// each to `elementAddress` of the element offset `toOffset` gives it,
/// vectorised where offsets allow (vectors of at most `maxVector` elements,
/// which the addresses keep contiguous and aligned); duplicates are stored
/// once.
void storeToShared(OpBuilder &b, Location loc, const LoweringState &state,
                   const LinearLayout &layout, const LinearLayout &toOffset,
                   ValueRange values, Type element,
                   llvm::function_ref<Value(Value)> elementAddress,
                   unsigned maxVector = ~0u);
/// The registers of a tensor in `layout` loaded from shared memory the same
/// way (with the target's matrix loads where the layouts allow).
SmallVector<Value>
loadFromShared(OpBuilder &b, Location loc, const LoweringState &state,
               const LinearLayout &layout, const LinearLayout &toOffset,
               Type element, llvm::function_ref<Value(Value)> elementAddress,
               unsigned maxVector = ~0u);
/// Bytes an element of type `type` takes in memory (pointers: 8, i1: 1).
unsigned storageBytes(Type type);
/// The type memory holds a scalar of `type` as: booleans as bytes, floats
/// LLVM has no type for (fp8) as integers of their width, others as they are.
Type memoryType(Type type);
/// A scalar as memoryType of its type, and back.
Value toMemory(OpBuilder &b, Location loc, Value value);
Value fromMemory(OpBuilder &b, Location loc, Value value, Type type);
/// `values` as one vector of `type` (the value itself when there is one).
Value packVector(OpBuilder &b, Location loc, ArrayRef<Value> values, Type type);
/// The `n` elements of `vec` (itself when `n` is 1), appended to `out`.
void unpackVector(OpBuilder &b, Location loc, Value vec, unsigned n,
                  SmallVectorImpl<Value> &out);
/// Stores a scalar to / loads one from shared memory at `address`, as
/// memoryType of its type.
void storeShared(OpBuilder &b, Location loc, Value address, Value value);
Value loadShared(OpBuilder &b, Location loc, Value address, Type type);

/// `value` (any scalar) of lane `lane ^ mask`, through the target's 32-bit
/// shuffles.
Value shuffleXor(OpBuilder &b, Location loc, const TargetInfo &target,
                 Value value, unsigned mask);
/// `value` of lane `lane` (an i32 value).
Value shuffleIndex(OpBuilder &b, Location loc, const TargetInfo &target,
                   Value value, Value lane);

/// Runs `body` (with the builder inside) where `cond` holds. Unlike
/// scf::IfOp's body builders, the branch is already in the function when
/// `body` runs, so it can reach the module.
void emitIf(OpBuilder &b, Location loc, Value cond,
            llvm::function_ref<void()> body);

/// `value`, an operand of a dot, in its accumulator's type `type`, as the
/// dot's multiply-adds convert it (scalars, or vectors of one shape).
Value convertDotOperand(OpBuilder &b, Location loc, Value value, Type type);
/// `acc` + `x` * `y`, with `x` and `y` converted to `acc`'s type (fused for
/// floats): a dot's step on scalars, or element by element on vectors of one
/// shape.
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc);

/// Applies the combiner region of a reduce or scan to `lhs` and `rhs`.
SmallVector<Value> emitCombine(OpBuilder &b, Location loc, Region &combiner,
                               ValueRange lhs, ValueRange rhs);

/// A pattern of the lowering: 1:N, with the shared state.
template <typename Op>
class LoweringPattern : public OpConversionPattern<Op> {
public:
  LoweringPattern(const TypeConverter &converter, LoweringState &state,
                  PatternBenefit benefit = 1)
      : OpConversionPattern<Op>(converter, &state.context, benefit),
        state(state) {}

protected:
  /// The converted type of a tensor's (or a scalar's) elements.
  Type convertElement(Type type) const {
    return this->getTypeConverter()->convertType(getElementTypeOrSelf(type));
  }

  LoweringState &state;
};

/// Reports that `op` cannot be lowered, and why; fails.
inline LogicalResult loweringError(Operation *op, const Twine &reason) {
  return op->emitError("cannot lower '")
         << op->getName() << "' for the GPU: " << reason;
}

/// Replaces `op`'s single result with `values`.
inline void replaceWithRegisters(ConversionPatternRewriter &rewriter,
                                 Operation *op, ArrayRef<Value> values) {
  SmallVector<SmallVector<Value>> results;
  results.emplace_back(values);
  rewriter.replaceOpWithMultiple(op, std::move(results));
}

void populateTensorOpPatterns(TypeConverter &converter,
                              RewritePatternSet &patterns,
                              LoweringState &state);
void populateMemoryOpPatterns(TypeConverter &converter,
                              RewritePatternSet &patterns,
                              LoweringState &state);
void populateSharedMemoryOpPatterns(TypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    LoweringState &state);
void populateReductionOpPatterns(TypeConverter &converter,
                                 RewritePatternSet &patterns,
                                 LoweringState &state);
/// Conversions between fp8 formats and wider floats, for the conversion of
/// scalars to the LLVM dialect (fp8 values are i8 there).
void populateFloat8Patterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_LOWERING_H
