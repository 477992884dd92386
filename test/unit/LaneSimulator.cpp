//===- LaneSimulator.cpp - runs one workgroup of a lowered kernel on the host //

#include "test/unit/LaneSimulator.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace tessera::test {
namespace {

/// A value of one lane: its elements' bits (one for a scalar). Pointers are
/// 64-bit host addresses, floats their IEEE bits.
using Bits = SmallVector<APInt, 4>;

// Structs are those of words an inline assembly returns.
unsigned elementBits(Type *type) {
  if (auto *structType = dyn_cast<StructType>(type))
    type = structType->getElementType(0);
  Type *scalar = type->getScalarType();
  if (scalar->isPointerTy())
    return 64;
  return scalar->getPrimitiveSizeInBits().getFixedValue();
}

unsigned elementCount(Type *type) {
  if (auto *vector = dyn_cast<FixedVectorType>(type))
    return vector->getNumElements();
  if (auto *structType = dyn_cast<StructType>(type))
    return structType->getNumElements();
  return 1;
}

APFloat toFloat(Type *type, const APInt &bits) {
  return APFloat(type->getScalarType()->getFltSemantics(), bits);
}

/// Where a lane waits for others.
enum class Wait { none, warp, workgroup, done };

struct Lane {
  unsigned id = 0;
  const BasicBlock *block = nullptr;
  BasicBlock::const_iterator next;
  DenseMap<const Value *, Bits> values;
  Wait wait = Wait::none;
};

struct Buffer {
  uint64_t begin;
  uint64_t end;
};

} // namespace

class LaneSimulator::Impl {
public:
  Impl(Function &kernel, Workgroup workgroup)
      : kernel(kernel), group(workgroup),
        layout(kernel.getParent()->getDataLayout()) {
    // A 64-bit implicit argument block (AMD code object v5): the grid's
    // blocks per axis first.
    for (unsigned axis = 0; axis < 3; ++axis)
      implicitArgs[axis] = group.numPrograms[axis];
    addBuffer(implicitArgs.data(), sizeof(implicitArgs));
    for (GlobalVariable &global : kernel.getParent()->globals()) {
      if (global.getAddressSpace() != 3)
        continue;
      // Dynamic shared memory (a zero-sized array) gets what a GPU gives.
      uint64_t bytes = layout.getTypeAllocSize(global.getValueType());
      auto &storage = shared.emplace_back(bytes ? bytes : 64 * 1024, 0xcd);
      addBuffer(storage.data(), storage.size());
      globals[&global] = reinterpret_cast<uint64_t>(storage.data());
    }
  }

  void addBuffer(void *data, size_t bytes) {
    auto begin = reinterpret_cast<uint64_t>(data);
    buffers.push_back({begin, begin + bytes});
  }

  Error run(ArrayRef<uint64_t> args) {
    if (args.size() != kernel.arg_size())
      return fail("the kernel takes " + Twine(kernel.arg_size()) +
                  " arguments, not " + Twine(args.size()));
    this->args.assign(args.begin(), args.end());
    lanes.assign(group.numThreads, Lane());
    for (unsigned i = 0; i < lanes.size(); ++i) {
      lanes[i].id = i;
      lanes[i].block = &kernel.getEntryBlock();
      lanes[i].next = lanes[i].block->begin();
    }
    while (true) {
      for (Lane &lane : lanes)
        if (lane.wait == Wait::none)
          if (Error error = runUntilWait(lane))
            return error;
      bool exchanged = false;
      for (unsigned first = 0; first < lanes.size(); first += group.warpSize) {
        auto warp = MutableArrayRef(lanes).slice(
            first, std::min<size_t>(group.warpSize, lanes.size() - first));
        if (llvm::none_of(warp, [](Lane &l) { return l.wait == Wait::warp; }))
          continue;
        if (Error error = exchange(warp))
          return error;
        exchanged = true;
      }
      if (exchanged)
        continue;
      if (llvm::all_of(lanes, [](Lane &l) { return l.wait == Wait::done; }))
        return Error::success();
      if (llvm::any_of(lanes, [](Lane &l) { return l.wait == Wait::done; }))
        return fail("some lanes returned while others wait at a barrier");
      for (Lane &lane : lanes) {
        lane.wait = Wait::none;
        ++lane.next;
      }
    }
  }

private:
  Error fail(const Twine &message) const {
    return createStringError(inconvertibleErrorCode(), message);
  }

