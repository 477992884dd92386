//===- AxisInfoTest.cpp - unit tests of the axis analysis lattice and API -===//

#include "transforms/AxisInfo.h"

#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

TEST(AxisInfo, HighestPowerOf2Divisor) {
  EXPECT_EQ(AxisInfo::highestPowerOf2Divisor(1), 1);
  EXPECT_EQ(AxisInfo::highestPowerOf2Divisor(12), 4);
  EXPECT_EQ(AxisInfo::highestPowerOf2Divisor(-48), 16);
  EXPECT_EQ(AxisInfo::highestPowerOf2Divisor(0), AxisInfo::kMaxDivisibility);
  EXPECT_EQ(AxisInfo::highestPowerOf2Divisor(int64_t(1) << 40),
            AxisInfo::kMaxDivisibility);
}

TEST(AxisInfo, JoinTakesTheCommonPart) {
  AxisInfo a({128}, {16}, {1}, std::nullopt);
  AxisInfo b({64}, {32}, {2}, std::nullopt);
  AxisInfo j = AxisInfo::join(a, b);
  EXPECT_EQ(j.getContiguity(0), 64);
  EXPECT_EQ(j.getDivisibility(0), 16);
  EXPECT_EQ(j.getConstancy(0), 1);
  EXPECT_FALSE(j.getConstantValue());
}

TEST(AxisInfo, JoinWithUnknownIsIdentity) {
  AxisInfo a({4, 1}, {16, 8}, {1, 2}, 3);
  EXPECT_EQ(AxisInfo::join(a, AxisInfo()), a);
  EXPECT_EQ(AxisInfo::join(AxisInfo(), a), a);
  EXPECT_FALSE(AxisInfo().isInitialized());
}

TEST(AxisInfo, JoinKeepsOnlyAgreeingConstants) {
  auto seven = AxisInfo::getSplat({8}, 7);
  EXPECT_EQ(AxisInfo::join(seven, seven).getConstantValue(), 7);
  EXPECT_FALSE(
      AxisInfo::join(seven, AxisInfo::getSplat({8}, 9)).getConstantValue());
}

TEST(AxisInfo, SplatOfAConstant) {
  auto info = AxisInfo::getSplat({4, 32}, 24);
  EXPECT_EQ(info.getRank(), 2u);
  EXPECT_EQ(info.getConstancy(0), 4);
  EXPECT_EQ(info.getConstancy(1), 32);
  EXPECT_EQ(info.getDivisibility(1), 8);
  EXPECT_EQ(info.getContiguity(1), 1);
}

TEST(AxisInfo, PrintIsReadable) {
  std::string text;
  llvm::raw_string_ostream os(text);
  AxisInfo({8, 1}, {16, 4}, {1, 2}, std::nullopt).print(os);
  EXPECT_EQ(text,
            "contiguity = [8, 1], divisibility = [16, 4], constancy = [1, 2]");
}

TEST(AxisInfo, AlignedContiguityBoundsVectors) {
  // 1024 contiguous fp32 pointers, 16-byte aligned: 4-element vectors.
  AxisInfo aligned({1024}, {16}, {1});
  EXPECT_EQ(getAlignedContiguity(aligned, 0, 4), 4);
  EXPECT_EQ(getAlignedContiguity(aligned, 0, 2), 8);
  // Only 4-byte alignment: scalar fp32 accesses.
  EXPECT_EQ(getAlignedContiguity(AxisInfo({1024}, {4}, {1}), 0, 4), 1);
  // Short runs bound the vector whatever the alignment.
  EXPECT_EQ(getAlignedContiguity(AxisInfo({2, 64}, {64, 64}, {1, 1}), 0, 2), 2);
  EXPECT_EQ(getAlignedContiguity(AxisInfo({2, 64}, {64, 64}, {1, 1}), 1, 2),
            32);
}

/// The analysis API answers for values of a parsed kernel, including a value
/// carried around a loop.
TEST(AxisInfoAnalysis, LooksUpValues) {
  MLIRContext context;
  context.loadDialect<TileDialect, arith::ArithDialect, func::FuncDialect,
                      scf::SCFDialect>();
  const char *source = R"mlir(
    func.func @k(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %r = tile.make_range 0, 64 : tensor<64xi32>
      %s = tile.splat %p : tensor<64x!tile.ptr<f16>>
      %q = tile.addptr %s, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
      %step = arith.constant dense<64> : tensor<64xi32>
      %out = scf.for %i = %c0 to %c8 step %c1 iter_args(%x = %q) -> (tensor<64x!tile.ptr<f16>>) {
        %n = tile.addptr %x, %step : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
        scf.yield %n : tensor<64x!tile.ptr<f16>>
      }
      return
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  AxisInfoAnalysis analysis(*module);
  auto func = *module->getOps<func::FuncOp>().begin();
  scf::ForOp loop = *func.getOps<scf::ForOp>().begin();
  const AxisInfo *carried = analysis.lookup(loop.getResult(0));
  ASSERT_NE(carried, nullptr);
  EXPECT_EQ(carried->getContiguity(0), 64);
  EXPECT_EQ(carried->getDivisibility(0), 16);
  const AxisInfo *iv = analysis.lookup(loop.getInductionVar());
  ASSERT_NE(iv, nullptr);
  EXPECT_EQ(iv->getDivisibility(0), 1);
}

} // namespace
