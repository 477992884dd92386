//===- Codegen.h - LLVM modules to assembly, for any target ---------------===//

#ifndef TESSERA_BACKENDS_COMMON_CODEGEN_H
#define TESSERA_BACKENDS_COMMON_CODEGEN_H

#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::tile {

/// Optimises `module` at O3 for `machine` (whose triple and data layout it
/// takes) and prints its assembly.
llvm::Expected<std::string> emitTargetAssembly(llvm::Module &module,
                                               llvm::TargetMachine &machine);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_CODEGEN_H