  Error fail(const Lane &lane, const Instruction &inst,
             const Twine &message) const {
    std::string text;
    raw_string_ostream os(text);
    os << "lane " << lane.id << ": " << message << ": " << inst;
    return createStringError(inconvertibleErrorCode(), text);
  }

  /// Interprets `lane` until it returns or reaches a cross-lane operation
  /// or barrier.
  Error runUntilWait(Lane &lane) {
    while (lane.wait == Wait::none) {
      const Instruction &inst = *lane.next;
      Expected<bool> advanced = step(lane, inst);
      if (!advanced)
        return advanced.takeError();
      if (*advanced)
        ++lane.next;
    }
    return Error::success();
  }

  /// Runs the cross-lane operation every lane of `warp` waits at.
  Error exchange(MutableArrayRef<Lane> warp) {
    const Instruction *at = &*warp.front().next;
    for (Lane &lane : warp)
      if (lane.wait != Wait::warp || &*lane.next != at)
        return fail(lane, *at, "lanes of a warp diverge at");
    auto &call = cast<CallInst>(*at);
    StringRef name = call.getCalledFunction()->getName();
    SmallVector<APInt> results;
    for (Lane &lane : warp) {
      Expected<unsigned> source = sourceLane(lane, call, name);
      if (!source)
        return source.takeError();
      // The value is the second operand of ds_bpermute and shfl.sync.
      results.push_back(value(warp[*source], call.getArgOperand(1))[0]);
    }
    for (auto [lane, result] : llvm::zip(warp, results)) {
      lane.values[&call] = {result};
      lane.wait = Wait::none;
      ++lane.next;
    }
    return Error::success();
  }

  /// The lane (within its warp) whose value `call` reads for `lane`.
  Expected<unsigned> sourceLane(Lane &lane, const CallInst &call,
                                StringRef name) {
    unsigned self = lane.id % group.warpSize;
    if (name == "llvm.amdgcn.ds.bpermute") {
      // Byte addresses; a 64-lane wavefront reads bits 7:2, 32 lanes 6:2.
      uint64_t address = value(lane, call.getArgOperand(0))[0].getZExtValue();
      return (address / 4) % group.warpSize;
    }
    // PTX shfl.sync: b selects the lane, c packs the segment mask (bits
    // 12:8) and the clamp (bits 4:0).
    uint64_t b = value(lane, call.getArgOperand(2))[0].getZExtValue();
    uint64_t c = value(lane, call.getArgOperand(3))[0].getZExtValue();
    uint64_t segment = (c >> 8) & 0x1f;
    uint64_t minLane = self & segment;
    uint64_t maxLane = minLane | (c & 0x1f & ~segment);
    uint64_t source;
    bool valid;
    if (name.starts_with("llvm.nvvm.shfl.sync.bfly")) {
      source = self ^ b;
      valid = source <= maxLane;
    } else if (name.starts_with("llvm.nvvm.shfl.sync.idx")) {
      source = minLane | (b & 0x1f & ~segment);
      valid = source <= maxLane;
    } else if (name.starts_with("llvm.nvvm.shfl.sync.down")) {
      source = self + b;
      valid = source <= maxLane;
    } else if (name.starts_with("llvm.nvvm.shfl.sync.up")) {
      source = self - b;
      valid = int64_t(source) >= int64_t(maxLane);
    } else {
      return fail(lane, call, "unknown cross-lane operation");
    }
    return valid ? source : self;
  }

  Bits value(Lane &lane, const Value *v) {
    if (auto it = lane.values.find(v); it != lane.values.end())
      return it->second;
    if (auto *arg = dyn_cast<Argument>(v))
      return {APInt(elementBits(arg->getType()), args[arg->getArgNo()])};
    return constant(cast<Constant>(v));
  }

