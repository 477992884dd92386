//===- LaneSimulatorTest.cpp - mma, ldmatrix and cp.async on the host -----===//
//
// Hand-written NVPTX kernels, shaped as the NVIDIA backend hands them to
// LLVM, run lane by lane (LaneSimulator): mma.sync of each input type must
// equal a host matmul, ldmatrix must deliver the rows (or columns) of the
// shared tile it loads, and cp.async copies must land in shared memory only
// when a wait retires their group.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <tuple>

using tessera::test::LaneSimulator;
using tessera::test::parseKernelModule;
using tessera::test::Workgroup;

namespace {

using Words = std::vector<uint32_t>;

/// Runs the @kernel of the LLVM IR `source` on one warp of 32 lanes, its
/// pointer arguments pointing to `buffers` in order.
llvm::Error runKernel(llvm::StringRef source, llvm::ArrayRef<Words *> buffers,
                      bool catchInFlightReads = true) {
  llvm::LLVMContext context;
  auto module = parseKernelModule(source, context);
  if (!module)
    return module.takeError();
  Workgroup group;
  group.numThreads = 32;
  group.catchInFlightReads = catchInFlightReads;
  LaneSimulator simulator(*(*module)->getFunction("kernel"), group);
  std::vector<uint64_t> args;
  for (Words *buffer : buffers) {
    simulator.addBuffer(buffer->data(), buffer->size() * sizeof(uint32_t));
    args.push_back(reinterpret_cast<uint64_t>(buffer->data()));
  }
  return simulator.run(args);
}

/// `text`, `times` times, separated by commas.
std::string repeat(llvm::StringRef text, unsigned times) {
  std::string out;
  for (unsigned i = 0; i < times; ++i)
    out += (i ? ", " : "") + text.str();
  return out;
}

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

/// One mma.sync: the intrinsic and the PTX types of A, B and C (= D).
struct MmaCase {
  const char *label;
  const char *intrinsic;
  const char *a, *b, *c;
  unsigned k;
  bool satfinite = false;
};

void PrintTo(const MmaCase &mma, std::ostream *os) { *os << mma.intrinsic; }

unsigned bitsOf(llvm::StringRef type) {
  if (type == "f16" || type == "bf16")
    return 16;
  if (type == "tf32" || type == "f32" || type == "s32")
    return 32;
  return 8;
}

// Where a lane's element i of each operand lies, as the PTX ISA's "Matrix
// fragments for mma.m16n8k16 / m16n8k8 / m16n8k32" tables give it
// (g = lane / 4, t = lane % 4); element i is in register i / (32 / bits),
// the first in the low bits.

/// (row, k) of A's element `i`.
std::pair<unsigned, unsigned> aElement(unsigned bits, unsigned lane,
                                       unsigned i) {
  unsigned g = lane / 4, t = lane % 4;
  if (bits == 16) // m16n8k16, a0..a7.
    return {i < 2 || (i >= 4 && i < 6) ? g : g + 8,
            2 * t + (i & 1) + (i >= 4 ? 8 : 0)};
  if (bits == 32) // m16n8k8 tf32, a0..a3.
    return {i == 0 || i == 2 ? g : g + 8, i < 2 ? t : t + 4};
  // m16n8k32 8-bit, a0..a15.
  return {i < 4 || (i >= 8 && i < 12) ? g : g + 8,
          4 * t + (i & 3) + (i >= 8 ? 16 : 0)};
}

/// (k, column) of B's element `i`.
std::pair<unsigned, unsigned> bElement(unsigned bits, unsigned lane,
                                       unsigned i) {
  unsigned g = lane / 4, t = lane % 4;
  if (bits == 16)
    return {2 * t + (i & 1) + (i >= 2 ? 8 : 0), g};
  if (bits == 32)
    return {i == 0 ? t : t + 4, g};
  return {4 * t + (i & 3) + (i >= 4 ? 16 : 0), g};
}

/// (row, column) of C's and D's element `i`.
std::pair<unsigned, unsigned> cElement(unsigned lane, unsigned i) {
  return {i < 2 ? lane / 4 : lane / 4 + 8, 2 * (lane % 4) + (i & 1)};
}

/// An element's bits and its value; for tf32 the value the tensor core
/// reads (the 13 low mantissa bits cleared) and the full one.
struct Element {
  uint32_t bits = 0;
  double value = 0;
  double fullValue = 0;
};

Element randomElement(llvm::StringRef type, std::mt19937 &random) {
  std::uniform_real_distribution<float> unit(-1, 1);
  if (type == "s8" || type == "u8") {
    uint32_t bits = random() & 0xff;
    double value = type == "s8" ? double(int8_t(bits)) : double(bits);
    return {bits, value, value};
  }
  if (type == "s32") {
    auto value = std::uniform_int_distribution<int32_t>(-1000, 1000)(random);
    return {uint32_t(value), double(value), double(value)};
  }
  if (type == "tf32" || type == "f32") {
    float value = unit(random);
    auto bits = llvm::bit_cast<uint32_t>(value);
    double read =
        type == "tf32" ? llvm::bit_cast<float>(bits & ~0x1fffu) : double(value);
    return {bits, read, double(value)};
  }
  const llvm::fltSemantics &semantics =
      type == "f16"    ? llvm::APFloat::IEEEhalf()
      : type == "bf16" ? llvm::APFloat::BFloat()
      : type == "e4m3" ? llvm::APFloat::Float8E4M3FN()
                       : llvm::APFloat::Float8E5M2();
  bool lost;
  llvm::APFloat value(0.0f);
  if (type == "f16" || type == "bf16") {
    value = llvm::APFloat(unit(random));
    value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  } else {
    // Every finite f8 value, subnormals and the largest ones included.
    do
      value = llvm::APFloat(semantics, llvm::APInt(8, random() & 0xff));
    while (!value.isFinite());
  }
  auto bits = uint32_t(value.bitcastToAPInt().getZExtValue());
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return {bits, value.convertToDouble(), value.convertToDouble()};
}

/// Each lane loads its registers of A, B and C (words numA * lane... of %a,
/// and so on), runs the mma, and stores D's registers to %d likewise.
std::string mmaKernel(const MmaCase &mma, unsigned numA, unsigned numB,
                      unsigned numC) {
  std::string aType = llvm::StringRef(mma.a) == "f16" ? "<2 x half>" : "i32";
  llvm::StringRef c = mma.c;
  std::string cType = c == "f32" ? "float" : c == "f16" ? "<2 x half>" : "i32";
  std::string result = "{ " + repeat(cType, numC) + " }";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "target triple = \"nvptx64-nvidia-cuda\"\n\n"
     << "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
     << "declare " << result << " @" << mma.intrinsic << "("
     << repeat(aType, numA + numB) << ", " << repeat(cType, numC) << ")\n\n"
     << "define void @kernel(ptr addrspace(1) %a, ptr addrspace(1) %b, "
        "ptr addrspace(1) %c, ptr addrspace(1) %d) {\n"
     << "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
     << "  %lane = zext i32 %tid to i64\n";
  std::vector<std::string> operands;
  // %<x>base: the lane's first word of buffer %<x>; %<x><i>p: word i.
  auto registers = [&](char buffer, unsigned count) {
    os << "  %" << buffer << "first = mul i64 %lane, " << count << "\n"
       << "  %" << buffer << "base = getelementptr i32, ptr addrspace(1) %"
       << buffer << ", i64 %" << buffer << "first\n";
    for (unsigned i = 0; i < count; ++i)
      os << "  %" << buffer << i << "p = getelementptr i32, ptr addrspace(1) %"
         << buffer << "base, i64 " << i << "\n";
  };
  auto load = [&](char buffer, unsigned count, llvm::StringRef type) {
    registers(buffer, count);
    for (unsigned i = 0; i < count; ++i) {
      std::string name = buffer + std::to_string(i);
      os << "  %" << name << " = load " << type << ", ptr addrspace(1) %"
         << name << "p\n";
      operands.push_back(type.str() + " %" + name);
    }
  };
  load('a', numA, aType);
  load('b', numB, aType);
  load('c', numC, cType);
  os << "  %r = call " << result << " @" << mma.intrinsic << "(";
  for (size_t i = 0; i < operands.size(); ++i)
    os << (i ? ", " : "") << operands[i];
  os << ")\n";
  registers('d', numC);
  for (unsigned i = 0; i < numC; ++i)
    os << "  %d" << i << " = extractvalue " << result << " %r, " << i << "\n"
       << "  store " << cType << " %d" << i << ", ptr addrspace(1) %d" << i
       << "p\n";
  os << "  ret void\n}\n";
  return text;
}

class LaneSimulatorMma : public ::testing::TestWithParam<MmaCase> {};

TEST_P(LaneSimulatorMma, MatchesAHostMatmul) {
  const MmaCase &mma = GetParam();
  llvm::StringRef cType = mma.c;
  unsigned k = mma.k, bits = bitsOf(mma.a), cBits = bitsOf(cType);
  // Each lane's 32-bit registers: a warp holds 16k, 8k and 128 elements.
  unsigned numA = 16 * k * bits / 32 / 32, numB = 8 * k * bits / 32 / 32,
           numC = 128 * cBits / 32 / 32;
  std::mt19937 random(std::hash<std::string>()(mma.label));
  // Row-major A (16 x k), B (k x 8), C (16 x 8).
  std::vector<Element> a(16 * k), b(k * 8), c(16 * 8);
  for (Element &element : a)
    element = randomElement(mma.a, random);
  for (Element &element : b)
    element = randomElement(mma.b, random);
  for (Element &element : c)
    element = randomElement(cType, random);
  // Integer sums in rows 0 and 1 start at the ends of the i32 range, to
  // clamp (satfinite) or wrap.
  if (cType == "s32")
    for (unsigned col = 0; col < 8; ++col) {
      c[col] = {uint32_t(INT32_MAX - 5), INT32_MAX - 5.0, 0};
      c[8 + col] = {uint32_t(INT32_MIN + 5), INT32_MIN + 5.0, 0};
    }

  Words fa(32 * numA), fb(32 * numB), fc(32 * numC), fd(32 * numC);
  auto pack = [](Words &words, unsigned registers, unsigned bits, unsigned lane,
                 unsigned i, uint32_t element) {
    unsigned perRegister = 32 / bits;
    words[lane * registers + i / perRegister] |= element
                                                 << bits * (i % perRegister);
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned i = 0; i < numA * 32 / bits; ++i) {
      auto [row, col] = aElement(bits, lane, i);
      pack(fa, numA, bits, lane, i, a[row * k + col].bits);
    }
    for (unsigned i = 0; i < numB * 32 / bits; ++i) {
      auto [row, col] = bElement(bits, lane, i);
      pack(fb, numB, bits, lane, i, b[row * 8 + col].bits);
    }
    for (unsigned i = 0; i < 4; ++i) {
      auto [row, col] = cElement(lane, i);
      pack(fc, numC, cBits, lane, i, c[row * 8 + col].bits);
    }
  }
  llvm::Error error =
      runKernel(mmaKernel(mma, numA, numB, numC), {&fa, &fb, &fc, &fd});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  unsigned beyondI32 = 0, beyondTolerance = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned i = 0; i < 4; ++i) {
      auto [row, col] = cElement(lane, i);
      unsigned perRegister = 32 / cBits;
      uint32_t got = uint32_t(uint64_t(fd[lane * numC + i / perRegister]) >>
                              cBits * (i % perRegister)) &
                     uint32_t((uint64_t(1) << cBits) - 1);
      const Element &accumulator = c[row * 8 + col];
      double want = accumulator.value, wantFull = accumulator.value;
      double magnitude = std::abs(accumulator.value);
      for (unsigned j = 0; j < k; ++j) {
        const Element &x = a[row * k + j], &y = b[j * 8 + col];
        want += x.value * y.value;
        wantFull += x.fullValue * y.fullValue;
        magnitude += std::abs(x.value * y.value);
      }
      std::string where =
          "D[" + std::to_string(row) + "][" + std::to_string(col) + "], lane " +
          std::to_string(lane) + " element " + std::to_string(i);
      if (cType == "s32") {
        // Products of 8-bit integers sum exactly in a double.
        auto exact = int64_t(want);
        beyondI32 += exact != int32_t(exact);
        int64_t expected =
            mma.satfinite ? std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX)
                          : exact;
        EXPECT_EQ(got, uint32_t(expected)) << where;
        continue;
      }
      llvm::APFloat value(cType == "f16" ? llvm::APFloat::IEEEhalf()
                                         : llvm::APFloat::IEEEsingle(),
                          llvm::APInt(cBits, got));
      bool lost;
      value.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
      // f32 sums of k products; f16 results rounded once more.
      double tolerance = (cType == "f16" ? 1e-3 : 1e-5) * magnitude + 1e-6;
      EXPECT_NEAR(value.convertToDouble(), want, tolerance) << where;
      beyondTolerance += std::abs(wantFull - want) > tolerance;
    }
  }
  if (cType == "s32") {
    EXPECT_GT(beyondI32, 0u) << "no sum left the i32 range";
  }
  if (llvm::StringRef(mma.a) == "tf32") {
    EXPECT_GT(beyondTolerance, 0u)
        << "the inputs' low mantissa bits never mattered";
  }
}

