//===- TmaSimulationTest.cpp - TMA copies and mbarriers, run on the host --===//
//
// Hopper's bulk tensor copies (TMA) and transaction barriers, run lane by
// lane (LaneSimulator). Hand-written kernels, shaped as the NVIDIA backend
// emits them, check the simulator's model: a box lands swizzled as the
// hardware places it, with zeros or NaNs outside the tensor, only once its
// barrier's phase is waited for; a phase short of its bytes never
// completes; a TMA store writes the box back and keeps its source until
// its group is waited for. Then matmul kernels that load A and B through
// tensor descriptors are compiled for sm_90a, where the loads become TMA
// copies pipelined over 2 to 4 stages, and one workgroup runs with the
// tensor maps the compiler describes: the result must equal a host matmul
// exactly (small integers in fp16), with K tails, blocks partly outside the
// tensors (read as zeros, or NaNs where A's descriptor pads with them) and
// memory past each tensor's rows holding NaNs that must never be read.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"
#include "runtime/TensorMaps.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

using mlir::tile::runtime::TensorMapRequest;
using tessera::test::countAsm;
using tessera::test::encodeSimTensorMap;
using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::parseKernelModule;
using tessera::test::replaceAll;
using tessera::test::SimTensorMap;
using tessera::test::Workgroup;

namespace {

constexpr uint16_t kHalfNaN = 0x7e00;

/// Where the hardware puts the byte at `offset` of a box copied with a
/// `swizzle`-byte swizzle into shared memory aligned to 1024 bytes:
/// CUTLASS's Swizzle<log2(swizzle / 16), 4, 3>.
uint64_t placed(uint64_t offset, unsigned swizzle) {
  if (!swizzle)
    return offset;
  uint64_t mask = (swizzle / 16 - 1) << 4;
  return offset ^ ((offset >> 3) & mask);
}

//===----------------------------------------------------------------------===//
// The simulator's model, on hand-written kernels
//===----------------------------------------------------------------------===//

/// @kernel(out, map, row, col, map2, row2, col2): thread 0 sets up a
/// barrier, expects EXPECT bytes and copies the box of `map` at (row, col)
/// to shared memory; then WAIT (the wait for phase 0, or nothing), STORE
/// (kStore, or nothing), and every lane copies its share of the box's
/// WORDS shared words, as they lie, to `out`.
constexpr const char *kBoxKernel = R"(
@smem = external addrspace(3) global [0 x i8], align 1024

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define void @kernel(ptr addrspace(1) %out, ptr byval([128 x i8]) align 64 %map,
                    i32 %row, i32 %col,
                    ptr byval([128 x i8]) align 64 %map2, i32 %row2,
                    i32 %col2) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %tid, 0
  %p = zext i1 %first to i32
  %dst = ptrtoint ptr addrspace(3) @smem to i32
  %bar = add i32 %dst, 16384
  call void asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $0, 0;\0A@p mbarrier.init.shared::cta.b64 [$1], 1; }", "r,r"(i32 %p, i32 %bar)
  call void @llvm.nvvm.barrier0()
  call void asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $0, 0;\0A@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], EXPECT; }", "r,r"(i32 %p, i32 %bar)
  call void asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $0, 0;\0A@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$5, $4}], [$3]; }", "r,r,l,r,r,r"(i32 %p, i32 %dst, ptr %map, i32 %bar, i32 %row, i32 %col)
WAIT
STORE
  br label %loop

loop:
  %i = phi i32 [ %tid, %entry ], [ %next, %loop ]
  %from = getelementptr i32, ptr addrspace(3) @smem, i32 %i
  %word = load i32, ptr addrspace(3) %from
  %to = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %word, ptr addrspace(1) %to
  %next = add i32 %i, 32
  %more = icmp ult i32 %next, WORDS
  br i1 %more, label %loop, label %done

done:
  ret void
}
)";

