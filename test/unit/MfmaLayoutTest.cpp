//===- MfmaLayoutTest.cpp - AMD matrix-core layouts against the ISA -------===//
//
// The linear forms of the MFMA layouts (backends/amd/IR/MfmaLayouts.h) are
// compared with the CDNA ISA's matrix layouts (as ROCm's
// amd_matrix_instruction_calculator prints them) for the 32x32 and 16x16
// instructions: for every lane and register of one 64-lane wave, the
// element the layout names must be the one the table gives. Waves and
// repetitions are checked against their index arithmetic.
//
//===----------------------------------------------------------------------===//

#include "backends/amd/IR/AmdDialect.h"
#include "backends/amd/IR/MfmaLayouts.h"
#include "ir/Layout/LayoutBuilders.h"
#include "ir/Tile/TileDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::amd;

namespace {

using Coord = std::pair<int32_t, int32_t>;

Coord apply(const LinearLayout &layout, int32_t reg, int32_t lane,
            int32_t warp = 0) {
  LinearLayout::Point p =
      layout.apply({{kRegister, reg}, {kLane, lane}, {kWarp, warp}});
  return {p[0].second, p[1].second};
}

/// The ISA's D: lane l, register i of a 32x32 or 16x16 tile (row, column).
Coord isaD(unsigned mDim, int32_t lane, int32_t i) {
  if (mDim == 32)
    return {8 * (i / 4) + 4 * (lane / 32) + i % 4, lane % 32};
  return {4 * (lane / 16) + i, lane % 16};
}

/// The ISA's A (row, K) for lane l, element j of kWidth.
Coord isaA(unsigned mDim, unsigned kWidth, int32_t lane, int32_t j) {
  return {lane % int32_t(mDim), int32_t(kWidth) * (lane / int32_t(mDim)) + j};
}

TEST(MfmaLayout, ResultMatchesTheIsa) {
  for (unsigned mDim : {32u, 16u}) {
    LinearLayout d = mfmaLayout({mDim, mDim}, {1, 1}, mDim);
    int32_t registers = mDim * mDim / 64;
    ASSERT_EQ(d.getInDimSize(kRegister), registers) << mDim;
    std::set<Coord> seen;
    for (int32_t lane = 0; lane < 64; ++lane)
      for (int32_t i = 0; i < registers; ++i) {
        EXPECT_EQ(apply(d, i, lane), isaD(mDim, lane, i))
            << mDim << "x" << mDim << " lane " << lane << " register " << i;
        seen.insert(apply(d, i, lane));
      }
    EXPECT_EQ(seen.size(), size_t(mDim * mDim));
  }
}

TEST(MfmaLayout, OperandsMatchTheIsa) {
  for (unsigned mDim : {32u, 16u})
    for (unsigned kWidth : {4u, 8u}) {
      unsigned k = kWidth * 64 / mDim;
      LinearLayout a = mfmaOperandLayout({mDim, k}, {1, 1}, mDim, 0, kWidth);
      LinearLayout b = mfmaOperandLayout({k, mDim}, {1, 1}, mDim, 1, kWidth);
      ASSERT_EQ(a.getInDimSize(kRegister), int32_t(kWidth));
      ASSERT_EQ(b.getInDimSize(kRegister), int32_t(kWidth));
      for (int32_t lane = 0; lane < 64; ++lane)
        for (int32_t j = 0; j < int32_t(kWidth); ++j) {
          Coord expected = isaA(mDim, kWidth, lane, j);
          EXPECT_EQ(apply(a, j, lane), expected)
              << "A " << mDim << " kWidth " << kWidth << " lane " << lane;
          // B mirrors A: (K, column).
          EXPECT_EQ(apply(b, j, lane), Coord(expected.second, expected.first))
              << "B " << mDim << " kWidth " << kWidth << " lane " << lane;
        }
    }
}

TEST(MfmaLayout, WavesAndRepetitions) {
  // 128x64 on 2x2 waves of 32x32: wave w holds the tile at rows 32 (w / 2),
  // columns 32 (w % 2); registers 16.. repeat it 64 rows down.
  LinearLayout d = mfmaLayout({128, 64}, {2, 2}, 32);
  EXPECT_EQ(d.getInDimSize(kRegister), 32);
  for (int32_t w = 0; w < 4; ++w)
    for (int32_t lane : {0, 33, 63})
      for (int32_t i : {0, 5, 15}) {
        Coord tile = isaD(32, lane, i);
        EXPECT_EQ(apply(d, i, lane, w),
                  Coord(tile.first + 32 * (w / 2), tile.second + 32 * (w % 2)));
        EXPECT_EQ(apply(d, i + 16, lane, w),
                  Coord(tile.first + 32 * (w / 2) + 64,
                        tile.second + 32 * (w % 2)));
      }
  // A of that dot (K = 32, kWidth 4): waves along N hold the same rows;
  // register 4 steps rows by 64, registers 8.. K by 8.
  LinearLayout a = mfmaOperandLayout({128, 32}, {2, 2}, 32, 0, 4);
  for (int32_t lane : {0, 40})
    for (int32_t j : {0, 3}) {
      Coord at = isaA(32, 4, lane, j);
      EXPECT_EQ(apply(a, j, lane, 1), apply(a, j, lane, 0));
      EXPECT_EQ(apply(a, j, lane, 2), Coord(at.first + 32, at.second));
      EXPECT_EQ(apply(a, j + 4, lane, 0), Coord(at.first + 64, at.second));
      EXPECT_EQ(apply(a, j + 8, lane, 0), Coord(at.first, at.second + 8));
    }
}

TEST(MfmaLayout, AttributeParsesVerifiesAndLaysOut) {
  MLIRContext context;
  context.loadDialect<TileDialect, TileAmdDialect>();
  Attribute attr = parseAttribute(
      "#tile_amd.mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, "
      "32, 8]}>",
      &context);
  auto mfma = dyn_cast_if_present<MfmaLayoutAttr>(attr);
  ASSERT_TRUE(mfma);
  EXPECT_EQ(mfma.getWarpSize(), 64u);
  EXPECT_EQ(mfma.getNumWarps(), 4u);
  EXPECT_EQ(mfma.toLinearLayout({64, 64}), mfmaLayout({64, 64}, {2, 2}, 32));
  auto operand = DotOperandLayoutAttr::get(&context, 1, mfma, 4);
  EXPECT_EQ(operand.toLinearLayout({32, 64}),
            mfmaOperandLayout({32, 64}, {2, 2}, 32, 1, 4));
  // 32x16 tiles are no MFMA's.
  context.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  EXPECT_FALSE(parseAttribute("#tile_amd.mfma<{version = 3, warpsPerCTA = [1, "
                              "1], instrShape = [32, 16, 8]}>",
                              &context));
}

} // namespace
