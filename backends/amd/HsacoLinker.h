//===- HsacoLinker.h - AMDGCN assembly to a code object -------------------===//

#ifndef TESSERA_BACKENDS_AMD_HSACOLINKER_H
#define TESSERA_BACKENDS_AMD_HSACOLINKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tile {

/// The HSACO (a shared ELF code object, what hipModuleLoadData takes) of
/// AMDGCN assembly for `arch` ("gfx942") with `features`: assembled by
/// LLVM's AMDGPU assembler, linked by lld's ELF linker, both in-process.
/// Errors carry the assembler's or the linker's messages.
llvm::Expected<std::string> linkHsaco(llvm::StringRef assembly,
                                      llvm::StringRef arch,
                                      llvm::StringRef features);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_AMD_HSACOLINKER_H
