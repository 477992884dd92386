//===- WarpSizeTest.cpp - reductions and scans run right for 32 and 64 lanes //
//
// Kernels that reduce and scan a tensor along either axis are lowered for
// 64-lane (gfx942) and 32-lane (gfx1100, sm_90) targets and run lane by lane
// on the host (LaneSimulator): the results must equal a plain loop's, for
// shapes smaller than, equal to and larger than a warp or a workgroup.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"

#include "llvm/IR/Module.h"

#include "gtest/gtest.h"

#include <random>
#include <tuple>

using namespace mlir;
using namespace mlir::tile;
using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::lowerKernel;
using tessera::test::replaceAll;
using tessera::test::Workgroup;

namespace {

/// For an MxN i32 tensor and an axis: the sums along it (and the same in
/// f32), the first index of each maximum, an inclusive scan forward and
/// backward, and the largest sum (a reduction of a reduction's layout).
constexpr const char *kKernel = R"mlir(
func.func @kernel(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                  %sum: !tile.ptr<i32>, %fsum: !tile.ptr<f32>,
                  %argmax: !tile.ptr<i32>, %scan: !tile.ptr<i32>,
                  %rscan: !tile.ptr<i32>, %top: !tile.ptr<i32>) {
  %rows = tile.make_range 0, $M : tensor<$Mxi32>
  %cols = tile.make_range 0, $N : tensor<$Nxi32>
  %r1 = tile.expand_dims %rows {axis = 1 : i32} : tensor<$Mxi32> -> tensor<$Mx1xi32>
  %c1 = tile.expand_dims %cols {axis = 0 : i32} : tensor<$Nxi32> -> tensor<1x$Nxi32>
  %width = arith.constant dense<$N> : tensor<$Mx1xi32>
  %start1 = arith.muli %r1, %width : tensor<$Mx1xi32>
  %row = tile.broadcast %r1 : tensor<$Mx1xi32> -> tensor<$Mx$Nxi32>
  %start = tile.broadcast %start1 : tensor<$Mx1xi32> -> tensor<$Mx$Nxi32>
  %col = tile.broadcast %c1 : tensor<1x$Nxi32> -> tensor<$Mx$Nxi32>
  %offset = arith.addi %start, %col : tensor<$Mx$Nxi32>
  %px = tile.splat %x : tensor<$Mx$Nx!tile.ptr<i32>>
  %qx = tile.addptr %px, %offset : tensor<$Mx$Nx!tile.ptr<i32>>, tensor<$Mx$Nxi32>
  %v = tile.load %qx : tensor<$Mx$Nx!tile.ptr<i32>>
  %k = tile.make_range 0, $K : tensor<$Kxi32>

  %s = tile.reduce(%v) axis = $A : (tensor<$Mx$Nxi32>) -> tensor<$Kxi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.reduce.return %r : i32
  }
  %ps = tile.splat %sum : tensor<$Kx!tile.ptr<i32>>
  %qs = tile.addptr %ps, %k : tensor<$Kx!tile.ptr<i32>>, tensor<$Kxi32>
  tile.store %qs, %s : tensor<$Kx!tile.ptr<i32>>

  %f = arith.sitofp %v : tensor<$Mx$Nxi32> to tensor<$Mx$Nxf32>
  %fs = tile.reduce(%f) axis = $A : (tensor<$Mx$Nxf32>) -> tensor<$Kxf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }
  %pf = tile.splat %fsum : tensor<$Kx!tile.ptr<f32>>
  %qf = tile.addptr %pf, %k : tensor<$Kx!tile.ptr<f32>>, tensor<$Kxi32>
  tile.store %qf, %fs : tensor<$Kx!tile.ptr<f32>>

  %m:2 = tile.reduce(%v, $INDEX) axis = $A : (tensor<$Mx$Nxi32>, tensor<$Mx$Nxi32>) -> (tensor<$Kxi32>, tensor<$Kxi32>) {
  ^bb0(%va: i32, %ia: i32, %vb: i32, %ib: i32):
    %gt = arith.cmpi sgt, %va, %vb : i32
    %eq = arith.cmpi eq, %va, %vb : i32
    %before = arith.cmpi slt, %ia, %ib : i32
    %tie = arith.andi %eq, %before : i1
    %takeA = arith.ori %gt, %tie : i1
    %val = arith.select %takeA, %va, %vb : i32
    %idx = arith.select %takeA, %ia, %ib : i32
    tile.reduce.return %val, %idx : i32, i32
  }
  %pa = tile.splat %argmax : tensor<$Kx!tile.ptr<i32>>
  %qa = tile.addptr %pa, %k : tensor<$Kx!tile.ptr<i32>>, tensor<$Kxi32>
  tile.store %qa, %m#1 : tensor<$Kx!tile.ptr<i32>>

  %c = tile.scan(%v) axis = $A : (tensor<$Mx$Nxi32>) -> tensor<$Mx$Nxi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }
  %pc = tile.splat %scan : tensor<$Mx$Nx!tile.ptr<i32>>
  %qc = tile.addptr %pc, %offset : tensor<$Mx$Nx!tile.ptr<i32>>, tensor<$Mx$Nxi32>
  tile.store %qc, %c : tensor<$Mx$Nx!tile.ptr<i32>>

  %rc = tile.scan(%v) axis = $A reverse : (tensor<$Mx$Nxi32>) -> tensor<$Mx$Nxi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }
  %pr = tile.splat %rscan : tensor<$Mx$Nx!tile.ptr<i32>>
  %qr = tile.addptr %pr, %offset : tensor<$Mx$Nx!tile.ptr<i32>>, tensor<$Mx$Nxi32>
  tile.store %qr, %rc : tensor<$Mx$Nx!tile.ptr<i32>>

  %t = tile.reduce(%s) axis = 0 : (tensor<$Kxi32>) -> i32 {
  ^bb0(%a: i32, %b: i32):
    %r = arith.maxsi %a, %b : i32
    tile.reduce.return %r : i32
  }
  tile.store %top, %t : !tile.ptr<i32>
  return
}
)mlir";

