//===- TileDialectTest.cpp - unit tests of the tile dialect's C++ API -----===//

#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileDialectTest : public ::testing::Test {
protected:
  TileDialectTest() : builder(&context) {
    context.loadDialect<TileDialect, arith::ArithDialect>();
  }
  MLIRContext context;
  OpBuilder builder;
};

TEST_F(TileDialectTest, PointerTypes) {
  auto f32 = builder.getF32Type();
  auto global = PointerType::get(f32);
  EXPECT_EQ(global.getPointeeType(), f32);
  EXPECT_EQ(global.getAddressSpace(), 1);
  EXPECT_EQ(PointerType::get(f32, 3).getAddressSpace(), 3);
  EXPECT_NE(global, PointerType::get(f32, 3));
}

TEST_F(TileDialectTest, PointeeAndMaskTypesFollowTheShape) {
  auto f16 = builder.getF16Type();
  auto ptr = PointerType::get(f16);
  auto ptrs = RankedTensorType::get({4, 8}, ptr);
  EXPECT_EQ(getPointeeType(ptr), f16);
  EXPECT_EQ(getPointeeType(ptrs), RankedTensorType::get({4, 8}, f16));
  EXPECT_FALSE(getPointeeType(f16));
  EXPECT_EQ(getI1SameShape(ptrs),
            RankedTensorType::get({4, 8}, builder.getI1Type()));
  EXPECT_EQ(getI1SameShape(ptr), builder.getI1Type());
}

TEST_F(TileDialectTest, EnumsRoundTripThroughStrings) {
  EXPECT_EQ(stringifyRMWKind(RMWKind::And), "and");
  EXPECT_EQ(symbolizeRMWKind("fadd"), RMWKind::fadd);
  EXPECT_FALSE(symbolizeMemScope("device").has_value());
  EXPECT_EQ(stringifyCacheModifier(CacheModifier::cg), "cg");
}

/// Ops built from C++ verify like parsed ones, with the same messages.
TEST_F(TileDialectTest, BuiltOpsVerify) {
  auto module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module.getBody());
  auto loc = builder.getUnknownLoc();
  auto range = MakeRangeOp::create(
      builder, loc, RankedTensorType::get({64}, builder.getI32Type()), 0, 64);
  EXPECT_TRUE(succeeded(verify(range)));

  auto bad = MakeRangeOp::create(
      builder, loc, RankedTensorType::get({48}, builder.getI32Type()), 0, 48);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(bad)));
  EXPECT_EQ(message,
            "'tile.make_range' op result #0 has dimension 0 of size 48, "
            "which is not a power of two");
  module->destroy();
}

} // namespace
