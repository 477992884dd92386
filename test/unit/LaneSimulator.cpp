//===- LaneSimulator.cpp - runs one workgroup of a lowered kernel on the host //

#include "test/unit/LaneSimulator.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>

using namespace llvm;

namespace tessera::test {
namespace {

/// A value of one lane: its elements' bits (one for a scalar). Pointers are
/// 64-bit host addresses, floats their IEEE bits.
using Bits = SmallVector<APInt, 4>;

// Structs (those of words an inline assembly or a tensor-core intrinsic
// returns) hold one element type; their members' elements are listed in
// order, so a struct of two <2 x half> is four halves.
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
  if (auto *structType = dyn_cast<StructType>(type)) {
    unsigned count = 0;
    for (Type *member : structType->elements())
      count += elementCount(member);
    return count;
  }
  return 1;
}

/// Where the elements of the member a one-index extractvalue or insertvalue
/// names lie among its struct's, or nullopt for another aggregate.
std::optional<std::pair<unsigned, unsigned>>
memberElements(Type *aggregate, ArrayRef<unsigned> indices) {
  auto *structType = dyn_cast<StructType>(aggregate);
  if (indices.size() != 1 || !structType)
    return std::nullopt;
  // Member i's elements follow those of the members before it.
  unsigned first = 0;
  for (unsigned i = 0; i < indices[0]; ++i)
    first += elementCount(structType->getElementType(i));
  return std::pair(first, elementCount(structType->getElementType(indices[0])));
}

APFloat toFloat(Type *type, const APInt &bits) {
  return APFloat(type->getScalarType()->getFltSemantics(), bits);
}

/// Where a lane waits for others (`mbarrier`: for a barrier's phase).
enum class Wait { none, warp, warpgroup, workgroup, mbarrier, done };

/// A cp.async a thread has issued: `bytes` bytes to shared memory at `to`,
/// the first `sourceBytes` of them read from `from`, the rest zeros.
struct AsyncCopy {
  uint64_t to;
  uint64_t from;
  unsigned bytes;
  unsigned sourceBytes;
};

/// The 16-byte chunks of shared memory that operations in flight read, as
/// groups: those issued since the last commit, then the committed ones not
/// yet retired by a wait, oldest first.
struct ReadGroups {
  SmallVector<uint64_t> uncommitted;
  std::deque<SmallVector<uint64_t>> committed;
};

struct Lane {
  unsigned id = 0;
  const BasicBlock *block = nullptr;
  BasicBlock::const_iterator next;
  DenseMap<const Value *, Bits> values;
  Wait wait = Wait::none;
  /// The mbarrier (its shared address) and phase parity a lane waiting
  /// with Wait::mbarrier waits for.
  uint64_t barrier = 0;
  unsigned parity = 0;
  /// cp.async copies issued since the last commit_group.
  SmallVector<AsyncCopy> uncommitted;
  /// Committed groups not yet retired by a wait, oldest first.
  std::deque<SmallVector<AsyncCopy>> groups;
  /// The sources of the TMA stores the lane issued (bulk groups).
  ReadGroups bulkReads;
  /// The wgmma groups the lane committed, and how many of them, the
  /// oldest, a wgmma.wait_group retired (every thread of a warpgroup
  /// commits and waits, so each counts its warpgroup's groups).
  unsigned wgmmaCommitted = 0, wgmmaRetired = 0;
  /// The values that hold wgmma results: per element, the group of the
  /// wgmma computing it (kNoGroup for an element that holds none). An
  /// element is in flight until its group is retired.
  DenseMap<const Value *, SmallVector<unsigned, 4>> wgmmaResults;
};

constexpr unsigned kNoGroup = ~0u;

/// A TMA copy in flight: its box, read from global memory at issue, to land
/// densely at `to`, its 16-byte chunks swizzled by `swizzle` bytes.
struct BulkCopy {
  uint64_t to;
  unsigned swizzle;
  std::vector<uint8_t> bytes;
};

/// An mbarrier's state; the shared word it lives in is not used.
struct MBarrier {
  /// Arrivals each phase awaits, and those the current phase still does.
  unsigned count = 0, pending = 0;
  /// Transaction bytes expected and not yet brought by a copy.
  int64_t tx = 0;
  /// The current (incomplete) phase's parity.
  unsigned phase = 0;
  /// TMA copies counted on the current phase that have not landed.
  SmallVector<BulkCopy, 4> copies;
};

struct Buffer {
  uint64_t begin;
  uint64_t end;
};

/// `offset` (in a shared variable, whose start is 1024-byte aligned) as a
/// swizzle of `swizzle` bytes (32, 64 or 128; 0 for none) places it: the
/// 16-byte chunk's index within each row of that many bytes is XORed with
/// the row's index modulo 8 (address bits 4-6 with 7-9 for 128 bytes, 4-5
/// with 7-8 for 64, 4 with 7 for 32). wgmma and TMA agree on it.
uint64_t swizzled(uint64_t offset, uint64_t swizzle) {
  if (!swizzle)
    return offset;
  uint64_t mask = swizzle / 16 - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

/// A shared variable's bytes, starting on a 1024-byte boundary as the GPU's
/// shared window does (wgmma and TMA swizzle by address bits 4-9), filled
/// with 0xcd.
class SharedBytes {
public:
  explicit SharedBytes(size_t bytes) : storage(bytes + 1024, 0xcd), bytes(bytes) {
    auto at = reinterpret_cast<uint64_t>(storage.data());
    offset = (1024 - at % 1024) % 1024;
  }
  uint8_t *data() { return storage.data() + offset; }
  const uint8_t *data() const { return storage.data() + offset; }
  size_t size() const { return bytes; }

private:
  std::vector<uint8_t> storage;
  size_t bytes, offset;
};

/// Per byte of each shared variable, how many operations in flight touch
/// it (write it: cp.async, TMA copies; or read it: wgmma, TMA stores).
class ByteCounts {
public:
  void addVariable(const SharedBytes &storage) {
    variables.push_back({reinterpret_cast<uint64_t>(storage.data()),
                         std::vector<uint32_t>(storage.size(), 0)});
  }

  void clear() {
    for (auto &[begin, counts] : variables)
      llvm::fill(counts, 0);
    total = 0;
  }

  /// Adds `delta` to each of `bytes` bytes at `address`.
  void add(uint64_t address, uint64_t bytes, int delta) {
    for (auto &[begin, counts] : variables) {
      if (address < begin || address + bytes > begin + counts.size())
        continue;
      for (uint64_t i = 0; i < bytes; ++i)
        counts[address - begin + i] += delta;
    }
    total += delta;
  }

  /// Whether one of `bytes` bytes at `address` is touched.
  bool any(uint64_t address, uint64_t bytes) const {
    if (!total)
      return false;
    for (const auto &[begin, counts] : variables) {
      uint64_t first = std::max(address, begin);
      uint64_t last = std::min(address + bytes, begin + counts.size());
      for (uint64_t at = first; at < last; ++at)
        if (counts[at - begin])
          return true;
    }
    return false;
  }

private:
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> variables;
  int64_t total = 0;
};

/// The number in `text` after `marker` (up to a ';'), if any.
std::optional<uint64_t> immediateAfter(StringRef text, StringRef marker) {
  size_t at = text.find(marker);
  uint64_t value;
  if (at == StringRef::npos ||
      text.substr(at + marker.size()).take_until([](char c) {
            return c == ';';
          }).trim().getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// The operand numbers `$n` in `text`, in order ("[$2, {$5, $4}]" gives 2,
/// 5, 4).
SmallVector<unsigned> operandNumbers(StringRef text) {
  SmallVector<unsigned> numbers;
  for (size_t at = text.find('$'); at != StringRef::npos;
       at = text.find('$', at + 1)) {
    unsigned n;
    if (!text.substr(at + 1)
             .take_while([](char c) { return isDigit(c); })
             .getAsInteger(10, n))
      numbers.push_back(n);
  }
  return numbers;
}

/// Bits of an element type of the matrix instructions (PTX's names, and
/// AMD's FNUZ fp8 formats); 0 for one it does not know.
unsigned typeBits(StringRef type) {
  return StringSwitch<unsigned>(type)
      .Cases({"f16", "bf16"}, 16)
      .Cases({"tf32", "f32", "s32"}, 32)
      .Cases({"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "s8", "u8"}, 8)
      .Default(0);
}

/// A type mma.sync multiplies (f32 and s32 only accumulate).
bool isInputType(StringRef type) {
  return typeBits(type) && type != "f32" && type != "s32";
}

bool isIntegerType(StringRef type) {
  return type == "s8" || type == "u8" || type == "s32";
}

/// The value of an element of PTX type `type`. Every value of these types,
/// and every sum of products mma.sync forms of them, is exact in a double.
double decode(StringRef type, uint32_t bits) {
  if (type == "s8")
    return int8_t(bits);
  if (type == "u8")
    return uint8_t(bits);
  if (type == "s32")
    return int32_t(bits);
  // The tensor core reads only tf32's 10 upper mantissa bits of the 23.
  if (type == "tf32")
    bits &= ~0x1fffu;
  const fltSemantics *semantics =
      StringSwitch<const fltSemantics *>(type)
          .Case("f16", &APFloat::IEEEhalf())
          .Case("bf16", &APFloat::BFloat())
          .Case("e4m3", &APFloat::Float8E4M3FN())
          .Case("e5m2", &APFloat::Float8E5M2())
          .Case("e4m3fnuz", &APFloat::Float8E4M3FNUZ())
          .Case("e5m2fnuz", &APFloat::Float8E5M2FNUZ())
          .Default(&APFloat::IEEEsingle());
  APFloat value(*semantics, APInt(typeBits(type), bits));
  bool lost;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return value.convertToDouble();
}

/// What an `llvm.nvvm.mma.m16n8k<K>.row.col...` intrinsic computes: D
/// (16 x 8) = A (16 x K) * B (K x 8) + C, with PTX element types.
struct MmaKind {
  unsigned k = 0;
  StringRef a, b, c, d;
  /// Integer sums clamp to the i32 range rather than wrap.
  bool satfinite = false;

  /// A lane's 32-bit registers of A, B and C: a warp holds 16K, 8K and 128
  /// elements.
  unsigned aRegisters() const { return k * typeBits(a) / 64; }
  unsigned bRegisters() const { return k * typeBits(b) / 128; }
  unsigned cRegisters() const { return 4 * typeBits(c) / 32; }
};

/// The kind of mma `name` (an intrinsic of the m16n8 shapes) names, read as
/// IntrinsicsNVVM.td builds it (MMA_NAME, MMA_SIGNATURE): the shape, the
/// layouts, an optional kind::f8f6f4 and satfinite, then the types that tell
/// it apart: D, A, B, C for f8 inputs; D, C for f16 inputs; otherwise A (and
/// B where it differs), accumulating in f32 or s32.
std::optional<MmaKind> parseMma(StringRef name) {
  if (!name.consume_front("llvm.nvvm.mma."))
    return std::nullopt;
  SmallVector<StringRef> parts;
  name.split(parts, '.');
  if (parts.size() < 4 || parts[1] != "row" || parts[2] != "col")
    return std::nullopt;
  MmaKind kind;
  StringRef shape = parts[0];
  if (!shape.consume_front("m16n8k") || shape.getAsInteger(10, kind.k) ||
      kind.k == 0)
    return std::nullopt;
  ArrayRef<StringRef> types = ArrayRef(parts).drop_front(3);
  if (types.size() > 2 && types[0] == "kind" && types[1] == "f8f6f4")
    types = types.drop_front(2);
  if (!types.empty() && types[0] == "satfinite") {
    kind.satfinite = true;
    types = types.drop_front();
  }
  auto isAccumulator = [](StringRef type) {
    return type == "f16" || type == "f32";
  };
  if (types.size() == 4) {
    kind.d = types[0];
    kind.a = types[1];
    kind.b = types[2];
    kind.c = types[3];
  } else if (types.size() == 2 && isAccumulator(types[0]) &&
             isAccumulator(types[1])) {
    kind.a = kind.b = "f16";
    kind.d = types[0];
    kind.c = types[1];
  } else if (types.size() == 1 || types.size() == 2) {
    kind.a = types.front();
    kind.b = types.back();
    kind.c = kind.d = isIntegerType(kind.a) ? "s32" : "f32";
  } else {
    return std::nullopt;
  }
  bool integer = isIntegerType(kind.a);
  auto accumulatorOk = [&](StringRef type) {
    return integer ? type == "s32" : isAccumulator(type);
  };
  unsigned bits = typeBits(kind.a);
  if (!isInputType(kind.a) || !isInputType(kind.b) ||
      typeBits(kind.b) != bits || isIntegerType(kind.b) != integer ||
      !accumulatorOk(kind.c) || !accumulatorOk(kind.d) ||
      (kind.satfinite && !integer) || kind.k * bits % 128 != 0)
    return std::nullopt;
  return kind;
}

/// (row, column) of element `e` of register `r` of lane `lane`'s fragment,
/// `perRegister` elements a register (PTX ISA, "Matrix fragments for
/// mma.m16n8k*"; g = lane / 4, t = lane % 4). A register holds elements
/// adjacent along K. A's registers alternate rows g and g + 8, then move 4
/// registers' width along K; B's move along K only.
std::pair<unsigned, unsigned> aCoordinate(unsigned lane, unsigned r, unsigned e,
                                          unsigned perRegister) {
  unsigned g = lane / 4, t = lane % 4;
  return {g + 8 * (r % 2), perRegister * (t + 4 * (r / 2)) + e};
}

/// (k, n) of B's element; see aCoordinate.
std::pair<unsigned, unsigned> bCoordinate(unsigned lane, unsigned r, unsigned e,
                                          unsigned perRegister) {
  unsigned g = lane / 4, t = lane % 4;
  return {perRegister * (t + 4 * r) + e, g};
}

/// (row, column) of a lane's `i`th accumulator element: c0, c1 in row g,
/// c2, c3 in row g + 8, at columns 2t and 2t + 1.
std::pair<unsigned, unsigned> cCoordinate(unsigned lane, unsigned i) {
  unsigned g = lane / 4, t = lane % 4;
  return {g + 8 * (i / 2), 2 * t + i % 2};
}

/// The elements of `bits` bits a 32-bit register holds, the first in the low
/// bits; an i32 packs them, a <2 x half> lists them. Empty if `value` is not
/// 32 bits.
SmallVector<uint32_t, 4> registerElements(const Bits &value, unsigned bits) {
  APInt word(32, 0);
  unsigned at = 0;
  for (const APInt &part : value) {
    if (at + part.getBitWidth() > 32)
      return {};
    word.insertBits(part, at);
    at += part.getBitWidth();
  }
  SmallVector<uint32_t, 4> elements;
  if (at != 32)
    return elements;
  for (unsigned i = 0; i < 32 / bits; ++i)
    elements.push_back(word.extractBitsAsZExtValue(bits, i * bits));
  return elements;
}

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
      // Dynamic shared memory (a zero-sized array) gets what the launch
      // asks for.
      uint64_t bytes = layout.getTypeAllocSize(global.getValueType());
      auto &storage =
          shared.emplace_back(bytes ? bytes : group.dynamicSharedBytes);
      for (ByteCounts *counts : {&asyncWrites, &bulkWrites, &asyncReads})
        counts->addVariable(storage);
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
    // Copies in flight from an earlier run were dropped with its lanes.
    for (ByteCounts *counts : {&asyncWrites, &bulkWrites, &asyncReads})
      counts->clear();
    barriers.clear();
    warpgroupReads.assign((group.numThreads + 127) / 128, ReadGroups());
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
      for (unsigned first = 0; first < lanes.size(); first += 128) {
        auto warpgroup = MutableArrayRef(lanes).slice(
            first, std::min<size_t>(128, lanes.size() - first));
        if (llvm::none_of(warpgroup,
                          [](Lane &l) { return l.wait == Wait::warpgroup; }))
          continue;
        if (Error error = warpgroupOp(warpgroup))
          return error;
        exchanged = true;
      }
      // Lanes whose mbarrier phase completed go on.
      for (Lane &lane : lanes) {
        if (lane.wait != Wait::mbarrier)
          continue;
        Expected<bool> done = phaseDone(lane, *lane.next);
        if (!done)
          return done.takeError();
        if (*done) {
          lane.wait = Wait::none;
          ++lane.next;
          exchanged = true;
        }
      }
      if (exchanged)
        continue;
      if (llvm::all_of(lanes, [](Lane &l) { return l.wait == Wait::done; }))
        return Error::success();
      for (Lane &lane : lanes)
        if (lane.wait == Wait::mbarrier)
          return neverCompletes(lane);
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

  /// Fails unless every one of `lanes` waits (`wait`) at the instruction
  /// the first does.
  Error convergeAt(MutableArrayRef<Lane> lanes, Wait wait, StringRef who) {
    const Instruction *at = &*lanes.front().next;
    for (Lane &lane : lanes)
      if (lane.wait != wait || &*lane.next != at)
        return fail(lane, *at, who + " diverge at");
    return Error::success();
  }

  /// Runs the cross-lane operation every lane of `warp` waits at.
  Error exchange(MutableArrayRef<Lane> warp) {
    if (Error error = convergeAt(warp, Wait::warp, "lanes of a warp"))
      return error;
    auto &call = cast<CallInst>(*warp.front().next);
    StringRef name = call.getCalledFunction()->getName();
    Expected<SmallVector<Bits>> results =
        name.starts_with("llvm.nvvm.mma.")      ? mmaOp(warp, call, name)
        : name.starts_with("llvm.amdgcn.mfma.") ? mfmaOp(warp, call, name)
        : name.starts_with("llvm.amdgcn.wmma.") ? wmmaOp(warp, call, name)
        : name.starts_with("llvm.nvvm.ldmatrix.")
            ? loadMatrixOp(warp, call, name)
            : shuffleOp(warp, call, name);
    if (!results)
      return results.takeError();
    for (auto [lane, result] : llvm::zip(warp, *results)) {
      lane.values[&call] = std::move(result);
      lane.wait = Wait::none;
      ++lane.next;
    }
    return Error::success();
  }

  /// wgmma.mma_async.sync.aligned.m64nNkK.D.A.B {d...}, descA or {a0..a3},
  /// descB, p [, scale-a, scale-b [, trans-a], trans-b] (operands: A's
  /// descriptor or registers, B's, p's i32 source, then D's registers
  /// tied): reads A (64xK; from registers, each warp's 16 rows as
  /// mma.sync's A fragment) and B (KxN)
  /// through their descriptors (PTX ISA "matrix descriptor": start address,
  /// LBO, SBO, swizzle mode; the swizzle XORs address bits 4-6 with 7-9)
  /// and gives thread t of the warpgroup, in register i, D's row
  /// 16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2), column 8 (i / 4) +
  /// 2 (t % 4) + i % 2. Sums as mmaOp does.
  Error warpgroupOp(MutableArrayRef<Lane> warpgroup) {
    if (Error error =
            convergeAt(warpgroup, Wait::warpgroup, "threads of a warpgroup"))
      return error;
    auto &call = cast<CallInst>(*warpgroup.front().next);
    Lane &first = warpgroup.front();
    if (warpgroup.size() != 128 || group.warpSize != 32)
      return fail(first, call, "a wgmma outside a warpgroup of 4 warps");
    StringRef text = cast<InlineAsm>(call.getCalledOperand())->getAsmString();
    StringRef form = text.substr(text.find("wgmma.mma_async.sync.aligned."))
                         .drop_front(strlen("wgmma.mma_async.sync.aligned."));
    SmallVector<StringRef> parts;
    form.take_until([](char c) { return c == ' '; }).split(parts, '.');
    unsigned n = 0, k = 0;
    if (parts.size() != 4 || !parts[0].consume_front("m64n") ||
        parts[0].split('k').first.getAsInteger(10, n) ||
        parts[0].split('k').second.getAsInteger(10, k) ||
        !isInputType(parts[2]) || !isInputType(parts[3]))
      return fail(first, call, "a wgmma the simulator does not know");
    StringRef dType = parts[1], aType = parts[2], bType = parts[3];
    // A from 4 registers a thread ("{d...}, {a0, a1, a2, a3}, descB") or
    // through its descriptor.
    bool registerA = form.contains("}, {");
    unsigned aOperands = registerA ? 4 : 1;
    // f16 accumulators go two to a register (columns +0, +1).
    bool halfD = dType == "f16";
    unsigned dRegisters = halfD ? n / 4 : n / 2;
    if (call.arg_size() != aOperands + 2 + dRegisters)
      return fail(first, call, "a wgmma the simulator does not know");
    // The immediates after the predicate: scale-a, scale-b, trans-a, trans-b.
    SmallVector<StringRef> immediates;
    parts.clear();
    form.substr(form.rfind("},") + 2).split(parts, ',');
    // After the last register list: [descA,] descB, p, the immediates.
    for (StringRef part : ArrayRef(parts).drop_front(registerA ? 2 : 3))
      immediates.push_back(part.trim(" ;\n}"));
    // scale-a, scale-b, then trans-a (not for A in registers), trans-b.
    bool transA = !registerA && immediates.size() == 4 && immediates[2] == "1";
    bool transB = immediates.size() == (registerA ? 3u : 4u) &&
                  immediates.back() == "1";
    unsigned bAt = aOperands;
    uint64_t descA = value(first, call.getArgOperand(0))[0].getZExtValue();
    uint64_t descB = value(first, call.getArgOperand(bAt))[0].getZExtValue();
    bool accumulate = !value(first, call.getArgOperand(bAt + 1))[0].isZero();
    for (Lane &lane : warpgroup)
      if ((!registerA &&
           value(lane, call.getArgOperand(0))[0].getZExtValue() != descA) ||
          value(lane, call.getArgOperand(bAt))[0].getZExtValue() != descB)
        return fail(lane, call, "threads of a warpgroup give different wgmma "
                                "descriptors to");
    // The 16-byte chunks of shared memory the operands are read from.
    SmallVector<uint64_t> chunks;
    // The element (row, col) of a rows x cols operand whose K is `col`
    // (A) or `row` (B), as its descriptor lays it out.
    auto element = [&](uint64_t desc, StringRef type, bool kMajor,
                       unsigned mn, unsigned kk,
                       StringRef operand) -> Expected<double> {
      uint64_t start = (desc & 0x3fff) << 4;
      uint64_t lbo = ((desc >> 16) & 0x3fff) << 4;
      uint64_t sbo = ((desc >> 32) & 0x3fff) << 4;
      unsigned mode = desc >> 62;
      uint64_t swizzle = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
      auto outside = [&] {
        return fail(first, call, "a wgmma operand " + operand +
                                     " outside shared memory, or a "
                                     "descriptor without a swizzle, in");
      };
      if (!swizzle || shared.empty())
        return outside();
      uint64_t bytes = typeBits(type) / 8, perRow = swizzle / bytes;
      uint64_t offset =
          kMajor ? start + mn / 8 * sbo + mn % 8 * swizzle + kk * bytes
                 : start + mn / perRow * lbo + kk / 8 * sbo + kk % 8 * swizzle +
                       mn % perRow * bytes;
      // The descriptor holds address bits 4-17 of the shared window.
      auto base = reinterpret_cast<uint64_t>(shared.front().data());
      uint64_t address =
          (base & ~uint64_t(0x3ffff)) + (swizzled(offset, swizzle) & 0x3ffff);
      if (address < base)
        address += 0x40000;
      if (!inBuffer(address, bytes))
        return outside();
      if (const char *race = readRace(address, bytes))
        return fail(first, call, race);
      chunks.push_back(address & ~uint64_t(15));
      uint32_t raw = 0;
      std::memcpy(&raw, reinterpret_cast<const void *>(address), bytes);
      return decode(type, raw);
    };
    std::vector<double> a(64 * k), b(k * n);
    if (registerA) {
      // Warp w's rows 16w.. as mma.sync's A fragment.
      unsigned perRegister = 32 / typeBits(aType);
      for (auto [t, lane] : llvm::enumerate(warpgroup))
        for (unsigned r = 0; r < 4; ++r) {
          SmallVector<uint32_t, 4> elements = registerElements(
              value(lane, call.getArgOperand(r)), typeBits(aType));
          if (elements.empty())
            return fail(lane, call, "a wgmma A register not of 32 bits in");
          for (auto [e, bits] : llvm::enumerate(elements)) {
            auto [row, col] = aCoordinate(t % 32, r, e, perRegister);
            a[(16 * (t / 32) + row) * k + col] = decode(aType, bits);
          }
        }
    } else {
      for (unsigned row = 0; row < 64; ++row)
        for (unsigned kk = 0; kk < k; ++kk) {
          Expected<double> v = element(descA, aType, !transA, row, kk, "A");
          if (!v)
            return v.takeError();
          a[row * k + kk] = *v;
        }
    }
    for (unsigned kk = 0; kk < k; ++kk)
      for (unsigned col = 0; col < n; ++col) {
        Expected<double> v = element(descB, bType, !transB, col, kk, "B");
        if (!v)
          return v.takeError();
        b[kk * n + col] = *v;
      }
    // The operands count as read until a wgmma.wait_group retires the
    // group (the warpgroup's first thread keeps the groups).
    llvm::sort(chunks);
    chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
    for (uint64_t chunk : chunks)
      asyncReads.add(chunk, 16, 1);
    llvm::append_range(warpgroupReads[first.id / 128].uncommitted, chunks);
    bool integer = dType == "s32";
    for (auto [t, lane] : llvm::enumerate(warpgroup)) {
      Bits d;
      for (unsigned i = 0; i < n / 2; ++i) {
        unsigned row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
        unsigned col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
        if (halfD) {
          // Register i / 2 holds this element in its half i % 2.
          APInt c = value(lane, call.getArgOperand(bAt + 2 + i / 2))[0];
          APInt half = c.extractBits(16, 16 * (i % 2));
          float sum =
              accumulate ? float(decode("f16", half.getZExtValue())) : 0.0f;
          for (unsigned kk = 0; kk < k; ++kk)
            sum += float(a[row * k + kk] * b[kk * n + col]);
          APFloat rounded(sum);
          bool lost;
          rounded.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven,
                          &lost);
          APInt bits = rounded.bitcastToAPInt();
          if (i % 2 == 0)
            d.push_back(bits.zext(32));
          else
            d.back().insertBits(bits, 16);
          continue;
        }
        APInt c = value(lane, call.getArgOperand(bAt + 2 + i))[0];
        if (integer) {
          int64_t sum = accumulate ? int32_t(c.getZExtValue()) : 0;
          for (unsigned kk = 0; kk < k; ++kk)
            sum += int64_t(a[row * k + kk] * b[kk * n + col]);
          d.push_back(APInt(32, uint32_t(sum)));
        } else {
          float sum = accumulate ? APInt(c).bitsToFloat() : 0.0f;
          for (unsigned kk = 0; kk < k; ++kk)
            sum += float(a[row * k + kk] * b[kk * n + col]);
          d.push_back(APFloat(sum).bitcastToAPInt());
        }
      }
      lane.values[&call] = std::move(d);
      // In flight until a wait retires the group it is committed with.
      if (group.catchEarlyResultReads)
        lane.wgmmaResults[&call] =
            SmallVector<unsigned, 4>(dRegisters, lane.wgmmaCommitted);
      lane.wait = Wait::none;
      ++lane.next;
    }
    return Error::success();
  }

  /// The group of each element of `v` in `lane` whose wgmma is still in
  /// flight, kNoGroup for the others; empty where none is.
  SmallVector<unsigned, 4> groupsInFlight(const Lane &lane,
                                          const Value *v) const {
    auto it = lane.wgmmaResults.find(v);
    if (it == lane.wgmmaResults.end())
      return {};
    SmallVector<unsigned, 4> groups = it->second;
    bool any = false;
    for (unsigned &g : groups) {
      if (g != kNoGroup && g < lane.wgmmaRetired)
        g = kNoGroup;
      any |= g != kNoGroup;
    }
    if (!any)
      groups.clear();
    return groups;
  }

  /// Records the groups of `v`'s elements (empty, or all kNoGroup: none
  /// in flight).
  static void setGroups(Lane &lane, const Value *v,
                        SmallVector<unsigned, 4> groups) {
    if (llvm::all_of(groups, [](unsigned g) { return g == kNoGroup; }))
      lane.wgmmaResults.erase(v);
    else
      lane.wgmmaResults[v] = std::move(groups);
  }

  /// Fails where `inst` reads a wgmma result in flight, unless it is a
  /// later wgmma taking it as its accumulator (tied to its results), a
  /// wait passing it on, or an extractvalue or insertvalue, which pass on
  /// the groups of the elements they move.
  Error checkResultReads(Lane &lane, const Instruction &inst) {
    // The first `read` operands are read; the rest may be in flight.
    unsigned read = inst.getNumOperands();
    auto *call = dyn_cast<CallInst>(&inst);
    if (isa<ExtractValueInst, InsertValueInst>(inst)) {
      read = 0;
    } else if (call && call->isInlineAsm()) {
      StringRef text =
          cast<InlineAsm>(call->getCalledOperand())->getAsmString();
      if (text.contains("wgmma.wait_group"))
        read = 0;
      else if (text.contains("wgmma.mma_async"))
        read = call->arg_size() - elementCount(call->getType());
    }
    for (unsigned i = 0; i < read; ++i)
      if (!groupsInFlight(lane, inst.getOperand(i)).empty())
        return fail(lane, inst, "a read of a wgmma's result before "
                                "wgmma.wait_group retires it (a missing or "
                                "too weak wait) in");
    if (auto *extract = dyn_cast<ExtractValueInst>(&inst)) {
      auto member = memberElements(extract->getAggregateOperand()->getType(),
                                   extract->getIndices());
      SmallVector<unsigned, 4> groups =
          groupsInFlight(lane, extract->getAggregateOperand());
      if (member && !groups.empty())
        groups = SmallVector<unsigned, 4>(
            ArrayRef(groups).slice(member->first, member->second));
      setGroups(lane, &inst, std::move(groups));
    }
    if (auto *insert = dyn_cast<InsertValueInst>(&inst)) {
      auto member = memberElements(inst.getType(), insert->getIndices());
      SmallVector<unsigned, 4> groups =
          groupsInFlight(lane, insert->getAggregateOperand());
      SmallVector<unsigned, 4> inserted =
          groupsInFlight(lane, insert->getInsertedValueOperand());
      if (member && (!groups.empty() || !inserted.empty())) {
        groups.resize(elementCount(inst.getType()), kNoGroup);
        inserted.resize(member->second, kNoGroup);
        llvm::copy(inserted, groups.begin() + member->first);
      }
      setGroups(lane, &inst, std::move(groups));
    }
    return Error::success();
  }

  /// A wait's outputs: each its input, in flight while the input's group
  /// is; the results of retired groups are forgotten.
  void passThroughWait(Lane &lane, const CallInst &wait) {
    SmallVector<unsigned, 4> groups;
    for (const Use &arg : wait.args()) {
      SmallVector<unsigned, 4> in = groupsInFlight(lane, arg.get());
      groups.push_back(in.empty() ? kNoGroup : in.front());
    }
    SmallVector<const Value *> retired;
    for (const auto &[v, g] : lane.wgmmaResults)
      if (groupsInFlight(lane, v).empty())
        retired.push_back(v);
    for (const Value *v : retired)
      lane.wgmmaResults.erase(v);
    setGroups(lane, &wait, std::move(groups));
  }

  /// Each lane's value of a shuffle (ds_bpermute, shfl.sync).
  Expected<SmallVector<Bits>> shuffleOp(MutableArrayRef<Lane> warp,
                                        const CallInst &call, StringRef name) {
    SmallVector<Bits> results;
    for (Lane &lane : warp) {
      Expected<unsigned> source = sourceLane(lane, call, name);
      if (!source)
        return source.takeError();
      // The value is the second operand of ds_bpermute and shfl.sync.
      results.push_back({value(warp[*source], call.getArgOperand(1))[0]});
    }
    return results;
  }

  /// mma.sync: forms A, B and C from the fragments of the warp's 32 lanes
  /// and gives each lane its fragment of D = A * B + C. Float products are
  /// exact in f32 for every input type here (short of overflow) and are
  /// summed in f32 in K order, an f16 D rounded from that (the tensor core's
  /// order and rounding of its sums may differ); integer ones are summed
  /// exactly, then clamped to i32 (satfinite) or wrapped.
  Expected<SmallVector<Bits>> mmaOp(MutableArrayRef<Lane> warp,
                                    const CallInst &call, StringRef name) {
    std::optional<MmaKind> kind = parseMma(name);
    unsigned numA = kind ? kind->aRegisters() : 0;
    unsigned numB = kind ? kind->bRegisters() : 0;
    unsigned numC = kind ? kind->cRegisters() : 0;
    if (!kind || call.arg_size() != numA + numB + numC)
      return fail(warp.front(), call, "an mma the simulator does not know");
    if (warp.size() != 32)
      return fail(warp.front(), call, "an mma in a warp not of 32 lanes");
    unsigned k = kind->k;
    // Row-major, as values: every one is exact in a double.
    std::vector<double> a(16 * k), b(k * 8), c(16 * 8);
    for (auto [id, lane] : llvm::enumerate(warp)) {
      for (unsigned r = 0; r < numA + numB + numC; ++r) {
        bool isA = r < numA, isB = !isA && r < numA + numB;
        StringRef type = isA ? kind->a : isB ? kind->b : kind->c;
        unsigned perRegister = 32 / typeBits(type);
        SmallVector<uint32_t, 4> elements = registerElements(
            value(lane, call.getArgOperand(r)), typeBits(type));
        if (elements.empty())
          return fail(lane, call, "an mma operand not of 32 bits in");
        for (auto [e, bits] : llvm::enumerate(elements)) {
          if (isA) {
            auto [row, col] = aCoordinate(id, r, e, perRegister);
            a[row * k + col] = decode(type, bits);
          } else if (isB) {
            auto [row, col] = bCoordinate(id, r - numA, e, perRegister);
            b[row * 8 + col] = decode(type, bits);
          } else {
            auto [row, col] =
                cCoordinate(id, (r - numA - numB) * perRegister + e);
            c[row * 8 + col] = decode(type, bits);
          }
        }
      }
    }
    bool integer = kind->d == "s32";
    SmallVector<Bits> results(32);
    for (unsigned lane = 0; lane < 32; ++lane) {
      for (unsigned i = 0; i < 4; ++i) {
        auto [row, col] = cCoordinate(lane, i);
        APInt bits;
        if (integer) {
          double sum = c[row * 8 + col];
          for (unsigned j = 0; j < k; ++j)
            sum += a[row * k + j] * b[j * 8 + col];
          auto exact = int64_t(sum);
          if (kind->satfinite)
            exact = std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX);
          bits = APInt(32, uint32_t(exact));
        } else {
          auto sum = float(c[row * 8 + col]);
          for (unsigned j = 0; j < k; ++j)
            sum += float(a[row * k + j] * b[j * 8 + col]);
          APFloat d(sum);
          bool lost;
          if (kind->d == "f16")
            d.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
          bits = d.bitcastToAPInt();
        }
        results[lane].push_back(bits);
      }
    }
    return results;
  }

  /// The elements of `bits` bits an operand of a matrix instruction packs,
  /// the first in the low bits (a vector of them, or integers packing
  /// them).
  static SmallVector<uint64_t> packedElements(const Bits &value,
                                              unsigned bits) {
    SmallVector<uint64_t> elements;
    for (const APInt &part : value)
      for (unsigned at = 0; at < part.getBitWidth(); at += bits)
        elements.push_back(part.extractBitsAsZExtValue(bits, at));
    return elements;
  }

  /// D = A (m x k) * B (k x n) + C, row-major, as values (exact in a
  /// double), summed as mmaOp does: f32 in K order, or exactly and wrapped
  /// to i32 for `integer`.
  static APInt matrixSum(const std::vector<double> &a,
                         const std::vector<double> &b,
                         const std::vector<double> &c, unsigned k, unsigned n,
                         unsigned row, unsigned col, bool integer) {
    if (integer) {
      double sum = c[row * n + col];
      for (unsigned j = 0; j < k; ++j)
        sum += a[row * k + j] * b[j * n + col];
      return APInt(32, uint32_t(int64_t(sum)));
    }
    auto sum = float(c[row * n + col]);
    for (unsigned j = 0; j < k; ++j)
      sum += float(a[row * k + j] * b[j * n + col]);
    return APFloat(sum).bitcastToAPInt();
  }

  /// The simulator's types of an AMD matrix instruction's operands, from
  /// the types in its name: "fp8" is e4m3, "bf8" e5m2 (FNUZ or OCP, as the
  /// workgroup says), "xf32" f32 of which only tf32's bits count; none
  /// where it does not know them.
  std::optional<std::pair<StringRef, StringRef>>
  amdOperandTypes(StringRef types) const {
    bool fnuz = group.fnuzFp8;
    auto one = [&](StringRef type) {
      return StringSwitch<StringRef>(type)
          .Case("fp8", fnuz ? "e4m3fnuz" : "e4m3")
          .Case("bf8", fnuz ? "e5m2fnuz" : "e5m2")
          .Case("f16", "f16")
          .Case("bf16", "bf16")
          .Default("");
    };
    if (types == "xf32")
      return std::pair(StringRef("tf32"), StringRef("tf32"));
    if (types == "i8" || types == "iu8")
      return std::pair(StringRef("s8"), StringRef("s8"));
    auto [a, b] = types.split('.');
    if (b.empty() || b == "1k")
      b = a;
    auto isFp8 = [](StringRef type) { return type == "fp8" || type == "bf8"; };
    if (one(a).empty() || one(b).empty() ||
        (isFp8(a) || isFp8(b) ? isFp8(a) != isFp8(b) : a != b))
      return std::nullopt;
    return std::pair(one(a), one(b));
  }

  /// llvm.amdgcn.mfma.{f32,i32}.<M>x<M>x<K><types>(a, b, c, cbsz, abid,
  /// blgp) on a 64-lane wave, <types> f16, bf16, i8, xf32 or the fp8 pairs
  /// (fp8.fp8, fp8.bf8, bf8.fp8, bf8.bf8; with a dot before them from CDNA3
  /// on, "bf16.1k" in CDNA2's forms), as the CDNA ISA lays its operands out
  /// (kWidth = K * M / 64 elements of A and B a lane, packed as the
  /// intrinsic takes them): for M = 32, lane l gives A[l % 32][kWidth (l /
  /// 32) + j], B[kWidth (l / 32) + j][l % 32], and holds D[8 (i / 4) + 4 (l
  /// / 32) + i % 4][l % 32] in register i; for M = 16, A[l % 16][kWidth (l /
  /// 16) + j], B alike, D[4 (l / 16) + i][l % 16].
  Expected<SmallVector<Bits>> mfmaOp(MutableArrayRef<Lane> warp,
                                     const CallInst &call, StringRef name) {
    StringRef form = name.drop_front(strlen("llvm.amdgcn.mfma."));
    bool integer = form.consume_front("i32.");
    bool known = integer || form.consume_front("f32.");
    unsigned m = 0, n = 0, k = 0;
    known = known && !form.consumeInteger(10, m) && form.consume_front("x") &&
            !form.consumeInteger(10, n) && form.consume_front("x") &&
            !form.consumeInteger(10, k);
    form.consume_front(".");
    std::optional<std::pair<StringRef, StringRef>> types =
        amdOperandTypes(form);
    if (!known || m != n || (m != 32 && m != 16) || call.arg_size() != 6 ||
        !types || integer != (types->first == "s8"))
      return fail(warp.front(), call, "an mfma the simulator does not know");
    if (warp.size() != 64)
      return fail(warp.front(), call, "an mfma in a wave not of 64 lanes");
    auto [aType, bType] = *types;
    unsigned kWidth = k * m / 64, results = m * m / 64;
    auto row = [&](unsigned lane, unsigned i) {
      return m == 32 ? 8 * (i / 4) + 4 * (lane / 32) + i % 4
                     : 4 * (lane / 16) + i;
    };
    std::vector<double> a(m * k), b(k * m), c(m * m);
    for (auto [id, lane] : llvm::enumerate(warp)) {
      SmallVector<uint64_t> x =
          packedElements(value(lane, call.getArgOperand(0)), typeBits(aType));
      SmallVector<uint64_t> y =
          packedElements(value(lane, call.getArgOperand(1)), typeBits(bType));
      Bits z = value(lane, call.getArgOperand(2));
      if (x.size() != kWidth || y.size() != kWidth || z.size() != results)
        return fail(lane, call, "mfma operands of the wrong size in");
      unsigned outer = id % m, k0 = kWidth * (id / m);
      for (unsigned j = 0; j < kWidth; ++j) {
        a[outer * k + k0 + j] = decode(aType, x[j]);
        b[(k0 + j) * m + outer] = decode(bType, y[j]);
      }
      for (unsigned i = 0; i < results; ++i)
        c[row(id, i) * m + outer] =
            decode(integer ? "s32" : "f32", z[i].getZExtValue());
    }
    SmallVector<Bits> out(64);
    for (unsigned lane = 0; lane < 64; ++lane)
      for (unsigned i = 0; i < results; ++i)
        out[lane].push_back(
            matrixSum(a, b, c, k, m, row(lane, i), lane % m, integer));
    return out;
  }

  /// llvm.amdgcn.wmma.f32.16x16x16.<types>(a, b, c), <types> f16, bf16 or
  /// an fp8 pair (gfx12), and llvm.amdgcn.wmma.i32.16x16x16.iu8(a signed,
  /// a, b signed, b, c, clamp) on a 32-lane wave, as the RDNA ISAs lay its
  /// operands out: with 16 elements of A and B a lane (gfx11), lane l gives
  /// A[l % 16][j] and B[j][l % 16], lanes 16-31 the same as lanes 0-15 (a
  /// difference fails), and holds D[2 v + l / 16][l % 16] in register v;
  /// with 8 (gfx12), A[l % 16][8 (l / 16) + j], B alike, D[8 (l / 16) +
  /// v][l % 16]. Only signed int8 without clamping is known.
  Expected<SmallVector<Bits>> wmmaOp(MutableArrayRef<Lane> warp,
                                     const CallInst &call, StringRef name) {
    bool integer = name.consume_front("llvm.amdgcn.wmma.i32.16x16x16.");
    bool known =
        integer || name.consume_front("llvm.amdgcn.wmma.f32.16x16x16.");
    // The types, then those the intrinsic is overloaded on (v8f32, ...).
    SmallVector<StringRef> parts;
    name.split(parts, '.');
    auto overloads = llvm::find_if(parts, [](StringRef part) {
      return part.size() > 1 && part[0] == 'v' && llvm::isDigit(part[1]);
    });
    std::optional<std::pair<StringRef, StringRef>> operandTypes =
        amdOperandTypes(llvm::join(parts.begin(), overloads, "."));
    unsigned operands = integer ? 6 : 3;
    if (!known || !operandTypes || integer != (operandTypes->first == "s8") ||
        call.arg_size() != operands)
      return fail(warp.front(), call, "a wmma the simulator does not know");
    if (warp.size() != 32)
      return fail(warp.front(), call, "a wmma in a wave not of 32 lanes");
    auto [aType, bType] = *operandTypes;
    unsigned aArg = integer ? 1 : 0, bArg = integer ? 3 : 1,
             cArg = integer ? 4 : 2;
    if (integer && (value(warp.front(), call.getArgOperand(0))[0].isZero() ||
                    value(warp.front(), call.getArgOperand(2))[0].isZero() ||
                    !value(warp.front(), call.getArgOperand(5))[0].isZero()))
      return fail(warp.front(), call,
                  "an unsigned or clamped wmma the simulator does not know");
    auto operand = [&](Lane &lane, unsigned arg) {
      return packedElements(value(lane, call.getArgOperand(arg)),
                            typeBits(arg == aArg ? aType : bType));
    };
    unsigned kWidth = operand(warp.front(), aArg).size();
    if (kWidth != 16 && kWidth != 8)
      return fail(warp.front(), call, "wmma operands of the wrong size in");
    bool repeated = kWidth == 16;
    auto row = [&](unsigned lane, unsigned v) {
      return repeated ? 2 * v + lane / 16 : 8 * (lane / 16) + v;
    };
    std::vector<double> a(16 * 16), b(16 * 16), c(16 * 16);
    for (auto [id, lane] : llvm::enumerate(warp)) {
      SmallVector<uint64_t> x = operand(lane, aArg), y = operand(lane, bArg);
      Bits z = value(lane, call.getArgOperand(cArg));
      if (x.size() != kWidth || y.size() != kWidth || z.size() != 8)
        return fail(lane, call, "wmma operands of the wrong size in");
      if (repeated && id >= 16 &&
          (x != operand(warp[id - 16], aArg) ||
           y != operand(warp[id - 16], bArg)))
        return fail(lane, call,
                    "lanes 16-31 not repeating lanes 0-15's operands in");
      unsigned outer = id % 16, k0 = repeated ? 0 : 8 * (id / 16);
      for (unsigned j = 0; j < kWidth; ++j) {
        a[outer * 16 + k0 + j] = decode(aType, x[j]);
        b[(k0 + j) * 16 + outer] = decode(bType, y[j]);
      }
      for (unsigned v = 0; v < 8; ++v)
        c[row(id, v) * 16 + outer] =
            decode(integer ? "s32" : "f32", z[v].getZExtValue());
    }
    SmallVector<Bits> out(32);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned v = 0; v < 8; ++v)
        out[lane].push_back(
            matrixSum(a, b, c, 16, 16, row(lane, v), lane % 16, integer));
    return out;
  }

  /// ldmatrix.m8n8.x<N>: lanes 8i..8i+7 give the addresses of rows 0..7 of
  /// matrix i (8 b16 each). Lane l gets in register i elements 2(l%4) and
  /// 2(l%4) + 1 of row l/4 of matrix i, or with .trans of column l/4, the
  /// first in the low half.
  Expected<SmallVector<Bits>> loadMatrixOp(MutableArrayRef<Lane> warp,
                                           const CallInst &call,
                                           StringRef name) {
    // m8n8.x<N>[.trans].b16, then the pointer type it is overloaded on.
    SmallVector<StringRef> parts;
    if (name.consume_front("llvm.nvvm.ldmatrix.sync.aligned."))
      name.split(parts, '.');
    bool transpose = parts.size() > 2 && parts[2] == "trans";
    unsigned count = 0;
    if (parts.size() < (transpose ? 4u : 3u) || parts[0] != "m8n8" ||
        !parts[1].consume_front("x") || parts[1].getAsInteger(10, count) ||
        (count != 1 && count != 2 && count != 4) ||
        parts[transpose ? 3 : 2] != "b16")
      return fail(warp.front(), call,
                  "an ldmatrix the simulator does not know");
    if (warp.size() != 32)
      return fail(warp.front(), call, "an ldmatrix in a warp not of 32 lanes");
    using Matrix = std::array<std::array<uint16_t, 8>, 8>;
    SmallVector<Matrix> matrices(count);
    for (unsigned i = 0; i < count; ++i) {
      for (unsigned row = 0; row < 8; ++row) {
        Lane &provider = warp[8 * i + row];
        uint64_t at = value(provider, call.getArgOperand(0))[0].getZExtValue();
        std::optional<uint64_t> offset = sharedOffset(at, 16);
        if (!offset)
          return fail(provider, call, "a row outside shared memory in");
        if (*offset % 16)
          return fail(provider, call, "a row not 16-byte aligned in");
        if (const char *race = readRace(at, 16))
          return fail(provider, call, race);
        std::memcpy(matrices[i][row].data(), reinterpret_cast<void *>(at), 16);
      }
    }
    SmallVector<Bits> results(32);
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned row = lane / 4, col = 2 * (lane % 4);
      for (const Matrix &matrix : matrices) {
        uint32_t low = transpose ? matrix[col][row] : matrix[row][col];
        uint32_t high = transpose ? matrix[col + 1][row] : matrix[row][col + 1];
        results[lane].push_back(APInt(32, low | high << 16));
      }
    }
    return results;
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
        expr && (expr->getOpcode() == Instruction::AddrSpaceCast ||
                 expr->getOpcode() == Instruction::PtrToInt)) {
      Bits value = constant(expr->getOperand(0));
      if (!value.empty() && expr->getOpcode() == Instruction::PtrToInt)
        value[0] = value[0].zextOrTrunc(bits);
      return value;
    }
    if (auto *expr = dyn_cast<ConstantExpr>(c);
        expr && Instruction::isBinaryOp(expr->getOpcode())) {
      Bits a = constant(expr->getOperand(0)), b = constant(expr->getOperand(1));
      if (a.size() == 1 && b.size() == 1)
        if (std::optional<APInt> result =
                binaryOp(expr->getOpcode(), type, a[0], b[0]))
          return {*result};
    }
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
    if (!lane.wgmmaResults.empty())
      if (Error error = checkResultReads(lane, inst))
        return std::move(error);
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
      auto member = memberElements(extract->getAggregateOperand()->getType(),
                                   extract->getIndices());
      if (!member)
        return fail(lane, inst, "a nested aggregate or an array in");
      Bits aggregate = value(lane, extract->getAggregateOperand());
      return set(
          Bits(ArrayRef(aggregate).slice(member->first, member->second)));
    }
    if (auto *insert = dyn_cast<InsertValueInst>(&inst)) {
      auto member = memberElements(type, insert->getIndices());
      if (!member)
        return fail(lane, inst, "a nested aggregate or an array in");
      Bits aggregate = value(lane, insert->getAggregateOperand());
      Bits inserted = value(lane, insert->getInsertedValueOperand());
      llvm::copy(inserted, aggregate.begin() + member->first);
      return set(std::move(aggregate));
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
    if (auto *freeze = dyn_cast<FreezeInst>(&inst))
      return set(value(lane, freeze->getOperand(0)));
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
    if (const char *race = readRace(at, count * bytes))
      return fail(lane, inst, race);
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
    if (const char *race = writeRace(at, data.size() * bits / 8))
      return fail(lane, inst, race);
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
    if (text.contains("wgmma.mma_async")) {
      lane.wait = Wait::warpgroup;
      return false;
    }
    if (text.contains("wgmma.wait_group")) {
      // The products are computed at issue; the wait passes them on, and
      // the older groups' operands are no longer read.
      std::optional<uint64_t> keep =
          immediateAfter(text, "wgmma.wait_group.sync.aligned");
      if (!keep)
        return fail(lane, call, "a wgmma.wait_group the simulator does not "
                                "know");
      if (lane.id % 128 == 0)
        retireReads(warpgroupReads[lane.id / 128], *keep);
      if (*keep < lane.wgmmaCommitted)
        lane.wgmmaRetired = std::max<unsigned>(lane.wgmmaRetired,
                                               lane.wgmmaCommitted - *keep);
      Bits values;
      for (const Use &arg : call.args())
        values.push_back(value(lane, arg.get())[0]);
      lane.values[&call] = std::move(values);
      if (!lane.wgmmaResults.empty())
        passThroughWait(lane, call);
      return true;
    }
    if (text.contains("mbarrier.") || text.contains("cp.async.bulk."))
      return hopperAsyncOp(lane, call, text);
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
    SmallVector<SmallVector<unsigned, 4>> groups;
    bool inFlight = !lane.wgmmaResults.empty();
    for (const PHINode &phi : block->phis()) {
      const Value *from = phi.getIncomingValueForBlock(lane.block);
      incoming.emplace_back(&phi, value(lane, from));
      if (inFlight)
        groups.push_back(groupsInFlight(lane, from));
    }
    for (auto [i, entry] : llvm::enumerate(incoming)) {
      lane.values[entry.first] = std::move(entry.second);
      if (inFlight)
        setGroups(lane, entry.first, std::move(groups[i]));
    }
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
        name.starts_with("llvm.amdgcn.mfma.") ||
        name.starts_with("llvm.amdgcn.wmma.") ||
        name.starts_with("llvm.nvvm.shfl.sync.") ||
        name.starts_with("llvm.nvvm.mma.") ||
        name.starts_with("llvm.nvvm.ldmatrix.")) {
      lane.wait = Wait::warp;
      return false;
    }
    if (name.consume_front("llvm.nvvm.cp.async."))
      return asyncCopyOp(lane, call, name);
    if (name.starts_with("llvm.nvvm.wgmma.commit_group")) {
      // The warpgroup's first thread keeps its groups' reads.
      if (lane.id % 128 == 0)
        commit(warpgroupReads[lane.id / 128]);
      ++lane.wgmmaCommitted;
      return true;
    }
    // A by-value parameter's address, wrapped into the parameter space.
    if (name.starts_with("llvm.nvvm.internal.addrspace.wrap."))
      return set(value(lane, call.getArgOperand(0))[0]);
    if (name == "llvm.amdgcn.s.barrier" ||
        name.starts_with("llvm.nvvm.barrier")) {
      lane.wait = Wait::workgroup;
      return false;
    }
    if (name.starts_with("llvm.assume") || name.starts_with("llvm.lifetime") ||
        name.starts_with("llvm.nvvm.wgmma.fence") ||
        name.starts_with("llvm.nvvm.fence.proxy.async"))
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
      // x * y + z rounded once (fmuladd as the fused form).
      if (intrinsic == Intrinsic::fma || intrinsic == Intrinsic::fmuladd) {
        APFloat result = toFloat(type, x);
        result.fusedMultiplyAdd(
            toFloat(type, value(lane, call.getArgOperand(1))[i]),
            toFloat(type, value(lane, call.getArgOperand(2))[i]),
            APFloat::rmNearestTiesToEven);
        out.push_back(result.bitcastToAPInt());
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

  /// cp.async `name` (the intrinsic's name after `llvm.nvvm.cp.async.`): a
  /// copy is only recorded at issue; a wait retires groups, writing their
  /// bytes, read from global memory then.
  Expected<bool> asyncCopyOp(Lane &lane, const CallInst &call, StringRef name) {
    if (name == "commit.group") {
      lane.groups.push_back(std::move(lane.uncommitted));
      lane.uncommitted.clear();
      return true;
    }
    if (name == "wait.group" || name == "wait.all") {
      // wait.group N leaves the N most recent committed groups in flight;
      // wait.all is commit.group then wait.group 0.
      uint64_t keep =
          name == "wait.all"
              ? 0
              : value(lane, call.getArgOperand(0))[0].getZExtValue();
      for (; lane.groups.size() > keep; lane.groups.pop_front())
        for (const AsyncCopy &copy : lane.groups.front())
          retire(copy);
      if (name == "wait.all") {
        for (const AsyncCopy &copy : lane.uncommitted)
          retire(copy);
        lane.uncommitted.clear();
      }
      return true;
    }
    // {ca,cg}.shared.global.<bytes>[.s], .s taking the bytes to read.
    SmallVector<StringRef> parts;
    name.split(parts, '.');
    unsigned bytes = 0;
    if ((parts.size() != 4 && parts.size() != 5) ||
        (parts[0] != "ca" && parts[0] != "cg") || parts[1] != "shared" ||
        parts[2] != "global" || parts[3].getAsInteger(10, bytes) ||
        (bytes != 4 && bytes != 8 && bytes != 16) ||
        (parts.size() == 5 && parts[4] != "s"))
      return fail(lane, call, "a cp.async the simulator does not know");
    uint64_t to = value(lane, call.getArgOperand(0))[0].getZExtValue();
    uint64_t from = value(lane, call.getArgOperand(1))[0].getZExtValue();
    uint64_t sourceBytes =
        parts.size() == 5 ? value(lane, call.getArgOperand(2))[0].getZExtValue()
                          : bytes;
    std::optional<uint64_t> offset = sharedOffset(to, bytes);
    if (!offset)
      return fail(lane, call, "a cp.async to outside shared memory in");
    if (*offset % bytes || from % bytes)
      return fail(lane, call, "a cp.async not aligned to its size in");
    if (sourceBytes > bytes)
      return fail(lane, call, "a cp.async reading more than it copies in");
    if (sourceBytes && !inBuffer(from, sourceBytes))
      return fail(lane, call, "a cp.async from outside every buffer in");
    if (const char *race = writeRace(to, bytes))
      return fail(lane, call, race);
    lane.uncommitted.push_back({to, from, bytes, unsigned(sourceBytes)});
    asyncWrites.add(to, bytes, 1);
    return true;
  }

  /// Writes `copy` to shared memory: its source as it is now, then zeros.
  void retire(const AsyncCopy &copy) {
    auto *to = reinterpret_cast<uint8_t *>(copy.to);
    std::memcpy(to, reinterpret_cast<const void *>(copy.from),
                copy.sourceBytes);
    std::memset(to + copy.sourceBytes, 0, copy.bytes - copy.sourceBytes);
    asyncWrites.add(copy.to, copy.bytes, -1);
  }

  /// Hopper's mbarrier and TMA (cp.async.bulk) instructions as
  /// LowerAsyncOps.cpp emits them: the wait a try_wait loop of every thread
  /// on its own, the TMA stores' wait_group.read too; the rest predicated
  /// on $0 ("@p", thread 0 of the block where it issues them).
  Expected<bool> hopperAsyncOp(Lane &lane, const CallInst &call,
                               StringRef text) {
    if (text.contains("mbarrier.try_wait.parity.")) {
      SmallVector<unsigned> ops =
          operandNumbers(instruction(text, "mbarrier.try_wait"));
      if (ops.size() != 2 || llvm::any_of(ops, [&](unsigned n) {
            return n >= call.arg_size();
          }))
        return fail(lane, call, "an mbarrier wait the simulator does not know");
      Expected<uint64_t> at = barrierAt(lane, call, ops[0]);
      if (!at)
        return at.takeError();
      lane.barrier = *at;
      lane.parity = operand(lane, call, ops[1]) & 1;
      Expected<bool> done = phaseDone(lane, call);
      if (!done || *done)
        return done;
      lane.wait = Wait::mbarrier;
      return false;
    }
    if (text.contains("cp.async.bulk.wait_group.read")) {
      std::optional<uint64_t> keep =
          immediateAfter(text, "cp.async.bulk.wait_group.read");
      if (!keep)
        return fail(lane, call, "a bulk wait the simulator does not know");
      retireReads(lane.bulkReads, *keep);
      return true;
    }
    if (!text.contains("@p ") || call.arg_size() == 0)
      return fail(lane, call, "inline assembly the simulator does not know");
    if (operand(lane, call, 0) == 0)
      return true;
    if (text.contains("cp.async.bulk.commit_group")) {
      commit(lane.bulkReads);
      return true;
    }
    if (text.contains("cp.async.bulk.tensor."))
      return bulkTensorOp(lane, call, text);
    // One-thread mbarrier operations: the barrier, then a count.
    StringRef inst = instruction(text, "mbarrier.");
    SmallVector<unsigned> ops = operandNumbers(inst);
    if (ops.size() != 1)
      return fail(lane, call, "inline assembly the simulator does not know");
    Expected<uint64_t> at = barrierAt(lane, call, ops[0]);
    if (!at)
      return at.takeError();
    std::optional<uint64_t> number = immediateAfter(inst, "], ");
    if (inst.starts_with("mbarrier.init.") && number && *number) {
      auto it = barriers.find(*at);
      if (it != barriers.end() && !it->second.copies.empty())
        return fail(lane, call, "an mbarrier initialised again while TMA "
                                "copies it counts are in flight in");
      MBarrier &barrier = barriers[*at];
      barrier = MBarrier();
      barrier.count = barrier.pending = *number;
      return true;
    }
    if (inst.starts_with("mbarrier.inval.")) {
      auto it = barriers.find(*at);
      if (it != barriers.end() && !it->second.copies.empty())
        return fail(lane, call, "an mbarrier invalidated while TMA copies "
                                "it counts are in flight in");
      barriers.erase(*at);
      return true;
    }
    if (inst.starts_with("mbarrier.arrive.expect_tx.") && number)
      return arrive(lane, call, *at, 1, *number);
    if (inst.starts_with("mbarrier.arrive.") && number)
      return arrive(lane, call, *at, *number, 0);
    return fail(lane, call, "an mbarrier operation the simulator does not "
                            "know");
  }

  /// `text` from `opcode` to the instruction's end (a ';').
  static StringRef instruction(StringRef text, StringRef opcode) {
    size_t at = text.find(opcode);
    if (at == StringRef::npos)
      return {};
    return text.substr(at).take_until([](char c) { return c == ';'; });
  }

  uint64_t operand(Lane &lane, const CallInst &call, unsigned i) {
    return value(lane, call.getArgOperand(i))[0].getZExtValue();
  }

  /// The address of the mbarrier operand `i` (a 32-bit shared address)
  /// names.
  Expected<uint64_t> barrierAt(Lane &lane, const CallInst &call, unsigned i) {
    if (i >= call.arg_size())
      return fail(lane, call, "an mbarrier operation without its barrier");
    std::optional<uint64_t> at = sharedAddress(operand(lane, call, i), 8);
    if (!at || *at % 8)
      return fail(lane, call, "an mbarrier outside shared memory, or not "
                              "8-byte aligned, in");
    return *at;
  }

  /// The address in a shared variable whose low 32 bits are `address`
  /// (kernels take shared addresses in 32 bits), with `bytes` bytes there.
  std::optional<uint64_t> sharedAddress(uint64_t address,
                                        uint64_t bytes) const {
    for (const SharedBytes &storage : shared) {
      auto begin = reinterpret_cast<uint64_t>(storage.data());
      uint64_t offset = uint32_t(address - begin);
      if (offset + bytes <= storage.size())
        return begin + offset;
    }
    return std::nullopt;
  }

  /// `count` arrivals at the mbarrier at `at`, expecting `tx` more
  /// transaction bytes.
  Expected<bool> arrive(Lane &lane, const CallInst &call, uint64_t at,
                        unsigned count, uint64_t tx) {
    auto it = barriers.find(at);
    if (it == barriers.end())
      return fail(lane, call, "an arrival at an mbarrier not initialised in");
    MBarrier &barrier = it->second;
    // A phase that awaits only its copies ends before another begins.
    if (!barrier.pending)
      land(barrier);
    if (count > barrier.pending)
      return fail(lane, call, "more arrivals than the mbarrier's phase "
                              "awaits (or a phase whose transaction bytes "
                              "never come) in");
    barrier.tx += tx;
    barrier.pending -= count;
    completeIfDone(barrier);
    return true;
  }

  /// Whether the phase `lane` waits for (at `inst`) has completed; once
  /// every arrival of it is in, the copies counted on it land.
  Expected<bool> phaseDone(Lane &lane, const Instruction &inst) {
    auto it = barriers.find(lane.barrier);
    if (it == barriers.end())
      return fail(lane, inst, "a wait on an mbarrier not initialised in");
    MBarrier &barrier = it->second;
    if (barrier.phase == lane.parity && !barrier.pending)
      land(barrier);
    return barrier.phase != lane.parity;
  }

  /// Lands `barrier`'s copies, then completes its phase if it can.
  void land(MBarrier &barrier) {
    for (const BulkCopy &copy : barrier.copies) {
      for (uint64_t at = 0; at < copy.bytes.size(); at += 16) {
        uint64_t to = swizzled(copy.to + at, copy.swizzle);
        std::memcpy(reinterpret_cast<void *>(to), &copy.bytes[at], 16);
        bulkWrites.add(to, 16, -1);
      }
      barrier.tx -= copy.bytes.size();
    }
    barrier.copies.clear();
    completeIfDone(barrier);
  }

  static void completeIfDone(MBarrier &barrier) {
    if (barrier.pending || barrier.tx || !barrier.copies.empty())
      return;
    barrier.phase ^= 1;
    barrier.pending = barrier.count;
  }

  /// The failure of `lane`, which waits for a phase no other lane can
  /// complete.
  Error neverCompletes(const Lane &lane) const {
    const MBarrier &barrier = barriers.find(lane.barrier)->second;
    return fail(lane, *lane.next,
                "a wait for a phase of an mbarrier that never completes (" +
                    Twine(barrier.pending) + " arrivals and " +
                    Twine(barrier.tx) +
                    " transaction bytes missing, with no lane to bring "
                    "them) in");
  }

  /// Commits `reads`' uncommitted group.
  static void commit(ReadGroups &reads) {
    reads.committed.push_back(std::move(reads.uncommitted));
    reads.uncommitted.clear();
  }

  /// Retires all but the `keep` most recent committed groups of `reads`.
  void retireReads(ReadGroups &reads, uint64_t keep) {
    for (; reads.committed.size() > keep; reads.committed.pop_front())
      for (uint64_t chunk : reads.committed.front())
        asyncReads.add(chunk, 16, -1);
  }

  /// cp.async.bulk.tensor.<R>d: copies the box of the tensor map at the
  /// coordinates into shared memory, counted on an mbarrier (read now,
  /// landing when the barrier's phase is waited for), or from shared
  /// memory to global (now; the source counts as read until its bulk
  /// group is waited for). Both swizzle as the tensor map says.
  Expected<bool> bulkTensorOp(Lane &lane, const CallInst &call,
                              StringRef text) {
    StringRef inst = instruction(text, "cp.async.bulk.tensor.");
    StringRef form = inst.drop_front(strlen("cp.async.bulk.tensor."));
    unsigned rank = 0;
    form.take_until([](char c) { return c == 'd'; }).getAsInteger(10, rank);
    bool load =
        form.contains(".shared::cluster.global.mbarrier::complete_tx::bytes");
    bool store = form.contains(".global.shared::cta.bulk_group");
    // A load names [dst], [map, {coords}], [barrier]; a store [map,
    // {coords}], [src]. Coordinates go innermost first.
    SmallVector<unsigned> ops = operandNumbers(inst);
    if ((!load && !store) || rank < 1 || rank > 5 ||
        ops.size() != rank + (load ? 3 : 2) ||
        llvm::any_of(ops, [&](unsigned n) { return n >= call.arg_size(); }))
      return fail(lane, call, "a TMA copy the simulator does not know");
    uint64_t mapAt = operand(lane, call, ops[load ? 1 : 0]);
    SimTensorMap map;
    if (!inBuffer(mapAt, sizeof map))
      return fail(lane, call, "a TMA copy whose tensor map is outside every "
                              "buffer (pass a SimTensorMap) in");
    std::memcpy(&map, reinterpret_cast<const void *>(mapAt), sizeof map);
    uint64_t rowBytes = uint64_t(map.box[0]) * map.elementBytes;
    bool valid = map.rank == rank &&
                 llvm::is_contained({1u, 2u, 4u, 8u}, map.elementBytes) &&
                 llvm::is_contained({0u, 32u, 64u, 128u}, map.swizzle) &&
                 rowBytes % 16 == 0 &&
                 (!map.swizzle || rowBytes <= map.swizzle);
    for (unsigned d = 0; d < rank; ++d)
      valid &= map.box[d] >= 1 && map.box[d] <= 256;
    if (!valid)
      return fail(lane, call, "a TMA copy through a tensor map of another "
                              "rank, or one the simulator cannot use (a box "
                              "row not of 16-byte multiples, or wider than "
                              "its swizzle), in");
    int64_t coords[5] = {};
    for (unsigned d = 0; d < rank; ++d)
      coords[d] = int32_t(operand(lane, call, ops[(load ? 2 : 1) + d]));
    uint64_t rows = 1;
    for (unsigned d = 1; d < rank; ++d)
      rows *= map.box[d];
    uint64_t bytes = rows * rowBytes;
    std::optional<uint64_t> at =
        sharedAddress(operand(lane, call, load ? ops[0] : ops.back()), bytes);
    if (!at)
      return fail(lane, call, "a TMA copy to or from outside shared memory "
                              "in");
    if (*at % 128)
      return fail(lane, call, "a TMA copy to or from shared memory not "
                              "aligned to 128 bytes in");
    // The shared address of the 16-byte chunk at `offset` in the box.
    auto chunkAt = [&](uint64_t offset) {
      return swizzled(*at + offset, map.swizzle);
    };
    MBarrier *barrier = nullptr;
    if (load) {
      Expected<uint64_t> barrierAddress = barrierAt(lane, call, ops.back());
      if (!barrierAddress)
        return barrierAddress.takeError();
      auto it = barriers.find(*barrierAddress);
      if (it == barriers.end())
        return fail(lane, call, "a TMA copy on an mbarrier not initialised "
                                "in");
      barrier = &it->second;
    }
    for (uint64_t offset = 0; offset < bytes; offset += 16) {
      if (!sharedOffset(chunkAt(offset), 16))
        return fail(lane, call, "a TMA copy whose swizzle leaves shared "
                                "memory in");
      if (const char *race = load ? writeRace(chunkAt(offset), 16)
                                  : readRace(chunkAt(offset), 16))
        return fail(lane, call, race);
    }
    std::vector<uint8_t> box(bytes);
    uint64_t fill = map.fill;
    for (uint64_t row = 0; row < rows; ++row) {
      // The global address of the row's first element, and whether the
      // row lies inside the tensor.
      bool inside = true;
      uint64_t global = map.address + coords[0] * map.elementBytes;
      for (uint64_t d = 1, rest = row; d < rank; rest /= map.box[d++]) {
        int64_t index = coords[d] + rest % map.box[d];
        inside &= index >= 0 && uint64_t(index) < map.shape[d];
        global += index * map.strides[d - 1];
      }
      // The bytes of its elements inside, [first, last).
      uint64_t first = std::clamp<int64_t>(-coords[0], 0, map.box[0]);
      uint64_t last = std::clamp<int64_t>(int64_t(map.shape[0]) - coords[0],
                                          first, map.box[0]);
      first *= map.elementBytes;
      last = inside ? last * map.elementBytes : first;
      if (last > first && !inBuffer(global + first, last - first))
        return fail(lane, call, "a TMA copy to or from outside every buffer "
                                "(the tensor map's shape or strides are "
                                "wrong) in");
      if (load) {
        uint8_t *dense = &box[row * rowBytes];
        for (uint64_t e = 0; e < rowBytes; e += map.elementBytes)
          std::memcpy(dense + e, &fill, map.elementBytes);
        if (last > first)
          std::memcpy(dense + first,
                      reinterpret_cast<const void *>(global + first),
                      last - first);
        continue;
      }
      for (uint64_t e = first; e < last; e += map.elementBytes) {
        uint64_t offset = row * rowBytes + e;
        uint64_t from = chunkAt(offset & ~uint64_t(15)) + offset % 16;
        std::memcpy(reinterpret_cast<void *>(global + e),
                    reinterpret_cast<const void *>(from), map.elementBytes);
      }
    }
    for (uint64_t offset = 0; offset < bytes; offset += 16) {
      (load ? bulkWrites : asyncReads).add(chunkAt(offset), 16, 1);
      if (store)
        lane.bulkReads.uncommitted.push_back(chunkAt(offset));
    }
    if (load)
      barrier->copies.push_back({*at, map.swizzle, std::move(box)});
    return true;
  }

  /// The offset of [address, address + bytes) in the shared variable that
  /// holds all of it.
  std::optional<uint64_t> sharedOffset(uint64_t address, uint64_t bytes) const {
    for (const SharedBytes &storage : shared) {
      auto begin = reinterpret_cast<uint64_t>(storage.data());
      if (address >= begin && address + bytes <= begin + storage.size())
        return address - begin;
    }
    return std::nullopt;
  }

  /// Why reading `bytes` shared bytes at `address` now races with a copy
  /// in flight (a missing wait), or null.
  const char *readRace(uint64_t address, uint64_t bytes) const {
    if (!group.catchInFlightReads)
      return nullptr;
    if (asyncWrites.any(address, bytes))
      return "a read of shared memory that a cp.async still in flight "
             "writes (a missing or too weak cp.async.wait) in";
    if (bulkWrites.any(address, bytes))
      return "a read of shared memory that a TMA copy still in flight "
             "writes (a missing wait for its mbarrier's phase) in";
    return nullptr;
  }

  /// Why writing `bytes` shared bytes at `address` now races with an
  /// operation in flight that reads them, or null.
  const char *writeRace(uint64_t address, uint64_t bytes) const {
    if (!group.catchOverwrittenReads || !asyncReads.any(address, bytes))
      return nullptr;
    return "a write of shared memory that a wgmma or TMA store in flight "
           "still reads (a missing or too weak wgmma.wait_group or "
           "cp.async.bulk.wait_group.read) in";
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
  std::vector<SharedBytes> shared;
  /// Per byte of `shared`, how many issued and unretired cp.async write it,
  /// how many unlanded TMA copies, and how many operations in flight read
  /// it.
  ByteCounts asyncWrites, bulkWrites, asyncReads;
  /// The wgmma groups of each warpgroup.
  std::vector<ReadGroups> warpgroupReads;
  /// The initialised mbarriers, by address.
  DenseMap<uint64_t, MBarrier> barriers;
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

void expandExp2(Function &kernel) {
  std::vector<CallInst *> calls;
  for (Instruction &inst : instructions(kernel))
    if (auto *call = dyn_cast<IntrinsicInst>(&inst))
      if ((call->getIntrinsicID() == Intrinsic::exp2 ||
           call->getIntrinsicID() == Intrinsic::exp ||
           call->getIntrinsicID() == Intrinsic::nvvm_ex2_approx_ftz) &&
          call->getType()->isFloatTy())
        calls.push_back(call);
  for (CallInst *call : calls) {
    IRBuilder<> b(call);
    Type *f32 = b.getFloatTy();
    Type *i32 = b.getInt32Ty();
    auto constant = [&](double v) { return ConstantFP::get(f32, v); };
    Value *x = call->getArgOperand(0);
    if (call->getIntrinsicID() == Intrinsic::exp)
      x = b.CreateFMul(x, constant(M_LOG2E));
    x = b.CreateSelect(b.CreateFCmpOLT(x, constant(-125)), constant(-125), x);
    // round(x) = floor(x + 1/2); fptosi truncates towards zero.
    Value *up = b.CreateFAdd(x, constant(0.5));
    Value *toward = b.CreateFPToSI(up, i32);
    Value *above = b.CreateFCmpOGT(b.CreateSIToFP(toward, f32), up);
    Value *whole =
        b.CreateSelect(above, b.CreateSub(toward, b.getInt32(1)), toward);
    Value *f = b.CreateFMul(b.CreateFSub(x, b.CreateSIToFP(whole, f32)),
                            constant(M_LN2));
    Value *poly = constant(1.0 / 5040);
    for (double c : {1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0})
      poly = b.CreateFAdd(b.CreateFMul(poly, f), constant(c));
    Value *scale = b.CreateBitCast(
        b.CreateShl(b.CreateAdd(whole, b.getInt32(127)), b.getInt32(23)), f32);
    call->replaceAllUsesWith(b.CreateFMul(poly, scale));
    call->eraseFromParent();
  }
}

Expected<SimTensorMap>
encodeSimTensorMap(const mlir::tile::runtime::TensorMapRequest &request) {
  // Bytes, and the quiet NaN (0 where there is none), by element type.
  struct ElementType {
    StringRef name;
    unsigned bytes;
    uint32_t nan;
  };
  static const ElementType kTypes[] = {
      {"fp16", 2, 0x7e00}, {"bf16", 2, 0x7fc0},   {"fp32", 4, 0x7fc00000},
      {"fp8e4nv", 1, 0x7f}, {"fp8e5", 1, 0x7e},   {"i8", 1, 0},
      {"u8", 1, 0},        {"i16", 2, 0},         {"i32", 4, 0}};
  const ElementType *type = llvm::find_if(
      kTypes, [&](const ElementType &t) { return t.name == request.dtype; });
  size_t rank = request.shape.size();
  auto fail = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "a tensor map of " + request.dtype + " with " +
                                 Twine(rank) + " dimensions: " + why);
  };
  if (type == std::end(kTypes) || rank < 1 || rank > 5 ||
      request.strides.size() + 1 != rank || request.box.size() != rank)
    return fail("not an element type and rank tensor maps have");
  if (request.nanPadding && !type->nan)
    return fail("NaN padding of a type without NaN");
  if (request.address % 16 ||
      llvm::any_of(request.strides, [](uint64_t s) { return s % 16; }))
    return fail("bases and strides must be multiples of 16 bytes");
  if (llvm::any_of(request.box, [](uint32_t b) { return !b || b > 256; }))
    return fail("a box of 1 to 256 elements a dimension");
  uint64_t rowBytes = uint64_t(request.box.back()) * type->bytes;
  if (!llvm::is_contained({0u, 32u, 64u, 128u}, request.swizzle) ||
      rowBytes % 16 || (request.swizzle && rowBytes > request.swizzle))
    return fail("a box row of 16-byte multiples, at most the swizzle wide");
  SimTensorMap map;
  map.address = request.address;
  map.rank = rank;
  map.elementBytes = type->bytes;
  // The request lists outermost first.
  for (size_t d = 0; d < rank; ++d) {
    map.shape[d] = request.shape[rank - 1 - d];
    map.box[d] = request.box[rank - 1 - d];
    if (d + 1 < rank)
      map.strides[d] = request.strides[rank - 2 - d];
  }
  map.swizzle = request.swizzle;
  map.fill = request.nanPadding ? type->nan : 0;
  return map;
}

} // namespace tessera::test
