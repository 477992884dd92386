//===- Registration.cpp - the backends built into this binary -------------===//

#include "backends/Backend.h"

#ifdef TESSERA_HAS_NVIDIA
#include "backends/nvidia/NvidiaBackend.h"
#endif
#ifdef TESSERA_HAS_AMD
#include "backends/amd/AmdBackend.h"
#endif

void mlir::tile::registerBuiltinBackends() {
#ifdef TESSERA_HAS_NVIDIA
  registerNvidiaBackend();
#endif
#ifdef TESSERA_HAS_AMD
  registerAmdBackend();
#endif
}