constexpr const char *kWait =
    R"(  call void asm sideeffect "{ .reg .pred done;\0Await_barrier:\0Ambarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\0A@!done bra.uni wait_barrier; }", "r,r"(i32 %bar, i32 0))";

/// A TMA store of the box through %map2, committed; STOREWAIT waits for it
/// (or not); then the lanes write to the box's shared memory.
constexpr const char *kStore = R"(
  call void asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $0, 0;\0A@p cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$2, {$4, $3}], [$1]; }", "r,r,l,r,r"(i32 %p, i32 %dst, ptr %map2, i32 %row2, i32 %col2)
  call void asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $0, 0;\0A@p cp.async.bulk.commit_group; }", "r"(i32 %p)
STOREWAIT
  call void @llvm.nvvm.barrier0()
  %mine = getelementptr i32, ptr addrspace(3) @smem, i32 %tid
  store i32 0, ptr addrspace(3) %mine
)";

constexpr const char *kStoreWait =
    R"(  call void asm sideeffect "cp.async.bulk.wait_group.read 0;", ""())";

/// A 20 x 100 fp16 tensor, rows 104 elements apart, element (r, c) holding
/// the bits r * 128 + c.
struct Tensor {
  static constexpr unsigned rows = 20, cols = 100, ld = 104;
  std::vector<uint16_t> data = std::vector<uint16_t>(rows * ld, 0xffff);

  explicit Tensor(bool numbered = true) {
    if (numbered)
      for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
          data[r * ld + c] = r * 128 + c;
  }

  /// The element at (r, c), or `fill` outside.
  uint16_t at(int64_t r, int64_t c, uint16_t fill) const {
    if (r < 0 || c < 0 || r >= rows || c >= cols)
      return fill;
    return data[r * ld + c];
  }

  /// Its tensor map for boxes of 16 rows of `cols` elements.
  SimTensorMap map(unsigned boxCols, unsigned swizzle, bool nan) const {
    TensorMapRequest request;
    request.dtype = "fp16";
    request.address = reinterpret_cast<uint64_t>(data.data());
    request.shape = {rows, cols};
    request.strides = {ld * 2};
    request.box = {16, boxCols};
    request.swizzle = swizzle;
    request.nanPadding = nan;
    llvm::Expected<SimTensorMap> map = encodeSimTensorMap(request);
    EXPECT_TRUE(bool(map)) << llvm::toString(map.takeError());
    return map ? *map : SimTensorMap();
  }
};

/// One box copy: its swizzle, its fill, where it starts.
struct Box {
  unsigned swizzle;
  bool nan;
  int row, col;

  /// Elements a row: the swizzle's width, or 64.
  unsigned cols() const { return swizzle ? swizzle / 2 : 64; }
  unsigned bytes() const { return 16 * cols() * 2; }
};

std::string boxName(const Box &b) {
  auto number = [](int v) {
    return v < 0 ? "minus" + std::to_string(-v) : std::to_string(v);
  };
  return "swizzle" + std::to_string(b.swizzle) + (b.nan ? "_nan" : "_zero") +
         "_at" + number(b.row) + "_" + number(b.col);
}

void PrintTo(const Box &b, std::ostream *os) { *os << boxName(b); }

/// Runs `source` (kBoxKernel filled in) on one warp: `out` is the output
/// buffer, then (map, row, col) and (map2, row2, col2).
llvm::Error runBoxKernel(const std::string &source, std::vector<uint32_t> &out,
                         Tensor &src, SimTensorMap map, const Box &box,
                         Tensor *dst = nullptr, SimTensorMap map2 = {},
                         Workgroup group = {}) {
  llvm::LLVMContext context;
  auto module = parseKernelModule(source, context);
  if (!module)
    return module.takeError();
  group.numThreads = 32;
  LaneSimulator simulator(*(*module)->getFunction("kernel"), group);
  simulator.addBuffer(out.data(), out.size() * sizeof(uint32_t));
  simulator.addBuffer(src.data.data(), src.data.size() * 2);
  simulator.addBuffer(&map, sizeof map);
  simulator.addBuffer(&map2, sizeof map2);
  if (dst)
    simulator.addBuffer(dst->data.data(), dst->data.size() * 2);
  auto address = [](const void *p) { return reinterpret_cast<uint64_t>(p); };
  return simulator.run({address(out.data()), address(&map), uint32_t(box.row),
                        uint32_t(box.col), address(&map2), 4, 40});
}

