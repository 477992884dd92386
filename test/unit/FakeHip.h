//===- FakeHip.h - what the stand-in HIP runtime records of a launch ------===//

#ifndef TESSERA_TEST_UNIT_FAKEHIP_H
#define TESSERA_TEST_UNIT_FAKEHIP_H

#include <cstdint>

/// A launch of the stand-in's kernel `k(ptr x, ptr y, i32 n)`, as
/// fakeHipLastLaunch() returns it.
struct FakeHipLaunch {
  unsigned grid[3], block[3], shared;
  void *stream;
  uint64_t x, y;
  int32_t n;
  bool cooperative;
};

#endif // TESSERA_TEST_UNIT_FAKEHIP_H