  Bits constant(const Constant *c) {
    Type *type = c->getType();
    unsigned bits = elementBits(type);
    if (auto *i = dyn_cast<ConstantInt>(c))
      return {i->getValue()};
    if (auto *f = dyn_cast<ConstantFP>(c))
      return {f->getValueAPF().bitcastToAPInt()};
    if (auto *global = dyn_cast<GlobalVariable>(c))
      return {APInt(64, globals.lookup(global))};
    if (isa<ConstantAggregateZero, UndefValue, ConstantPointerNull>(c))
      return Bits(elementCount(type), APInt(bits, 0));
    if (auto *data = dyn_cast<ConstantDataVector>(c)) {
      Bits out;
      for (unsigned i = 0; i < data->getNumElements(); ++i)
        out.push_back(data->getElementType()->isFloatingPointTy()
                          ? data->getElementAsAPFloat(i).bitcastToAPInt()
                          : data->getElementAsAPInt(i));
      return out;
    }
    if (auto *gep = dyn_cast<GEPOperator>(c))
      return {address(*gep, [&](const Value *v) {
        return constant(cast<Constant>(v))[0];
      })};
    if (auto *expr = dyn_cast<ConstantExpr>(c);
        expr && expr->getOpcode() == Instruction::AddrSpaceCast)
      return constant(expr->getOperand(0));
    if (auto *vector = dyn_cast<ConstantVector>(c)) {
      Bits out;
      for (const Use &element : vector->operands())
        out.push_back(constant(cast<Constant>(element.get()))[0]);
      return out;
    }
    return {};
  }

  /// The address `gep` computes, its operands' values read by `read`.
  APInt address(const GEPOperator &gep,
                function_ref<APInt(const Value *)> read) {
    APInt address = read(gep.getPointerOperand());
    for (auto it = gep_type_begin(gep), end = gep_type_end(gep); it != end;
         ++it) {
      int64_t index = read(it.getOperand()).getSExtValue();
      if (StructType *structType = it.getStructTypeOrNull())
        address += layout.getStructLayout(structType)
                       ->getElementOffset(index)
                       .getFixedValue();
      else
        address +=
            index *
            int64_t(it.getSequentialElementStride(layout).getFixedValue());
    }
    return address;
  }

