//===- MmaLayoutTest.cpp - tensor-core layouts against the PTX tables -----===//
//
// The linear forms of the mma.sync layouts (backends/nvidia/IR/MmaLayouts.h)
// are compared with the PTX ISA's "matrix fragments" tables for m16n8k16
// (f16, bf16), m16n8k8 (tf32) and m16n8k32 (s8, e4m3, e5m2): for every lane
// and register of one warp, the element the layout names must be the one
// the table gives (g = lane / 4, t = lane % 4). Warps and repetitions are
// checked against their index arithmetic.
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/IR/MmaLayouts.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Layout/LayoutBuilders.h"
#include "ir/Tile/TileDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {

using Coord = std::pair<int32_t, int32_t>;

Coord apply(const LinearLayout &layout, int32_t reg, int32_t lane,
            int32_t warp = 0) {
  LinearLayout::Point p =
      layout.apply({{kRegister, reg}, {kLane, lane}, {kWarp, warp}});
  return {p[0].second, p[1].second};
}

/// PTX's element i of A for lane `lane`, whose registers pack `kWidth`
/// K elements: rows g, g + 8, columns from kWidth·t, then 4·kWidth on.
Coord ptxA(unsigned kWidth, int32_t lane, int32_t i) {
  int32_t g = lane / 4, t = lane % 4, reg = i / kWidth, e = i % kWidth;
  return {g + 8 * (reg % 2), kWidth * t + e + 4 * kWidth * (reg / 2)};
}
Coord ptxB(unsigned kWidth, int32_t lane, int32_t i) {
  int32_t g = lane / 4, t = lane % 4, reg = i / kWidth, e = i % kWidth;
  return {kWidth * t + e + 4 * kWidth * reg, g};
}
Coord ptxC(int32_t lane, int32_t i) {
  int32_t g = lane / 4, t = lane % 4;
  return {g + 8 * (i / 2), 2 * t + i % 2};
}

TEST(MmaLayout, MatchesThePtxFragmentTables) {
  // kWidth 2: f16/bf16 m16n8k16; 1: tf32 m16n8k8; 4: s8/fp8 m16n8k32.
  for (unsigned kWidth : {1u, 2u, 4u}) {
    int64_t k = 8 * kWidth;
    LinearLayout a = mmaV2OperandLayout({16, k}, {1, 1}, 0, kWidth);
    LinearLayout b = mmaV2OperandLayout({k, 8}, {1, 1}, 1, kWidth);
    ASSERT_EQ(a.getInDimSize(kRegister), 4 * kWidth);
    ASSERT_EQ(b.getInDimSize(kRegister), 2 * kWidth);
    for (int32_t lane = 0; lane < 32; ++lane) {
      for (int32_t i = 0; i < int32_t(4 * kWidth); ++i)
        EXPECT_EQ(apply(a, i, lane), ptxA(kWidth, lane, i))
            << "A kWidth " << kWidth << " lane " << lane << " element " << i;
      for (int32_t i = 0; i < int32_t(2 * kWidth); ++i)
        EXPECT_EQ(apply(b, i, lane), ptxB(kWidth, lane, i))
            << "B kWidth " << kWidth << " lane " << lane << " element " << i;
    }
  }
  LinearLayout c = mmaV2Layout({16, 8}, {1, 1});
  ASSERT_EQ(c.getInDimSize(kRegister), 4);
  for (int32_t lane = 0; lane < 32; ++lane)
    for (int32_t i = 0; i < 4; ++i)
      EXPECT_EQ(apply(c, i, lane), ptxC(lane, i)) << lane << " " << i;
}

TEST(MmaLayout, WarpsTileNFastestAndRegistersRepeat) {
  // 4 warps as 2x2 on a 64x32 result: each warp's 16x8 tile repeats twice
  // along M and twice along N in registers.
  LinearLayout c = mmaV2Layout({64, 32}, {2, 2});
  EXPECT_TRUE(c.isInvertible());
  EXPECT_EQ(c.getInDimSize(kRegister), 16);
  for (int32_t warp = 0; warp < 4; ++warp)
    for (int32_t lane = 0; lane < 32; ++lane) {
      Coord first = apply(c, 0, lane, warp);
      Coord tile0 = ptxC(lane, 0);
      EXPECT_EQ(first, Coord(tile0.first + 16 * (warp / 2),
                             tile0.second + 8 * (warp % 2)));
    }
  // Every element is held once.
  std::set<Coord> seen;
  for (int32_t r = 0; r < 16; ++r)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t warp = 0; warp < 4; ++warp)
        EXPECT_TRUE(seen.insert(apply(c, r, lane, warp)).second);
}

TEST(MmaLayout, OperandsFollowTheirWarpsAndRepeatTheOthers) {
  // Warps 2x2: A's rows follow the warp's M index and repeat across its N
  // index; B's columns the other way round.
  LinearLayout a = mmaV2OperandLayout({64, 32}, {2, 2}, 0, 2);
  LinearLayout b = mmaV2OperandLayout({32, 32}, {2, 2}, 1, 2);
  for (int32_t warp = 0; warp < 4; ++warp)
    for (int32_t lane = 0; lane < 32; ++lane) {
      Coord pa = ptxA(2, lane, 0), pb = ptxB(2, lane, 0);
      EXPECT_EQ(apply(a, 0, lane, warp),
                Coord(pa.first + 16 * (warp / 2), pa.second));
      EXPECT_EQ(apply(b, 0, lane, warp),
                Coord(pb.first, pb.second + 8 * (warp % 2)));
    }
  // Each thread holds all of K for its rows: 64 / (16 * 2) row tiles times
  // 32 / 16 K steps times 8 registers.
  EXPECT_EQ(a.getInDimSize(kRegister), 2 * 2 * 8);
}

