//===- InterpreterTest.cpp - the host interpreter on the example kernels --===//

#include "runtime/host/Interpreter.h"

#include "ir/Tile/KernelDialects.h"
#include "ir/Tile/TileOps.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <numeric>
#include <random>

using namespace mlir;
using namespace mlir::tile;

namespace {

class InterpreterTest : public ::testing::TestWithParam<bool> {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    registerKernelDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses an example (optimised by the default pipeline when the test's
  /// parameter says so) and returns its public kernel.
  func::FuncOp load(llvm::StringRef file) {
    module = parseSourceFile<ModuleOp>(
        (llvm::Twine(TESSERA_SOURCE_DIR) + "/examples/tile/" + file).str(),
        &context);
    EXPECT_TRUE(module);
    if (GetParam()) {
      PassManager pm(&context);
      buildDefaultPipeline(pm);
      EXPECT_TRUE(succeeded(pm.run(*module)));
    }
    for (auto func : module->getOps<func::FuncOp>())
      if (func.isPublic())
        return func;
    return {};
  }

  template <typename T>
  static HostBuffer buffer(std::vector<T> &v, const char *name) {
    return {reinterpret_cast<uint64_t>(v.data()), v.size() * sizeof(T), name};
  }
  template <typename T> static HostArg pointer(std::vector<T> &v) {
    return HostArg::ofPointer(reinterpret_cast<uint64_t>(v.data()));
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_P(InterpreterTest, VectorAdd) {
  func::FuncOp kernel = load("vector_add.mlir");
  int n = 3000;
  std::vector<float> x(n), y(n), z(n, -1.0f);
  std::iota(x.begin(), x.end(), 0.5f);
  for (int i = 0; i < n; ++i)
    y[i] = 2.0f * i;
  llvm::Error err =
      interpretKernel(kernel, {(n + 1023) / 1024, 1, 1},
                      {pointer(x), pointer(y), pointer(z), HostArg::ofInt(n)},
                      {buffer(x, "x"), buffer(y, "y"), buffer(z, "z")});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << i;
}

TEST_P(InterpreterTest, OutOfBoundsAccessIsAnErrorWithTheSourceLine) {
  func::FuncOp kernel = load("vector_add.mlir");
  int n = 3000;
  std::vector<float> x(n), y(n), z(n);
  // n says 3000 elements but y holds only 2000.
  std::vector<float> shortY(2000);
  llvm::Error err = interpretKernel(
      kernel, {3, 1, 1},
      {pointer(x), pointer(shortY), pointer(z), HostArg::ofInt(n)},
      {buffer(x, "x"), buffer(shortY, "y"), buffer(z, "z")});
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("vector_add.mlir:20:"), std::string::npos) << message;
  EXPECT_NE(message.find("out-of-bounds access by tile.load (element 976"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("8000 bytes from the start of 'y', which has 8000 "
                         "bytes"),
            std::string::npos)
      << message;
}

TEST_P(InterpreterTest, Softmax) {
  func::FuncOp kernel = load("softmax.mlir");
  int rows = 5, cols = 1000, stride = 1024;
  std::vector<float> in(rows * stride), out(rows * stride, 0.0f);
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  for (float &v : in)
    v = normal(rng);
  llvm::Error err = interpretKernel(
      kernel, {rows, 1, 1},
      {pointer(out), pointer(in), HostArg::ofInt(stride), HostArg::ofInt(cols)},
      {buffer(in, "in"), buffer(out, "out")});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  for (int r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      max = std::max<double>(max, in[r * stride + c]);
    for (int c = 0; c < cols; ++c)
      sum += std::exp(in[r * stride + c] - max);
    for (int c = 0; c < cols; ++c)
      ASSERT_NEAR(out[r * stride + c], std::exp(in[r * stride + c] - max) / sum,
                  1e-6);
  }
}

uint16_t toHalf(float v) {
  llvm::APFloat f(v);
  bool lost;
  f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.bitcastToAPInt().getZExtValue();
}

float fromHalf(uint16_t v) {
  llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, v));
  return f.convertToFloat();
}

TEST_P(InterpreterTest, Matmul) {
  func::FuncOp kernel = load("matmul.mlir");
  int m = 128, n = 64, k = 96;
  std::vector<uint16_t> a(m * k), b(k * n);
  std::vector<float> c(m * n);
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> small(-4, 4);
  for (auto &v : a)
    v = toHalf(small(rng) * 0.25f);
  for (auto &v : b)
    v = toHalf(small(rng) * 0.5f);
  llvm::Error err =
      interpretKernel(kernel, {m / 64, n / 64, 1},
                      {pointer(a), pointer(b), pointer(c), HostArg::ofInt(n),
                       HostArg::ofInt(k)},
                      {buffer(a, "a"), buffer(b, "b"), buffer(c, "c")});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float expected = 0;
      for (int kk = 0; kk < k; ++kk)
        expected += fromHalf(a[i * k + kk]) * fromHalf(b[kk * n + j]);
      // Small multiples of 1/8: exact in fp32.
      ASSERT_EQ(c[i * n + j], expected) << i << ", " << j;
    }
}

INSTANTIATE_TEST_SUITE_P(AsWrittenAndOptimised, InterpreterTest,
                         ::testing::Bool());

class InterpreterOpsTest : public ::testing::Test {
protected:
  InterpreterOpsTest() {
    context.loadDialect<TileDialect, arith::ArithDialect, func::FuncDialect,
                        math::MathDialect, scf::SCFDialect>();
  }
  func::FuncOp parse(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context, "kernel.mlir");
    EXPECT_TRUE(module);
    return *module->getOps<func::FuncOp>().begin();
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(InterpreterOpsTest, AssertFailureNamesTheMessageAndLine) {
  func::FuncOp f = parse(R"mlir(
    func.func @k(%n: i32) {
      %r = tile.make_range 0, 8 : tensor<8xi32>
      %b = tile.splat %n : tensor<8xi32>
      %ok = arith.cmpi slt, %r, %b : tensor<8xi32>
      tile.assert %ok, "index out of range" : tensor<8xi1>
      return
    })mlir");
  EXPECT_FALSE(bool(interpretKernel(f, {1, 1, 1}, {HostArg::ofInt(8)}, {})));
  llvm::Error err = interpretKernel(f, {2, 1, 1}, {HostArg::ofInt(5)}, {});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "kernel.mlir:6:7: device assertion failed: index out of range "
            "(element 5, program (0, 0, 0))");
}

TEST_F(InterpreterOpsTest, PrintsScansAndIntegerSemantics) {
  func::FuncOp f = parse(R"mlir(
    func.func @k(%x: i32) {
      %r = tile.make_range 0, 4 : tensor<4xi32>
      %s = tile.scan(%r) axis = 0 : (tensor<4xi32>) -> tensor<4xi32> {
      ^bb0(%a: i32, %b: i32):
        %t = arith.addi %a, %b : i32
        tile.scan.return %t : i32
      }
      %big = arith.constant 2147483647 : i32
      %wrapped = arith.addi %big, %x : i32
      %u = arith.divui %wrapped, %x : i32
      %m = arith.constant -7 : i32
      %rem = arith.remsi %m, %x : i32
      tile.print " scan:" %s, %wrapped, %u, %rem : tensor<4xi32>, i32, i32, i32 {isSigned = array<i1: true, true, true, true>}
      return
    })mlir");
  std::string printed;
  llvm::raw_string_ostream os(printed);
  llvm::Error err = interpretKernel(f, {1, 1, 1}, {HostArg::ofInt(2)}, {}, os);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_EQ(printed,
            "pid (0, 0, 0) scan: [0, 1, 3, 6], -2147483647, 1073741824, -1\n");
}

/// IR with layouts (what a GPU backend receives) runs the same: layouts say
/// nothing about values, and a convert_layout is a copy.
TEST_F(InterpreterOpsTest, IgnoresLayouts) {
  func::FuncOp f = parse(R"mlir(
    #a = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    #b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    func.func @k() {
      %r = tile.make_range 0, 4 : tensor<4xi32, #a>
      %c = tile.convert_layout %r : tensor<4xi32, #a> -> tensor<4xi32, #b>
      tile.print "" %c : tensor<4xi32, #b>
      return
    })mlir");
  std::string printed;
  llvm::raw_string_ostream os(printed);
  llvm::Error err = interpretKernel(f, {1, 1, 1}, {}, {}, os);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_EQ(printed, "pid (0, 0, 0) [0, 1, 2, 3]\n");
}

