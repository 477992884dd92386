//===- MfmaLayoutTest.cpp - AMD matrix-core layouts against the ISA -------===//
//
// The linear forms of the MFMA and WMMA layouts
// (backends/amd/IR/MfmaLayouts.h) are compared with the CDNA and RDNA ISAs'
// matrix layouts (as ROCm's amd_matrix_instruction_calculator prints them)
// for MFMA's 32x32 and 16x16 instructions and WMMA's 16x16x16 of gfx11 and
// gfx12: for every lane and register of one wave, the element the layout
// names must be the one the table gives. Waves and repetitions are checked
// against their index arithmetic.
//
//===----------------------------------------------------------------------===//

#include "backends/amd/IR/AmdDialect.h"
#include "backends/amd/IR/MfmaLayouts.h"
#include "ir/Layout/ConversionPlan.h"
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

TEST(MfmaLayout, TransposedResultSwapsRowsAndColumns) {
  // The instruction computes B^T A^T: lane l holds row l % 32 (l % 16) and
  // the columns the ISA's D gives as rows, 4 consecutive ones a register
  // group; with 4 waves along M, a 128x32 result is a dot's A as it lies.
  for (unsigned mDim : {32u, 16u}) {
    LinearLayout d = mfmaLayout({mDim, mDim}, {1, 1}, mDim, true);
    for (int32_t lane = 0; lane < 64; ++lane)
      for (int32_t i = 0; i < int32_t(mDim * mDim / 64); ++i) {
        Coord isa = isaD(mDim, lane, i);
        EXPECT_EQ(apply(d, i, lane), Coord(isa.second, isa.first))
            << mDim << "x" << mDim << " lane " << lane << " register " << i;
      }
  }
  EXPECT_EQ(mfmaLayout({128, 32}, {4, 1}, 32, true).toString(),
            mfmaOperandLayout({128, 32}, {4, 1}, 32, 0, 4).toString());
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
  EXPECT_FALSE(mfma.getIsTransposed());
  auto transposed = dyn_cast_if_present<MfmaLayoutAttr>(parseAttribute(
      "#tile_amd.mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, "
      "32, 8], isTransposed = true}>",
      &context));
  ASSERT_TRUE(transposed && transposed.getIsTransposed());
  EXPECT_EQ(transposed.toLinearLayout({64, 64}),
            mfmaLayout({64, 64}, {2, 2}, 32, true));
  auto operand = DotOperandLayoutAttr::get(&context, 1, mfma, 4);
  EXPECT_EQ(operand.toLinearLayout({32, 64}),
            mfmaOperandLayout({32, 64}, {2, 2}, 32, 1, 4));
  // 32x16 tiles are no MFMA's.
  context.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  EXPECT_FALSE(parseAttribute("#tile_amd.mfma<{version = 3, warpsPerCTA = [1, "
                              "1], instrShape = [32, 16, 8]}>",
                              &context));
}

/// RDNA's WMMA (16x16x16, 32 lanes): D lane l, register v (row, column).
Coord isaWmmaD(unsigned version, int32_t lane, int32_t v) {
  return {version == 1 ? 2 * v + lane / 16 : 8 * (lane / 16) + v, lane % 16};
}

