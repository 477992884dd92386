//===- PtxAssembler.h - PTX to cubin --------------------------------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_PTXASSEMBLER_H
#define TESSERA_BACKENDS_NVIDIA_PTXASSEMBLER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tile {

/// The cubin of `ptx` for `arch` ("sm_90a"). With TESSERA_PTXAS set, that
/// ptxas runs; otherwise libnvJitLink assembles in-process where it can be
/// opened (TESSERA_NVJITLINK, the loader's path, the CUDA toolkit), else
/// ptxas from PATH or /usr/local/cuda/bin runs. Errors carry the
/// assembler's log.
llvm::Expected<std::string> assemblePtx(llvm::StringRef ptx,
                                        llvm::StringRef arch);

/// Starts opening libnvJitLink on another thread (it takes tens of
/// milliseconds), so that it is ready when the first kernel's PTX is.
void prepareAssembler();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_NVIDIA_PTXASSEMBLER_H
