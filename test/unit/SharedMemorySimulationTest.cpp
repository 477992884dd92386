//===- SharedMemorySimulationTest.cpp - explicit shared memory, run -------===//
//
// An explicit-level kernel moves a 64x64 tile through shared memory in
// every way the explicit level can: stored from registers into one buffer
// of two, copied asynchronously from global memory into the other, read
// back in another layout, through a transposed view and through a view of
// half the tile. It is lowered for NVIDIA (32 lanes, cp.async) and AMD
// (64 lanes) with a swizzled, a padded and a doubly padded layout, and run
// lane by lane (LaneSimulator): every read must give the tile.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"

#include "gtest/gtest.h"

#include <random>
#include <tuple>

using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::lowerKernel;
using tessera::test::replaceAll;
using tessera::test::Workgroup;

namespace {

/// $T is the element type, $PAD the buffers' layout and $PADT its
/// transpose; $R0/$C1 the lanes along rows/columns for 32 or 64 lanes.
constexpr const char *kKernel = R"mlir(
#rows = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [$R0, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, $C1], warpsPerCTA = [1, 4], order = [0, 1]}>
#r = #tile.slice<{dim = 1, parent = #rows}>
#c = #tile.slice<{dim = 0, parent = #rows}>
#pad = $PAD
#padt = $PADT
module attributes {tile.explicit_layouts} {
func.func @kernel(%x: !tile.ptr<$T> {tile.divisibility = 16 : i32},
                  %out: !tile.ptr<$T> {tile.divisibility = 16 : i32}) {
  %r64 = tile.make_range 0, 64 : tensor<64xi32, #r>
  %r32 = tile.make_range 0, 32 : tensor<32xi32, #r>
  %c64 = tile.make_range 0, 64 : tensor<64xi32, #c>
  %re = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
  %he = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32, #r> -> tensor<32x1xi32, #rows>
  %ce = tile.expand_dims %c64 {axis = 0 : i32} : tensor<64xi32, #c> -> tensor<1x64xi32, #rows>
  %n = arith.constant dense<64> : tensor<64x1xi32, #rows>
  %hn = arith.constant dense<64> : tensor<32x1xi32, #rows>
  %rn = arith.muli %re, %n : tensor<64x1xi32, #rows>
  %hr = arith.muli %he, %hn : tensor<32x1xi32, #rows>
  %rb = tile.broadcast %rn : tensor<64x1xi32, #rows> -> tensor<64x64xi32, #rows>
  %cb = tile.broadcast %ce : tensor<1x64xi32, #rows> -> tensor<64x64xi32, #rows>
  %hb = tile.broadcast %hr : tensor<32x1xi32, #rows> -> tensor<32x64xi32, #rows>
  %hc = tile.broadcast %ce : tensor<1x64xi32, #rows> -> tensor<32x64xi32, #rows>
  %offs = arith.addi %rb, %cb : tensor<64x64xi32, #rows>
  %half = arith.addi %hb, %hc : tensor<32x64xi32, #rows>
  %xs = tile.splat %x : tensor<64x64x!tile.ptr<$T>, #rows>
  %xp = tile.addptr %xs, %offs : tensor<64x64x!tile.ptr<$T>, #rows>, tensor<64x64xi32, #rows>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<$T>, #rows>

  %buf = tile.local_alloc : () -> !tile.memdesc<2x64x64x$T, #pad, mutable>
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %s0 = tile.memdesc_index %buf[%i0] : !tile.memdesc<2x64x64x$T, #pad, mutable> -> !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64>
  %s1 = tile.memdesc_index %buf[%i1] : !tile.memdesc<2x64x64x$T, #pad, mutable> -> !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64>
  tile.local_store %v, %s0 : tensor<64x64x$T, #rows> -> !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64>
  tile.async_copy_global_to_local %xp, %s1 : tensor<64x64x!tile.ptr<$T>, #rows> -> !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64>
  tile.async_commit_group
  tile.async_wait {num = 0 : i32}
  %a = tile.local_load %s0 : !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64> -> tensor<64x64x$T, #cols>
  %b = tile.local_load %s1 : !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64> -> tensor<64x64x$T, #cols>
  %t = tile.memdesc_trans %s0 {order = array<i32: 1, 0>} : !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64> -> !tile.memdesc<64x64x$T, #padt, mutable, 2x64x64>
  %tv = tile.local_load %t : !tile.memdesc<64x64x$T, #padt, mutable, 2x64x64> -> tensor<64x64x$T, #rows>
  %h = tile.memdesc_subslice %s1 [32, 0] : !tile.memdesc<64x64x$T, #pad, mutable, 2x64x64> -> !tile.memdesc<32x64x$T, #pad, mutable, 2x64x64>
  %hv = tile.local_load %h : !tile.memdesc<32x64x$T, #pad, mutable, 2x64x64> -> tensor<32x64x$T, #rows>

  %a2 = tile.convert_layout %a : tensor<64x64x$T, #cols> -> tensor<64x64x$T, #rows>
  %b2 = tile.convert_layout %b : tensor<64x64x$T, #cols> -> tensor<64x64x$T, #rows>
  %tile = arith.constant dense<4096> : tensor<64x64xi32, #rows>
  %os = tile.splat %out : tensor<64x64x!tile.ptr<$T>, #rows>
  %o0 = tile.addptr %os, %offs : tensor<64x64x!tile.ptr<$T>, #rows>, tensor<64x64xi32, #rows>
  %o1 = tile.addptr %o0, %tile : tensor<64x64x!tile.ptr<$T>, #rows>, tensor<64x64xi32, #rows>
  %o2 = tile.addptr %o1, %tile : tensor<64x64x!tile.ptr<$T>, #rows>, tensor<64x64xi32, #rows>
  tile.store %o0, %a2 : tensor<64x64x!tile.ptr<$T>, #rows>
  tile.store %o1, %b2 : tensor<64x64x!tile.ptr<$T>, #rows>
  tile.store %o2, %tv : tensor<64x64x!tile.ptr<$T>, #rows>
  %third = arith.constant dense<12288> : tensor<32x64xi32, #rows>
  %hs = tile.splat %out : tensor<32x64x!tile.ptr<$T>, #rows>
  %hp = tile.addptr %hs, %half : tensor<32x64x!tile.ptr<$T>, #rows>, tensor<32x64xi32, #rows>
  %hq = tile.addptr %hp, %third : tensor<32x64x!tile.ptr<$T>, #rows>, tensor<32x64xi32, #rows>
  tile.store %hq, %hv : tensor<32x64x!tile.ptr<$T>, #rows>
  return
}
}
)mlir";