TEST_F(InterpreterOpsTest, ArgumentCountIsChecked) {
  func::FuncOp f = parse("func.func @k(%x: i32) { return }");
  llvm::Error err = interpretKernel(f, {1, 1, 1}, {}, {});
  EXPECT_EQ(llvm::toString(std::move(err)),
            "kernel 'k' takes 1 arguments, got 0");
}

/// Stores four i32 at `p + offset`: the accesses the checks below judge.
constexpr llvm::StringLiteral kStoreAtOffset = R"mlir(
    func.func @k(%p: !tile.ptr<i32>, %offset: i64) {
      %r = tile.make_range 0, 4 : tensor<4xi32>
      %ps = tile.splat %p : tensor<4x!tile.ptr<i32>>
      %o = tile.splat %offset : tensor<4xi64>
      %at = tile.addptr %ps, %o : tensor<4x!tile.ptr<i32>>, tensor<4xi64>
      %q = tile.addptr %at, %r : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
      tile.store %q, %r : tensor<4x!tile.ptr<i32>>
      return
    })mlir";

/// An address near 2^64 does not wrap round the end of the buffer into it.
TEST_F(InterpreterOpsTest, AddressNearTheTopOfMemoryIsOutOfBounds) {
  func::FuncOp f = parse(kStoreAtOffset);
  std::vector<int32_t> x(8);
  auto address = reinterpret_cast<uint64_t>(x.data());
  // p + offset * 4 = 2^64 - 4: the element's end wraps to 0.
  int64_t offset = -int64_t(address / 4) - 1;
  llvm::Error err = interpretKernel(
      f, {1, 1, 1}, {HostArg::ofPointer(address), HostArg::ofInt(offset)},
      {{address, x.size() * 4, "x"}});
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("out-of-bounds access by tile.store (element 0 at "
                         "address 0xfffffffffffffffc"),
            std::string::npos)
      << message;
}

