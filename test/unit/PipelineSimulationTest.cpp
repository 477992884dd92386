//===- PipelineSimulationTest.cpp - pipelined matmul loops, run on the host
//===//
//
// A matmul kernel that loops over K in tiles, masking the last one (as
// Triton's tutorial 03 does), is compiled for sm_80 (and sm_90a, where
// wgmma reads the buffers) with loads pipelined over 1 to 4 stages
// (tile-pipeline: cp.async into rotating shared-memory buffers, commit and
// wait groups), and for gfx942 and gfx1100 (MFMA, WMMA), where loads are
// prefetched into registers and stored to shared memory after the dots; one
// workgroup runs lane by lane on the host (LaneSimulator, which executes
// cp.async with its zero fill, wait_group, ldmatrix and the matrix cores). The
// result must equal a host matmul exactly (small integers in fp16, or int8),
// and memory past K, which holds NaNs (or large int8 values), must never reach
// it. Cases cover trip counts below, at and above the stage count, both storage
// orders of A and B, warp counts, and a loop's own num_stages.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include "gtest/gtest.h"

#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

using namespace mlir::tile;
using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::lowerKernel;
using tessera::test::replaceAll;
using tessera::test::Workgroup;

namespace {

struct Loop {
  bool int8;
  unsigned bm, bn, bk, warps;
  /// A stored M-contiguous, B K-contiguous.
  bool aByColumns, bByColumns;
  /// K at run time; tiles past it are masked.
  unsigned k;
  /// The compile option, and the loop's own tile.num_stages (0: none).
  unsigned stages, loopStages = 0;
  /// cuda:80 (mma.sync), cuda:90 (wgmma reading the buffers), hip:gfx942
  /// (MFMA) or hip:gfx1100 (WMMA).
  const char *target = "cuda:80";
};

std::string caseName(const Loop &c) {
  llvm::StringRef target(c.target);
  std::string name = target.ends_with("90") ? "wgmma_" : "";
  if (target.consume_front("hip:"))
    name = target.str() + "_";
  name += c.int8 ? "i8_" : "f16_";
  name += std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" +
          std::to_string(c.bk) + "_" + std::to_string(c.warps) + "warps_K" +
          std::to_string(c.k) + (c.aByColumns ? "_Acols" : "_Arows") +
          (c.bByColumns ? "_Bcols" : "_Brows") + "_stages" +
          std::to_string(c.stages);
  if (c.loopStages)
    name += "_loop" + std::to_string(c.loopStages);
  return name;
}

void PrintTo(const Loop &c, std::ostream *os) { *os << caseName(c); }

/// @kernel(A, B, D, K, lda, ldb): D (BM x BN, row-major) = A (BM x K) *
/// B (K x BN), looping over K in BK steps.
constexpr const char *kKernel = R"(
func.func @kernel(%pa: !tile.ptr<T> {tile.divisibility = 16 : i32},
                  %pb: !tile.ptr<T> {tile.divisibility = 16 : i32},
                  %pd: !tile.ptr<ACC> {tile.divisibility = 16 : i32},
                  %K: i32, %lda: i32 {tile.divisibility = 16 : i32},
                  %ldb: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bk = arith.constant BK : i32
  %rm = tile.make_range 0, BM : tensor<BMxi32>
  %rn = tile.make_range 0, BN : tensor<BNxi32>
  %rk = tile.make_range 0, BK : tensor<BKxi32>
  %am = tile.expand_dims %rm {axis = 1 : i32} : tensor<BMxi32> -> tensor<BMx1xi32>
  %amS = tile.splat SAM : tensor<BMx1xi32>
  %amO = arith.muli %am, %amS : tensor<BMx1xi32>
  %amB = tile.broadcast %amO : tensor<BMx1xi32> -> tensor<BMxBKxi32>
  %ak = tile.expand_dims %rk {axis = 0 : i32} : tensor<BKxi32> -> tensor<1xBKxi32>
  %akS = tile.splat SAK : tensor<1xBKxi32>
  %akO = arith.muli %ak, %akS : tensor<1xBKxi32>
  %akB = tile.broadcast %akO : tensor<1xBKxi32> -> tensor<BMxBKxi32>
  %aOff = arith.addi %amB, %akB : tensor<BMxBKxi32>
  %aBase = tile.splat %pa : tensor<BMxBKx!tile.ptr<T>>
  %a0 = tile.addptr %aBase, %aOff : tensor<BMxBKx!tile.ptr<T>>, tensor<BMxBKxi32>
  %kb = tile.expand_dims %rk {axis = 1 : i32} : tensor<BKxi32> -> tensor<BKx1xi32>
  %kbS = tile.splat SBK : tensor<BKx1xi32>
  %kbO = arith.muli %kb, %kbS : tensor<BKx1xi32>
  %kbB = tile.broadcast %kbO : tensor<BKx1xi32> -> tensor<BKxBNxi32>
  %bn = tile.expand_dims %rn {axis = 0 : i32} : tensor<BNxi32> -> tensor<1xBNxi32>
  %bnS = tile.splat SBN : tensor<1xBNxi32>
  %bnO = arith.muli %bn, %bnS : tensor<1xBNxi32>
  %bnB = tile.broadcast %bnO : tensor<1xBNxi32> -> tensor<BKxBNxi32>
  %bOff = arith.addi %kbB, %bnB : tensor<BKxBNxi32>
  %bBase = tile.splat %pb : tensor<BKxBNx!tile.ptr<T>>
  %b0 = tile.addptr %bBase, %bOff : tensor<BKxBNx!tile.ptr<T>>, tensor<BKxBNxi32>
  %aStepS = arith.muli %bk, SAK : i32
  %aStep = tile.splat %aStepS : tensor<BMxBKxi32>
  %bStepS = arith.muli %bk, SBK : i32
  %bStep = tile.splat %bStepS : tensor<BKxBNxi32>
  %zeroA = arith.constant dense<ZERO> : tensor<BMxBKxT>
  %zeroB = arith.constant dense<ZERO> : tensor<BKxBNxT>
  %acc0 = arith.constant dense<ACCZERO> : tensor<BMxBNxACC>
  %acc, %ap, %bp = scf.for %kk = %c0 to %K step %bk
      iter_args(%acc_i = %acc0, %ap_i = %a0, %bp_i = %b0)
      -> (tensor<BMxBNxACC>, tensor<BMxBKx!tile.ptr<T>>, tensor<BKxBNx!tile.ptr<T>>) : i32 {
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : tensor<1xBKxi32>
    %inA = arith.cmpi slt, %ak, %remA : tensor<1xBKxi32>
    %mA = tile.broadcast %inA : tensor<1xBKxi1> -> tensor<BMxBKxi1>
    %a = tile.load %ap_i, %mA, %zeroA : tensor<BMxBKx!tile.ptr<T>>
    %remB = tile.splat %rem : tensor<BKx1xi32>
    %inB = arith.cmpi slt, %kb, %remB : tensor<BKx1xi32>
    %mB = tile.broadcast %inB : tensor<BKx1xi1> -> tensor<BKxBNxi1>
    %b = tile.load %bp_i, %mB, %zeroB : tensor<BKxBNx!tile.ptr<T>>
    %d = tile.dot %a, %b, %acc_i : tensor<BMxBKxT> * tensor<BKxBNxT> -> tensor<BMxBNxACC>
    %apn = tile.addptr %ap_i, %aStep : tensor<BMxBKx!tile.ptr<T>>, tensor<BMxBKxi32>
    %bpn = tile.addptr %bp_i, %bStep : tensor<BKxBNx!tile.ptr<T>>, tensor<BKxBNxi32>
    scf.yield %d, %apn, %bpn : tensor<BMxBNxACC>, tensor<BMxBKx!tile.ptr<T>>, tensor<BKxBNx!tile.ptr<T>>
  }LOOPATTR
  %dm = tile.expand_dims %rm {axis = 1 : i32} : tensor<BMxi32> -> tensor<BMx1xi32>
  %ldd = arith.constant dense<BN> : tensor<BMx1xi32>
  %dmO = arith.muli %dm, %ldd : tensor<BMx1xi32>
  %dmB = tile.broadcast %dmO : tensor<BMx1xi32> -> tensor<BMxBNxi32>
  %dnB = tile.broadcast %bn : tensor<1xBNxi32> -> tensor<BMxBNxi32>
  %dOff = arith.addi %dmB, %dnB : tensor<BMxBNxi32>
  %dBase = tile.splat %pd : tensor<BMxBNx!tile.ptr<ACC>>
  %dp = tile.addptr %dBase, %dOff : tensor<BMxBNx!tile.ptr<ACC>>, tensor<BMxBNxi32>
  tile.store %dp, %acc : tensor<BMxBNx!tile.ptr<ACC>>
  return
}
)";

