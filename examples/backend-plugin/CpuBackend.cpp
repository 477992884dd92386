//===- CpuBackend.cpp - tile kernels on the host's CPU, as a plugin -------===//
//
// The backend "cpu" (targets "cpu:native" or "cpu:<LLVM CPU name>"): tile
// IR with layouts for warps of one lane, lowered by Tessera's shared
// patterns to the host's LLVM target. A program is one call of the kernel:
// a "warp" is one thread, its tile held in registers that LLVM vectorises;
// shared memory is a buffer of the thread running the program; barriers are
// no-ops within a program. The binary is a relocatable object, which the
// plugin's driver (CpuDriver.cpp) runs with ORC over the grid.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "backends/Backend.h"
#include "backends/Plugin.h"
#include "backends/common/Codegen.h"
#include "backends/common/LowerToLLVM.h"
#include "backends/common/Passes.h"
#include "backends/common/TargetInfo.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;

namespace {

llvm::Error cpuError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cpu: " + message);
}

/// A call of the runtime function `name` (CpuRuntime.h).
Value callRuntime(OpBuilder &b, Location loc, StringRef name, Type result,
                  ValueRange args) {
  SmallVector<Type> params(args.getTypes());
  auto func = declareFunction(b, enclosingModule(b), name,
                              LLVM::LLVMFunctionType::get(result, params));
  auto call = LLVM::CallOp::create(b, loc, func, args);
  return call.getNumResults() ? call.getResult() : Value();
}

Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

/// The shared lowering's hooks for one-lane warps on the host.
class CpuTargetInfo : public TargetInfo {
public:
  unsigned getWarpSize() const override { return 1; }
  Value programId(OpBuilder &b, Location loc, ProgramAxis axis) const override {
    return callRuntime(b, loc, "tessera_cpu_program_id", b.getI32Type(),
                       {i32(b, loc, static_cast<int>(axis))});
  }
  Value numPrograms(OpBuilder &b, Location loc,
                    ProgramAxis axis) const override {
    return callRuntime(b, loc, "tessera_cpu_num_programs", b.getI32Type(),
                       {i32(b, loc, static_cast<int>(axis))});
  }
  Value threadId(OpBuilder &b, Location loc) const override {
    return i32(b, loc, 0);
  }
  // One lane: every lane is this one.
  Value shuffleXor(OpBuilder &, Location, Value value,
                   unsigned) const override {
    return value;
  }
  Value shuffleIndex(OpBuilder &, Location, Value value, Value) const override {
    return value;
  }
  // One thread runs a program's code in order.
  void barrier(OpBuilder &, Location) const override {}
  bool isBarrier(Operation *) const override { return false; }
  unsigned getGlobalAddressSpace() const override { return 0; }
  unsigned getSharedAddressSpace() const override { return 0; }
  Value readTime(OpBuilder &b, Location loc) const override {
    return callRuntime(b, loc, "tessera_cpu_time_ns", b.getI64Type(), {});
  }
  StringRef syncScope(MemScope) const override { return ""; }
  bool hasPrintf() const override { return false; }
  void printf(OpBuilder &, Location, StringRef, ValueRange) const override {
    llvm_unreachable("CPU kernels do not print: hasPrintf() says so");
  }
  void assertFail(OpBuilder &b, Location loc, StringRef message, StringRef file,
                  unsigned line, StringRef function) const override {
    callRuntime(b, loc, "tessera_cpu_assert_fail",
                LLVM::LLVMVoidType::get(b.getContext()),
                {stringConstant(b, loc, message), stringConstant(b, loc, file),
                 i32(b, loc, line), stringConstant(b, loc, function)});
  }
  void populateMathPatterns(LLVMTypeConverter &,
                            RewritePatternSet &patterns) const override {
    // libm's functions, called (before LLVM's intrinsics, which lack some).
    populateMathToLibmConversionPatterns(patterns, /*benefit=*/2);
  }
  void markKernel(LLVM::LLVMFuncOp func, unsigned) const override {
    func.setLinkage(LLVM::Linkage::External);
  }
};

/// The features of `target`'s CPU: the host's where it is the host's.
std::string featuresOf(const Target &target) {
  std::string features;
  if (target.arch == llvm::sys::getHostCPUName())
    for (const auto &[feature, on] : llvm::sys::getHostCPUFeatures())
      features +=
          (features.empty() ? "" : ",") + ((on ? "+" : "-") + feature).str();
  return features;
}

