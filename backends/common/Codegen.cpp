//===- Codegen.cpp - LLVM modules to assembly, for any target -------------===//

#include "backends/common/Codegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace {
/// Keeps the code generators' straight-line strength reduction from running.
/// Its queries to scalar evolution walk the block after each instruction, so
/// its time grows with the square of a block's length, and lowered tiles are
/// long blocks: it took 12 of the 44 ms of a 128x256 matmul's code
/// generation, and 1.1 s of 1.1 s for an elementwise kernel of 128 values a
/// thread. What it rewrites (repeated multiplications in addresses) is left
/// to GVN here and to the assembler after it.
class SkipQuadraticPasses : public llvm::OptPassGate {
public:
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef) const override {
    return pass != "slsr";
  }
  bool isEnabled() const override { return true; }
};
} // namespace

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
  static SkipQuadraticPasses gate;
  module.getContext().setOptPassGate(gate);
  passes.run(module);
  return std::string(stream.str());
}

llvm::Expected<std::unique_ptr<llvm::Module>> mlir::tile::translateForTarget(
    ModuleOp module, llvm::LLVMContext &context, llvm::TargetMachine &machine,
    llvm::function_ref<void(DialectRegistry &)> registerTranslations) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerTranslations(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "tessera");
  if (!llvmModule)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "translation to LLVM IR failed");
  llvmModule->setTargetTriple(machine.getTargetTriple());
  llvmModule->setDataLayout(machine.createDataLayout());
  return std::move(llvmModule);
}