std::string kernelOf(const Loop &c) {
  std::string text = kKernel;
  text = replaceAll(text, "SAM", c.aByColumns ? "%one" : "%lda");
  text = replaceAll(text, "SAK", c.aByColumns ? "%lda" : "%one");
  text = replaceAll(text, "SBK", c.bByColumns ? "%one" : "%ldb");
  text = replaceAll(text, "SBN", c.bByColumns ? "%ldb" : "%one");
  text = replaceAll(text, "ACCZERO", c.int8 ? "0" : "0.0");
  text = replaceAll(text, "ZERO", c.int8 ? "0" : "0.0");
  text = replaceAll(text, "ACC", c.int8 ? "i32" : "f32");
  text = replaceAll(text, "LOOPATTR",
                    c.loopStages ? " {tile.num_stages = " +
                                       std::to_string(c.loopStages) + " : i32}"
                                 : "");
  text = replaceAll(text, "xT>", c.int8 ? "xi8>" : "xf16>");
  text = replaceAll(text, "<T>", c.int8 ? "<i8>" : "<f16>");
  text = replaceAll(text, "BM", std::to_string(c.bm));
  text = replaceAll(text, "BN", std::to_string(c.bn));
  return replaceAll(text, "BK", std::to_string(c.bk));
}

/// Calls in `kernel` of intrinsics whose name starts with `prefix`.
unsigned countCalls(const llvm::Function &kernel, llvm::StringRef prefix) {
  unsigned count = 0;
  for (const llvm::Instruction &inst : llvm::instructions(kernel))
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
      if (const llvm::Function *callee = call->getCalledFunction())
        count += callee->getName().starts_with(prefix);
  return count;
}

