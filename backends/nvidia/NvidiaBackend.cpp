//===- NvidiaBackend.cpp - targets, PTX and cubin for NVIDIA GPUs ---------===//

#include "backends/nvidia/NvidiaBackend.h"

#include "backends/common/Codegen.h"
#include "backends/common/LowerToLLVM.h"
#include "backends/common/Passes.h"
#include "backends/nvidia/NvidiaTargetInfo.h"
#include "backends/nvidia/Passes.h"
#include "backends/nvidia/PtxAssembler.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir::tile;

namespace {
constexpr const char *kTriple = "nvptx64-nvidia-cuda";
/// PTX ISA 8.4: what sm_90a needs, and what CUDA 12.4+ and 13 assemble.
constexpr const char *kPtxFeature = "+ptx84";
/// The architectures the backend generates code for.
constexpr unsigned kCapabilities[] = {80, 86, 87, 89, 90};

llvm::Error nvidiaError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// libdevice: TESSERA_LIBDEVICE, then the CUDA toolkit's (CUDA_HOME, or
/// /usr/local/cuda).
std::optional<std::string> findLibdevice() {
  if (const char *path = std::getenv("TESSERA_LIBDEVICE"))
    return std::string(path);
  llvm::SmallVector<std::string> roots;
  if (const char *home = std::getenv("CUDA_HOME"))
    roots.push_back(home);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    std::string path = root + "/nvvm/libdevice/libdevice.10.bc";
    if (llvm::sys::fs::exists(path))
      return path;
  }
  return std::nullopt;
}

/// Links the libdevice functions `module` calls (`__nv_*`), internalised so
/// that the optimiser drops what it does not inline.
llvm::Error linkLibdevice(llvm::Module &module) {
  llvm::SmallVector<std::string> needed;
  for (llvm::Function &f : module.functions())
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      needed.push_back(f.getName().str());
  if (needed.empty())
    return llvm::Error::success();
  std::optional<std::string> path = findLibdevice();
  if (!path)
    return nvidiaError("libdevice (for " + llvm::join(needed, ", ") +
                       ") was not found: set TESSERA_LIBDEVICE or CUDA_HOME, "
                       "or install the CUDA toolkit");
  auto buffer = llvm::MemoryBuffer::getFile(*path);
  if (!buffer)
    return nvidiaError("cannot read " + *path + ": " +
                       buffer.getError().message());
  auto library = llvm::getOwningLazyBitcodeModule(std::move(*buffer),
                                                  module.getContext());
  if (!library)
    return nvidiaError("cannot read " + *path + ": " +
                       llvm::toString(library.takeError()));
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(
          module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded,
          [](llvm::Module &m, const llvm::StringSet<> &linked) {
            llvm::internalizeModule(m, [&](const llvm::GlobalValue &gv) {
              return !gv.hasName() || !linked.contains(gv.getName());
            });
          }))
    return nvidiaError("cannot link " + *path);
  return llvm::Error::success();
}

