//===- LowerMemoryOps.cpp - loads, stores, atomics, print and assert ------===//

#include "backends/common/Lowering.h"

#include "ir/Tile/TileOps.h"
#include "transforms/AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

/// How many consecutive registers a load or store moves as one vector: they
/// are consecutive elements of the layout, contiguous and aligned in
/// memory (unless the target needs no alignment), under one mask value (unless
/// the target masks each element), and at most the target's largest access
/// (pointers, which vectors cannot hold, one at a time).
unsigned mlir::tile::memoryVectorWidth(const LoweringState &state, Value ptr, Value mask,
                           Type stored) {
  std::optional<LinearLayout> layout = layoutOf(ptr.getType());
  if (!layout || isa<LLVM::LLVMPointerType>(stored))
    return 1;
  unsigned elementBytes = storageBytes(stored);
  unsigned best = 1, dim = 0;
  for (unsigned d = 0; d < layout->getNumOutDims(); ++d) {
    unsigned n = layout->getNumConsecutive(kRegister, dimName(d));
    if (n > best)
      best = n, dim = d;
  }
  int64_t vec =
      std::min<int64_t>(best, state.target.getMaxAccessBytes() / elementBytes);
  const AxisInfo *info = state.axis.lookup(ptr);
  if (!info)
    return 1;
  vec = std::min<int64_t>(vec,
                          state.target.hasUnalignedAccesses()
                              ? info->getContiguity(dim)
                              : getAlignedContiguity(*info, dim, elementBytes));
  if (mask && !state.target.hasElementMasks()) {
    const AxisInfo *maskInfo = state.axis.lookup(mask);
    vec = std::min<int64_t>(vec, maskInfo ? maskInfo->getConstancy(dim) : 1);
  }
  return llvm::bit_floor(uint64_t(std::max<int64_t>(vec, 1)));
}

Value mlir::tile::packVector(OpBuilder &b, Location loc, ArrayRef<Value> values,
                 Type type) {
  if (values.size() == 1)
    return values[0];
  Value vec = LLVM::PoisonOp::create(b, loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    vec = LLVM::InsertElementOp::create(b, loc, vec, v,
                                        i32Constant(b, loc, i));
  return vec;
}

void mlir::tile::unpackVector(OpBuilder &b, Location loc, Value vec, unsigned n,
                  SmallVectorImpl<Value> &out) {
  if (n == 1) {
    out.push_back(vec);
    return;
  }
  for (unsigned i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, loc, vec,
                                                 i32Constant(b, loc, i)));
}

namespace {

Value trueValue(OpBuilder &b, Location loc) {
  return arith::ConstantIntOp::create(b, loc, 1, 1);
}

Value andValues(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::AndIOp::create(b, loc, lhs, rhs);
}

/// The predicate of the access of registers [r, r + vec): `pred` (i1) and
/// their mask bits (`mask`, when not empty); with element masks, a vector
/// of i1 for a vector access, else the first register's bit.
Value accessPredicate(OpBuilder &b, Location loc, const TargetInfo &target,
                      Value pred, ValueRange mask, unsigned r, unsigned vec) {
  if (mask.empty())
    return pred;
  if (vec == 1 || !target.hasElementMasks())
    return pred ? andValues(b, loc, pred, mask[r]) : mask[r];
  SmallVector<Value> bits;
  for (unsigned i = 0; i < vec; ++i)
    bits.push_back(pred ? andValues(b, loc, pred, mask[r + i]) : mask[r + i]);
  return packVector(b, loc, bits, VectorType::get(vec, b.getI1Type()));
}

/// i1: the running thread is thread 0 of the block (the one that does what
/// a scalar op does once).
Value isFirstThread(OpBuilder &b, Location loc, const TargetInfo &target) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               target.threadId(b, loc), i32Constant(b, loc, 0));
}

/// i1: the running thread is the one that writes its elements of a tensor in
/// `layout` (none: a scalar, written by thread 0).
Value isWriter(OpBuilder &b, Location loc, const TargetInfo &target,
               const std::optional<LinearLayout> &layout) {
  if (!layout)
    return isFirstThread(b, loc, target);
  return emitIsCanonicalThread(b, loc, *layout,
                               emitHardwareIds(b, loc, target));
}