  /// Executes `inst`; false where it moved the lane itself (a branch) or
  /// stopped it.
  Expected<bool> step(Lane &lane, const Instruction &inst) {
    for (const Use &operand : inst.operands())
      if (auto *c = dyn_cast<Constant>(operand.get()))
        if (!isa<Function>(c) && constant(c).empty())
          return fail(lane, inst, "an unsupported constant in");
    auto set = [&](Bits bits) {
      lane.values[&inst] = std::move(bits);
      return true;
    };
    Type *type = inst.getType();
    if (auto *binary = dyn_cast<BinaryOperator>(&inst)) {
      Bits a = value(lane, binary->getOperand(0));
      Bits b = value(lane, binary->getOperand(1));
      Bits out;
      for (auto [x, y] : llvm::zip(a, b)) {
        std::optional<APInt> r = binaryOp(binary->getOpcode(), type, x, y);
        if (!r)
          return fail(lane, inst, "an unsupported or undefined operation");
        out.push_back(*r);
      }
      return set(std::move(out));
    }
    if (auto *neg = dyn_cast<UnaryOperator>(&inst)) {
      Bits out;
      for (const APInt &x : value(lane, neg->getOperand(0))) {
        APFloat f = toFloat(type, x);
        f.changeSign();
        out.push_back(f.bitcastToAPInt());
      }
      return set(std::move(out));
    }
    if (auto *compare = dyn_cast<CmpInst>(&inst)) {
      Bits a = value(lane, compare->getOperand(0));
      Bits b = value(lane, compare->getOperand(1));
      Type *operandType = compare->getOperand(0)->getType();
      Bits out;
      for (auto [x, y] : llvm::zip(a, b)) {
        bool r = isa<ICmpInst>(compare)
                     ? ICmpInst::compare(x, y, compare->getPredicate())
                     : FCmpInst::compare(toFloat(operandType, x),
                                         toFloat(operandType, y),
                                         compare->getPredicate());
        out.emplace_back(1, r);
      }
      return set(std::move(out));
    }
    if (auto *select = dyn_cast<SelectInst>(&inst)) {
      Bits condition = value(lane, select->getCondition());
      Bits a = value(lane, select->getTrueValue());
      Bits b = value(lane, select->getFalseValue());
      for (unsigned i = 0; i < a.size(); ++i)
        if (condition[condition.size() == 1 ? 0 : i].isZero())
          a[i] = b[i];
      return set(std::move(a));
    }
    if (auto *cast = dyn_cast<CastInst>(&inst))
      return castOp(lane, *cast);
    if (auto *extract = dyn_cast<ExtractElementInst>(&inst)) {
      Bits vector = value(lane, extract->getVectorOperand());
      uint64_t index =
          value(lane, extract->getIndexOperand())[0].getZExtValue();
      if (index >= vector.size())
        return fail(lane, inst, "an index out of range in");
      return set({vector[index]});
    }
    if (auto *extract = dyn_cast<ExtractValueInst>(&inst)) {
      if (extract->getNumIndices() != 1)
        return fail(lane, inst, "a nested aggregate in");
      return set({value(
          lane, extract->getAggregateOperand())[extract->getIndices()[0]]});
    }
    if (auto *insert = dyn_cast<InsertElementInst>(&inst)) {
      Bits vector = value(lane, insert->getOperand(0));
      uint64_t index = value(lane, insert->getOperand(2))[0].getZExtValue();
      if (index >= vector.size())
        return fail(lane, inst, "an index out of range in");
      vector[index] = value(lane, insert->getOperand(1))[0];
      return set(std::move(vector));
    }
    if (auto *shuffle = dyn_cast<ShuffleVectorInst>(&inst)) {
      Bits a = value(lane, shuffle->getOperand(0));
      Bits b = value(lane, shuffle->getOperand(1));
      Bits out;
      for (int index : shuffle->getShuffleMask())
        out.push_back(index < 0                    ? APInt(elementBits(type), 0)
                      : unsigned(index) < a.size() ? a[index]
                                                   : b[index - a.size()]);
      return set(std::move(out));
    }
    if (auto *gep = dyn_cast<GetElementPtrInst>(&inst)) {
      if (type->isVectorTy())
        return fail(lane, inst, "a vector of pointers in");
      return set({address(*cast<GEPOperator>(gep),
                          [&](const Value *v) { return value(lane, v)[0]; })});
    }
    if (auto *load = dyn_cast<LoadInst>(&inst)) {
      Expected<Bits> loaded =
          read(lane, inst, value(lane, load->getPointerOperand())[0], type);
      if (!loaded)
        return loaded.takeError();
      return set(std::move(*loaded));
    }
    if (auto *store = dyn_cast<StoreInst>(&inst)) {
      if (Error error =
              write(lane, inst, value(lane, store->getPointerOperand())[0],
                    value(lane, store->getValueOperand())))
        return std::move(error);
      return true;
    }
    if (auto *branch = dyn_cast<BranchInst>(&inst)) {
      unsigned successor = 0;
      if (branch->isConditional())
        successor = value(lane, branch->getCondition())[0].isZero() ? 1 : 0;
      enter(lane, branch->getSuccessor(successor));
      return false;
    }
    if (isa<ReturnInst>(inst)) {
      lane.wait = Wait::done;
      return false;
    }
    if (isa<FenceInst>(inst))
      return true;
    if (auto *call = dyn_cast<CallInst>(&inst))
      return callOp(lane, *call);
    return fail(lane, inst, "an instruction the simulator does not know");
  }

