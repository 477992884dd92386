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
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

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

namespace {
/// Runs on `module` the passes `build` gives, with `machine`'s analyses.
llvm::Error
runPasses(llvm::Module &module, llvm::TargetMachine &machine,
          llvm::function_ref<
              llvm::Expected<llvm::ModulePassManager>(llvm::PassBuilder &)>
              build) {
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
  llvm::Expected<llvm::ModulePassManager> passes = build(builder);
  if (!passes)
    return passes.takeError();
  passes->run(module, mam);
  return llvm::Error::success();
}
} // namespace

llvm::Error mlir::tile::runPassPipeline(llvm::Module &module,
                                        llvm::TargetMachine &machine,
                                        llvm::StringRef pipeline) {
  return runPasses(module, machine,
                   [&](llvm::PassBuilder &builder)
                       -> llvm::Expected<llvm::ModulePassManager> {
                     llvm::ModulePassManager passes;
                     if (llvm::Error error =
                             builder.parsePassPipeline(passes, pipeline))
                       return std::move(error);
                     return std::move(passes);
                   });
}

llvm::Expected<std::string> mlir::tile::emitTargetAssembly(
    llvm::Module &module, llvm::TargetMachine &machine,
    llvm::function_ref<void(llvm::Module &)> beforeCodegen) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  // The O3 pipeline as built: parsed from "default<O3>", it ran the SLP
  // vectoriser too, and the CPU backend's long blocks took 5 times as long.
  if (llvm::Error error =
          runPasses(module, machine,
                    [](llvm::PassBuilder &builder)
                        -> llvm::Expected<llvm::ModulePassManager> {
                      return builder.buildPerModuleDefaultPipeline(
                          llvm::OptimizationLevel::O3);
                    }))
    return std::move(error);
  if (beforeCodegen)
    beforeCodegen(module);
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

namespace {
llvm::Error assemblerError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
} // namespace

llvm::Expected<std::string>
mlir::tile::assembleObject(llvm::StringRef assembly, llvm::StringRef tripleName,
                           llvm::StringRef cpu, llvm::StringRef features) {
  llvm::Triple triple(tripleName);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return assemblerError("the assembler of " + tripleName +
                          " is missing: " + error);
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> registers(
      target->createMCRegInfo(triple));
  std::unique_ptr<llvm::MCAsmInfo> asmInfo(
      target->createMCAsmInfo(*registers, triple, options));
  std::unique_ptr<llvm::MCInstrInfo> instructions(target->createMCInstrInfo());
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpu, features));
  if (!registers || !asmInfo || !instructions || !subtarget)
    return assemblerError("cannot set up the assembler of " + tripleName +
                          " for " + cpu);

  llvm::SourceMgr sources;
  std::string diagnostics;
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic &diagnostic, void *context) {
        llvm::raw_string_ostream os(*static_cast<std::string *>(context));
        diagnostic.print("assembly", os, /*ShowColors=*/false);
      },
      &diagnostics);
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(assembly, "kernel.s"), llvm::SMLoc());
  llvm::MCContext context(triple, asmInfo.get(), registers.get(),
                          subtarget.get(), &sources, &options);
  std::unique_ptr<llvm::MCObjectFileInfo> files(
      target->createMCObjectFileInfo(context, /*PIC=*/true));
  context.setObjectFileInfo(files.get());

  llvm::SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  std::unique_ptr<llvm::MCAsmBackend> backend(
      target->createMCAsmBackend(*subtarget, *registers, options));
  std::unique_ptr<llvm::MCCodeEmitter> emitter(
      target->createMCCodeEmitter(*instructions, context));
  if (!backend || !emitter)
    return assemblerError("cannot set up the object writer of " + tripleName);
  std::unique_ptr<llvm::MCObjectWriter> writer =
      backend->createObjectWriter(os);
  std::unique_ptr<llvm::MCStreamer> streamer(target->createMCObjectStreamer(
      triple, context, std::move(backend), std::move(writer),
      std::move(emitter), *subtarget));
  std::unique_ptr<llvm::MCAsmParser> parser(
      llvm::createMCAsmParser(sources, context, *streamer, *asmInfo));
  std::unique_ptr<llvm::MCTargetAsmParser> targetParser(
      target->createMCAsmParser(*subtarget, *parser, *instructions, options));
  if (!targetParser)
    return assemblerError("the assembly parser of " + tripleName +
                          " is missing");
  parser->setTargetParser(*targetParser);
  if (parser->Run(/*NoInitialTextSection=*/false))
    return assemblerError("the " + tripleName +
                          " assembly does not assemble:\n" + diagnostics);
  // Run finished the streamer: the object is written.
  return std::string(object.str());
}
