//===- NvidiaBackend.h - the NVIDIA backend's registration ----------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_NVIDIABACKEND_H
#define TESSERA_BACKENDS_NVIDIA_NVIDIABACKEND_H

#include "backends/Backend.h"

namespace mlir::tile {

/// Registers the NVIDIA backend ("nvidia": sm_80 to sm_90a, PTX, cubin).
void registerNvidiaBackend();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_NVIDIA_NVIDIABACKEND_H
