//===- Float8SimulationTest.cpp - fp8 conversions, run on the host --------===//
//
// LLVM has no fp8 types: conversions between f32 and the fp8 formats are
// integer code (backends/common/LowerFloat8.cpp). A kernel that rounds f32
// values to an fp8 format and one that decodes every code back are compiled
// for an NVIDIA and an AMD target and run lane by lane on the host
// (LaneSimulator); codes and values must be APFloat's, bit for bit: round to
// nearest even, saturating at the largest finite value (infinities too),
// NaN to NaN, and in the FNUZ formats (no negative zero, NaN the code 0x80)
// zero without a sign.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::lowerKernel;
using tessera::test::replaceAll;
using tessera::test::Workgroup;

namespace {

struct Format {
  const char *name; // the tile IR type
  const llvm::fltSemantics &(*semantics)();
};

const Format kFormats[] = {
    {"f8E4M3FN", llvm::APFloat::Float8E4M3FN},
    {"f8E5M2", llvm::APFloat::Float8E5M2},
    {"f8E4M3FNUZ", llvm::APFloat::Float8E4M3FNUZ},
    {"f8E5M2FNUZ", llvm::APFloat::Float8E5M2FNUZ},
};

struct Case {
  const char *target;
  Format format;
};

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return replaceAll(
      std::string(info.param.target) + "_" + info.param.format.name, ":", "_");
}

/// 2048 values per program: each lane converts its elements of x into
/// codes (round) or codes into y (decode).
constexpr unsigned kCount = 2048;

const char *kKernel = R"(
func.func @kernel(%x: !tile.ptr<f32>, %codes: !tile.ptr<i8>, %y: !tile.ptr<f32>) {
  %r = tile.make_range 0, 2048 : tensor<2048xi32>
  %px = tile.splat %x : tensor<2048x!tile.ptr<f32>>
  %ax = tile.addptr %px, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  %pc = tile.splat %codes : tensor<2048x!tile.ptr<i8>>
  %ac = tile.addptr %pc, %r : tensor<2048x!tile.ptr<i8>>, tensor<2048xi32>
  %py = tile.splat %y : tensor<2048x!tile.ptr<f32>>
  %ay = tile.addptr %py, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  CONVERT
  return
}
)";

const char *kRound = R"(
  %v = tile.load %ax : tensor<2048x!tile.ptr<f32>>
  %t = arith.truncf %v : tensor<2048xf32> to tensor<2048xFMT>
  %b = arith.bitcast %t : tensor<2048xFMT> to tensor<2048xi8>
  tile.store %ac, %b : tensor<2048x!tile.ptr<i8>>
)";

const char *kDecode = R"(
  %c = tile.load %ac : tensor<2048x!tile.ptr<i8>>
  %t = arith.bitcast %c : tensor<2048xi8> to tensor<2048xFMT>
  %w = arith.extf %t : tensor<2048xFMT> to tensor<2048xf32>
  tile.store %ay, %w : tensor<2048x!tile.ptr<f32>>
)";

/// Runs `body` (kRound or kDecode) of `c`'s format on `c`'s target.
void run(const Case &c, const char *body, std::vector<float> &x,
         std::vector<uint8_t> &codes, std::vector<float> &y) {
  std::string source =
      replaceAll(replaceAll(kKernel, "CONVERT", body), "FMT", c.format.name);
  LoweredKernel compiled;
  lowerKernel(c.target, source, 4, compiled);
  Workgroup group;
  group.warpSize = compiled.warpSize;
  group.numThreads = 4 * compiled.warpSize;
  LaneSimulator simulator(*compiled.kernel, group);
  simulator.addBuffer(x.data(), x.size() * sizeof(float));
  simulator.addBuffer(codes.data(), codes.size());
  simulator.addBuffer(y.data(), y.size() * sizeof(float));
  llvm::Error error = simulator.run({reinterpret_cast<uint64_t>(x.data()),
                                     reinterpret_cast<uint64_t>(codes.data()),
                                     reinterpret_cast<uint64_t>(y.data())});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
}

/// APFloat's value of `code`, as f32.
float valueOf(const Format &format, uint8_t code) {
  llvm::APFloat value(format.semantics(), llvm::APInt(8, code));
  bool lost;
  value.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToFloat();
}

/// `x` rounded to `format` as the GPUs convert: to nearest even, values
/// beyond the largest finite one (infinities too) saturating to it.
llvm::APFloat rounded(const Format &format, float x) {
  llvm::APFloat value(x);
  bool lost;
  value.convert(format.semantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  if (!std::isnan(x) && !value.isFinite())
    value = llvm::APFloat::getLargest(format.semantics(), x < 0);
  return value;
}

class Float8Simulation : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() { mlir::tile::registerBuiltinBackends(); }
};

TEST_P(Float8Simulation, EveryCodeDecodes) {
  const Case &c = GetParam();
  std::vector<float> x(kCount), y(kCount, -1);
  std::vector<uint8_t> codes(kCount);
  for (unsigned i = 0; i < kCount; ++i)
    codes[i] = uint8_t(i);
  run(c, kDecode, x, codes, y);
  for (unsigned i = 0; i < kCount; ++i) {
    float expected = valueOf(c.format, codes[i]);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(y[i])) << "code " << unsigned(codes[i]);
    else
      EXPECT_EQ(llvm::bit_cast<uint32_t>(y[i]),
                llvm::bit_cast<uint32_t>(expected))
          << "code " << unsigned(codes[i]) << ": " << y[i] << " for "
          << expected;
  }
}

TEST_P(Float8Simulation, FloatsRoundToNearestEvenAndSaturate) {
  const Case &c = GetParam();
  // Every finite value, the midpoints between neighbours and the floats
  // beside them, then beyond the largest, infinities, NaN and tiny values;
  // both signs.
  std::vector<float> finite;
  for (unsigned code = 0; code < 0x80; ++code)
    if (float v = valueOf(c.format, code); std::isfinite(v))
      finite.push_back(v);
  std::vector<float> x;
  for (size_t i = 0; i + 1 < finite.size(); ++i) {
    float mid = (finite[i] + finite[i + 1]) / 2;
    x.insert(x.end(), {finite[i], mid, std::nextafter(mid, -1.0f),
                       std::nextafter(mid, 2 * mid + 1)});
  }
  float largest = finite.back(), inf = std::numeric_limits<float>::infinity();
  x.insert(x.end(), {largest * 1.03f, largest * 1.2f, 1e30f, inf,
                     std::numeric_limits<float>::quiet_NaN(), 1e-30f, 0.0f});
  size_t positives = x.size();
  for (size_t i = 0; i < positives; ++i)
    x.push_back(-x[i]);
  ASSERT_LE(x.size(), kCount);
  x.resize(kCount, 0.0f);
  std::vector<uint8_t> codes(kCount, 0x5a);
  std::vector<float> y(kCount);
  run(c, kRound, x, codes, y);
  for (unsigned i = 0; i < kCount; ++i) {
    llvm::APFloat expected = rounded(c.format, x[i]);
    if (expected.isNaN())
      EXPECT_TRUE(std::isnan(valueOf(c.format, codes[i])))
          << x[i] << " became code " << unsigned(codes[i]);
    else
      EXPECT_EQ(unsigned(codes[i]),
                unsigned(expected.bitcastToAPInt().getZExtValue()))
          << x[i] << " became code " << unsigned(codes[i]);
  }
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const char *target : {"cuda:80", "hip:gfx942"})
    for (const Format &format : kFormats)
      all.push_back({target, format});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Formats, Float8Simulation,
                         ::testing::ValuesIn(cases()), caseName);

} // namespace