/// A pointer into one argument's buffer never reaches another's, even
/// where the address lies in it.
TEST_F(InterpreterOpsTest, PointerStaysInItsArgumentsBuffer) {
  func::FuncOp f = parse(kStoreAtOffset);
  std::vector<int32_t> memory(16, -1);
  // Two arguments, x and y, in one allocation: y starts 8 elements in.
  auto x = reinterpret_cast<uint64_t>(memory.data());
  uint64_t y = x + 8 * 4;
  std::vector<HostBuffer> buffers = {{x, 8 * 4, "x"}, {y, 8 * 4, "y"}};
  llvm::Error err = interpretKernel(
      f, {1, 1, 1}, {HostArg::ofPointer(x), HostArg::ofInt(8)}, buffers);
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("32 bytes from the start of 'x', which has 32 bytes"),
            std::string::npos)
      << message;
  EXPECT_EQ(memory[8], -1);
  // Within its own buffer, the same kernel writes.
  ASSERT_FALSE(bool(interpretKernel(
      f, {1, 1, 1}, {HostArg::ofPointer(y), HostArg::ofInt(0)}, buffers)));
  EXPECT_EQ(memory[8], 0);
  EXPECT_EQ(memory[11], 3);
}

TEST_F(InterpreterOpsTest, StoreToReadOnlyBufferIsAnError) {
  func::FuncOp f = parse(kStoreAtOffset);
  std::vector<int32_t> x(4, -1);
  auto address = reinterpret_cast<uint64_t>(x.data());
  HostBuffer buffer{address, x.size() * 4, "x"};
  buffer.writable = false;
  llvm::Error err = interpretKernel(
      f, {1, 1, 1}, {HostArg::ofPointer(address), HostArg::ofInt(0)}, {buffer});
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("kernel.mlir:8:7: write to the read-only buffer 'x' "
                         "by tile.store (element 0"),
            std::string::npos)
      << message;
  EXPECT_EQ(x, std::vector<int32_t>(4, -1));
}

