//===- TracerTest.cpp - CUPTI and roctracer, through stand-ins ------------===//
//
// There is no GPU here: the tracers are tested against missing libraries
// and against libtessera_fake_cupti and libtessera_fake_roctracer, which
// report the launches the test plays through them in the vendors' layouts.
//
//===----------------------------------------------------------------------===//

#include "runtime/Tracer.h"
#include "runtime/Driver.h"

#include "llvm/Support/DynamicLibrary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

using namespace mlir::tile::runtime;

namespace {

template <typename Fn> Fn symbol(const char *library, const char *name) {
  auto handle = llvm::sys::DynamicLibrary::getPermanentLibrary(library);
  auto fn = reinterpret_cast<Fn>(handle.getAddressOfSymbol(name));
  EXPECT_NE(fn, nullptr) << name;
  return fn;
}

std::vector<KernelActivity> sorted(std::vector<KernelActivity> kernels) {
  std::sort(kernels.begin(), kernels.end(),
            [](const auto &a, const auto &b) { return a.start < b.start; });
  return kernels;
}

void expectKernel(const KernelActivity &k, uint64_t op, const char *name,
                  uint64_t start, uint64_t end, int device, uint64_t stream) {
  EXPECT_EQ(k.op, op);
  EXPECT_EQ(k.name, name);
  EXPECT_EQ(k.start, start);
  EXPECT_EQ(k.end, end);
  EXPECT_EQ(k.device, device);
  EXPECT_EQ(k.stream, stream);
}

// Before the tracers below open their stand-ins: a tracer that opens none of
// its libraries says why, and can be opened later.
TEST(Tracer, SaysWhyItCannotBeOpened) {
  try {
    Tracer::cupti({"/nonexistent/libcupti.so.12"});
    FAIL() << "opened a missing CUPTI";
  } catch (const DriverError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("CUPTI cannot be opened"), std::string::npos) << what;
    EXPECT_NE(what.find("/nonexistent/libcupti.so.12"), std::string::npos);
    EXPECT_NE(what.find("TESSERA_CUPTI_LIBRARY"), std::string::npos);
  }
  EXPECT_THROW(Tracer::roctracer({}), DriverError);
}

TEST(Tracer, CuptiReportsEachKernelWithItsLaunchersOp) {
  Tracer &cupti =
      Tracer::cupti({"/nonexistent/libcupti.so.13", TESSERA_FAKE_CUPTI});
  EXPECT_EQ(cupti.name(), "cupti");
  EXPECT_EQ(cupti.library(), TESSERA_FAKE_CUPTI);
  using Launch = void (*)(const char *, uint64_t, uint64_t, uint32_t, uint32_t);
  auto launch = symbol<Launch>(TESSERA_FAKE_CUPTI, "fakeCuptiLaunch");
  auto setTime =
      symbol<void (*)(uint64_t)>(TESSERA_FAKE_CUPTI, "fakeCuptiSetTime");
  ASSERT_TRUE(launch && setTime);

  launch("before", 1, 2, 0, 0); // not traced yet
  cupti.start();
  Tracer::setOp(7);
  launch("_Z6matmulPKfPfi", 100, 250, 0, 3);
  launch("empty", 260, 260, 0, 3); // no time: dropped
  Tracer::setOp(0);
  launch("gemm_kernel", 300, 420, 1, 0);
  std::vector<KernelActivity> kernels = sorted(cupti.flush());
  ASSERT_EQ(kernels.size(), 2u);
  expectKernel(kernels[0], 7, "matmul(float const*, float*, int)", 100, 250, 0,
               3);
  expectKernel(kernels[1], 0, "gemm_kernel", 300, 420, 1, 0);
  EXPECT_TRUE(cupti.flush().empty()); // each kernel once

  // Ops belong to threads.
  Tracer::setOp(9);
  std::thread other([&] { launch("elsewhere", 500, 600, 0, 0); });
  other.join();
  launch("here", 700, 800, 0, 0);
  kernels = sorted(cupti.flush());
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].op, 0u);
  EXPECT_EQ(kernels[1].op, 9u);

  setTime(123456);
  EXPECT_EQ(cupti.timestamp(), 123456u);
  cupti.stop();
  launch("after", 900, 1000, 0, 0);
  EXPECT_TRUE(cupti.flush().empty());
  // Started again, it reports again.
  cupti.start();
  launch("again", 1100, 1200, 0, 0);
  EXPECT_EQ(cupti.flush().size(), 1u);
  cupti.stop();
  Tracer::setOp(0);
}

TEST(Tracer, RoctracerReportsEachDispatchWithItsLaunchersOp) {
  Tracer &roctracer = Tracer::roctracer({TESSERA_FAKE_ROCTRACER});
  EXPECT_EQ(roctracer.name(), "roctracer");
  using Launch =
      void (*)(const char *, const char *, uint64_t, uint64_t, int, uint64_t);
  auto launch = symbol<Launch>(TESSERA_FAKE_ROCTRACER, "fakeRoctracerLaunch");
  ASSERT_TRUE(launch);

  roctracer.start();
  Tracer::setOp(11);
  launch("hipModuleLaunchKernel", "_Z3addPfS_", 10, 30, 5, 77);
  launch("hipMemcpy", "not a launch", 40, 50, 5, 77); // no op kept
  Tracer::setOp(12);
  launch("hipLaunchKernel", "softmax", 60, 90, 5, 78);
  std::vector<KernelActivity> kernels = sorted(roctracer.flush());
  ASSERT_EQ(kernels.size(), 3u);
  // Without a KFD topology here, the agent's node stands for the device.
  int device = kernels[0].device;
  expectKernel(kernels[0], 11, "add(float*, float*)", 10, 30, device, 77);
  expectKernel(kernels[1], 0, "not a launch", 40, 50, device, 77);
  expectKernel(kernels[2], 12, "softmax", 60, 90, device, 78);
  EXPECT_EQ(roctracer.timestamp(), 5000u);
  roctracer.stop();
  launch("hipLaunchKernel", "after", 100, 110, 5, 78);
  EXPECT_TRUE(roctracer.flush().empty());
  // The pool stays open: starting again works.
  roctracer.start();
  launch("hipLaunchKernel", "again", 120, 130, 5, 78);
  EXPECT_EQ(roctracer.flush().size(), 1u);
  roctracer.stop();
  Tracer::setOp(0);
}

} // namespace