TEST(MmaLayout, BatchedWarpsGoAlongTheBatchFirst) {
  LinearLayout c = mmaV2Layout({2, 16, 8}, {2, 1, 1});
  for (int32_t lane = 0; lane < 32; ++lane)
    for (int32_t warp = 0; warp < 2; ++warp) {
      LinearLayout::Point p =
          c.apply({{kRegister, 0}, {kLane, lane}, {kWarp, warp}});
      EXPECT_EQ(p[0].second, warp);
      EXPECT_EQ(Coord(p[1].second, p[2].second), ptxC(lane, 0));
    }
}

TEST(MmaLayout, AttributeParsesVerifiesAndGivesItsLayouts) {
  MLIRContext context;
  context.loadDialect<TileDialect, TileNvidiaDialect>();
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(parseAttribute(
      "#tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, "
      "8]}>",
      &context));
  ASSERT_TRUE(mma);
  EXPECT_EQ(mma.getNumWarps(), 4u);
  EXPECT_EQ(mma.getWarpSize(), 32u);
  EXPECT_EQ(mma.toLinearLayout({64, 32}), mmaV2Layout({64, 32}, {2, 2}));
  auto operand = DotOperandLayoutAttr::get(&context, 1, mma, 4);
  EXPECT_EQ(operand.toLinearLayout({64, 32}),
            mmaV2OperandLayout({64, 32}, {2, 2}, 1, 4));
  auto wgmma = dyn_cast_if_present<MmaLayoutAttr>(parseAttribute(
      "#tile_nvidia.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, "
      "128, 16]}>",
      &context));
  ASSERT_TRUE(wgmma);
  EXPECT_EQ(wgmma.toLinearLayout({128, 128}), mmaV3Layout({128, 128}, {8, 1}, 128));
  EXPECT_EQ(DotOperandLayoutAttr::get(&context, 0, wgmma, 2).toLinearLayout({128, 64}),
            mmaV3OperandLayout({128, 64}, {8, 1}, 2));
  // wgmma needs whole warpgroups along M, and its own instruction shape.
  context.getDiagEngine().registerHandler([](Diagnostic &) {});
  for (const char *bad :
       {"#tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
        "#tile_nvidia.mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 64, 16]}>",
        "#tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 96, 16]}>",
        "#tile_nvidia.mma<{version = 4, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"})
    EXPECT_FALSE(parseAttribute(bad, &context)) << bad;
}

/// The PTX ISA's wgmma m64nNk D fragment: thread `tid` of the warpgroup
/// holds, in register i, row 16 (tid / 32) + g + 8 ((i / 2) % 2), column
/// 8 (i / 4) + 2t + i % 2.
Coord wgmmaD(int32_t tid, int32_t i) {
  int32_t warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  return {16 * warp + g + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * t + i % 2};
}

TEST(MmaLayout, WgmmaMatchesThePtxFragmentTable) {
  for (int32_t n : {8, 64, 256}) {
    LinearLayout d = mmaV3Layout({64, n}, {4, 1}, n);
    ASSERT_EQ(d.getInDimSize(kRegister), n / 2);
    for (int32_t tid = 0; tid < 128; ++tid)
      for (int32_t i = 0; i < n / 2; ++i)
        EXPECT_EQ(apply(d, i, tid % 32, tid / 32), wgmmaD(tid, i))
            << "n " << n << " thread " << tid << " register " << i;
  }
}

TEST(MmaLayout, WgmmaWarpgroupsStackAlongMThenN) {
  // 8 warps as [4, 2] on 128x128 with 64-wide instructions: warpgroup 0
  // takes columns 0-63, warpgroup 1 columns 64-127, each repeating its 64
  // rows twice in registers.
  LinearLayout d = mmaV3Layout({128, 128}, {4, 2}, 64);
  EXPECT_TRUE(d.isInvertible());
  EXPECT_EQ(d.getInDimSize(kRegister), 64);
  for (int32_t warp = 0; warp < 8; ++warp)
    for (int32_t lane = 0; lane < 32; ++lane) {
      Coord at = apply(d, 0, lane, warp);
      Coord expected = wgmmaD((warp % 4) * 32 + lane, 0);
      EXPECT_EQ(at, Coord(expected.first, expected.second + 64 * (warp / 4)));
      EXPECT_EQ(apply(d, 32, lane, warp).first, at.first + 64);
    }
  // Register A: warp w of a warpgroup holds rows 16w.. as mma.sync's A;
  // the warpgroups along N hold the same.
  LinearLayout a = mmaV3OperandLayout({64, 16}, {4, 2}, 2);
  for (int32_t warp = 0; warp < 8; ++warp)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t i = 0; i < 8; ++i) {
        Coord pa = ptxA(2, lane, i);
        EXPECT_EQ(apply(a, i, lane, warp), Coord(pa.first + 16 * (warp % 4), pa.second));
      }
}

} // namespace
