//===- ConversionPlanTest.cpp - planning layout conversions ---------------===//

#include "ir/Layout/ConversionPlan.h"
#include "ir/Layout/LayoutBuilders.h"

#include "gtest/gtest.h"

using namespace mlir::tile;

namespace {

LinearLayout make(std::vector<LinearLayout::InDim> ins, int32_t size) {
  return llvm::cantFail(LinearLayout::create(std::move(ins), {{"dim0", size}}));
}

/// Every destination location gets, through the plan's map, a source
/// location holding the same element.
void expectMapFindsElements(const ConversionPlan &plan, const LinearLayout &src,
                            const LinearLayout &dst) {
  for (int32_t w = 0; w < dst.getInDimSize(kWarp); ++w)
    for (int32_t l = 0; l < dst.getInDimSize(kLane); ++l)
      for (int32_t r = 0; r < dst.getInDimSize(kRegister); ++r) {
        LinearLayout::Point hw{{kRegister, r}, {kLane, l}, {kWarp, w}};
        LinearLayout::Point from = plan.dstToSrc.apply(hw);
        EXPECT_EQ(src.apply(from), dst.apply(hw));
      }
}

TEST(ConversionPlan, SameLayoutIsANoOp) {
  LinearLayout l = blockedLayout({64, 64}, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  auto plan = planConversion(l, l, 32);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->kind, ConversionKind::NoOp);
  EXPECT_EQ(plan->sharedBytes, 0);
}

TEST(ConversionPlan, ReorderedRegistersStayInThread) {
  // Four registers per thread, walked in another order.
  LinearLayout src = make({{kRegister, {{1}, {2}}},
                           {kLane, {{4}, {8}, {16}, {32}, {64}}},
                           {kWarp, {{128}}}},
                          256);
  LinearLayout dst = make({{kRegister, {{2}, {1}}},
                           {kLane, {{4}, {8}, {16}, {32}, {64}}},
                           {kWarp, {{128}}}},
                          256);
  auto plan = planConversion(src, dst, 32);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->kind, ConversionKind::RegisterPermutation);
  expectMapFindsElements(*plan, src, dst);
}

TEST(ConversionPlan, MovesWithinAWarpAreShuffles) {
  // The same warps; within a warp, elements change lanes.
  LinearLayout src = make({{kRegister, {{32}}},
                           {kLane, {{1}, {2}, {4}, {8}, {16}}},
                           {kWarp, {{64}, {128}}}},
                          256);
  LinearLayout dst = make({{kRegister, {{1}}},
                           {kLane, {{2}, {4}, {8}, {16}, {32}}},
                           {kWarp, {{64}, {128}}}},
                          256);
  auto plan = planConversion(src, dst, 32);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->kind, ConversionKind::WarpShuffle);
  expectMapFindsElements(*plan, src, dst);
}

/// A transpose between row- and column-major blocked layouts crosses warps;
/// the chosen swizzle has no bank conflicts where the plain layout has many.
TEST(ConversionPlan, TransposeGoesThroughSwizzledSharedMemory) {
  for (unsigned warpSize : {32u, 64u})
    for (unsigned bits : {16u, 32u}) {
      unsigned lanesAlong = warpSize / 4;
      LinearLayout src =
          blockedLayout({64, 64}, {1, 4}, {4, lanesAlong}, {4, 1}, {1, 0});
      LinearLayout dst =
          blockedLayout({64, 64}, {4, 1}, {lanesAlong, 4}, {1, 4}, {0, 1});
      auto plan = planConversion(src, dst, bits);
      ASSERT_TRUE(plan.has_value());
      EXPECT_EQ(plan->kind, ConversionKind::SharedMemory);
      EXPECT_EQ(plan->sharedBytes, 64 * 64 * bits / 8);
      expectMapFindsElements(*plan, src, dst);
      EXPECT_TRUE(plan->traffic.isConflictFree())
          << "warp " << warpSize << ", " << bits << " bits: store "
          << plan->traffic.storeWavefronts << "/"
          << plan->traffic.idealStoreWavefronts << ", load "
          << plan->traffic.loadWavefronts << "/"
          << plan->traffic.idealLoadWavefronts;
      EXPECT_TRUE(plan->shared.isInvertible());
      if (plan->swizzle) {
        EXPECT_EQ(plan->shared,
                  swizzledSharedLayout(
                      {64, 64}, plan->swizzle->vec, plan->swizzle->perPhase,
                      plan->swizzle->maxPhase, plan->swizzle->order));
      }
      // One side moves the 4-element vectors it holds; the other, along
      // the other dimension, moves single elements.
      EXPECT_EQ(std::max(plan->traffic.storeVec, plan->traffic.loadVec), 4u);
      BankTraffic plain = measureBankTraffic(
          src, dst, swizzledSharedLayout({64, 64}, 1, 1, 1, {1, 0}), bits);
      EXPECT_FALSE(plain.isConflictFree());
    }
}

TEST(ConversionPlan, FailsWhenTheSourceLacksElements) {
  // The source holds only the even elements.
  LinearLayout src = make(
      {{kRegister, {}}, {kLane, {{2}, {4}, {8}, {16}, {0}}}, {kWarp, {}}}, 32);
  LinearLayout dst = make(
      {{kRegister, {}}, {kLane, {{1}, {2}, {4}, {8}, {16}}}, {kWarp, {}}}, 32);
  EXPECT_FALSE(planConversion(src, dst, 32).has_value());
  EXPECT_TRUE(planConversion(dst, src, 32).has_value());
}

TEST(ConversionPlan, BankTrafficCountsConflicts) {
  // Each lane holds a row of a 32x32 fp32 tile; a 16-byte store of 32 lanes
  // takes 4 phases of 8 lanes, each phase's 8 rows in the same 4 banks:
  // 8-way conflicts in each of 8 stores.
  LinearLayout column = llvm::cantFail(LinearLayout::create(
      {{kRegister, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}},
       {kLane, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}},
       {kWarp, {}}},
      {{"dim0", 32}, {"dim1", 32}}));
  LinearLayout rowMajor = swizzledSharedLayout({32, 32}, 1, 1, 1, {1, 0});
  BankTraffic traffic = measureBankTraffic(column, column, rowMajor, 32);
  EXPECT_EQ(traffic.storeVec, 4u);
  EXPECT_EQ(traffic.storeWavefronts, 8 * 4 * 8);
  EXPECT_EQ(traffic.idealStoreWavefronts, 8 * 4);
  // XOR-swizzling single elements of the rows spreads each column over all
  // banks, at the price of scalar accesses: lanes would scramble a vector.
  LinearLayout swizzled = swizzledSharedLayout({32, 32}, 1, 1, 32, {1, 0});
  BankTraffic spread = measureBankTraffic(column, column, swizzled, 32);
  EXPECT_EQ(spread.storeVec, 1u);
  EXPECT_TRUE(spread.isConflictFree());
  // Swizzling 4-element groups keeps the vectors and the banks apart.
  LinearLayout grouped = swizzledSharedLayout({32, 32}, 4, 1, 8, {1, 0});
  BankTraffic both = measureBankTraffic(column, column, grouped, 32);
  EXPECT_EQ(both.storeVec, 4u);
  EXPECT_TRUE(both.isConflictFree());
}

} // namespace