INSTANTIATE_TEST_SUITE_P(
    LaneSimulator, LaneSimulatorMma,
    ::testing::Values(
        MmaCase{"F16ToF32", "llvm.nvvm.mma.m16n8k16.row.col.f32.f32", "f16",
                "f16", "f32", 16},
        MmaCase{"F16ToF16", "llvm.nvvm.mma.m16n8k16.row.col.f16.f16", "f16",
                "f16", "f16", 16},
        MmaCase{"BF16", "llvm.nvvm.mma.m16n8k16.row.col.bf16", "bf16", "bf16",
                "f32", 16},
        MmaCase{"TF32", "llvm.nvvm.mma.m16n8k8.row.col.tf32", "tf32", "tf32",
                "f32", 8},
        MmaCase{"S8Satfinite", "llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8",
                "s8", "s8", "s32", 32, true},
        MmaCase{"S8Wrapping", "llvm.nvvm.mma.m16n8k32.row.col.s8", "s8", "s8",
                "s32", 32},
        MmaCase{"U8Wrapping", "llvm.nvvm.mma.m16n8k32.row.col.u8", "u8", "u8",
                "s32", 32},
        MmaCase{"U8S8Satfinite",
                "llvm.nvvm.mma.m16n8k32.row.col.satfinite.u8.s8", "u8", "s8",
                "s32", 32, true},
        MmaCase{"E4M3", "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32",
                "e4m3", "e4m3", "f32", 32},
        MmaCase{"E5M2", "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32",
                "e5m2", "e5m2", "f32", 32},
        MmaCase{"E4M3E5M2", "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32",
                "e4m3", "e5m2", "f32", 32}),
    [](const ::testing::TestParamInfo<MmaCase> &info) {
      return std::string(info.param.label);
    });

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

