//===- Kfd.h - the GPU agents of the KFD topology -------------------------===//

#ifndef TESSERA_RUNTIME_HIP_KFD_H
#define TESSERA_RUNTIME_HIP_KFD_H

#include <vector>

namespace mlir::tile::runtime {

/// A GPU agent of /sys/class/kfd/kfd/topology: its node number and its
/// `gfx_target_version` (major * 10000 + minor * 100 + stepping).
struct KfdAgent {
  int node;
  unsigned version;
};

/// The GPU agents, in HIP's device order; empty where the topology cannot
/// be read.
std::vector<KfdAgent> kfdGpuAgents();

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_HIP_KFD_H
