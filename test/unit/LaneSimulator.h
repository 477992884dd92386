//===- LaneSimulator.h - runs one workgroup of a lowered kernel on the host =//
//
// Executes the LLVM IR a backend lowers a kernel to, lane by lane, so that
// what depends on the warp size (butterfly shuffles, the lane and warp
// decomposition of a thread id, shared-memory exchanges between warps) is
// checked by running it, without a GPU. Each lane interprets the IR on its
// own; a cross-lane operation (AMD ds_bpermute, NVIDIA shfl.sync, and the
// tensor-core operations mma.sync and ldmatrix) waits until every lane of its
// warp arrives, wgmma until every thread of its warpgroup (4 warps) does, a
// barrier until every lane of the workgroup does. wgmma reads its operands
// through their descriptors and swizzles when issued; its wait passes the
// results on. Pointers
// are host addresses, checked against the buffers the test registers and the
// workgroup's shared memory.
//
// cp.async copies land in shared memory only when a cp.async.wait retires
// their group, not at issue nor at a barrier, so a kernel that waits too
// little reads stale bytes (or fails, see Workgroup::catchInFlightReads).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TEST_UNIT_LANESIMULATOR_H
#define TESSERA_TEST_UNIT_LANESIMULATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace tessera::test {

struct Workgroup {
  unsigned warpSize = 32;
  unsigned numThreads = 128;
  std::array<unsigned, 3> programId = {0, 0, 0};
  std::array<unsigned, 3> numPrograms = {1, 1, 1};
  /// Reading shared bytes that a cp.async still in flight (of any thread)
  /// will write fails the run, naming the read: the wait before it is
  /// missing or too weak. Off, the read sees the bytes from before the copy.
  bool catchInFlightReads = true;
};

class LaneSimulator {
public:
  LaneSimulator(llvm::Function &kernel, Workgroup workgroup);
  ~LaneSimulator();

  /// Lets loads and stores reach `bytes` bytes at `data`.
  void addBuffer(void *data, size_t bytes);

  /// Runs every lane of the workgroup to its return. `args` are the
  /// kernel's arguments, pointers as host addresses. The error names the
  /// instruction and lane of the first failure (an operation the simulator
  /// does not know, an access outside every buffer, lanes of a warp that
  /// diverge at a shuffle, a deadlock). Copies still in flight when the
  /// kernel ends are dropped.
  llvm::Error run(llvm::ArrayRef<uint64_t> args);

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace tessera::test

#endif // TESSERA_TEST_UNIT_LANESIMULATOR_H
