//===- Kfd.cpp - the GPU agents of the KFD topology -----------------------===//

#include "runtime/hip/Kfd.h"

#include "llvm/Support/MemoryBuffer.h"

#include <string>

using namespace mlir::tile::runtime;

std::vector<KfdAgent> mlir::tile::runtime::kfdGpuAgents() {
  std::vector<KfdAgent> agents;
  for (int node = 0; node < 256; ++node) {
    auto properties =
        llvm::MemoryBuffer::getFile("/sys/class/kfd/kfd/topology/nodes/" +
                                        std::to_string(node) + "/properties",
                                    /*IsText=*/true);
    if (!properties)
      break;
    llvm::StringRef text = (*properties)->getBuffer();
    size_t at = text.find("gfx_target_version ");
    unsigned version = 0;
    if (at == llvm::StringRef::npos ||
        text.substr(at + 19)
            .take_until([](char c) { return c == '\n'; })
            .getAsInteger(10, version) ||
        version == 0)
      continue; // a CPU agent
    agents.push_back({node, version});
  }
  return agents;
}
