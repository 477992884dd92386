//===- Codegen.cpp - LLVM modules to assembly, for any target -------------===//

#include "backends/common/Codegen.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

llvm::Expected<std::string>
mlir::tile::emitTargetAssembly(llvm::Module &module,
                               llvm::TargetMachine &machine) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder builder(&machine);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
        .run(module, mam);
  }
  std::string assembly;
  llvm::raw_string_ostream os(assembly);
  llvm::buffer_ostream stream(os);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr,
                                  llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the " + machine.getTargetTriple().str() +
            " code generator cannot emit assembly for this module");
  passes.run(module);
  return std::string(stream.str());
}