std::string boxKernel(const Box &box, unsigned expect, bool wait,
                      const std::string &store = "") {
  std::string text = replaceAll(kBoxKernel, "EXPECT", std::to_string(expect));
  text = replaceAll(text, "WAIT", wait ? kWait : "");
  text = replaceAll(text, "STORE", store);
  return replaceAll(text, "WORDS", std::to_string(box.bytes() / 4));
}

class TmaBox : public ::testing::TestWithParam<Box> {};

TEST_P(TmaBox, LandsSwizzledWithItsFill) {
  const Box &box = GetParam();
  Tensor src;
  std::vector<uint32_t> out(box.bytes() / 4, 0x5a5a5a5a);
  llvm::Error error =
      runBoxKernel(boxKernel(box, box.bytes(), /*wait=*/true), out, src,
                   src.map(box.cols(), box.swizzle, box.nan), box);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  std::vector<uint16_t> shared(box.bytes() / 2);
  std::memcpy(shared.data(), out.data(), box.bytes());
  unsigned mismatches = 0;
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < box.cols(); ++j) {
      uint16_t expected = src.at(box.row + i, box.col + j, box.nan ? kHalfNaN
                                                                   : 0);
      uint64_t at = placed((i * box.cols() + j) * 2, box.swizzle) / 2;
      if (shared[at] != expected && ++mismatches <= 10)
        ADD_FAILURE() << "box element (" << i << ", " << j << ") = "
                      << shared[at] << ", expected " << expected;
    }
  EXPECT_EQ(mismatches, 0u);
}

std::vector<Box> boxes() {
  std::vector<Box> all;
  for (unsigned swizzle : {0u, 32u, 64u, 128u})
    for (bool nan : {false, true}) {
      // Past the last rows and columns, and before the first.
      unsigned cols = swizzle ? swizzle / 2 : 64;
      all.push_back({swizzle, nan, 8, int(Tensor::cols - cols / 2)});
      all.push_back({swizzle, nan, -4, -8});
    }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Boxes, TmaBox, ::testing::ValuesIn(boxes()),
                         [](const ::testing::TestParamInfo<Box> &info) {
                           return boxName(info.param);
                         });

TEST(TmaBox, ReadingItBeforeTheWaitFails) {
  Box box{128, false, 0, 0};
  Tensor src;
  std::vector<uint32_t> out(box.bytes() / 4, 0x5a5a5a5a);
  std::string source = boxKernel(box, box.bytes(), /*wait=*/false);
  SimTensorMap map = src.map(box.cols(), box.swizzle, box.nan);
  llvm::Error error = runBoxKernel(source, out, src, map, box);
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("lane 0: a read of shared memory that a TMA copy "
                         "still in flight writes"),
            std::string::npos)
      << message;
  // Unchecked, the read sees what shared memory held before.
  Workgroup unchecked;
  unchecked.catchInFlightReads = false;
  error = runBoxKernel(source, out, src, map, box, nullptr, {}, unchecked);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(out[0], 0xcdcdcdcdu);
}

TEST(TmaBox, APhaseShortOfItsBytesNeverCompletes) {
  Box box{128, false, 0, 0};
  Tensor src;
  std::vector<uint32_t> out(box.bytes() / 4);
  llvm::Error error =
      runBoxKernel(boxKernel(box, box.bytes() + 16, /*wait=*/true), out, src,
                   src.map(box.cols(), box.swizzle, box.nan), box);
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("lane 0: a wait for a phase of an mbarrier that "
                         "never completes (0 arrivals and 16 transaction "
                         "bytes missing"),
            std::string::npos)
      << message;
}