class PipelineSimulation : public ::testing::TestWithParam<Loop> {
protected:
  static void SetUpTestSuite() { registerBuiltinBackends(); }
};

TEST_P(PipelineSimulation, MatchesAHostMatmul) {
  const Loop &c = GetParam();
  std::string source = kernelOf(c);
  LoweredKernel compiled;
  lowerKernel(c.target, source, c.warps, compiled, c.stages);
  bool wgmma = llvm::StringRef(c.target).ends_with("90");
  bool amd = llvm::StringRef(c.target).starts_with("hip:");
  if (HasFatalFailure())
    return;
  unsigned stages = c.loopStages ? c.loopStages : c.stages;
  unsigned copies = countCalls(*compiled.kernel, "llvm.nvvm.cp.async.");
  if (amd) {
    EXPECT_GT(countCalls(*compiled.kernel, "llvm.amdgcn.mfma.") +
                  countCalls(*compiled.kernel, "llvm.amdgcn.wmma."),
              0u);
  } else if (stages >= 2) {
    EXPECT_GT(countCalls(*compiled.kernel, "llvm.nvvm.cp.async.c"), 0u)
        << "expected cp.async copies";
    EXPECT_GT(countCalls(*compiled.kernel, "llvm.nvvm.cp.async.wait.group"), 0u);
    // fp16 rows of B, 32 elements or more along N, where the K mask is the
    // same, go in 16-byte copies (along K, the mask splits them: K is not
    // known to be a multiple of 8).
    if (!c.int8 && !c.bByColumns && c.bn >= 32 && !wgmma) {
      EXPECT_GT(countCalls(*compiled.kernel,
                           "llvm.nvvm.cp.async.cg.shared.global.16"),
                0u);
    }
  } else {
    EXPECT_EQ(copies, 0u) << "a loop of one stage is not pipelined";
  }
  if (wgmma)
    EXPECT_GT(countCalls(*compiled.kernel, "llvm.nvvm.wgmma.commit_group"), 0u);
  else if (!amd)
    EXPECT_GT(countCalls(*compiled.kernel, "llvm.nvvm.mma."), 0u);

  // A (BM x Kpad) and B (Kpad x BN) in their storage orders; past K they
  // hold what must never be read.
  unsigned kPad = (c.k + c.bk - 1) / c.bk * c.bk;
  kPad = std::max(kPad, c.bk);
  unsigned lda = c.aByColumns ? c.bm : kPad;
  unsigned ldb = c.bByColumns ? kPad : c.bn;
  unsigned bytes = c.int8 ? 1 : 2;
  std::vector<uint8_t> a(size_t(c.bm) * kPad * bytes),
      b(size_t(kPad) * c.bn * bytes), d(size_t(c.bm) * c.bn * 4);
  std::vector<int> av(size_t(c.bm) * kPad), bv(size_t(kPad) * c.bn);
  std::mt19937 random(std::hash<std::string>()(caseName(c)));
  std::uniform_int_distribution<int> small(-3, 3), byte(-128, 127);
  // fp16 bits of a small integer.
  auto half = [](int v) -> uint16_t {
    if (v == 0)
      return 0;
    unsigned m = std::abs(v), e = 0;
    while ((m >> e) > 1)
      ++e;
    uint16_t bits = uint16_t((15 + e) << 10 | ((m << (10 - e)) & 0x3ff));
    return v < 0 ? bits | 0x8000 : bits;
  };
  auto put = [&](std::vector<uint8_t> &mem, size_t at, int value, bool poison) {
    if (c.int8) {
      mem[at] = poison ? 0x7f : uint8_t(int8_t(value));
      return;
    }
    uint16_t bits = poison ? 0x7e00 : half(value);
    std::memcpy(&mem[at * 2], &bits, 2);
  };
  for (unsigned i = 0; i < c.bm; ++i)
    for (unsigned k = 0; k < kPad; ++k) {
      int v = c.int8 ? byte(random) : small(random);
      av[size_t(i) * kPad + k] = v;
      put(a, c.aByColumns ? i + size_t(k) * lda : size_t(i) * lda + k, v,
          k >= c.k);
    }
  for (unsigned k = 0; k < kPad; ++k)
    for (unsigned j = 0; j < c.bn; ++j) {
      int v = c.int8 ? byte(random) : small(random);
      bv[size_t(k) * c.bn + j] = v;
      put(b, c.bByColumns ? k + size_t(j) * ldb : size_t(k) * ldb + j, v,
          k >= c.k);
    }
  std::memset(d.data(), 0x5a, d.size());

  Workgroup group;
  group.warpSize = compiled.warpSize;
  group.numThreads = c.warps * compiled.warpSize;
  LaneSimulator simulator(*compiled.kernel, group);
  for (std::vector<uint8_t> *buffer : {&a, &b, &d})
    simulator.addBuffer(buffer->data(), buffer->size());
  llvm::Error error = simulator.run(
      {reinterpret_cast<uint64_t>(a.data()), reinterpret_cast<uint64_t>(b.data()),
       reinterpret_cast<uint64_t>(d.data()), c.k, lda, ldb});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  unsigned mismatches = 0;
  for (unsigned i = 0; i < c.bm; ++i)
    for (unsigned j = 0; j < c.bn; ++j) {
      int64_t exact = 0;
      for (unsigned k = 0; k < c.k; ++k)
        exact += int64_t(av[size_t(i) * kPad + k]) * bv[size_t(k) * c.bn + j];
      double got;
      if (c.int8) {
        int32_t v;
        std::memcpy(&v, &d[(size_t(i) * c.bn + j) * 4], 4);
        got = v;
      } else {
        float v;
        std::memcpy(&v, &d[(size_t(i) * c.bn + j) * 4], 4);
        got = v;
      }
      if (got != double(exact) && ++mismatches <= 10)
        ADD_FAILURE() << "D(" << i << ", " << j << ") = " << got
                      << ", expected " << exact;
    }
  EXPECT_EQ(mismatches, 0u) << "in\n" << source;
}

