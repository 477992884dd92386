//===- LowerToLLVM.cpp - tile IR with layouts to the LLVM dialect ---------===//
//
// Two steps. First every tensor becomes the registers its layout gives each
// thread (a 1:N type conversion): tile ops become scalar arith, scf and LLVM
// dialect code, with the target's hooks where a vendor differs. Then the
// standard conversions take arith, math, scf, cf and func to the LLVM
// dialect.
//
//===----------------------------------------------------------------------===//

#include "backends/common/LowerToLLVM.h"
#include "backends/common/Lowering.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileDialect.h"
#include "transforms/AxisInfo.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/MapVector.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

TargetInfo::~TargetInfo() = default;

ModuleOp mlir::tile::enclosingModule(OpBuilder &b) {
  return b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
}

LLVM::LLVMFuncOp mlir::tile::declareFunction(OpBuilder &b, ModuleOp module,
                                             StringRef name,
                                             LLVM::LLVMFunctionType type) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

Value mlir::tile::stringConstant(OpBuilder &b, Location loc, StringRef text) {
  ModuleOp module = enclosingModule(b);
  std::string value = (text + llvm::StringRef("\0", 1)).str();
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
  LLVM::GlobalOp global;
  // Reuse an identical string.
  for (auto existing : module.getOps<LLVM::GlobalOp>())
    if (auto s = dyn_cast_or_null<StringAttr>(existing.getValueOrNull()))
      if (existing.getConstant() && s.getValue() == value)
        global = existing;
  if (!global) {
    unsigned n = 0;
    std::string name;
    do
      name = "tessera_str_" + std::to_string(n++);
    while (module.lookupSymbol(name));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    b.getStringAttr(value));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

//===----------------------------------------------------------------------===//
// Layouts as index arithmetic
//===----------------------------------------------------------------------===//

std::optional<LinearLayout> mlir::tile::layoutOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  return toLinearLayout(tensor);
}

unsigned mlir::tile::numRegisters(const LinearLayout &layout) {
  return layout.hasInDim(kRegister) ? layout.getInDimSize(kRegister) : 1;
}

SmallVector<int32_t> mlir::tile::registerCoords(const LinearLayout &layout,
                                                unsigned reg) {
  SmallVector<int32_t> coords;
  if (!layout.hasInDim(kRegister)) {
    coords.assign(layout.getNumOutDims(), 0);
    return coords;
  }
  for (auto &[name, value] : layout.apply({{kRegister, int32_t(reg)}}))
    coords.push_back(value);
  return coords;
}

RegisterIndex::RegisterIndex(LinearLayout layout, ValueRange values)
    : layout(std::move(layout)), values(values) {
  for (unsigned r = 0, e = numRegisters(this->layout); r < e; ++r)
    index.emplace(registerCoords(this->layout, r), r);
}

unsigned RegisterIndex::at(ArrayRef<int32_t> coords) const {
  auto it = index.find(SmallVector<int32_t>(coords));
  return it == index.end() ? ~0u : it->second;
}

SmallVector<Value> RegisterIndex::run(ArrayRef<int32_t> coords, unsigned along,
                                      int64_t count) const {
  SmallVector<int32_t> position(coords);
  SmallVector<Value> run;
  for (int64_t i = 0; i < count; ++i, ++position[along]) {
    unsigned r = at(position);
    if (r == ~0u)
      return {};
    run.push_back(values[r]);
  }
  return run;
}

Value mlir::tile::i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

HardwareIds mlir::tile::emitHardwareIds(OpBuilder &b, Location loc,
                                        const TargetInfo &target) {
  Value tid = target.threadId(b, loc);
  Value warpSize = i32Constant(b, loc, target.getWarpSize());
  return {arith::RemUIOp::create(b, loc, tid, warpSize),
          arith::DivUIOp::create(b, loc, tid, warpSize)};
}