TEST(TmaStore, WritesTheBoxBackInsideTheTensor) {
  // The box at (8, 64) of src, stored at (4, 40) of dst: both partly
  // outside their tensors.
  Box box{128, false, 8, 64};
  Tensor src, dst(/*numbered=*/false);
  std::vector<uint32_t> out(box.bytes() / 4);
  std::string store = replaceAll(kStore, "STOREWAIT", kStoreWait);
  llvm::Error error = runBoxKernel(
      boxKernel(box, box.bytes(), /*wait=*/true, store), out, src,
      src.map(box.cols(), box.swizzle, false), box, &dst,
      dst.map(box.cols(), box.swizzle, false));
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  unsigned mismatches = 0;
  for (unsigned r = 0; r < Tensor::rows; ++r)
    for (unsigned c = 0; c < Tensor::ld; ++c) {
      int i = int(r) - 4, j = int(c) - 40;
      bool inBox = i >= 0 && i < 16 && j >= 0 && j < int(box.cols()) &&
                   c < Tensor::cols;
      uint16_t expected = inBox ? src.at(8 + i, 64 + j, 0) : 0xffff;
      if (dst.data[r * Tensor::ld + c] != expected && ++mismatches <= 10)
        ADD_FAILURE() << "dst(" << r << ", " << c
                      << ") = " << dst.data[r * Tensor::ld + c]
                      << ", expected " << expected;
    }
  EXPECT_EQ(mismatches, 0u);
}

TEST(TmaStore, OverwritingItsSourceBeforeTheWaitFails) {
  Box box{128, false, 0, 0};
  Tensor src, dst(/*numbered=*/false);
  std::vector<uint32_t> out(box.bytes() / 4);
  std::string store = replaceAll(kStore, "STOREWAIT", "");
  llvm::Error error = runBoxKernel(
      boxKernel(box, box.bytes(), /*wait=*/true, store), out, src,
      src.map(box.cols(), box.swizzle, false), box, &dst,
      dst.map(box.cols(), box.swizzle, false));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("lane 0: a write of shared memory that a wgmma or "
                         "TMA store in flight still reads"),
            std::string::npos)
      << message;
}

TEST(SimTensorMap, IsCheckedAsTheDriverChecksIt) {
  TensorMapRequest request;
  request.dtype = "fp16";
  request.address = 4096;
  request.shape = {64, 64};
  request.strides = {100};
  request.box = {64, 64};
  request.swizzle = 128;
  llvm::Expected<SimTensorMap> map = encodeSimTensorMap(request);
  ASSERT_FALSE(bool(map));
  EXPECT_NE(llvm::toString(map.takeError())
                .find("strides must be multiples of 16 bytes"),
            std::string::npos);
  request.strides = {128};
  request.box = {64, 128};
  map = encodeSimTensorMap(request);
  ASSERT_FALSE(bool(map));
  EXPECT_NE(llvm::toString(map.takeError()).find("at most the swizzle wide"),
            std::string::npos);
  request.box = {64, 64};
  map = encodeSimTensorMap(request);
  ASSERT_TRUE(bool(map)) << llvm::toString(map.takeError());
  EXPECT_EQ(map->shape[0], 64u);
  EXPECT_EQ(map->strides[0], 128u);
  EXPECT_EQ(map->box[1], 64u);
  EXPECT_EQ(map->elementBytes, 2u);
}

//===----------------------------------------------------------------------===//
// Pipelined matmuls through tensor descriptors
//===----------------------------------------------------------------------===//