/// Gives every thread the values of a tensor in `layout` (none: a scalar)
/// that only its canonical holders (`isCanonical`; for a scalar, thread 0)
/// computed, through shared memory.
SmallVector<Value> shareFromCanonical(OpBuilder &b, Location loc,
                                      LoweringState &state,
                                      std::optional<LinearLayout> layout,
                                      ArrayRef<int64_t> shape,
                                      ArrayRef<Value> values,
                                      Value isCanonical) {
  Type type = values[0].getType();
  unsigned bytes = storageBytes(type);
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  state.requireScratch(b, elements * bytes);
  SmallVector<Value> addresses;
  if (layout) {
    HardwareIds ids = emitHardwareIds(b, loc, state.target);
    for (ArrayRef<Value> coords : emitCoords(b, loc, *layout, ids)) {
      Value linear = i32Constant(b, loc, 0);
      for (auto [c, size] : llvm::zip(coords, shape))
        linear = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, linear, i32Constant(b, loc, size)),
            c);
      addresses.push_back(scratchElement(b, loc, state, linear, bytes));
    }
  } else {
    addresses.push_back(sharedAddress(b, loc, state, i32Constant(b, loc, 0)));
  }
  state.target.barrier(b, loc);
  for (auto [r, value] : llvm::enumerate(values)) {
    if (layout && isDuplicateRegister(*layout, r))
      continue;
    emitIf(b, loc, isCanonical,
           [&] { storeShared(b, loc, addresses[r], value); });
  }
  state.target.barrier(b, loc);
  SmallVector<Value> result;
  for (Value address : addresses)
    result.push_back(loadShared(b, loc, address, type));
  return result;
}

class LoadPattern : public LoweringPattern<LoadOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = convertElement(op.getType());
    Type stored = memoryType(element);
    ValueRange ptrs = adaptor.getPtr();
    unsigned vec = memoryVectorWidth(state, op.getPtr(), op.getMask(), stored);
    Type accessType = vec == 1 ? stored : VectorType::get(vec, stored);
    SmallVector<Value> values;
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      Value pred = op.getMask() ? accessPredicate(rewriter, loc, state.target,
                                                  {}, adaptor.getMask(), r, vec)
                                : trueValue(rewriter, loc);
      Value other;
      if (op.getOther()) {
        SmallVector<Value> others;
        for (unsigned i = 0; i < vec; ++i)
          others.push_back(toMemory(rewriter, loc, adaptor.getOther()[r + i]));
        other = packVector(rewriter, loc, others, accessType);
      }
      Value loaded = state.target.loadGlobal(
          rewriter, loc, ptrs[r], accessType, pred, other, op.getCache(),
          op.getEvict(), op.getIsVolatile());
      SmallVector<Value> parts;
      unpackVector(rewriter, loc, loaded, vec, parts);
      for (Value part : parts)
        values.push_back(fromMemory(rewriter, loc, part, element));
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

class StorePattern : public LoweringPattern<StoreOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = convertElement(op.getValue().getType());
    Type stored = memoryType(element);
    std::optional<LinearLayout> layout = layoutOf(op.getPtr().getType());
    // Only one thread writes each element.
    Value canonical = isWriter(rewriter, loc, state.target, layout);
    ValueRange ptrs = adaptor.getPtr();
    unsigned vec = memoryVectorWidth(state, op.getPtr(), op.getMask(), stored);
    Type accessType = vec == 1 ? stored : VectorType::get(vec, stored);
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      if (layout && isDuplicateRegister(*layout, r))
        continue;
      Value pred = accessPredicate(
          rewriter, loc, state.target, canonical,
          op.getMask() ? adaptor.getMask() : ValueRange(), r, vec);
      SmallVector<Value> parts;
      for (unsigned i = 0; i < vec; ++i)
        parts.push_back(toMemory(rewriter, loc, adaptor.getValue()[r + i]));
      state.target.storeGlobal(rewriter, loc, ptrs[r],
                               packVector(rewriter, loc, parts, accessType),
                               pred, op.getCache(), op.getEvict());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

LLVM::AtomicOrdering llvmOrdering(MemOrder order) {
  switch (order) {
  case MemOrder::relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case MemOrder::acquire:
    return LLVM::AtomicOrdering::acquire;
  case MemOrder::release:
    return LLVM::AtomicOrdering::release;
  case MemOrder::acq_rel:
    return LLVM::AtomicOrdering::acq_rel;
  }
  llvm_unreachable("unknown memory order");
}