/// Layouts of the shared-memory tests: the interpreter ignores them, but the
/// IR of the explicit level has them.
constexpr llvm::StringLiteral kSharedLayouts = R"mlir(
    #blocked = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
    #flat = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
    #shared = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
    #shared_t = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
    #dot_a = #tile.dot_operand<{opIdx = 0, parent = #blocked, kWidth = 0}>
    #dot_b = #tile.dot_operand<{opIdx = 1, parent = #blocked, kWidth = 0}>
)mlir";

/// Copies the 4x8 block at `src`, but for its last column, into buffer 1 of
/// two (filled with 9 first), then stores buffer 1, read through another
/// view of it, and buffer 0 to `dst` (64 elements).
constexpr llvm::StringLiteral kAsyncCopy = R"mlir(
    func.func @k(%src: !tile.ptr<f32>, %dst: !tile.ptr<f32>) {
      %r = tile.make_range 0, 32 : tensor<32xi32, #flat>
      %offs = tile.reshape %r : tensor<32xi32, #flat> -> tensor<4x8xi32, #blocked>
      %c8 = arith.constant dense<8> : tensor<4x8xi32, #blocked>
      %c7 = arith.constant dense<7> : tensor<4x8xi32, #blocked>
      %col = arith.remsi %offs, %c8 : tensor<4x8xi32, #blocked>
      %mask = arith.cmpi ne, %col, %c7 : tensor<4x8xi32, #blocked>
      %srcs = tile.splat %src : tensor<4x8x!tile.ptr<f32>, #blocked>
      %ptrs = tile.addptr %srcs, %offs : tensor<4x8x!tile.ptr<f32>, #blocked>, tensor<4x8xi32, #blocked>
      %buf = tile.local_alloc : () -> !tile.memdesc<2x4x8xf32, #shared, mutable>
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %slot1 = tile.memdesc_index %buf[%i1] : !tile.memdesc<2x4x8xf32, #shared, mutable> -> !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8>
      %nine = arith.constant dense<9.0> : tensor<4x8xf32, #blocked>
      tile.local_store %nine, %slot1 : tensor<4x8xf32, #blocked> -> !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8>
      tile.async_copy_global_to_local %ptrs, %slot1 mask %mask : tensor<4x8x!tile.ptr<f32>, #blocked> -> !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8>
      tile.async_commit_group
      tile.async_wait {num = 0 : i32}
      %one = arith.addi %i0, %i1 : i32
      %again = tile.memdesc_index %buf[%one] : !tile.memdesc<2x4x8xf32, #shared, mutable> -> !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8>
      %x1 = tile.local_load %again : !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8> -> tensor<4x8xf32, #blocked>
      %slot0 = tile.memdesc_index %buf[%i0] : !tile.memdesc<2x4x8xf32, #shared, mutable> -> !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8>
      %x0 = tile.local_load %slot0 : !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8> -> tensor<4x8xf32, #blocked>
      %dsts = tile.splat %dst : tensor<4x8x!tile.ptr<f32>, #blocked>
      %p1 = tile.addptr %dsts, %offs : tensor<4x8x!tile.ptr<f32>, #blocked>, tensor<4x8xi32, #blocked>
      tile.store %p1, %x1 : tensor<4x8x!tile.ptr<f32>, #blocked>
      %c32 = arith.constant dense<32> : tensor<4x8xi32, #blocked>
      %p0 = tile.addptr %p1, %c32 : tensor<4x8x!tile.ptr<f32>, #blocked>, tensor<4x8xi32, #blocked>
      tile.store %p0, %x0 : tensor<4x8x!tile.ptr<f32>, #blocked>
      tile.local_dealloc %buf : !tile.memdesc<2x4x8xf32, #shared, mutable>
      return
    })mlir";