/// Fills an 8 x 32 shared tile of b16 with 0, 1, 2, ... and loads `count`
/// 8x8 matrices from it: lane 8i + r gives row r of matrix i, columns
/// 8i..8i+7 of the tile, plus `$SKEW` elements; the lanes that give no row
/// give null, which ldmatrix must not read. Lane l stores register i to word
/// count * l + i of %out.
std::string ldmatrixKernel(unsigned count, bool transpose, unsigned skew = 0) {
  std::string name = "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x" +
                     std::to_string(count) + (transpose ? ".trans" : "") +
                     ".b16.p3";
  std::string result = count == 1 ? "i32" : "{ " + repeat("i32", count) + " }";
  std::string text = R"(target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x i16] undef

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare $RESULT @$NAME(ptr addrspace(3))

define void @kernel(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %fill

fill:
  %i = phi i32 [ %tid, %entry ], [ %next, %fill ]
  %value = trunc i32 %i to i16
  %slot = getelementptr i16, ptr addrspace(3) @tile, i32 %i
  store i16 %value, ptr addrspace(3) %slot
  %next = add i32 %i, 32
  %more = icmp ult i32 %next, 256
  br i1 %more, label %fill, label %load

load:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %row = and i32 %tid, 7
  %matrix = lshr i32 %tid, 3
  %rowStart = mul i32 %row, 32
  %colStart = mul i32 %matrix, 8
  %start = add i32 %rowStart, %colStart
  %index = add i32 %start, $SKEW
  %address = getelementptr i16, ptr addrspace(3) @tile, i32 %index
  %gives = icmp ult i32 %tid, $ROWS
  %pointer = select i1 %gives, ptr addrspace(3) %address, ptr addrspace(3) null
  %r = call $RESULT @$NAME(ptr addrspace(3) %pointer)
  %first = mul i32 %tid, $COUNT
)";
  if (count == 1) {
    text += "  %at0 = getelementptr i32, ptr addrspace(1) %out, i32 %first\n"
            "  store i32 %r, ptr addrspace(1) %at0\n";
  } else {
    for (unsigned i = 0; i < count; ++i) {
      std::string n = std::to_string(i);
      text += "  %r" + n + " = extractvalue $RESULT %r, " + n + "\n  %word" +
              n + " = add i32 %first, " + n + "\n  %at" + n +
              " = getelementptr i32, ptr addrspace(1) %out, i32 %word" + n +
              "\n  store i32 %r" + n + ", ptr addrspace(1) %at" + n + "\n";
    }
  }
  text += "  ret void\n}\n";
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"$RESULT", result},
        {"$NAME", name},
        {"$ROWS", std::to_string(8 * count)},
        {"$COUNT", std::to_string(count)},
        {"$SKEW", std::to_string(skew)}})
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