namespace {
/// Calls `fn(bit, basis, id)` for each lane and warp bit of `layout`.
void forEachHardwareBit(
    const LinearLayout &layout, HardwareIds ids,
    llvm::function_ref<void(int, ArrayRef<int32_t>, Value)> fn) {
  for (auto [name, id] : {std::pair{kLane, ids.lane}, {kWarp, ids.warp}}) {
    if (!layout.hasInDim(name))
      continue;
    for (int bit = 0; bit < layout.getInDimSizeLog2(name); ++bit)
      fn(bit, layout.getBasis(name, bit), id);
  }
}
} // namespace

SmallVector<SmallVector<Value>>
mlir::tile::emitCoords(OpBuilder &b, Location loc, const LinearLayout &layout,
                       HardwareIds ids) {
  unsigned rank = layout.getNumOutDims();
  // The part lanes and warps give, and the bits it may set.
  SmallVector<Value> hardware(rank);
  SmallVector<int32_t> hardwareBits(rank, 0);
  forEachHardwareBit(layout, ids, [&](int bit, ArrayRef<int32_t> basis,
                                      Value id) {
    Value bitValue;
    for (unsigned d = 0; d < rank; ++d) {
      if (!basis[d])
        continue;
      if (!bitValue)
        bitValue = arith::AndIOp::create(
            b, loc,
            arith::ShRUIOp::create(b, loc, id, i32Constant(b, loc, bit)),
            i32Constant(b, loc, 1));
      Value term =
          arith::MulIOp::create(b, loc, bitValue, i32Constant(b, loc, basis[d]));
      hardware[d] = hardware[d]
                        ? Value(arith::XOrIOp::create(b, loc, hardware[d], term))
                        : term;
      hardwareBits[d] |= basis[d];
    }
  });
  // A register's part XORs into the bits lanes and warps may set, and adds
  // to the rest: disjoint bits add without carries (or wrapping), and an
  // `add` with no wrap lets LLVM fold that part into addresses. The XORed
  // values are made once each, so registers differing only in the added
  // bits share one.
  SmallVector<DenseMap<int32_t, Value>> xored(rank);
  SmallVector<SmallVector<Value>> result;
  for (unsigned r = 0, e = numRegisters(layout); r < e; ++r) {
    SmallVector<int32_t> regCoords = registerCoords(layout, r);
    SmallVector<Value> &coords = result.emplace_back();
    for (unsigned d = 0; d < rank; ++d) {
      if (!hardware[d]) {
        coords.push_back(i32Constant(b, loc, regCoords[d]));
        continue;
      }
      int32_t overlap = regCoords[d] & hardwareBits[d];
      int32_t rest = regCoords[d] & ~hardwareBits[d];
      Value &base = xored[d][overlap];
      if (!base)
        base = overlap ? Value(arith::XOrIOp::create(
                             b, loc, hardware[d], i32Constant(b, loc, overlap)))
                       : hardware[d];
      coords.push_back(rest ? Value(arith::AddIOp::create(
                                  b, loc, base, i32Constant(b, loc, rest),
                                  arith::IntegerOverflowFlags::nsw |
                                      arith::IntegerOverflowFlags::nuw))
                            : base);
    }
  }
  return result;
}

std::optional<SmallVector<unsigned>> mlir::tile::mapRegisters(
    const LinearLayout &src, const LinearLayout &dst,
    llvm::function_ref<SmallVector<int32_t>(ArrayRef<int32_t>)> toSrc) {
  for (const char *name : {kLane, kWarp, kBlock}) {
    int bits = dst.hasInDim(name) ? dst.getInDimSizeLog2(name) : 0;
    if (bits != (src.hasInDim(name) ? src.getInDimSizeLog2(name) : 0))
      return std::nullopt;
    for (int bit = 0; bit < bits; ++bit)
      if (!llvm::equal(toSrc(dst.getBasis(name, bit)),
                       src.getBasis(name, bit)))
        return std::nullopt;
  }
  std::map<SmallVector<int32_t>, unsigned> srcRegisters;
  for (unsigned s = 0, e = numRegisters(src); s < e; ++s)
    srcRegisters.emplace(registerCoords(src, s), s);
  SmallVector<unsigned> result;
  for (unsigned r = 0, e = numRegisters(dst); r < e; ++r) {
    auto it = srcRegisters.find(toSrc(registerCoords(dst, r)));
    if (it == srcRegisters.end())
      return std::nullopt;
    result.push_back(it->second);
  }
  return result;
}