/// An asynchronous copy copies at once; masked-off elements are zero.
TEST_F(InterpreterOpsTest, AsyncCopyIntoOneBufferOfTwo) {
  func::FuncOp f = parse((kSharedLayouts + kAsyncCopy).str());
  std::vector<float> src(32), dst(64, -1.0f);
  std::iota(src.begin(), src.end(), 1.0f);
  auto address = [](std::vector<float> &v) {
    return reinterpret_cast<uint64_t>(v.data());
  };
  llvm::Error err = interpretKernel(
      f, {1, 1, 1},
      {HostArg::ofPointer(address(src)), HostArg::ofPointer(address(dst))},
      {{address(src), 32 * 4, "src"}, {address(dst), 64 * 4, "dst"}});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(dst[i], i % 8 == 7 ? 0.0f : src[i]) << i;
  for (int i = 32; i < 64; ++i)
    EXPECT_EQ(dst[i], 0.0f) << i;
}

/// The copy reads through tile.load's checks: a source of three rows is too
/// short for the block.
TEST_F(InterpreterOpsTest, AsyncCopyOutOfBoundsIsAnError) {
  func::FuncOp f = parse((kSharedLayouts + kAsyncCopy).str());
  std::vector<float> src(24), dst(64);
  auto address = [](std::vector<float> &v) {
    return reinterpret_cast<uint64_t>(v.data());
  };
  llvm::Error err = interpretKernel(
      f, {1, 1, 1},
      {HostArg::ofPointer(address(src)), HostArg::ofPointer(address(dst))},
      {{address(src), 24 * 4, "src"}, {address(dst), 64 * 4, "dst"}});
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("kernel.mlir:24:7: out-of-bounds access by "
                         "tile.async_copy_global_to_local (element 24"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("96 bytes from the start of 'src', which has 96 "
                         "bytes"),
            std::string::npos)
      << message;
}