LLVM::AtomicBinOp llvmBinOp(RMWKind kind, bool isFloat) {
  switch (kind) {
  case RMWKind::add:
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case RMWKind::fadd:
    return LLVM::AtomicBinOp::fadd;
  case RMWKind::max:
    return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case RMWKind::min:
    return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case RMWKind::umax:
    return LLVM::AtomicBinOp::umax;
  case RMWKind::umin:
    return LLVM::AtomicBinOp::umin;
  case RMWKind::And:
    return LLVM::AtomicBinOp::_and;
  case RMWKind::Or:
    return LLVM::AtomicBinOp::_or;
  case RMWKind::Xor:
    return LLVM::AtomicBinOp::_xor;
  case RMWKind::xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  llvm_unreachable("unknown atomic kind");
}

/// Runs `atomic` for each register where its predicate holds, in one thread
/// per element, and gives every holder of an element the old value.
template <typename Op>
LogicalResult lowerAtomic(
    Op op, ValueRange ptrs, ValueRange masks, LoweringState &state,
    ConversionPatternRewriter &rewriter,
    llvm::function_ref<Value(OpBuilder &, Location, unsigned)> atomic) {
  Location loc = op.getLoc();
  Type type = op.getResult().getType();
  std::optional<LinearLayout> layout = layoutOf(type);
  Type element = getElementTypeOrSelf(type);
  Value canonical = isWriter(rewriter, loc, state.target, layout);
  SmallVector<Value> values;
  for (unsigned r = 0; r < ptrs.size(); ++r) {
    Value pred = canonical;
    if (!masks.empty())
      pred = andValues(rewriter, loc, pred, masks[r]);
    bool duplicate = layout && isDuplicateRegister(*layout, r);
    if (duplicate)
      pred = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    auto branch = scf::IfOp::create(
        rewriter, loc, pred,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, atomic(b, loc, r));
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc,
                               Value(LLVM::ZeroOp::create(b, loc, element)));
        });
    values.push_back(branch.getResult(0));
  }
  bool everyHolderHasIt =
      layout && llvm::all_of(layout->getFreeVariableMasks(),
                             [](auto &mask) { return mask.second == 0; });
  if (!op.getResult().use_empty() && !everyHolderHasIt) {
    ArrayRef<int64_t> shape;
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      shape = tensor.getShape();
    values = shareFromCanonical(rewriter, loc, state, layout, shape, values,
                                canonical);
  }
  replaceWithRegisters(rewriter, op, values);
  return success();
}

class AtomicRMWPattern : public LoweringPattern<AtomicRMWOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    LLVM::AtomicBinOp binOp = llvmBinOp(op.getKind(), isa<FloatType>(element));
    StringRef scope = state.target.syncScope(op.getScope());
    LLVM::AtomicOrdering ordering = llvmOrdering(op.getOrder());
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    return lowerAtomic(
        op, adaptor.getPtr(), masks, state, rewriter,
        [&](OpBuilder &b, Location loc, unsigned r) -> Value {
          if (Value old = state.target.atomicRMW(
                  b, loc, op.getKind(), adaptor.getPtr()[r],
                  adaptor.getVal()[r], op.getOrder(), op.getScope()))
            return old;
          return LLVM::AtomicRMWOp::create(b, loc, binOp, adaptor.getPtr()[r],
                                           adaptor.getVal()[r], ordering,
                                           scope);
        });
  }
};

class AtomicCASPattern : public LoweringPattern<AtomicCASOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AtomicCASOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    StringRef scope = state.target.syncScope(op.getScope());
    LLVM::AtomicOrdering success = llvmOrdering(op.getOrder());
    // A failed exchange only reads.
    LLVM::AtomicOrdering failure =
        success == LLVM::AtomicOrdering::acq_rel ||
                success == LLVM::AtomicOrdering::acquire
            ? LLVM::AtomicOrdering::acquire
            : LLVM::AtomicOrdering::monotonic;
    return lowerAtomic(
        op, adaptor.getPtr(), ValueRange(), state, rewriter,
        [&](OpBuilder &b, Location loc, unsigned r) -> Value {
          Value cmp = adaptor.getCmp()[r], val = adaptor.getVal()[r];
          if (Value old =
                  state.target.atomicCAS(b, loc, adaptor.getPtr()[r], cmp, val,
                                         op.getOrder(), op.getScope()))
            return old;
          Type intType = b.getIntegerType(element.getIntOrFloatBitWidth());
          if (isa<FloatType>(element)) {
            cmp = arith::BitcastOp::create(b, loc, intType, cmp);
            val = arith::BitcastOp::create(b, loc, intType, val);
          }
          auto cas = LLVM::AtomicCmpXchgOp::create(
              b, loc, adaptor.getPtr()[r], cmp, val, success, failure, scope);
          Value old = LLVM::ExtractValueOp::create(b, loc, cas, 0);
          return isa<FloatType>(element)
                     ? Value(arith::BitcastOp::create(b, loc, element, old))
                     : old;
        });
  }
};

