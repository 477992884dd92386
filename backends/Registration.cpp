//===- Registration.cpp - the backends built into this binary -------------===//

#include "backends/Backend.h"

#include <mutex>

#ifdef TESSERA_HAS_NVIDIA
#include "backends/nvidia/NvidiaBackend.h"
#endif
#ifdef TESSERA_HAS_AMD
#include "backends/amd/AmdBackend.h"
#endif

void mlir::tile::registerBuiltinBackends() {
  static std::once_flag registered;
  std::call_once(registered, [] {
#ifdef TESSERA_HAS_NVIDIA
    registerNvidiaBackend();
#endif
#ifdef TESSERA_HAS_AMD
    registerAmdBackend();
#endif
  });
}