std::vector<Loop> cases() {
  std::vector<Loop> all;
  // Trip counts 8 and 7 (a masked tail) at every depth.
  for (unsigned k : {256u, 200u})
    for (unsigned stages : {1u, 2u, 3u, 4u})
      all.push_back({false, 64, 64, 32, 4, false, false, k, stages});
  // Storage orders (ldmatrix plain and transposed), masked tail.
  for (auto [aCols, bCols] : {std::pair(true, false), std::pair(false, true),
                              std::pair(true, true)})
    all.push_back({false, 64, 64, 32, 4, aCols, bCols, 200, 3});
  // Fewer iterations than stages; none at all.
  all.push_back({false, 64, 64, 32, 4, false, false, 16, 4});
  all.push_back({false, 64, 64, 32, 4, false, false, 0, 3});
  // Warp counts and tile shapes.
  all.push_back({false, 32, 32, 16, 1, false, false, 72, 3});
  all.push_back({false, 64, 32, 32, 2, false, true, 100, 2});
  all.push_back({false, 128, 64, 32, 8, false, false, 96, 3});
  // Long iterations (2^18 multiply-adds a warp): copies after the dot.
  all.push_back({false, 64, 64, 64, 1, false, false, 200, 3});
  all.push_back({false, 64, 128, 32, 1, true, false, 320, 4});
  // A loop's own depth wins over the option.
  all.push_back({false, 64, 64, 32, 4, false, false, 200, 1, 3});
  // int8 into i32, B K-contiguous as int8 mma wants it.
  all.push_back({true, 32, 32, 32, 4, false, true, 80, 3});
  all.push_back({true, 64, 32, 64, 4, false, false, 160, 2});
  // wgmma reading the buffers: depths, storage orders, a masked tail, two
  // warpgroups, int8 (B stored K-contiguous for it).
  for (unsigned stages : {2u, 3u, 4u})
    all.push_back({false, 64, 64, 32, 4, false, false, 200, stages, 0, "cuda:90"});
  for (auto [aCols, bCols] : {std::pair(true, false), std::pair(false, true),
                              std::pair(true, true)})
    all.push_back({false, 64, 64, 32, 4, aCols, bCols, 200, 3, 0, "cuda:90"});
  all.push_back({false, 128, 64, 32, 8, false, false, 96, 3, 0, "cuda:90"});
  all.push_back({true, 64, 64, 64, 4, false, false, 160, 3, 0, "cuda:90"});
  // AMD, loads prefetched into registers: depths (one buffer at 2, two
  // deeper, which only a loop's own num_stages asks for: the option stops
  // at 2), storage orders, fewer iterations than stages and none, int8,
  // 64-lane MFMA and 32-lane WMMA.
  for (unsigned stages : {1u, 2u})
    all.push_back(
        {false, 64, 64, 32, 4, false, false, 200, stages, 0, "hip:gfx942"});
  for (unsigned stages : {3u, 4u})
    all.push_back(
        {false, 64, 64, 32, 4, false, false, 200, 2, stages, "hip:gfx942"});
  for (auto [aCols, bCols] :
       {std::pair(true, false), std::pair(false, true), std::pair(true, true)})
    all.push_back(
        {false, 64, 64, 32, 4, aCols, bCols, 200, 2, 0, "hip:gfx942"});
  all.push_back({false, 64, 64, 32, 4, false, false, 16, 1, 4, "hip:gfx942"});
  all.push_back({false, 64, 64, 32, 4, false, false, 0, 2, 0, "hip:gfx942"});
  all.push_back({true, 64, 32, 64, 2, false, true, 160, 2, 0, "hip:gfx942"});
  all.push_back({false, 32, 32, 16, 1, false, false, 72, 1, 3, "hip:gfx942"});
  all.push_back({false, 64, 64, 32, 4, false, false, 200, 2, 0, "hip:gfx1100"});
  all.push_back({false, 64, 64, 32, 4, false, false, 200, 1, 3, "hip:gfx1100"});
  all.push_back({false, 64, 64, 32, 4, true, true, 72, 2, 0, "hip:gfx1100"});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Loops, PipelineSimulation, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Loop> &info) {
                           return caseName(info.param);
                         });

} // namespace