/// The host's target machine for `cpu` (PIC, for ORC's linker).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createMachine(const Target &target, const CompileOptions &options) {
  initializeHostTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *host = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!host)
    return cpuError("no code generator for " + triple.str() + ": " + error);
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion = options.enableFpFusion
                                      ? llvm::FPOpFusion::Fast
                                      : llvm::FPOpFusion::Standard;
  return std::unique_ptr<llvm::TargetMachine>(host->createTargetMachine(
      triple, target.arch, featuresOf(target), targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// Makes the lowered kernel callable by the driver: its shared memory is
/// the running thread's buffer (tessera_cpu_shared), and it is called
/// through `<name>(void **args)`, renamed `<name>.body` itself.
llvm::Error wrapKernel(llvm::Module &module) {
  llvm::Function *kernel = nullptr;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.hasExternalLinkage()) {
      if (kernel)
        return cpuError("a module holds one kernel");
      kernel = &f;
    }
  if (!kernel)
    return cpuError("the module has no kernel");
  llvm::LLVMContext &context = module.getContext();
  auto *ptr = llvm::PointerType::get(context, 0);
  if (llvm::GlobalVariable *shared =
          module.getGlobalVariable("tessera_shared")) {
    if (!shared->use_empty()) {
      llvm::convertUsersOfConstantsToInstructions(shared);
      llvm::IRBuilder<> b(&*kernel->getEntryBlock().getFirstInsertionPt());
      llvm::Value *buffer = b.CreateCall(module.getOrInsertFunction(
          "tessera_cpu_shared", llvm::FunctionType::get(ptr, false)));
      for (llvm::Use &use : llvm::make_early_inc_range(shared->uses())) {
        auto *user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
        if (!user || user->getFunction() != kernel)
          return cpuError("shared memory is used outside the kernel");
        use.set(buffer);
      }
    }
    shared->eraseFromParent();
  }
  std::string name = kernel->getName().str();
  kernel->setName(name + ".body");
  kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &param : kernel->args()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, entry->getArg(0), param.getArgNo());
    args.push_back(b.CreateLoad(param.getType(), b.CreateLoad(ptr, slot)));
  }
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
  return llvm::Error::success();
}

class CpuBackend : public Backend {
public:
  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef assemblyKind() const override { return "asm"; }
  llvm::StringRef binaryKind() const override { return "obj"; }

  llvm::Expected<Target> parseTarget(llvm::StringRef arch) const override {
    Target target;
    target.backend = "cpu";
    target.arch =
        arch == "native" ? llvm::sys::getHostCPUName().str() : arch.str();
    target.warpSize = 1;
    return target;
  }

  CompileOptions adaptOptions(const Target &target,
                              CompileOptions options) const override {
    // One thread a program; nothing to pipeline or to copy in bulk.
    options = adaptCommonOptions(target, options, /*amdOptions=*/false);
    options.numWarps = 1;
    options.numStages = 1;
    options.bulkCopies = false;
    options.mmaV3 = false;
    return options;
  }

  int64_t sharedMemoryBytes(const Target &) const override { return 1 << 20; }

  llvm::Error assignLayouts(Operation *module, const Target &target,
                            const CompileOptions &options) const override {
    LayoutStage stage;
    stage.numWarps = options.numWarps;
    stage.warpSize = target.warpSize;
    stage.sharedBytes = sharedMemoryBytes(target);
    stage.asyncCopies = false;
    if (failed(runLayoutStage(cast<ModuleOp>(module), stage)))
      return cpuError("layout assignment failed");
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(Operation *op, llvm::LLVMContext &context, const Target &target,
        const CompileOptions &options) const override {
    auto module = cast<ModuleOp>(op);
    if (failed(lowerToLLVM(module, CpuTargetInfo())))
      return cpuError("lowering to the LLVM dialect failed");
    auto machine = createMachine(target, options);
    if (!machine)
      return machine.takeError();
    auto llvmModule = translateForTarget(module, context, **machine,
                                         [](DialectRegistry &) {});
    if (!llvmModule)
      return llvmModule.takeError();
    if (llvm::Error error = wrapKernel(**llvmModule))
      return std::move(error);
    return llvmModule;
  }

  llvm::Expected<std::string>
  emitAssembly(llvm::Module &module, const Target &target,
               const CompileOptions &options) const override {
    auto machine = createMachine(target, options);
    if (!machine)
      return machine.takeError();
    return emitTargetAssembly(module, **machine);
  }

  llvm::Expected<std::string> assemble(llvm::StringRef assembly,
                                       const Target &target) const override {
    return assembleObject(assembly, llvm::sys::getProcessTriple(), target.arch,
                          featuresOf(target));
  }
};

} // namespace

void initializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
  });
}

/// The driver of the "cpu" platform (CpuDriver.cpp).
void registerCpuDriver();

TESSERA_BACKEND_PLUGIN() {
  registerBackend(std::make_unique<CpuBackend>());
  registerCpuDriver();
}