  /// The value of `type` at `address`.
  Expected<Bits> read(Lane &lane, const Instruction &inst, const APInt &address,
                      Type *type) {
    unsigned bytes = elementBits(type) / 8;
    unsigned count = elementCount(type);
    uint64_t at = address.getZExtValue();
    if (elementBits(type) % 8 || !inBuffer(at, count * bytes))
      return fail(lane, inst, "an access outside every buffer in");
    Bits out;
    for (unsigned i = 0; i < count; ++i) {
      uint64_t word = 0;
      std::memcpy(&word, reinterpret_cast<void *>(at + i * bytes), bytes);
      out.push_back(APInt(bytes * 8, word));
    }
    return out;
  }

  Error write(Lane &lane, const Instruction &inst, const APInt &address,
              const Bits &data) {
    unsigned bits = data[0].getBitWidth();
    uint64_t at = address.getZExtValue();
    if (bits % 8 || !inBuffer(at, data.size() * bits / 8))
      return fail(lane, inst, "an access outside every buffer in");
    for (unsigned i = 0; i < data.size(); ++i) {
      uint64_t word = data[i].getZExtValue();
      std::memcpy(reinterpret_cast<void *>(at + i * bits / 8), &word, bits / 8);
    }
    return Error::success();
  }

  /// NVIDIA's predicated global loads and stores, the one inline assembly
  /// a kernel holds: `@p ld.global... {words}, [ptr]` after moves of the
  /// masked-off value (operands: predicate, address, that value's words),
  /// and `@p st.global... [ptr], {words}` (predicate, address, words).
  Expected<bool> inlineAsmOp(Lane &lane, const CallInst &call) {
    StringRef text = cast<InlineAsm>(call.getCalledOperand())->getAsmString();
    bool predicate = !value(lane, call.getArgOperand(0))[0].isZero();
    APInt address = value(lane, call.getArgOperand(1))[0];
    Bits words;
    for (unsigned i = 2; i < call.arg_size(); ++i)
      words.push_back(value(lane, call.getArgOperand(i))[0]);
    if (text.contains(" ld.global") || text.contains(" ld.volatile.global")) {
      if (predicate) {
        Expected<Bits> loaded = read(lane, call, address, call.getType());
        if (!loaded)
          return loaded.takeError();
        words = std::move(*loaded);
      }
      if (words.empty())
        words.assign(elementCount(call.getType()),
                     APInt(elementBits(call.getType()), 0));
      lane.values[&call] = std::move(words);
      return true;
    }
    if (text.contains("st.global")) {
      if (predicate)
        if (Error error = write(lane, call, address, words))
          return std::move(error);
      return true;
    }
    return fail(lane, call, "inline assembly the simulator does not know");
  }

  /// Moves `lane` into `block`, its phis taking their values all at once.
  void enter(Lane &lane, const BasicBlock *block) {
    SmallVector<std::pair<const PHINode *, Bits>> incoming;
    for (const PHINode &phi : block->phis())
      incoming.emplace_back(
          &phi, value(lane, phi.getIncomingValueForBlock(lane.block)));
    for (auto &[phi, bits] : incoming)
      lane.values[phi] = std::move(bits);
    lane.block = block;
    lane.next = block->getFirstNonPHIIt();
  }

  std::optional<APInt> binaryOp(unsigned opcode, Type *type, const APInt &a,
                                const APInt &b) {
    bool shiftOk = b.ult(a.getBitWidth());
    bool divideOk = !b.isZero();
    switch (opcode) {
    case Instruction::Add:
      return a + b;
    case Instruction::Sub:
      return a - b;
    case Instruction::Mul:
      return a * b;
    case Instruction::UDiv:
      return divideOk ? std::optional(a.udiv(b)) : std::nullopt;
    case Instruction::SDiv:
      return divideOk ? std::optional(a.sdiv(b)) : std::nullopt;
    case Instruction::URem:
      return divideOk ? std::optional(a.urem(b)) : std::nullopt;
    case Instruction::SRem:
      return divideOk ? std::optional(a.srem(b)) : std::nullopt;
    case Instruction::And:
      return a & b;
    case Instruction::Or:
      return a | b;
    case Instruction::Xor:
      return a ^ b;
    case Instruction::Shl:
      return shiftOk ? std::optional(a.shl(b)) : std::nullopt;
    case Instruction::LShr:
      return shiftOk ? std::optional(a.lshr(b)) : std::nullopt;
    case Instruction::AShr:
      return shiftOk ? std::optional(a.ashr(b)) : std::nullopt;
    default:
      break;
    }
    APFloat x = toFloat(type, a);
    APFloat y = toFloat(type, b);
    auto rounding = APFloat::rmNearestTiesToEven;
    switch (opcode) {
    case Instruction::FAdd:
      x.add(y, rounding);
      break;
    case Instruction::FSub:
      x.subtract(y, rounding);
      break;
    case Instruction::FMul:
      x.multiply(y, rounding);
      break;
    case Instruction::FDiv:
      x.divide(y, rounding);
      break;
    default:
      return std::nullopt;
    }
    return x.bitcastToAPInt();
  }