/// Stores x = [[0, 1, ..., 7], ..., [24, ..., 31]] and reads it back through
/// views: its transpose, x[1:3, 2:6], and the transpose's [2:6, 1:3]; then
/// x * x^T from dot operands read from shared memory.
TEST_F(InterpreterOpsTest, SharedMemoryViews) {
  func::FuncOp f = parse((kSharedLayouts + R"mlir(
    func.func @k(%out: !tile.ptr<f32>) {
      %r = tile.make_range 0, 32 : tensor<32xi32, #flat>
      %ri = tile.reshape %r : tensor<32xi32, #flat> -> tensor<4x8xi32, #blocked>
      %x = arith.sitofp %ri : tensor<4x8xi32, #blocked> to tensor<4x8xf32, #blocked>
      %buf = tile.local_alloc : () -> !tile.memdesc<4x8xf32, #shared, mutable>
      tile.local_store %x, %buf : tensor<4x8xf32, #blocked> -> !tile.memdesc<4x8xf32, #shared, mutable>
      %t = tile.memdesc_trans %buf {order = array<i32: 1, 0>} : !tile.memdesc<4x8xf32, #shared, mutable> -> !tile.memdesc<8x4xf32, #shared_t, mutable>
      %s = tile.memdesc_subslice %buf [1, 2] : !tile.memdesc<4x8xf32, #shared, mutable> -> !tile.memdesc<2x4xf32, #shared, mutable, 4x8>
      %ts = tile.memdesc_subslice %t [2, 1] : !tile.memdesc<8x4xf32, #shared_t, mutable> -> !tile.memdesc<4x2xf32, #shared_t, mutable, 8x4>
      %tv = tile.local_load %t : !tile.memdesc<8x4xf32, #shared_t, mutable> -> tensor<8x4xf32, #blocked>
      %sv = tile.local_load %s : !tile.memdesc<2x4xf32, #shared, mutable, 4x8> -> tensor<2x4xf32, #blocked>
      %tsv = tile.local_load %ts : !tile.memdesc<4x2xf32, #shared_t, mutable, 8x4> -> tensor<4x2xf32, #blocked>
      %a = tile.local_load %buf : !tile.memdesc<4x8xf32, #shared, mutable> -> tensor<4x8xf32, #dot_a>
      %b = tile.local_load %t : !tile.memdesc<8x4xf32, #shared_t, mutable> -> tensor<8x4xf32, #dot_b>
      %zero = arith.constant dense<0.0> : tensor<4x4xf32, #blocked>
      %d = tile.dot %a, %b, %zero : tensor<4x8xf32, #dot_a> * tensor<8x4xf32, #dot_b> -> tensor<4x4xf32, #blocked>
      %tf = tile.reshape %tv : tensor<8x4xf32, #blocked> -> tensor<32xf32, #flat>
      %sf = tile.reshape %sv : tensor<2x4xf32, #blocked> -> tensor<8xf32, #flat>
      %tsf = tile.reshape %tsv : tensor<4x2xf32, #blocked> -> tensor<8xf32, #flat>
      %df = tile.reshape %d : tensor<4x4xf32, #blocked> -> tensor<16xf32, #flat>
      %outs = tile.splat %out : tensor<32x!tile.ptr<f32>, #flat>
      %p = tile.addptr %outs, %r : tensor<32x!tile.ptr<f32>, #flat>, tensor<32xi32, #flat>
      tile.store %p, %tf : tensor<32x!tile.ptr<f32>, #flat>
      %r8 = tile.make_range 32, 40 : tensor<8xi32, #flat>
      %outs8 = tile.splat %out : tensor<8x!tile.ptr<f32>, #flat>
      %ps = tile.addptr %outs8, %r8 : tensor<8x!tile.ptr<f32>, #flat>, tensor<8xi32, #flat>
      tile.store %ps, %sf : tensor<8x!tile.ptr<f32>, #flat>
      %c8 = arith.constant dense<8> : tensor<8xi32, #flat>
      %pts = tile.addptr %ps, %c8 : tensor<8x!tile.ptr<f32>, #flat>, tensor<8xi32, #flat>
      tile.store %pts, %tsf : tensor<8x!tile.ptr<f32>, #flat>
      %r16 = tile.make_range 48, 64 : tensor<16xi32, #flat>
      %outs16 = tile.splat %out : tensor<16x!tile.ptr<f32>, #flat>
      %pd = tile.addptr %outs16, %r16 : tensor<16x!tile.ptr<f32>, #flat>, tensor<16xi32, #flat>
      tile.store %pd, %df : tensor<16x!tile.ptr<f32>, #flat>
      return
    })mlir")
                             .str());
  std::vector<float> out(64, -1.0f);
  auto address = reinterpret_cast<uint64_t>(out.data());
  llvm::Error err = interpretKernel(f, {1, 1, 1}, {HostArg::ofPointer(address)},
                                    {{address, 64 * 4, "out"}});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  auto x = [](int i, int j) { return float(i * 8 + j); };
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(out[i * 4 + j], x(j, i)) << "transpose " << i << ", " << j;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(out[32 + i * 4 + j], x(1 + i, 2 + j))
          << "subslice " << i << ", " << j;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(out[40 + i * 2 + j], x(1 + j, 2 + i))
          << "subslice of the transpose " << i << ", " << j;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float expected = 0;
      for (int k = 0; k < 8; ++k)
        expected += x(i, k) * x(j, k);
      EXPECT_EQ(out[48 + i * 4 + j], expected) << "dot " << i << ", " << j;
    }
}

/// A buffer index outside the allocation (undefined in the IR) is an error,
/// not an access to stray host memory.
TEST_F(InterpreterOpsTest, BufferIndexOutOfRangeIsAnError) {
  func::FuncOp f = parse((kSharedLayouts + R"mlir(
    func.func @k(%i: i32) {
      %buf = tile.local_alloc : () -> !tile.memdesc<2x4x8xf32, #shared, mutable>
      %slot = tile.memdesc_index %buf[%i] : !tile.memdesc<2x4x8xf32, #shared, mutable> -> !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8>
      %x = tile.local_load %slot : !tile.memdesc<4x8xf32, #shared, mutable, 2x4x8> -> tensor<4x8xf32, #blocked>
      return
    })mlir")
                             .str());
  EXPECT_FALSE(bool(interpretKernel(f, {1, 1, 1}, {HostArg::ofInt(1)}, {})));
  llvm::Error err = interpretKernel(f, {1, 1, 1}, {HostArg::ofInt(2)}, {});
  EXPECT_EQ(llvm::toString(std::move(err)),
            "kernel.mlir:11:15: buffer index 2 is outside [0, 2)");
}

} // namespace