namespace {
int32_t freeMask(const LinearLayout &layout, StringRef inDim) {
  for (auto &[name, mask] : layout.getFreeVariableMasks())
    if (name == inDim)
      return mask;
  return 0;
}
} // namespace

Value mlir::tile::emitIsCanonicalThread(OpBuilder &b, Location loc,
                                        const LinearLayout &layout,
                                        HardwareIds ids) {
  Value result = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (auto [name, id] : {std::pair{kLane, ids.lane}, {kWarp, ids.warp}}) {
    int32_t mask = freeMask(layout, name);
    if (!mask)
      continue;
    Value bits = arith::AndIOp::create(b, loc, id, i32Constant(b, loc, mask));
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                         i32Constant(b, loc, 0));
    result = arith::AndIOp::create(b, loc, result, isZero);
  }
  return result;
}

bool mlir::tile::isDuplicateRegister(const LinearLayout &layout,
                                     unsigned reg) {
  return (reg & freeMask(layout, kRegister)) != 0;
}

//===----------------------------------------------------------------------===//
// Shared memory and cross-lane helpers
//===----------------------------------------------------------------------===//

void LoweringState::requireScratch(OpBuilder &b, int64_t bytes) {
  // The op being lowered is at the insertion point; elsewhere (inside code a
  // pattern made) every buffer may be live.
  Block *block = b.getInsertionBlock();
  Operation *op = block && b.getInsertionPoint() != block->end()
                      ? &*b.getInsertionPoint()
                      : nullptr;
  scratchBase = allocation ? allocation->buffersEnd : 0;
  if (op && isa_and_nonnull<TileDialect>(op->getDialect()))
    scratchBase = allocation ? allocation->scratchBases.lookup(op) : 0;
  sharedBytes = std::max(sharedBytes, scratchBase + bytes);
}

Value mlir::tile::sharedBase(OpBuilder &b, Location loc,
                             const LoweringState &state, int64_t offset) {
  auto ptrType = LLVM::LLVMPointerType::get(
      b.getContext(), state.target.getSharedAddressSpace());
  Value base = LLVM::AddressOfOp::create(b, loc, ptrType, state.sharedSymbol);
  if (!offset)
    return base;
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

Value mlir::tile::sharedAddress(OpBuilder &b, Location loc,
                                const LoweringState &state, Value byteOffset) {
  Value base = sharedBase(b, loc, state, state.scratchBase);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{byteOffset});
}

Value mlir::tile::scratchElement(OpBuilder &b, Location loc,
                                 const LoweringState &state, Value index,
                                 unsigned bytes) {
  return sharedAddress(
      b, loc, state,
      arith::MulIOp::create(b, loc, index, i32Constant(b, loc, bytes)));
}

unsigned mlir::tile::storageBytes(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 8;
  return std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

Type mlir::tile::memoryType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  if (isa<FloatType>(type) && !LLVM::isCompatibleType(type))
    return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
  return type;
}

Value mlir::tile::toMemory(OpBuilder &b, Location loc, Value value) {
  Type type = memoryType(value.getType());
  if (type == value.getType())
    return value;
  if (value.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, type, value);
  return arith::BitcastOp::create(b, loc, type, value);
}

Value mlir::tile::fromMemory(OpBuilder &b, Location loc, Value value,
                             Type type) {
  if (value.getType() == type)
    return value;
  if (type.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 arith::ConstantIntOp::create(b, loc, 0, 8));
  return arith::BitcastOp::create(b, loc, type, value);
}

void mlir::tile::storeShared(OpBuilder &b, Location loc, Value address,
                             Value value) {
  LLVM::StoreOp::create(b, loc, toMemory(b, loc, value), address);
}