/// The operands reach the matrix cores' layouts from the layouts loads
/// coalesce (16 bytes a lane along the contiguous dimension) through shared
/// memory without bank conflicts: the conversion planner's swizzle.
TEST(MatrixCoreOperands, StageThroughSharedMemoryWithoutConflicts) {
  struct Case {
    const char *what;
    LinearLayout loaded, operand;
  };
  const Case cases[] = {
      {"gfx942 A 128x32 f16",
       blockedLayout({128, 32}, {1, 8}, {16, 4}, {4, 1}, {1, 0}),
       mfmaOperandLayout({128, 32}, {2, 2}, 32, 0, 4)},
      {"gfx942 B 32x128 f16",
       blockedLayout({32, 128}, {1, 8}, {4, 16}, {4, 1}, {1, 0}),
       mfmaOperandLayout({32, 128}, {2, 2}, 32, 1, 4)},
      {"gfx950 A 128x64 bf16",
       blockedLayout({128, 64}, {1, 8}, {8, 8}, {4, 1}, {1, 0}),
       mfmaOperandLayout({128, 64}, {2, 2}, 32, 0, 8)},
      {"gfx1100 A 64x32 f16",
       blockedLayout({64, 32}, {1, 8}, {8, 4}, {4, 1}, {1, 0}),
       wmmaOperandLayout({64, 32}, {2, 2}, 1, 0)},
      {"gfx1200 B 32x64 f16",
       blockedLayout({32, 64}, {1, 8}, {4, 8}, {4, 1}, {1, 0}),
       wmmaOperandLayout({32, 64}, {2, 2}, 2, 1)},
  };
  for (const Case &c : cases) {
    std::optional<ConversionPlan> plan = planConversion(c.loaded, c.operand, 16);
    ASSERT_TRUE(plan) << c.what;
    EXPECT_EQ(plan->kind, ConversionKind::SharedMemory) << c.what;
    EXPECT_TRUE(plan->traffic.isConflictFree())
        << c.what << ": " << plan->traffic.loadWavefronts << " load wavefronts, "
        << plan->traffic.idealLoadWavefronts << " without conflicts";
  }
}

TEST(WmmaLayout, ResultAndOperandsMatchTheIsa) {
  for (unsigned version : {1u, 2u}) {
    LinearLayout d = wmmaLayout({16, 16}, {1, 1}, version);
    ASSERT_EQ(d.getInDimSize(kRegister), 8);
    std::set<Coord> seen;
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t v = 0; v < 8; ++v) {
        EXPECT_EQ(apply(d, v, lane), isaWmmaD(version, lane, v))
            << "version " << version << " lane " << lane << " register " << v;
        seen.insert(apply(d, v, lane));
      }
    EXPECT_EQ(seen.size(), 256u);
    // A: row l % 16; version 1 all 16 K (lanes 16-31 repeat 0-15),
    // version 2 K 8 (l / 16) + j. B mirrors it.
    LinearLayout a = wmmaOperandLayout({16, 16}, {1, 1}, version, 0);
    LinearLayout b = wmmaOperandLayout({16, 16}, {1, 1}, version, 1);
    int32_t kWidth = version == 1 ? 16 : 8;
    ASSERT_EQ(a.getInDimSize(kRegister), kWidth);
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t j = 0; j < kWidth; ++j) {
        Coord expected{lane % 16, version == 1 ? j : 8 * (lane / 16) + j};
        EXPECT_EQ(apply(a, j, lane), expected)
            << "A version " << version << " lane " << lane;
        EXPECT_EQ(apply(b, j, lane), Coord(expected.second, expected.first))
            << "B version " << version << " lane " << lane;
      }
  }
}

TEST(WmmaLayout, AttributeLaysOutOnWaves) {
  MLIRContext context;
  context.loadDialect<TileDialect, TileAmdDialect>();
  auto wmma = dyn_cast_if_present<WmmaLayoutAttr>(parseAttribute(
      "#tile_amd.wmma<{version = 2, warpsPerCTA = [2, 1]}>", &context));
  ASSERT_TRUE(wmma);
  EXPECT_EQ(wmma.getWarpSize(), 32u);
  // Wave 1 holds rows 16-31.
  LinearLayout d = wmma.toLinearLayout({32, 16});
  EXPECT_EQ(apply(d, 3, 20, 1), Coord(16 + 8 + 3, 4));
  EXPECT_EQ(
      DotOperandLayoutAttr::get(&context, 0, wmma, 8).toLinearLayout({32, 32}),
      wmmaOperandLayout({32, 32}, {2, 1}, 2, 0));
}

} // namespace