class LaneSimulatorLdmatrix
    : public ::testing::TestWithParam<std::tuple<unsigned, bool>> {};

TEST_P(LaneSimulatorLdmatrix, DeliversTheTile) {
  auto [count, transpose] = GetParam();
  Words out(32 * count, 0xdeadbeef);
  llvm::Error error = runKernel(ldmatrixKernel(count, transpose), {&out});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  // Element (r, c) of matrix i is tile element (r, 8i + c), which holds
  // 32r + 8i + c.
  auto element = [](unsigned i, unsigned r, unsigned c) {
    return 32 * r + 8 * i + c;
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned i = 0; i < count; ++i) {
      unsigned fixed = lane / 4, first = 2 * (lane % 4);
      uint32_t low =
          transpose ? element(i, first, fixed) : element(i, fixed, first);
      uint32_t high = transpose ? element(i, first + 1, fixed)
                                : element(i, fixed, first + 1);
      EXPECT_EQ(out[count * lane + i], low | high << 16)
          << "lane " << lane << " register " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    LaneSimulator, LaneSimulatorLdmatrix,
    ::testing::Combine(::testing::Values(1u, 2u, 4u), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<unsigned, bool>> &info) {
      return "x" + std::to_string(std::get<0>(info.param)) +
             (std::get<1>(info.param) ? "_trans" : "");
    });

TEST(LaneSimulatorLdmatrixRows, MustLieAlignedInSharedMemory) {
  Words out(32 * 4);
  // A row further on: the first to leave the tile is row 7 of matrix 0.
  llvm::Error outside = runKernel(ldmatrixKernel(4, false, 32), {&out});
  std::string message = llvm::toString(std::move(outside));
  EXPECT_NE(message.find("lane 7: a row outside shared memory"),
            std::string::npos)
      << message;
  llvm::Error misaligned = runKernel(ldmatrixKernel(2, true, 1), {&out});
  message = llvm::toString(std::move(misaligned));
  EXPECT_NE(message.find("lane 0: a row not 16-byte aligned"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

constexpr const char *kAsyncDeclarations =
    R"(target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.ca.shared.global.8(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3), ptr addrspace(1), i32)
declare void @llvm.nvvm.cp.async.commit.group()
declare void @llvm.nvvm.cp.async.wait.group(i32)
declare void @llvm.nvvm.cp.async.wait.all()
)";

/// Group 1 copies word tid of %src, group 2 words 32 + 2 tid and 33 + 2 tid.
/// After wait.group 1 and a barrier each lane reads its own and its
/// neighbour's group-1 word and its own first group-2 word (to %early; not
/// its neighbour's, which the neighbour may have waited for already, a race
/// on a GPU); after wait.group 0 and a barrier, its neighbour's group-2 words
/// (to %late).
constexpr const char *kTwoGroups = R"(
@buffer = internal addrspace(3) global [96 x i32] undef

define void @kernel(ptr addrspace(1) %src, ptr addrspace(1) %early, ptr addrspace(1) %late) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %to1 = getelementptr i32, ptr addrspace(3) @buffer, i32 %tid
  %from1 = getelementptr i32, ptr addrspace(1) %src, i32 %tid
  call void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3) %to1, ptr addrspace(1) %from1)
  call void @llvm.nvvm.cp.async.commit.group()
  %twice = mul i32 %tid, 2
  %word2 = add i32 %twice, 32
  %to2 = getelementptr i32, ptr addrspace(3) @buffer, i32 %word2
  %from2 = getelementptr i32, ptr addrspace(1) %src, i32 %word2
  call void @llvm.nvvm.cp.async.ca.shared.global.8(ptr addrspace(3) %to2, ptr addrspace(1) %from2)
  call void @llvm.nvvm.cp.async.commit.group()

  call void @llvm.nvvm.cp.async.wait.group(i32 1)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %other = xor i32 %tid, 1
  %own1 = load i32, ptr addrspace(3) %to1
  %at1 = getelementptr i32, ptr addrspace(3) @buffer, i32 %other
  %other1 = load i32, ptr addrspace(3) %at1
  %group2early = load i32, ptr addrspace(3) %to2
  %out = mul i32 %tid, 3
  %out0 = getelementptr i32, ptr addrspace(1) %early, i32 %out
  store i32 %own1, ptr addrspace(1) %out0
  %out1 = getelementptr i32, ptr addrspace(1) %out0, i32 1
  store i32 %other1, ptr addrspace(1) %out1
  %out2 = getelementptr i32, ptr addrspace(1) %out0, i32 2
  store i32 %group2early, ptr addrspace(1) %out2

  call void @llvm.nvvm.cp.async.wait.group(i32 0)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %otherTwice = mul i32 %other, 2
  %otherWord2 = add i32 %otherTwice, 32
  %at2 = getelementptr i32, ptr addrspace(3) @buffer, i32 %otherWord2
  %group2 = load <2 x i32>, ptr addrspace(3) %at2
  %lateAt = getelementptr <2 x i32>, ptr addrspace(1) %late, i32 %tid
  store <2 x i32> %group2, ptr addrspace(1) %lateAt
  ret void
}
)";