Value mlir::tile::loadShared(OpBuilder &b, Location loc, Value address,
                             Type type) {
  return fromMemory(
      b, loc, LLVM::LoadOp::create(b, loc, memoryType(type), address), type);
}

namespace {
/// Moves any scalar through a 32-bit cross-lane operation.
Value shuffleAny(OpBuilder &b, Location loc, Value value,
                 llvm::function_ref<Value(Value)> shuffle32) {
  Type type = value.getType();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (isa<LLVM::LLVMPointerType>(type)) {
    Value asInt = LLVM::PtrToIntOp::create(b, loc, i64, value);
    return LLVM::IntToPtrOp::create(b, loc, type,
                                    shuffleAny(b, loc, asInt, shuffle32));
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = type.isInteger()
                    ? value
                    : Value(arith::BitcastOp::create(b, loc, intType, value));
  Value result;
  if (bits <= 32) {
    Value wide = bits < 32 ? Value(arith::ExtUIOp::create(b, loc, i32, asInt))
                           : asInt;
    result = shuffle32(wide);
    if (bits < 32)
      result = arith::TruncIOp::create(b, loc, intType, result);
  } else {
    assert(bits == 64 && "scalars are at most 64 bits");
    Value c32 = arith::ConstantIntOp::create(b, loc, 32, 64);
    Value lo = shuffle32(arith::TruncIOp::create(b, loc, i32, asInt));
    Value hi = shuffle32(arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, asInt, c32)));
    result = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                              c32));
  }
  return type.isInteger() ? result
                          : Value(arith::BitcastOp::create(b, loc, type, result));
}
} // namespace

Value mlir::tile::shuffleXor(OpBuilder &b, Location loc,
                             const TargetInfo &target, Value value,
                             unsigned mask) {
  return shuffleAny(b, loc, value, [&](Value v) {
    return target.shuffleXor(b, loc, v, mask);
  });
}

Value mlir::tile::shuffleIndex(OpBuilder &b, Location loc,
                               const TargetInfo &target, Value value,
                               Value lane) {
  return shuffleAny(b, loc, value, [&](Value v) {
    return target.shuffleIndex(b, loc, v, lane);
  });
}

void mlir::tile::emitIf(OpBuilder &b, Location loc, Value cond,
                        llvm::function_ref<void()> body) {
  auto branch = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  body();
}

SmallVector<Value> mlir::tile::emitCombine(OpBuilder &b, Location loc,
                                           Region &combiner, ValueRange lhs,
                                           ValueRange rhs) {
  Block &body = combiner.front();
  IRMapping mapping;
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    mapping.map(body.getArgument(i), lhs[i]);
    mapping.map(body.getArgument(n + i), rhs[i]);
  }
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

std::optional<WarpRegion> mlir::tile::warpsAt(Block *block) {
  auto [region, index] =
      WarpSpecializeOp::regionOf(block ? block->getParent() : nullptr);
  if (!region)
    return std::nullopt;
  auto module = region->getParentOfType<ModuleOp>();
  auto numWarps = module->getAttrOfType<IntegerAttr>("tile.num_warps");
  auto [first, count] =
      region.warpsOf(index, numWarps ? numWarps.getInt() : 4);
  return WarpRegion{first, count, index};
}

//===----------------------------------------------------------------------===//
// Default global memory accesses: branches around plain loads and stores
//===----------------------------------------------------------------------===//

namespace {
/// The alignment of an access of `type` (a scalar or a vector) to global
/// memory: its element's where `target` has unaligned accesses, else its own.
unsigned accessAlignment(const TargetInfo &target, Type type) {
  unsigned bytes = storageBytes(getElementTypeOrSelf(type));
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || target.hasUnalignedAccesses())
    return bytes;
  return bytes * vector.getNumElements();
}
} // namespace