/// A shared layout of 64x64 tiles: swizzled, or padded by `pairs`
/// ("64:+4").
struct Layout {
  const char *name;
  const char *pairs;
};

/// The layout's text for tiles whose dimension `fast` is contiguous.
std::string layoutText(const Layout &layout, unsigned fast) {
  if (!layout.pairs)
    return std::string("#tile.swizzled_shared<{vec = 4, perPhase = 1, "
                       "maxPhase = 8, order = [") +
           (fast == 1 ? "1, 0" : "0, 1") + "]}>";
  std::string bases;
  for (unsigned dim : {fast, 1 - fast})
    for (int bit = 1; bit < 64; bit <<= 1)
      bases += std::string(bases.empty() ? "" : ", ") + "[" +
               std::to_string(dim == 0 ? bit : 0) + ", " +
               std::to_string(dim == 1 ? bit : 0) + "]";
  return std::string("#tile.padded_shared<[") + layout.pairs + "] {offset = [" +
         bases + "]}>";
}

using Case = std::tuple<const char *, Layout, const char *>;

class SharedMemorySimulation : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() { mlir::tile::registerBuiltinBackends(); }
};

template <typename T>
void runCase(const LoweredKernel &lowered, llvm::Function *kernel) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> values(-100, 100);
  std::vector<T> x(64 * 64), out(4 * 4096 - 2048, T(-1));
  for (T &value : x)
    value = T(values(random));
  Workgroup group;
  group.warpSize = lowered.warpSize;
  group.numThreads = 4 * lowered.warpSize;
  LaneSimulator simulator(*kernel, group);
  simulator.addBuffer(x.data(), x.size() * sizeof(T));
  simulator.addBuffer(out.data(), out.size() * sizeof(T));
  llvm::Error error = simulator.run({reinterpret_cast<uint64_t>(x.data()),
                                     reinterpret_cast<uint64_t>(out.data())});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      int at = i * 64 + j;
      ASSERT_EQ(out[at], x[at]) << "stored and read at " << i << ", " << j;
      ASSERT_EQ(out[4096 + at], x[at])
          << "copied and read at " << i << ", " << j;
      ASSERT_EQ(out[8192 + at], x[j * 64 + i])
          << "read transposed at " << i << ", " << j;
      if (i < 32)
        ASSERT_EQ(out[12288 + at], x[(32 + i) * 64 + j])
            << "read through the view of rows 32.. at " << i << ", " << j;
    }
}

TEST_P(SharedMemorySimulation, EveryWayIntoAndOutOfABufferKeepsTheTile) {
  auto [spec, layout, type] = GetParam();
  std::string lanesAlongRows =
      llvm::StringRef(spec).starts_with("hip:gfx9") ? "8" : "4";
  std::string source = kKernel;
  source = replaceAll(source, "$PADT", layoutText(layout, 0));
  source = replaceAll(source, "$PAD", layoutText(layout, 1));
  source = replaceAll(source, "$R0", lanesAlongRows);
  source = replaceAll(source, "$C1", lanesAlongRows);
  source = replaceAll(source, "$T", type);
  LoweredKernel lowered;
  lowerKernel(spec, source, 4, lowered);
  if (HasFatalFailure())
    return;
  if (llvm::StringRef(type) == "f16")
    runCase<uint16_t>(lowered, lowered.kernel);
  else
    runCase<float>(lowered, lowered.kernel);
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  auto [spec, layout, type] = info.param;
  std::string name =
      std::string(spec) + "_" + layout.name + "_" + std::string(type);
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, SharedMemorySimulation,
    ::testing::Combine(::testing::Values("cuda:80", "hip:gfx942"),
                       ::testing::Values(Layout{"swizzled", nullptr},
                                         Layout{"padded", "64:+4"},
                                         Layout{"padded_twice",
                                                "32:+8, 512:+16"}),
                       ::testing::Values("f16", "f32")),
    caseName);

} // namespace