Words sourceWords(unsigned count) {
  Words src(count);
  for (unsigned i = 0; i < count; ++i)
    src[i] = 1000 + i;
  return src;
}

TEST(LaneSimulatorCpAsync, WaitGroupRetiresTheOlderGroups) {
  Words src = sourceWords(96), early(96), late(64);
  llvm::Error error =
      runKernel(std::string(kAsyncDeclarations) + kTwoGroups,
                {&src, &early, &late}, /*catchInFlightReads=*/false);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned other = lane ^ 1;
    EXPECT_EQ(early[3 * lane], src[lane]) << "lane " << lane;
    EXPECT_EQ(early[3 * lane + 1], src[other]) << "lane " << lane;
    EXPECT_NE(early[3 * lane + 2], src[32 + 2 * lane])
        << "lane " << lane << " saw group 2 before wait.group 0";
    EXPECT_EQ(late[2 * lane], src[32 + 2 * other]) << "lane " << lane;
    EXPECT_EQ(late[2 * lane + 1], src[33 + 2 * other]) << "lane " << lane;
  }
}

TEST(LaneSimulatorCpAsync, ReadingACopyInFlightFails) {
  Words src = sourceWords(96), early(96), late(64);
  llvm::Error error = runKernel(std::string(kAsyncDeclarations) + kTwoGroups,
                                {&src, &early, &late});
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("cp.async still in flight"), std::string::npos)
      << message;
  EXPECT_NE(message.find("%group2early = load"), std::string::npos) << message;
}