Value TargetInfo::loadGlobal(OpBuilder &b, Location loc, Value ptr, Type type,
                             Value pred, Value other, CacheModifier,
                             EvictionPolicy, bool isVolatile) const {
  if (!other)
    other = LLVM::ZeroOp::create(b, loc, type);
  auto branch = scf::IfOp::create(
      b, loc, pred,
      [&](OpBuilder &b, Location loc) {
        Value v = LLVM::LoadOp::create(
            b, loc, type, ptr, accessAlignment(*this, type), isVolatile);
        scf::YieldOp::create(b, loc, v);
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, other); });
  return branch.getResult(0);
}

void TargetInfo::storeGlobal(OpBuilder &b, Location loc, Value ptr, Value value,
                             Value pred, CacheModifier, EvictionPolicy) const {
  scf::IfOp::create(b, loc, pred, [&](OpBuilder &b, Location loc) {
    LLVM::StoreOp::create(b, loc, value, ptr,
                          accessAlignment(*this, value.getType()));
    scf::YieldOp::create(b, loc);
  });
}

//===----------------------------------------------------------------------===//
// The lowering
//===----------------------------------------------------------------------===//

namespace {

/// Tensors become the registers of their layout, pointers LLVM pointers.
class RegisterTypeConverter : public TypeConverter {
public:
  RegisterTypeConverter(MLIRContext *context, unsigned sharedSpace) {
    addConversion([](Type type) { return type; });
    addConversion([context](PointerType type) -> Type {
      return LLVM::LLVMPointerType::get(context, type.getAddressSpace());
    });
    // A shared-memory view: the address of its buffer, and its offset in
    // each dimension of the buffer's layout (i32).
    addConversion([context, sharedSpace](MemDescType type, SmallVectorImpl<Type> &results)
                      -> std::optional<LogicalResult> {
      results.push_back(LLVM::LLVMPointerType::get(context, sharedSpace));
      results.append(type.getRank(), IntegerType::get(context, 32));
      return success();
    });
    addConversion([this](RankedTensorType type, SmallVectorImpl<Type> &results)
                      -> std::optional<LogicalResult> {
      std::optional<LinearLayout> layout = layoutOf(type);
      if (!layout)
        return failure();
      results.append(numRegisters(*layout),
                     convertType(type.getElementType()));
      return success();
    });
  }
};

/// Each tile.warp_specialize as branches on the warp's index, each region
/// on its warps, its registers set first where the op says.
void lowerWarpSpecialize(ModuleOp module, const TargetInfo &target,
                         unsigned numWarps) {
  SmallVector<WarpSpecializeOp> ops;
  module.walk([&](WarpSpecializeOp op) { ops.push_back(op); });
  for (WarpSpecializeOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value warp = arith::DivUIOp::create(
        b, loc, target.threadId(b, loc),
        i32Constant(b, loc, target.getWarpSize()));
    std::optional<ArrayRef<int32_t>> regs = op.getPartitionNumRegs();
    unsigned regions = op->getNumRegions();
    for (unsigned i = 0; i < regions; ++i) {
      bool last = i + 1 == regions;
      auto [first, count] = op.warpsOf(i, numWarps);
      // Warps past the first regions' run the last one.
      Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         warp,
                                         i32Constant(b, loc, first + count));
      auto branch = scf::IfOp::create(b, loc, here, /*withElseRegion=*/!last);
      Block *then = branch.thenBlock();
      Region &region = op->getRegion(i);
      Block &body = region.front();
      body.getTerminator()->erase();
      then->getOperations().splice(then->begin(), body.getOperations());
      b.setInsertionPointToStart(then);
      if (regs)
        target.setRegisters(b, loc,
                            i ? (*regs)[i - 1] : *op.getDefaultNumRegs(),
                            /*increase=*/i == 0);
      if (last)
        break;
      b.setInsertionPointToStart(branch.elseBlock());
    }
    op.erase();
  }
}

