//===- Codegen.h - LLVM modules to assembly, for any target ---------------===//

#ifndef TESSERA_BACKENDS_COMMON_CODEGEN_H
#define TESSERA_BACKENDS_COMMON_CODEGEN_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace mlir::tile {

/// `module` (LLVM dialect) as an LLVM module in `context`, for `machine`'s
/// triple and data layout; `registerTranslations` adds the vendor dialect's
/// translation (NVVM, ROCDL) to the builtin and LLVM ones.
llvm::Expected<std::unique_ptr<llvm::Module>> translateForTarget(
    ModuleOp module, llvm::LLVMContext &context, llvm::TargetMachine &machine,
    llvm::function_ref<void(DialectRegistry &)> registerTranslations);

/// Runs the LLVM passes `pipeline` (in opt's syntax: "function(dce)") on
/// `module`, for `machine`.
llvm::Error runPassPipeline(llvm::Module &module, llvm::TargetMachine &machine,
                            llvm::StringRef pipeline);

/// Optimises `module` at O3 for `machine` (whose triple and data layout it
/// takes) and prints its assembly; the code generator runs without
/// straight-line strength reduction, quadratic in a block's length.
/// `beforeCodegen`, where given, runs on the optimised module.
llvm::Expected<std::string>
emitTargetAssembly(llvm::Module &module, llvm::TargetMachine &machine,
                   llvm::function_ref<void(llvm::Module &)> beforeCodegen = {});

/// The relocatable object (ELF) of `assembly`, in the assembly syntax of
/// `triple` for `cpu` and `features`, as `llvm-mc -filetype=obj` makes it;
/// an error with the assembler's diagnostics where it does not assemble.
llvm::Expected<std::string> assembleObject(llvm::StringRef assembly,
                                           llvm::StringRef triple,
                                           llvm::StringRef cpu,
                                           llvm::StringRef features);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_CODEGEN_H
