//===- PtxAssembler.h - PTX to cubin --------------------------------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_PTXASSEMBLER_H
#define TESSERA_BACKENDS_NVIDIA_PTXASSEMBLER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tile {

/// The cubin of `ptx` for `arch` ("sm_90a"), from ptxas (TESSERA_PTXAS,
/// PATH, /usr/local/cuda/bin) where it is found, else from libnvJitLink
/// in-process (TESSERA_NVJITLINK, the loader's path, the CUDA toolkit).
/// TESSERA_ASSEMBLER=ptxas or =nvjitlink insists on one. Errors carry the
/// assembler's log.
llvm::Expected<std::string> assemblePtx(llvm::StringRef ptx,
                                        llvm::StringRef arch);

/// Where libnvJitLink will assemble, starts opening it on another thread
/// (it takes tens of milliseconds), so that it is ready when the first
/// kernel's PTX is.
void prepareAssembler();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_NVIDIA_PTXASSEMBLER_H