void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createMachine(const Target &target, const CompileOptions &options) {
  initializeNvptx();
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!nvptx)
    return nvidiaError("the NVPTX code generator is missing: " + error);
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion = options.enableFpFusion
                                      ? llvm::FPOpFusion::Fast
                                      : llvm::FPOpFusion::Standard;
  return std::unique_ptr<llvm::TargetMachine>(nvptx->createTargetMachine(
      triple, target.arch, kPtxFeature, targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

class NvidiaBackend : public Backend {
public:
  llvm::StringRef name() const override { return "nvidia"; }
  llvm::StringRef assemblyKind() const override { return "ptx"; }
  llvm::StringRef binaryKind() const override { return "cubin"; }

  CompileOptions adaptOptions(const Target &target,
                              CompileOptions options) const override {
    // Loops that feed dots are pipelined with cp.async over num_stages.
    return adaptCommonOptions(target, options, /*amdOptions=*/false);
  }

  llvm::Expected<Target> parseTarget(llvm::StringRef arch) const override {
    llvm::StringRef digits = arch;
    digits.consume_front("sm_");
    bool accelerated = digits.consume_back("a");
    unsigned capability = 0;
    if (digits.getAsInteger(10, capability) ||
        !llvm::is_contained(kCapabilities, capability) ||
        (accelerated && capability != 90))
      return nvidiaError("unsupported NVIDIA target '" + arch +
                         "': expected sm_80, sm_86, sm_87, sm_89, sm_90 or "
                         "sm_90a (or 80 ... 90)");
    Target target;
    target.backend = "nvidia";
    // Hopper's wgmma and TMA need the architecture-specific sm_90a.
    target.arch = "sm_" + std::to_string(capability) +
                  (accelerated || capability == 90 ? "a" : "");
    target.warpSize = 32;
    return target;
  }

  /// The compute capability of an "sm_90a"-style arch: 90.
  static unsigned capabilityOf(const Target &target) {
    unsigned capability = 0;
    llvm::StringRef(target.arch).drop_front(3).consumeInteger(10, capability);
    return capability;
  }

  /// The most shared memory a block may use (opted in) on `capability`.
  static int64_t sharedBytesOf(unsigned capability) {
    switch (capability) {
    case 80:
    case 87:
      return 163 * 1024;
    case 90:
      return 227 * 1024;
    default: // 86, 89
      return 99 * 1024;
    }
  }

  int64_t sharedMemoryBytes(const Target &target) const override {
    return sharedBytesOf(capabilityOf(target));
  }

  llvm::Error assignLayouts(mlir::Operation *module, const Target &target,
                            const CompileOptions &options) const override {
    prepareAssembler();
    module->getContext()->loadDialect<nvidia::TileNvidiaDialect>();
    unsigned capability = capabilityOf(target);
    LayoutStage stage;
    stage.numWarps = options.numWarps;
    stage.warpSize = target.warpSize;
    stage.sharedBytes = sharedMemoryBytes(target);
    // Hopper's TMA copies the blocks of descriptors the host describes.
    auto addBulkCopySelection = [&](mlir::OpPassManager &pm) {
      pm.addPass(createTileNvidiaSelectBulkCopiesPass(
          {options.bulkCopies ? capability : 0, options.numWarps}));
    };
    stage.addBulkCopySelection = addBulkCopySelection;
    auto addMatrixUnitPasses = [&](mlir::OpPassManager &pm) {
      TileNvidiaAssignMmaPassOptions assign;
      assign.computeCapability = capability;
      assign.wgmma = options.mmaV3;
      pm.addPass(createTileNvidiaAssignMmaPass(assign));
    };
    stage.addMatrixUnitPasses = addMatrixUnitPasses;
    // Loops that feed dots are pipelined with cp.async (and TMA).
    stage.numStages = options.numStages;
    if (capability == 90 && options.bulkCopies)
      stage.bulkCopies = &nvidia::tmaCopies();
    auto addLatePasses = [](mlir::OpPassManager &pm) {
      pm.addPass(createTileNvidiaLowerBulkCopiesPass());
      pm.addPass(createTileNvidiaAsyncWarpGroupDotsPass());
      pm.addPass(createTileNvidiaFenceAsyncSharedPass());
    };
    stage.addLatePasses = addLatePasses;
    if (mlir::failed(
            runLayoutStage(llvm::cast<mlir::ModuleOp>(module), stage)))
      return nvidiaError("layout assignment failed");
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(mlir::Operation *op, llvm::LLVMContext &context, const Target &target,
        const CompileOptions &options) const override {
    auto module = llvm::cast<mlir::ModuleOp>(op);
    module->getContext()->loadDialect<mlir::NVVM::NVVMDialect>();
    NvidiaTargetInfo info(capabilityOf(target));
    if (mlir::failed(lowerToLLVM(module, info)))
      return nvidiaError("lowering to the LLVM dialect failed");
    auto machine = createMachine(target, options);
    if (!machine)
      return machine.takeError();
    auto llvmModule = translateForTarget(
        module, context, **machine, [](mlir::DialectRegistry &registry) {
          mlir::registerNVVMDialectTranslation(registry);
        });
    if (!llvmModule)
      return llvmModule.takeError();
    if (llvm::Error error = linkLibdevice(**llvmModule))
      return std::move(error);
    if (options.maxRegisters)
      for (llvm::Function &f : **llvmModule)
        if (f.getCallingConv() == llvm::CallingConv::PTX_Kernel)
          f.addFnAttr("nvvm.maxnreg", std::to_string(options.maxRegisters));
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

  llvm::Expected<std::string> assemble(llvm::StringRef ptx,
                                       const Target &target) const override {
    return assemblePtx(ptx, target.arch);
  }
};
} // namespace

void mlir::tile::registerNvidiaBackend() {
  addKernelDialects([](DialectRegistry &registry) {
    registry.insert<nvidia::TileNvidiaDialect>();
  });
  registerBackend(std::make_unique<NvidiaBackend>());
}
