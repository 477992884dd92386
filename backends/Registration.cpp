//===- Registration.cpp - the backends built into this binary -------------===//

#include "backends/Backend.h"

#ifdef TESSERA_HAS_NVIDIA
#include "backends/nvidia/NvidiaBackend.h"
#endif

void mlir::tile::registerBuiltinBackends() {
#ifdef TESSERA_HAS_NVIDIA
  registerNvidiaBackend();
#endif
}
