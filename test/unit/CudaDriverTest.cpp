//===- CudaDriverTest.cpp - the CUDA driver, where a GPU exists -----------===//
//
// Without a GPU (CI) these tests check that the driver says why it cannot
// be used; on a GPU machine they load and run a PTX kernel.
//
//===----------------------------------------------------------------------===//

#include "runtime/Driver.h"
#include "test/unit/GpuTestUtil.h"

#include "gtest/gtest.h"

using namespace mlir::tile::runtime;

namespace {

/// z[i] = x[i] + y[i] for i < n, one thread per element.
constexpr const char *kVectorAddPtx = R"ptx(
.version 8.0
.target sm_80
.address_size 64

.visible .entry add(.param .u64 x, .param .u64 y, .param .u64 z, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .b64 %rd<11>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u64 %rd3, [z];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.s32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}
)ptx";

/// The driver, or a skip saying why there is none.
Driver *cudaOrSkip(std::string &why) {
  try {
    return &Driver::cuda();
  } catch (const DriverError &e) {
    why = e.what();
    return nullptr;
  }
}

TEST(CudaDriver, SaysWhyItCannotBeUsed) {
  std::string why;
  if (cudaOrSkip(why))
    GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_NE(why.find("cannot be opened"), std::string::npos) << why;
  // Every call keeps saying so.
  EXPECT_THROW(Driver::cuda(), DriverError);
}

TEST(CudaDriver, RunsAPtxKernel) {
  std::string why;
  Driver *driver = cudaOrSkip(why);
  if (!driver)
    GTEST_SKIP() << why;
  ASSERT_GE(driver->deviceCount(), 1);
  DeviceInfo info = driver->deviceInfo(0);
  EXPECT_EQ(info.arch.rfind("sm_", 0), 0u) << info.arch;
  EXPECT_EQ(info.warpSize, 32);
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_GT(info.maxSharedPerBlock, 48 * 1024);

  std::unique_ptr<Module> module = driver->loadModule(kVectorAddPtx);
  mlir::tile::test::expectVectorAddRuns(*driver, *module->kernel("add"), 256,
                                        100000);
}

TEST(CudaDriver, ErrorsCarryTheDriversWords) {
  std::string why;
  Driver *driver = cudaOrSkip(why);
  if (!driver)
    GTEST_SKIP() << why;
  try {
    driver->loadModule(".version 8.0\n.target sm_80\nthis is not ptx\n");
    FAIL() << "bad PTX loaded";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleLoadDataEx failed"),
              std::string::npos)
        << e.what();
  }
  std::unique_ptr<Module> module = driver->loadModule(kVectorAddPtx);
  try {
    module->kernel("no_such_kernel");
    FAIL() << "found a kernel that does not exist";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleGetFunction(no_such_kernel)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(driver->deviceInfo(driver->deviceCount()), DriverError);
}

} // namespace