/// Each scf.if outside structured loops as branches, in time linear in the
/// ops of its block: a block's ifs are taken last first, so that splitting
/// the block after one moves only the ops up to the next, each op once.
/// (MLIR's conversion pattern moves the rest of the block for each if and
/// keeps a record of every move: quadratic in straight-line code with one
/// if per masked load, as AMD's.) Ifs in the regions of others come out
/// in later rounds, as their blocks join the control-flow graph.
void lowerIfsToBranches(ModuleOp module) {
  for (;;) {
    // The ifs whose block is already a control-flow graph's, by block.
    llvm::MapVector<Block *, SmallVector<scf::IfOp>> ifs;
    module.walk([&](scf::IfOp op) {
      Operation *parent = op->getParentOp();
      if (!isa<scf::SCFDialect>(parent->getDialect()))
        ifs[op->getBlock()].push_back(op);
    });
    if (ifs.empty())
      return;
    IRRewriter rewriter(module.getContext());
    for (auto &[block, ops] : ifs)
      for (scf::IfOp op : llvm::reverse(ops)) {
        Location loc = op.getLoc();
        Block *before = op->getBlock();
        Block *after =
            rewriter.splitBlock(before, std::next(op->getIterator()));
        for (Value result : op.getResults())
          result.replaceAllUsesWith(after->addArgument(result.getType(), loc));
        // Each branch's block ends with a jump to `after`, passing what it
        // yields.
        auto inlineRegion = [&](Region &region) -> Block * {
          if (region.empty())
            return after;
          Block *first = &region.front();
          for (Block &branchBlock : region)
            if (auto yield =
                    dyn_cast<scf::YieldOp>(branchBlock.getTerminator())) {
              rewriter.setInsertionPoint(yield);
              rewriter.replaceOpWithNewOp<cf::BranchOp>(yield, after,
                                                        yield.getOperands());
            }
          rewriter.inlineRegionBefore(region, after);
          return first;
        };
        Block *thenBlock = inlineRegion(op.getThenRegion());
        Block *elseBlock = inlineRegion(op.getElseRegion());
        rewriter.setInsertionPointToEnd(before);
        cf::CondBranchOp::create(rewriter, loc, op.getCondition(), thenBlock,
                                 elseBlock);
        rewriter.eraseOp(op);
      }
  }
}

/// Alignment hints and no tile attributes on the kernel's arguments.
void finishKernels(ModuleOp module, const TargetInfo &target,
                   unsigned threadsPerBlock) {
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal() || func.isPrivate())
      return;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      auto divisibility =
          func.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility");
      if (divisibility &&
          isa<LLVM::LLVMPointerType>(func.getArgument(i).getType()))
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        divisibility);
      func.removeArgAttr(i, "tile.divisibility");
    }
    target.markKernel(func, threadsPerBlock);
  });
}

/// Drops each block-wide barrier that follows another with only ops
/// without memory effects between them: a store to shared memory ends with
/// a barrier and the next one begins with one (two operands stored after a
/// pipelined loop's dots).
void dropRepeatedBarriers(ModuleOp module, const TargetInfo &target) {
  module.walk([&](Block *block) {
    bool synced = false;
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (target.isBarrier(&op)) {
        if (synced)
          op.erase();
        synced = true;
      } else if (!isMemoryEffectFree(&op)) {
        synced = false;
      }
    }
  });
}

} // namespace