/// The file, line and function a location names, for messages.
struct SourcePlace {
  std::string file = "<unknown>";
  unsigned line = 0;
};

SourcePlace sourcePlace(Location loc) {
  SourcePlace place;
  loc->walk([&](Location inner) {
    if (auto fileLoc = dyn_cast<FileLineColLoc>(inner)) {
      place.file = fileLoc.getFilename().str();
      place.line = fileLoc.getLine();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return place;
}

/// One printf per element: "pid (x, y, z) idx (i, j)<prefix> <value>".
class PrintPattern : public LoweringPattern<PrintOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetInfo &target = state.target;
    if (!target.hasPrintf())
      return loweringError(op, "this target has no device printf (use the "
                               "interpreter, TESSERA_INTERPRET=1, to print)");
    SmallVector<Value> pids;
    for (ProgramAxis axis : {ProgramAxis::x, ProgramAxis::y, ProgramAxis::z})
      pids.push_back(target.programId(rewriter, loc, axis));
    if (op.getArgs().empty()) {
      printOnce(rewriter, loc, "pid (%d, %d, %d)" + escape(op.getPrefix()) +
                                   "\n",
                pids);
      rewriter.eraseOp(op);
      return success();
    }
    for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
      bool isSigned = op.getIsSigned().empty() || op.getIsSigned()[k];
      std::optional<LinearLayout> layout = layoutOf(arg.getType());
      ValueRange values = adaptor.getArgs()[k];
      if (!layout) {
        SmallVector<Value> args(pids);
        std::string spec = formatValue(rewriter, loc, values[0], op.getHex(),
                                       isSigned, args);
        printOnce(rewriter, loc,
                  "pid (%d, %d, %d)" + escape(op.getPrefix()) + " " + spec +
                      "\n",
                  args);
        continue;
      }
      HardwareIds ids = emitHardwareIds(rewriter, loc, target);
      Value canonical = emitIsCanonicalThread(rewriter, loc, *layout, ids);
      SmallVector<SmallVector<Value>> coords =
          emitCoords(rewriter, loc, *layout, ids);
      for (auto [r, value] : llvm::enumerate(values)) {
        if (isDuplicateRegister(*layout, r))
          continue;
        SmallVector<Value> args(pids);
        std::string format = "pid (%d, %d, %d) idx (";
        for (auto [d, c] : llvm::enumerate(coords[r])) {
          format += d ? ", %d" : "%d";
          args.push_back(c);
        }
        format += ")" + escape(op.getPrefix()) + " " +
                  formatValue(rewriter, loc, value, op.getHex(), isSigned,
                              args) +
                  "\n";
        emitIf(rewriter, loc, canonical,
               [&] { target.printf(rewriter, loc, format, args); });
      }
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  static std::string escape(StringRef text) {
    std::string result;
    for (char c : text) {
      result += c;
      if (c == '%')
        result += '%';
    }
    return result;
  }

  void printOnce(OpBuilder &b, Location loc, const std::string &format,
                 ArrayRef<Value> args) const {
    emitIf(b, loc, isFirstThread(b, loc, state.target),
           [&] { state.target.printf(b, loc, format, args); });
  }

  /// The printf conversion of `value`, appending what it prints to `args`
  /// (promoted as C's varargs are).
  static std::string formatValue(OpBuilder &b, Location loc, Value value,
                                 bool hex, bool isSigned,
                                 SmallVectorImpl<Value> &args) {
    Type type = value.getType();
    if (isa<LLVM::LLVMPointerType>(type)) {
      args.push_back(value);
      return "%p";
    }
    if (isa<FloatType>(type)) {
      args.push_back(type.isF64() ? value
                                  : Value(arith::ExtFOp::create(
                                        b, loc, b.getF64Type(), value)));
      return "%f";
    }
    unsigned bits = type.getIntOrFloatBitWidth();
    if (bits < 32)
      value = isSigned && !hex && bits > 1
                  ? Value(arith::ExtSIOp::create(b, loc, b.getI32Type(), value))
                  : Value(arith::ExtUIOp::create(b, loc, b.getI32Type(), value));
    args.push_back(value);
    std::string length = bits == 64 ? "ll" : "";
    if (hex)
      return "0x%" + length + "x";
    return "%" + length + (isSigned ? "d" : "u");
  }
};

class AssertPattern : public LoweringPattern<AssertOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SourcePlace place = sourcePlace(loc);
    std::string function = "<kernel>";
    if (auto func = op->getParentOfType<func::FuncOp>())
      function = func.getName().str();
    Value failed;
    for (Value cond : adaptor.getCondition()) {
      Value isFalse = arith::XOrIOp::create(rewriter, loc, cond,
                                            trueValue(rewriter, loc));
      failed = failed ? Value(arith::OrIOp::create(rewriter, loc, failed,
                                                   isFalse))
                      : isFalse;
    }
    emitIf(rewriter, loc, failed, [&] {
      state.target.assertFail(rewriter, loc, op.getMessage(), place.file,
                              place.line, function);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// A warp's record of entering or leaving a scope: its first lane writes
/// the scope, the warp's count of records and the time to the warp's next
/// slot (tile.scope_record). The count is a variable of each thread's own,
/// in its function's entry block, which LLVM keeps in a register.
class ScopeRecordPattern : public LoweringPattern<ScopeRecordOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(ScopeRecordOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetInfo &target = state.target;
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto i64Constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getI64IntegerAttr(value));
    };
    Value time = target.readTime(rewriter, loc);
    Value counter = counterOf(rewriter, op);
    Value count = LLVM::LoadOp::create(rewriter, loc, i32, counter);
    LLVM::StoreOp::create(rewriter, loc,
                          arith::AddIOp::create(rewriter, loc, count,
                                                i32Constant(rewriter, loc, 1)),
                          counter);
    // The program's number, x fastest, and its warp's.
    Value program = i32Constant(rewriter, loc, 0);
    for (ProgramAxis axis : {ProgramAxis::z, ProgramAxis::y, ProgramAxis::x})
      program = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, program,
                                target.numPrograms(rewriter, loc, axis)),
          target.programId(rewriter, loc, axis));
    HardwareIds ids = emitHardwareIds(rewriter, loc, target);
    Value warp = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, program,
                              i32Constant(rewriter, loc, op.getWarps())),
        ids.warp);
    // Its slot, in words of 8 bytes: two a record.
    Value slot = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc,
                              arith::ExtUIOp::create(rewriter, loc, i64, warp),
                              i64Constant(op.getSlots())),
        arith::ExtUIOp::create(
            rewriter, loc, i64,
            arith::AndIOp::create(
                rewriter, loc, count,
                i32Constant(rewriter, loc, op.getSlots() - 1))));
    Value word = arith::MulIOp::create(rewriter, loc, slot, i64Constant(2));
    Value tag = arith::OrIOp::create(
        rewriter, loc,
        arith::ShLIOp::create(rewriter, loc,
                              arith::ExtUIOp::create(rewriter, loc, i64, count),
                              i64Constant(32)),
        i64Constant(int64_t(op.getScope()) << 1 | (op.getEnd() ? 1 : 0)));
    Value buffer = adaptor.getBuffer().front();
    Value first = LLVM::GEPOp::create(rewriter, loc, buffer.getType(), i64,
                                      buffer, ValueRange{word});
    Value second = LLVM::GEPOp::create(rewriter, loc, buffer.getType(), i64,
                                       first, ArrayRef<LLVM::GEPArg>{1});
    Value writes = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, ids.lane,
                              i32Constant(rewriter, loc, 0)),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                              ids.warp,
                              i32Constant(rewriter, loc, op.getWarps())));
    emitIf(rewriter, loc, writes, [&] {
      LLVM::StoreOp::create(rewriter, loc, tag, first, /*alignment=*/16);
      LLVM::StoreOp::create(rewriter, loc, time, second, /*alignment=*/8);
    });
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// The count of `op`'s function, made (zero) at its entry the first time.
  Value counterOf(ConversionPatternRewriter &rewriter, Operation *op) const {
    Operation *function =
        op->getParentWithTrait<mlir::OpTrait::IsIsolatedFromAbove>();
    Value &counter = counters[function];
    if (counter)
      return counter;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&function->getRegion(0).front());
    Location loc = function->getLoc();
    Type i32 = rewriter.getI32Type();
    counter = LLVM::AllocaOp::create(
        rewriter, loc,
        LLVM::LLVMPointerType::get(rewriter.getContext(),
                                   state.target.getPrivateAddressSpace()),
        i32, i32Constant(rewriter, loc, 1));
    LLVM::StoreOp::create(rewriter, loc, i32Constant(rewriter, loc, 0),
                          counter);
    return counter;
  }

  mutable DenseMap<Operation *, Value> counters;
};

} // namespace

void mlir::tile::populateMemoryOpPatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          LoweringState &state) {
  patterns.add<LoadPattern, StorePattern, AtomicRMWPattern, AtomicCASPattern,
               PrintPattern, AssertPattern, ScopeRecordPattern>(converter,
                                                                state);
}
