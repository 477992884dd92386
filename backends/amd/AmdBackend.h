//===- AmdBackend.h - the AMD backend's registration ----------------------===//

#ifndef TESSERA_BACKENDS_AMD_AMDBACKEND_H
#define TESSERA_BACKENDS_AMD_AMDBACKEND_H

#include "backends/Backend.h"

namespace mlir::tile {

/// Registers the AMD backend ("amd": CDNA gfx90a, gfx942, gfx950 with
/// 64-lane wavefronts, RDNA gfx1100, gfx1200 with 32; AMDGCN, HSACO).
void registerAmdBackend();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_AMD_AMDBACKEND_H