struct Matmul {
  unsigned bm, bn, bk, warps, stages;
  /// The sizes of A (m x k) and B (k x n).
  unsigned m, n, k;
  /// Where the block starts in D.
  int om = 0, on = 0;
  /// A's descriptor pads with NaN.
  bool nan = false;
};

std::string caseName(const Matmul &c) {
  auto number = [](int v) {
    return v < 0 ? "minus" + std::to_string(-v) : std::to_string(v);
  };
  return "f16_" + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" +
         std::to_string(c.bk) + "_" + std::to_string(c.warps) + "warps_" +
         "stages" + std::to_string(c.stages) + "_M" + std::to_string(c.m) +
         "N" + std::to_string(c.n) + "K" + std::to_string(c.k) + "_at" +
         number(c.om) + "_" + number(c.on) + (c.nan ? "_nan" : "");
}

void PrintTo(const Matmul &c, std::ostream *os) { *os << caseName(c); }

/// @kernel(A, B, D, M, N, K, lda, ldb, om, on): D (BM x BN, row-major) =
/// the block of A (M x K) * B (K x N) at (om, on), looping over K in BK
/// steps, A and B read through tensor descriptors.
constexpr const char *kKernel = R"(
func.func @kernel(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pd: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %M: i32, %N: i32, %K: i32,
                  %lda: i32 {tile.divisibility = 16 : i32},
                  %ldb: i32 {tile.divisibility = 16 : i32},
                  %om: i32, %on: i32) {
  %c0 = arith.constant 0 : i32
  %bk = arith.constant BK : i32
  %one64 = arith.constant 1 : i64
  %lda64 = arith.extsi %lda : i32 to i64
  %ldb64 = arith.extsi %ldb : i32 to i64
  %da = tile.make_tensor_descriptor %pa, [%M, %K], [%lda64, %one64]NAN
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<BMxBKxf16>>
  %db = tile.make_tensor_descriptor %pb, [%K, %N], [%ldb64, %one64]
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<BKxBNxf16>>
  %acc0 = arith.constant dense<0.0> : tensor<BMxBNxf32>
  %acc = scf.for %kk = %c0 to %K step %bk iter_args(%c = %acc0)
      -> (tensor<BMxBNxf32>) : i32 {
    %a = tile.descriptor_load %da[%om, %kk]
        : !tile.tensordesc<tensor<BMxBKxf16>> -> tensor<BMxBKxf16>
    %b = tile.descriptor_load %db[%kk, %on]
        : !tile.tensordesc<tensor<BKxBNxf16>> -> tensor<BKxBNxf16>
    %d = tile.dot %a, %b, %c
        : tensor<BMxBKxf16> * tensor<BKxBNxf16> -> tensor<BMxBNxf32>
    scf.yield %d : tensor<BMxBNxf32>
  }
  %rm = tile.make_range 0, BM : tensor<BMxi32>
  %rn = tile.make_range 0, BN : tensor<BNxi32>
  %dm = tile.expand_dims %rm {axis = 1 : i32}
      : tensor<BMxi32> -> tensor<BMx1xi32>
  %dn = tile.expand_dims %rn {axis = 0 : i32}
      : tensor<BNxi32> -> tensor<1xBNxi32>
  %ldd = arith.constant dense<BN> : tensor<BMx1xi32>
  %dmO = arith.muli %dm, %ldd : tensor<BMx1xi32>
  %dmB = tile.broadcast %dmO : tensor<BMx1xi32> -> tensor<BMxBNxi32>
  %dnB = tile.broadcast %dn : tensor<1xBNxi32> -> tensor<BMxBNxi32>
  %dOff = arith.addi %dmB, %dnB : tensor<BMxBNxi32>
  %dBase = tile.splat %pd : tensor<BMxBNx!tile.ptr<f32>>
  %dp = tile.addptr %dBase, %dOff
      : tensor<BMxBNx!tile.ptr<f32>>, tensor<BMxBNxi32>
  tile.store %dp, %acc : tensor<BMxBNx!tile.ptr<f32>>
  return
}
)";

