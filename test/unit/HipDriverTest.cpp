//===- HipDriverTest.cpp - the HIP runtime, through a stand-in ------------===//
//
// There is no AMD GPU here: the driver is tested against a missing library
// and against libtessera_fake_hip (TESSERA_HIP_LIBRARY), which records the
// launches it is asked for.
//
//===----------------------------------------------------------------------===//

#include "FakeHip.h"
#include "runtime/Driver.h"

#include "llvm/Support/DynamicLibrary.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace mlir::tile::runtime;

namespace {

bool usingFakeHip() {
  const char *path = std::getenv("TESSERA_HIP_LIBRARY");
  return path && std::string(path).find("fake_hip") != std::string::npos;
}

TEST(HipDriver, SaysWhyItCannotBeUsed) {
  if (usingFakeHip())
    GTEST_SKIP() << "the stand-in runtime is in use";
  try {
    Driver::hip();
    GTEST_SKIP() << "a HIP runtime is present";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find("cannot be opened"), std::string::npos)
        << e.what();
  }
  // Every call keeps saying so.
  EXPECT_THROW(Driver::hip(), DriverError);
}

TEST(HipDriver, LaunchesThroughHipModuleLaunchKernel) {
  if (!usingFakeHip())
    GTEST_SKIP() << "needs TESSERA_HIP_LIBRARY=<libtessera_fake_hip.so>";
  Driver &hip = Driver::hip();
  EXPECT_EQ(hip.name(), "hip");
  ASSERT_EQ(hip.deviceCount(), 1);
  DeviceInfo info = hip.deviceInfo(0);
  EXPECT_EQ(info.name, "Fake AMD GPU");
  EXPECT_EQ(info.warpSize, 64);
  EXPECT_EQ(info.multiprocessors, 304);
  EXPECT_THROW(hip.deviceInfo(1), DriverError);

  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
      std::getenv("TESSERA_HIP_LIBRARY"));
  auto lastLaunch = reinterpret_cast<const FakeHipLaunch *(*)()>(
      library.getAddressOfSymbol("fakeHipLastLaunch"));
  auto loadedModules = reinterpret_cast<int (*)()>(
      library.getAddressOfSymbol("fakeHipLoadedModules"));
  ASSERT_TRUE(lastLaunch && loadedModules);

  // Only code objects load; the runtime's own words come back.
  try {
    hip.loadModule("not an ELF file");
    FAIL() << "a non-ELF image loaded";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find("hipModuleLoadData failed"),
              std::string::npos);
  }
  {
    auto module = hip.loadModule(std::string("\x7f"
                                             "ELF fake code object"));
    EXPECT_EQ(loadedModules(), 1);
    try {
      module->kernel("missing");
      FAIL() << "a missing kernel was found";
    } catch (const DriverError &e) {
      EXPECT_EQ(std::string(e.what()),
                "hipModuleGetFunction(missing) failed: hipErrorNotFound "
                "(named symbol not found)");
    }
    auto kernel = module->kernel("k");
    uint64_t x = 0x1000, y = 0x2000;
    int32_t n = -7;
    void *args[] = {&x, &y, &n};
    int stream;
    kernel->launch({4, 2, 1}, 256, 1024, args, &stream, false);
    const FakeHipLaunch *launch = lastLaunch();
    EXPECT_EQ(launch->grid[0], 4u);
    EXPECT_EQ(launch->grid[1], 2u);
    EXPECT_EQ(launch->grid[2], 1u);
    EXPECT_EQ(launch->block[0], 256u);
    EXPECT_EQ(launch->block[1], 1u);
    // LDS is static in the code object: nothing dynamic is asked for.
    EXPECT_EQ(launch->shared, 0u);
    EXPECT_EQ(launch->stream, &stream);
    EXPECT_EQ(launch->x, x);
    EXPECT_EQ(launch->y, y);
    EXPECT_EQ(launch->n, n);
    EXPECT_FALSE(launch->cooperative);
    // launch_cooperative_grid: the same launch, through the cooperative
    // entry point.
    kernel->launch({4, 2, 1}, 256, 0, args, &stream, true);
    EXPECT_TRUE(lastLaunch()->cooperative);
    EXPECT_EQ(lastLaunch()->grid[0], 4u);
    EXPECT_EQ(lastLaunch()->n, n);
  }
  EXPECT_EQ(loadedModules(), 0); // unloaded with the Module

  uint64_t buffer = hip.allocate(16);
  int values[4] = {1, 2, 3, 4}, back[4] = {};
  hip.copyToDevice(buffer, values, sizeof values);
  hip.copyToHost(back, buffer, sizeof back);
  EXPECT_EQ(back[3], 4);
  hip.release(buffer);
}

TEST(HipDriver, TimesWithEventsAndFills) {
  if (!usingFakeHip())
    GTEST_SKIP() << "needs TESSERA_HIP_LIBRARY=<libtessera_fake_hip.so>";
  Driver &hip = Driver::hip();
  // The stand-in's events count records: two apart, "2 ms".
  uint64_t start = hip.createEvent(), middle = hip.createEvent(),
           end = hip.createEvent();
  hip.recordEvent(start, nullptr);
  hip.recordEvent(middle, nullptr);
  hip.recordEvent(end, nullptr);
  EXPECT_EQ(hip.elapsedMilliseconds(start, end), 2.0f);
  for (uint64_t event : {start, middle, end})
    hip.destroyEvent(event);

  uint64_t buffer = hip.allocate(16);
  hip.fill(buffer, 0xdeadbeef, 3, nullptr);
  uint32_t back[4] = {};
  hip.copyToHost(back, buffer, 12);
  EXPECT_EQ(back[0], 0xdeadbeefu);
  EXPECT_EQ(back[2], 0xdeadbeefu);
  EXPECT_EQ(back[3], 0u);
  hip.release(buffer);
}

} // namespace