  Expected<bool> castOp(Lane &lane, const CastInst &cast) {
    Bits in = value(lane, cast.getOperand(0));
    Type *from = cast.getSrcTy();
    Type *to = cast.getDestTy();
    unsigned width = elementBits(to);
    if (cast.getOpcode() == Instruction::BitCast) {
      // Reinterpret the whole value: element 0 in the low bits.
      unsigned inWidth = in[0].getBitWidth();
      APInt all(inWidth * in.size(), 0);
      for (unsigned i = 0; i < in.size(); ++i)
        all.insertBits(in[i], i * inWidth);
      Bits out;
      for (unsigned i = 0; i < elementCount(to); ++i)
        out.push_back(all.extractBits(width, i * width));
      lane.values[&cast] = std::move(out);
      return true;
    }
    Bits out;
    for (const APInt &x : in) {
      switch (cast.getOpcode()) {
      case Instruction::Trunc:
      case Instruction::PtrToInt:
      case Instruction::IntToPtr:
      case Instruction::AddrSpaceCast:
      case Instruction::ZExt:
        out.push_back(x.zextOrTrunc(width));
        break;
      case Instruction::SExt:
        out.push_back(x.sext(width));
        break;
      case Instruction::SIToFP:
      case Instruction::UIToFP: {
        APFloat f(to->getScalarType()->getFltSemantics());
        f.convertFromAPInt(x, cast.getOpcode() == Instruction::SIToFP,
                           APFloat::rmNearestTiesToEven);
        out.push_back(f.bitcastToAPInt());
        break;
      }
      case Instruction::FPToSI:
      case Instruction::FPToUI: {
        APSInt result(width, cast.getOpcode() == Instruction::FPToUI);
        bool exact;
        toFloat(from, x).convertToInteger(result, APFloat::rmTowardZero,
                                          &exact);
        out.push_back(result);
        break;
      }
      case Instruction::FPExt:
      case Instruction::FPTrunc: {
        APFloat f = toFloat(from, x);
        bool lost;
        f.convert(to->getScalarType()->getFltSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
        out.push_back(f.bitcastToAPInt());
        break;
      }
      default:
        return fail(lane, cast, "a cast the simulator does not know");
      }
    }
    lane.values[&cast] = std::move(out);
    return true;
  }

  Expected<bool> callOp(Lane &lane, const CallInst &call) {
    if (call.isInlineAsm())
      return inlineAsmOp(lane, call);
    const Function *callee = call.getCalledFunction();
    if (!callee)
      return fail(lane, call, "an indirect call");
    StringRef name = callee->getName();
    unsigned self = lane.id % group.warpSize;
    auto set = [&](APInt bits) {
      lane.values[&call] = {bits};
      return true;
    };
    auto axisOf = [](StringRef name) { return name.back() - 'x'; };
    if (name.starts_with("llvm.amdgcn.workitem.id.") ||
        name.starts_with("llvm.nvvm.read.ptx.sreg.tid."))
      return set(APInt(32, axisOf(name) == 0 ? lane.id : 0));
    if (name.starts_with("llvm.amdgcn.workgroup.id.") ||
        name.starts_with("llvm.nvvm.read.ptx.sreg.ctaid."))
      return set(APInt(32, group.programId[axisOf(name)]));
    if (name.starts_with("llvm.nvvm.read.ptx.sreg.nctaid."))
      return set(APInt(32, group.numPrograms[axisOf(name)]));
    if (name == "llvm.nvvm.read.ptx.sreg.laneid")
      return set(APInt(32, self));
    if (name == "llvm.amdgcn.implicitarg.ptr")
      return set(APInt(64, reinterpret_cast<uint64_t>(implicitArgs.data())));
    if (name == "llvm.amdgcn.ds.bpermute" ||
        name.starts_with("llvm.nvvm.shfl.sync.")) {
      lane.wait = Wait::warp;
      return false;
    }
    if (name == "llvm.amdgcn.s.barrier" ||
        name.starts_with("llvm.nvvm.barrier")) {
      lane.wait = Wait::workgroup;
      return false;
    }
    if (name.starts_with("llvm.assume") || name.starts_with("llvm.lifetime"))
      return true;
    if (call.arg_size() == 0)
      return fail(lane, call, "a call the simulator does not know");
    auto intrinsic = call.getIntrinsicID();
    Type *type = call.getType();
    Bits a = value(lane, call.getArgOperand(0));
    using IntOp = APInt (*)(const APInt &, const APInt &);
    using FloatOp = APFloat (*)(const APFloat &, const APFloat &);
    static const DenseMap<Intrinsic::ID, IntOp> intOps = {
        {Intrinsic::smax,
         [](const APInt &x, const APInt &y) { return APIntOps::smax(x, y); }},
        {Intrinsic::smin,
         [](const APInt &x, const APInt &y) { return APIntOps::smin(x, y); }},
        {Intrinsic::umax,
         [](const APInt &x, const APInt &y) { return APIntOps::umax(x, y); }},
        {Intrinsic::umin,
         [](const APInt &x, const APInt &y) { return APIntOps::umin(x, y); }}};
    static const DenseMap<Intrinsic::ID, FloatOp> floatOps = {
        {Intrinsic::maxnum, llvm::maxnum},
        {Intrinsic::minnum, llvm::minnum},
        {Intrinsic::maximum, llvm::maximum},
        {Intrinsic::minimum, llvm::minimum}};
    Bits out;
    for (unsigned i = 0; i < a.size(); ++i) {
      const APInt &x = a[i];
      if (intrinsic == Intrinsic::fabs) {
        out.push_back(llvm::abs(toFloat(type, x)).bitcastToAPInt());
        continue;
      }
      auto intOp = intOps.find(intrinsic);
      auto floatOp = floatOps.find(intrinsic);
      if (call.arg_size() != 2 ||
          (intOp == intOps.end() && floatOp == floatOps.end()))
        return fail(lane, call, "a call the simulator does not know");
      APInt y = value(lane, call.getArgOperand(1))[i];
      out.push_back(intOp != intOps.end()
                        ? intOp->second(x, y)
                        : floatOp->second(toFloat(type, x), toFloat(type, y))
                              .bitcastToAPInt());
    }
    lane.values[&call] = std::move(out);
    return true;
  }

  bool inBuffer(uint64_t address, uint64_t bytes) const {
    return llvm::any_of(buffers, [&](const Buffer &buffer) {
      return address >= buffer.begin && address + bytes <= buffer.end;
    });
  }

  Function &kernel;
  Workgroup group;
  const DataLayout &layout;
  std::vector<Lane> lanes;
  std::vector<uint64_t> args;
  std::vector<Buffer> buffers;
  std::vector<std::vector<uint8_t>> shared;
  DenseMap<const GlobalVariable *, uint64_t> globals;
  std::array<uint32_t, 16> implicitArgs = {};
};

LaneSimulator::LaneSimulator(Function &kernel, Workgroup workgroup)
    : impl(std::make_unique<Impl>(kernel, workgroup)) {}

LaneSimulator::~LaneSimulator() = default;

void LaneSimulator::addBuffer(void *data, size_t bytes) {
  impl->addBuffer(data, bytes);
}

Error LaneSimulator::run(ArrayRef<uint64_t> args) { return impl->run(args); }

} // namespace tessera::test