constexpr unsigned kParameters = 10;

std::string kernelOf(const Matmul &c) {
  std::string text = replaceAll(kKernel, "NAN", c.nan ? " nan_padding" : "");
  text = replaceAll(text, "BM", std::to_string(c.bm));
  text = replaceAll(text, "BN", std::to_string(c.bn));
  return replaceAll(text, "BK", std::to_string(c.bk));
}

/// fp16 bits of a small integer.
uint16_t half(int v) {
  if (v == 0)
    return 0;
  unsigned m = std::abs(v), e = 0;
  while ((m >> e) > 1)
    ++e;
  auto bits = uint16_t((15 + e) << 10 | ((m << (10 - e)) & 0x3ff));
  return v < 0 ? bits | 0x8000 : bits;
}

class TmaPipeline : public ::testing::TestWithParam<Matmul> {
protected:
  static void SetUpTestSuite() { mlir::tile::registerBuiltinBackends(); }
};

TEST_P(TmaPipeline, MatchesAHostMatmul) {
  const Matmul &c = GetParam();
  std::string source = kernelOf(c);
  LoweredKernel compiled;
  tessera::test::compileToLLVM("cuda:90", source, c.warps, compiled, c.stages);
  if (HasFatalFailure())
    return;
  const llvm::Function &kernel = *compiled.kernel;
  // The loads are TMA copies on transaction barriers, feeding wgmma.
  EXPECT_GT(countAsm(kernel, "cp.async.bulk.tensor.2d.shared::cluster"), 0u)
      << "expected TMA copies";
  EXPECT_GT(countAsm(kernel, "mbarrier.arrive.expect_tx"), 0u);
  EXPECT_GT(countAsm(kernel, "mbarrier.try_wait.parity"), 0u);
  EXPECT_GT(countAsm(kernel, "wgmma.mma_async"), 0u);
  ASSERT_EQ(kernel.arg_size(), kParameters + compiled.tensorMaps.size());
  ASSERT_EQ(compiled.tensorMaps.size(), 2u);

  // A (m x k, rows lda apart) and B (k x n, rows ldb apart); past each
  // row, and after the last, NaNs that must never be read.
  unsigned lda = (c.k + 7) / 8 * 8 + 8, ldb = (c.n + 7) / 8 * 8 + 8;
  std::vector<uint16_t> a(size_t(c.m) * lda + 64, kHalfNaN),
      b(size_t(c.k) * ldb + 64, kHalfNaN);
  std::vector<int> av(size_t(c.m) * c.k), bv(size_t(c.k) * c.n);
  std::mt19937 random(std::hash<std::string>()(caseName(c)));
  std::uniform_int_distribution<int> small(-3, 3);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned k = 0; k < c.k; ++k) {
      av[size_t(i) * c.k + k] = small(random);
      a[size_t(i) * lda + k] = half(av[size_t(i) * c.k + k]);
    }
  for (unsigned k = 0; k < c.k; ++k)
    for (unsigned j = 0; j < c.n; ++j) {
      bv[size_t(k) * c.n + j] = small(random);
      b[size_t(k) * ldb + j] = half(bv[size_t(k) * c.n + j]);
    }
  std::vector<float> d(size_t(c.bm) * c.bn);
  std::memset(d.data(), 0x5a, d.size() * sizeof(float));

  auto address = [](const void *p) { return reinterpret_cast<uint64_t>(p); };
  std::vector<uint64_t> args = {
      address(a.data()), address(b.data()), address(d.data()),
      c.m,               c.n,               c.k,
      lda,               ldb,               uint32_t(c.om),
      uint32_t(c.on)};
  // Each tensor map as a launcher encodes it from the parameters (whose
  // i32 values a pointer to their low bytes reads).
  std::vector<void *> parameters;
  for (uint64_t &arg : args)
    parameters.push_back(&arg);
  std::vector<SimTensorMap> maps;
  for (const std::string &description : compiled.tensorMaps) {
    TensorMapRequest request;
    try {
      request = mlir::tile::runtime::TensorMapSpec(description)
                    .requestFor(parameters.data());
    } catch (const mlir::tile::runtime::DriverError &error) {
      FAIL() << error.what();
    }
    llvm::Expected<SimTensorMap> map = encodeSimTensorMap(request);
    ASSERT_TRUE(bool(map)) << llvm::toString(map.takeError()) << ": "
                           << description;
    maps.push_back(*map);
  }

  Workgroup group;
  group.warpSize = compiled.warpSize;
  group.numThreads = c.warps * compiled.warpSize;
  group.dynamicSharedBytes = compiled.sharedBytes;
  LaneSimulator simulator(*compiled.kernel, group);
  simulator.addBuffer(a.data(), a.size() * 2);
  simulator.addBuffer(b.data(), b.size() * 2);
  simulator.addBuffer(d.data(), d.size() * sizeof(float));
  for (SimTensorMap &map : maps) {
    simulator.addBuffer(&map, sizeof map);
    args.push_back(address(&map));
  }
  llvm::Error error = simulator.run(args);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error)) << "\n"
                            << source;

  unsigned mismatches = 0;
  for (unsigned i = 0; i < c.bm; ++i)
    for (unsigned j = 0; j < c.bn; ++j) {
      int64_t row = c.om + int64_t(i), col = c.on + int64_t(j);
      bool rowInside = row >= 0 && row < c.m;
      bool colInside = col >= 0 && col < c.n;
      // A's rows outside the tensor are NaNs or zeros; B's columns zeros.
      bool nan = c.nan && !rowInside && c.k > 0;
      int64_t exact = 0;
      for (unsigned k = 0; rowInside && colInside && k < c.k; ++k)
        exact += int64_t(av[row * c.k + k]) * bv[size_t(k) * c.n + col];
      float got = d[size_t(i) * c.bn + j];
      bool ok = nan ? std::isnan(got) : got == float(exact);
      if (!ok && ++mismatches <= 10)
        ADD_FAILURE() << "D(" << i << ", " << j << ") = " << got
                      << ", expected " << (nan ? "NaN" : "")
                      << (nan ? "" : std::to_string(exact));
    }
  EXPECT_EQ(mismatches, 0u) << "in\n" << source;
}

