//===- KernelLowering.cpp - tile IR to LLVM IR for the LaneSimulator tests ===//

#include "test/unit/KernelLowering.h"

#include "backends/Backend.h"
#include "backends/Compiler.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

void tessera::test::lowerKernel(llvm::StringRef spec, const std::string &source,
                                unsigned warps, LoweredKernel &out,
                                unsigned stages, unsigned kpack) {
  auto resolved = resolveTarget(spec);
  ASSERT_TRUE(bool(resolved)) << llvm::toString(resolved.takeError());
  auto [backend, target] = *resolved;
  DialectRegistry registry;
  registerKernelDialects(registry);
  // One kernel at a time: no thread pool to start for each.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &context, "kernel.mlir");
  ASSERT_TRUE(module) << source;
  CompileOptions options;
  options.numWarps = warps;
  options.numStages = stages;
  options.kpack = kpack;
  llvm::Error assigned = backend->assignLayouts(*module, target, options);
  ASSERT_FALSE(bool(assigned)) << llvm::toString(std::move(assigned)) << "\n"
                               << source;
  out.context = std::make_unique<llvm::LLVMContext>();
  auto lowered = backend->lower(*module, *out.context, target, options);
  ASSERT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError()) << "\n"
                             << source;
  out.module = std::move(*lowered);
  out.kernel = out.module->getFunction("kernel");
  ASSERT_NE(out.kernel, nullptr);
  out.warpSize = target.warpSize;
}

void tessera::test::compileToLLVM(llvm::StringRef spec,
                                  const std::string &source, unsigned warps,
                                  LoweredKernel &out, unsigned stages) {
  CompileOptions options;
  options.numWarps = warps;
  options.numStages = stages;
  CompiledKernel compiled;
  try {
    compiled = compileKernel(source, spec.str(), options);
  } catch (const StageError &error) {
    FAIL() << error.what() << "\n" << source;
  }
  out.context = std::make_unique<llvm::LLVMContext>();
  auto module = parseKernelModule(compiled.llvmIR, *out.context);
  if (!module)
    FAIL() << llvm::toString(module.takeError());
  out.module = std::move(*module);
  out.kernel = out.module->getFunction(compiled.name);
  ASSERT_NE(out.kernel, nullptr);
  out.warpSize = compiled.warpSize;
  out.tensorMaps = compiled.tensorMaps;
  out.sharedBytes = compiled.sharedBytes;
  out.tileLayout = compiled.tileLayout;
}

unsigned tessera::test::countAsm(const llvm::Function &kernel,
                                 llvm::StringRef what) {
  unsigned count = 0;
  for (const llvm::Instruction &inst : llvm::instructions(kernel))
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
      if (auto *assembly =
              llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
        count += llvm::StringRef(assembly->getAsmString()).contains(what);
  return count;
}

std::string tessera::test::replaceAll(std::string text, llvm::StringRef from,
                                      llvm::StringRef to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to.str());
  return text;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
tessera::test::parseKernelModule(llvm::StringRef source,
                                 llvm::LLVMContext &context) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(source, diagnostic, context);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (!module)
    diagnostic.print("kernel.ll", os);
  else
    llvm::verifyModule(*module, &os);
  if (!problems.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   problems + "\n" + source.str());
  return std::move(module);
}
