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
// results on, and a read of them before it fails (see
// Workgroup::catchEarlyResultReads). Pointers are host addresses, checked
// against the buffers the test registers and the workgroup's shared memory.
//
// cp.async copies land in shared memory only when a cp.async.wait retires
// their group, not at issue nor at a barrier, so a kernel that waits too
// little reads stale bytes (or fails, see Workgroup::catchInFlightReads).
//
// Hopper's mbarriers and TMA copies (cp.async.bulk.tensor) run as the
// NVIDIA backend emits them in inline PTX. A TMA copy reads its box (through
// a SimTensorMap, the tensor-map argument's stand-in) at issue but lands it
// in shared memory only when a thread waits for its barrier's phase and
// every arrival is in, so a read without the wait sees stale bytes. A
// barrier's phase completes when its arrivals and transaction bytes are all
// in; a waiting thread blocks until then. TMA stores copy to global memory
// at issue; their source counts as read until cp.async.bulk.wait_group.read
// retires their group, as wgmma's operands do until wgmma.wait_group.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TEST_UNIT_LANESIMULATOR_H
#define TESSERA_TEST_UNIT_LANESIMULATOR_H

#include "runtime/Driver.h"

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
  /// The bytes of dynamic shared memory (a kernel's zero-sized shared
  /// array), as a launch asks for them.
  unsigned dynamicSharedBytes = 64 * 1024;
  /// Reading shared bytes that a cp.async or TMA copy still in flight (of
  /// any thread) will write fails the run, naming the read: the wait before
  /// it is missing or too weak. Off, the read sees the bytes from before the
  /// copy.
  bool catchInFlightReads = true;
  /// Writing shared bytes that an operation in flight still reads (a wgmma
  /// before its wgmma.wait_group, a TMA store before its wait_group.read)
  /// fails the run, naming the write.
  bool catchOverwrittenReads = true;
  /// Reading a wgmma's result registers before a wgmma.wait_group retires
  /// its group fails the run, naming the read. They may pass, in flight,
  /// through extractvalue, insertvalue and phis, into a later wgmma's
  /// accumulator (the hardware chains them) and into a wait, whose outputs
  /// are in flight until it retires the group. Off, the read sees the
  /// result (computed at issue).
  bool catchEarlyResultReads = true;
  /// AMD's fp8 matrix instructions read the FNUZ formats (gfx942's) where
  /// this is set, the OCP ones (gfx950's, gfx12's) where it is not.
  bool fnuzFp8 = false;
};

/// A tensor map as the simulator reads it from the address a kernel's
/// tensor-map argument holds (on the GPU, the CUtensorMap the driver
/// encodes). Lists go innermost dimension first. A copy of the box at
/// coordinates c moves element i (i_d < box[d]) from global index c + i,
/// or `fill` where that lies outside `shape`, to shared memory densely,
/// innermost fastest, its 16-byte chunks swizzled by address bits as
/// wgmma reads them.
struct alignas(64) SimTensorMap {
  uint64_t address = 0;
  uint32_t rank = 0;
  uint32_t elementBytes = 0;
  /// Elements per dimension.
  uint64_t shape[5] = {};
  /// Bytes between consecutive indices of dimensions 1 to rank - 1.
  uint64_t strides[4] = {};
  /// Elements a copy moves per dimension.
  uint32_t box[5] = {};
  /// The shared-memory swizzle, in bytes: 0, 32, 64 or 128.
  uint32_t swizzle = 0;
  /// The bits of an element outside the tensor: 0 or the type's NaN.
  uint32_t fill = 0;
};
static_assert(sizeof(SimTensorMap) == 128, "a tensor map takes 128 bytes");

/// The SimTensorMap of `request`, checked as cuTensorMapEncodeTiled checks
/// it (the runtime's TensorMapSpec builds requests from the descriptions
/// CompiledKernel::tensorMaps holds).
llvm::Expected<SimTensorMap>
encodeSimTensorMap(const mlir::tile::runtime::TensorMapRequest &request);

/// Replaces each f32 exp2 in `kernel` (llvm.exp2, ex2.approx.ftz; and
/// llvm.exp as exp2 of x · log2(e); the simulator runs no transcendental)
/// by 2^round(x) · 2^f, |f| <= 1/2, the second a degree-7 Taylor
/// polynomial: within a few ulp of f32; inputs below -125 (-inf too) give
/// 2^-125.
void expandExp2(llvm::Function &kernel);

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