/// The kernel for an MxN tensor reduced along `axis`.
std::string kernelFor(unsigned m, unsigned n, unsigned axis) {
  std::string text = kKernel;
  for (auto [from, to] :
       {std::pair<llvm::StringRef, std::string>("$M", std::to_string(m)),
        {"$N", std::to_string(n)},
        {"$K", std::to_string(axis == 1 ? m : n)},
        {"$A", std::to_string(axis)},
        {"$INDEX", axis == 1 ? "%col" : "%row"}})
    text = replaceAll(text, from, to);
  return text;
}

/// Target, rows, columns, axis, warps.
using Case = std::tuple<const char *, unsigned, unsigned, unsigned, unsigned>;

class WarpSizeTest : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() { registerBuiltinBackends(); }
};

TEST_P(WarpSizeTest, ReductionsAndScansMatchALoop) {
  auto [spec, m, n, axis, warps] = GetParam();
  LoweredKernel lowered;
  lowerKernel(spec, kernelFor(m, n, axis), warps, lowered);
  if (HasFatalFailure())
    return;
  llvm::Function *kernel = lowered.kernel;

  unsigned k = axis == 1 ? m : n;
  std::mt19937 random(m * 1000 + n * 10 + axis);
  std::uniform_int_distribution<int32_t> values(-20, 20);
  std::vector<int32_t> x(m * n);
  for (int32_t &value : x)
    value = values(random);
  std::vector<int32_t> sum(k, -1), argmax(k, -1), scan(m * n, -1),
      rscan(m * n, -1), top(1, -1);
  std::vector<float> fsum(k, -1);

  Workgroup group;
  group.warpSize = lowered.warpSize;
  group.numThreads = warps * lowered.warpSize;
  LaneSimulator simulator(*kernel, group);
  auto address = [&](auto &buffer) {
    simulator.addBuffer(buffer.data(), buffer.size() * sizeof(buffer[0]));
    return reinterpret_cast<uint64_t>(buffer.data());
  };
  llvm::Error error =
      simulator.run({address(x), address(sum), address(fsum), address(argmax),
                     address(scan), address(rscan), address(top)});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  // The same on the host: element (i, j) of the reduced axis's line `line`.
  auto at = [&](unsigned line, unsigned i) {
    return axis == 1 ? x[line * n + i] : x[i * n + line];
  };
  auto flat = [&](unsigned line, unsigned i) {
    return axis == 1 ? line * n + i : i * n + line;
  };
  unsigned length = axis == 1 ? n : m;
  int32_t best = INT32_MIN;
  for (unsigned line = 0; line < k; ++line) {
    int32_t total = 0;
    unsigned first = 0;
    for (unsigned i = 0; i < length; ++i) {
      total += at(line, i);
      if (at(line, i) > at(line, first))
        first = i;
      EXPECT_EQ(scan[flat(line, i)], total)
          << "scan at " << i << " of line " << line;
    }
    int32_t suffix = 0;
    for (unsigned i = length; i-- > 0;) {
      suffix += at(line, i);
      EXPECT_EQ(rscan[flat(line, i)], suffix)
          << "reverse scan at " << i << " of line " << line;
    }
    EXPECT_EQ(sum[line], total) << "sum of line " << line;
    EXPECT_EQ(fsum[line], float(total)) << "f32 sum of line " << line;
    EXPECT_EQ(argmax[line], int32_t(first)) << "argmax of line " << line;
    best = std::max(best, total);
  }
  EXPECT_EQ(top[0], best);
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  auto [spec, m, n, axis, warps] = info.param;
  std::string name = std::string(spec) + "_" + std::to_string(m) + "x" +
                     std::to_string(n) + "_axis" + std::to_string(axis) + "_" +
                     std::to_string(warps) + "warps";
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Shapes, WarpSizeTest,
                         ::testing::Combine(::testing::Values("hip:gfx942",
                                                              "hip:gfx1100",
                                                              "cuda:90"),
                                            ::testing::Values(2u, 16u, 64u),
                                            ::testing::Values(16u, 128u),
                                            ::testing::Values(0u, 1u),
                                            ::testing::Values(1u, 4u)),
                         caseName);

} // namespace