std::vector<Matmul> cases() {
  std::vector<Matmul> all;
  // Depths, with K a multiple of BK and with a tail box partly outside.
  for (unsigned stages : {2u, 3u, 4u})
    all.push_back({128, 128, 64, 4, stages, 128, 128, 256});
  all.push_back({128, 128, 64, 4, 3, 128, 128, 200});
  // Fewer iterations than stages; none.
  all.push_back({128, 128, 64, 4, 4, 128, 128, 64});
  all.push_back({128, 128, 64, 4, 3, 128, 128, 0});
  // Two warpgroups; blocks partly past M and N, and before the first row
  // and column.
  all.push_back({128, 128, 64, 8, 3, 100, 80, 200});
  all.push_back({128, 128, 64, 8, 2, 128, 128, 136, -32, -16});
  // B's block four boxes wide.
  all.push_back({128, 256, 64, 8, 3, 128, 256, 320});
  all.push_back({128, 256, 64, 4, 2, 160, 300, 136, 64, 128});
  all.push_back({128, 256, 64, 8, 2, 200, 256, 200, 128, 0});
  // A padded with NaN: rows past M (and before the first) are NaN.
  all.push_back({128, 128, 64, 4, 3, 90, 128, 192, 0, 0, true});
  all.push_back({128, 128, 64, 8, 2, 128, 128, 128, -8, 0, true});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Descriptors, TmaPipeline,
                         ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Matmul> &info) {
                           return caseName(info.param);
                         });

} // namespace
