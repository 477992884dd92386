//===- GpuTestUtil.h - running a vector-add kernel in GPU unit tests ------===//

#ifndef TESSERA_TEST_UNIT_GPUTESTUTIL_H
#define TESSERA_TEST_UNIT_GPUTESTUTIL_H

#include "runtime/Driver.h"

#include "gtest/gtest.h"

#include <numeric>
#include <vector>

namespace mlir::tile::test {

/// Runs `kernel(x, y, z, n)`, a float vector add, over `n` elements with
/// `blockSize` threads per block, and checks z == x + y.
inline void expectVectorAddRuns(runtime::Driver &driver,
                                runtime::Kernel &kernel, unsigned blockSize,
                                int n) {
  std::vector<float> x(n), y(n), z(n);
  std::iota(x.begin(), x.end(), 0.0f);
  std::iota(y.begin(), y.end(), 1.0f);
  uint64_t dx = driver.allocate(n * 4), dy = driver.allocate(n * 4),
           dz = driver.allocate(n * 4);
  driver.copyToDevice(dx, x.data(), n * 4);
  driver.copyToDevice(dy, y.data(), n * 4);
  void *args[] = {&dx, &dy, &dz, &n};
  kernel.launch({(unsigned(n) + blockSize - 1) / blockSize, 1, 1}, blockSize, 0,
                args, nullptr, /*cooperative=*/false);
  driver.synchronize();
  driver.copyToHost(z.data(), dz, n * 4);
  for (uint64_t p : {dx, dy, dz})
    driver.release(p);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << i;
}

} // namespace mlir::tile::test

#endif // TESSERA_TEST_UNIT_GPUTESTUTIL_H