/// A copy, committed, then a barrier but no wait: the neighbour's word is
/// read while its copy is in flight.
constexpr const char *kMissingWait = R"(
@buffer = internal addrspace(3) global [32 x i32] undef

define void @kernel(ptr addrspace(1) %src, ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %to = getelementptr i32, ptr addrspace(3) @buffer, i32 %tid
  %from = getelementptr i32, ptr addrspace(1) %src, i32 %tid
  call void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3) %to, ptr addrspace(1) %from)
  call void @llvm.nvvm.cp.async.commit.group()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %other = xor i32 %tid, 1
  %at = getelementptr i32, ptr addrspace(3) @buffer, i32 %other
  %unwaited = load i32, ptr addrspace(3) %at
  %outAt = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %unwaited, ptr addrspace(1) %outAt
  ret void
}
)";

TEST(LaneSimulatorCpAsync, ABarrierIsNoWait) {
  std::string kernel = std::string(kAsyncDeclarations) + kMissingWait;
  Words src = sourceWords(32), out(32);
  llvm::Error stale = runKernel(kernel, {&src, &out},
                                /*catchInFlightReads=*/false);
  ASSERT_FALSE(bool(stale)) << llvm::toString(std::move(stale));
  for (unsigned lane = 0; lane < 32; ++lane)
    EXPECT_NE(out[lane], src[lane ^ 1]) << "lane " << lane;

  llvm::Error caught = runKernel(kernel, {&src, &out});
  std::string message = llvm::toString(std::move(caught));
  EXPECT_NE(message.find("lane 0: a read of shared memory that a cp.async"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("%unwaited = load"), std::string::npos) << message;
}

/// Lane l copies 16 bytes to its own slot, reading only l % 17 of them, and
/// waits with wait.all without committing them.
constexpr const char *kZeroFill = R"(
@buffer = internal addrspace(3) global [128 x i32] undef

define void @kernel(ptr addrspace(1) %src, ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %size = urem i32 %tid, 17
  %word = mul i32 %tid, 4
  %to = getelementptr i32, ptr addrspace(3) @buffer, i32 %word
  %from = getelementptr i32, ptr addrspace(1) %src, i32 %word
  call void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3) %to, ptr addrspace(1) %from, i32 %size)
  call void @llvm.nvvm.cp.async.wait.all()
  %copied = load <4 x i32>, ptr addrspace(3) %to
  %at = getelementptr <4 x i32>, ptr addrspace(1) %out, i32 %tid
  store <4 x i32> %copied, ptr addrspace(1) %at
  ret void
}
)";

TEST(LaneSimulatorCpAsync, SourceSizeZeroFillsTheRest) {
  Words src(128), out(128, 0xdeadbeef);
  for (unsigned i = 0; i < src.size(); ++i)
    src[i] = 0x01010101u * (i % 200 + 1);
  llvm::Error error =
      runKernel(std::string(kAsyncDeclarations) + kZeroFill, {&src, &out});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  auto byte = [](const Words &words, unsigned i) {
    return uint8_t(words[i / 4] >> 8 * (i % 4));
  };
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 16; ++i)
      EXPECT_EQ(byte(out, 16 * lane + i),
                i < lane % 17 ? byte(src, 16 * lane + i) : 0)
          << "lane " << lane << " byte " << i;
}

} // namespace