LogicalResult mlir::tile::lowerToLLVM(ModuleOp module,
                                      const TargetInfo &target) {
  MLIRContext *context = module.getContext();
  context->loadDialect<LLVM::LLVMDialect, scf::SCFDialect,
                       cf::ControlFlowDialect, arith::ArithDialect,
                       math::MathDialect>();
  Location loc = module.getLoc();
  if (failed(verifyTileTensors(module)))
    return failure();
  auto numWarpsAttr = module->getAttrOfType<IntegerAttr>("tile.num_warps");
  auto warpSizeAttr = module->getAttrOfType<IntegerAttr>("tile.warp_size");
  if (!numWarpsAttr || !warpSizeAttr)
    return emitError(loc, "lowering needs layouts: run tile-assign-layouts "
                          "first (the module has no tile.num_warps)");
  if (warpSizeAttr.getInt() != target.getWarpSize())
    return emitError(loc) << "layouts were assigned for " << warpSizeAttr.getInt()
                          << "-lane warps, the target has "
                          << target.getWarpSize();
  unsigned numWarps = numWarpsAttr.getInt();
  // Warp-specialized kernels launch the warps of their partitions too.
  unsigned totalWarps = numWarps;
  WalkResult specialized = module.walk([&](WarpSpecializeOp op) {
    if (!target.hasWarpSpecialization()) {
      op.emitError("warp specialization is not supported on this target");
      return WalkResult::interrupt();
    }
    totalWarps = std::max(totalWarps, op.totalWarps(numWarps));
    return WalkResult::advance();
  });
  if (specialized.wasInterrupted())
    return failure();
  module->setAttr(kTotalWarpsAttr,
                  IntegerAttr::get(IntegerType::get(context, 32), totalWarps));

  // Aligned for the buffers that need it most (SharedMemoryAllocation.cpp).
  StringRef sharedSymbol = "tessera_shared";
  {
    OpBuilder b(context);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, sharedSymbol,
        Attribute(), /*alignment=*/1024, target.getSharedAddressSpace());
  }

  // Tensors to registers.
  {
    SharedAllocation allocation = allocateSharedMemory(module);
    AxisInfoAnalysis axis(module);
    LoweringState state{*context,   target,       axis,       numWarps,
                        allocation.buffersEnd, sharedSymbol, &allocation};
    RegisterTypeConverter converter(context, target.getSharedAddressSpace());
    ConversionTarget legal(*context);
    legal.addIllegalDialect<TileDialect>();
    legal.addLegalOp<ReduceReturnOp, ScanReturnOp, WarpSpecializeOp,
                     WarpYieldOp>();
    legal.addLegalDialect<LLVM::LLVMDialect>();
    legal.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    // Backends' own dialects (tile_nvidia, ...) are lowered here too.
    legal.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return !op->getName().getDialectNamespace().starts_with("tile_") &&
             converter.isLegal(op);
    });
    RewritePatternSet patterns(context);
    populateTensorOpPatterns(converter, patterns, state);
    populateMemoryOpPatterns(converter, patterns, state);
    populateSharedMemoryOpPatterns(converter, patterns, state);
    populateReductionOpPatterns(converter, patterns, state);
    target.populateDotPatterns(converter, patterns, state);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         legal);
    if (failed(applyPartialConversion(module, legal, std::move(patterns))))
      return failure();
    module->setAttr(kSharedBytesAttr,
                    IntegerAttr::get(IntegerType::get(context, 32),
                                     state.sharedBytes));
  }

  // Structured control flow to branches: loops first, so that the ifs in
  // their bodies join a control-flow graph, then the ifs.
  lowerWarpSpecialize(module, target, numWarps);
  for (bool loops : {true, false}) {
    if (!loops)
      lowerIfsToBranches(module);
    ConversionTarget legal(*context);
    legal.addIllegalDialect<scf::SCFDialect>();
    if (loops)
      legal.addLegalOp<scf::IfOp, scf::YieldOp>();
    legal.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateSCFToControlFlowConversionPatterns(patterns);
    if (failed(applyPartialConversion(module, legal, std::move(patterns))))
      return failure();
  }

  // Everything to the LLVM dialect.
  {
    LLVMTypeConverter converter(context);
    // Target ops (NVVM, ROCDL) stay as they are.
    ConversionTarget legal(*context);
    legal.addIllegalDialect<arith::ArithDialect, math::MathDialect,
                            cf::ControlFlowDialect, func::FuncDialect>();
    legal.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    target.populateMathPatterns(converter, patterns);
    populateFloat8Patterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    if (failed(applyPartialConversion(module, legal, std::move(patterns))))
      return failure();
  }
  SmallVector<UnrealizedConversionCastOp> casts;
  module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
  reconcileUnrealizedCasts(casts);
  finishKernels(module, target, totalWarps * target.getWarpSize());
  dropRepeatedBarriers(module, target);
  return success();
}
