//===- AmdBackend.cpp - targets, AMDGCN and HSACO for AMD GPUs ------------===//

#include "backends/amd/AmdBackend.h"

#include "backends/amd/AmdTargetInfo.h"
#include "backends/amd/HsacoLinker.h"
#include "backends/amd/Passes.h"
#include "backends/common/Codegen.h"
#include "backends/common/LowerToLLVM.h"
#include "backends/common/Passes.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
void LLVMInitializeAMDGPUAsmParser();
}

using namespace mlir::tile;

namespace {
constexpr const char *kTriple = "amdgcn-amd-amdhsa";

/// The architectures the backend generates code for, and their wavefronts.
struct Chip {
  const char *arch;
  unsigned waveSize;
  /// The matrix cores' MFMA or WMMA version
  /// (tile-amd-assign-matrix-cores); 0: none.
  unsigned mfmaVersion, wmmaVersion;
  /// LDS a workgroup may use, in KiB.
  unsigned ldsKiB;
};
constexpr Chip kChips[] = {{"gfx90a", 64, 2, 0, 64},
                           {"gfx942", 64, 3, 0, 64},
                           {"gfx950", 64, 4, 0, 160},
                           {"gfx1100", 32, 0, 1, 64},
                           {"gfx1200", 32, 0, 2, 64}};

const Chip &chipOf(const Target &target) {
  for (const Chip &chip : kChips)
    if (target.arch == chip.arch)
      return chip;
  llvm_unreachable("a target parseTarget did not make");
}

llvm::Error amdError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void initializeAmdgpu() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
  });
}

std::string featuresOf(const Target &target) {
  return target.warpSize == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createMachine(const Target &target, const CompileOptions &options) {
  initializeAmdgpu();
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *amdgpu =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!amdgpu)
    return amdError("the AMDGPU code generator is missing: " + error);
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion = options.enableFpFusion
                                      ? llvm::FPOpFusion::Fast
                                      : llvm::FPOpFusion::Standard;
  return std::unique_ptr<llvm::TargetMachine>(amdgpu->createTargetMachine(
      triple, target.arch, featuresOf(target), targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// The shared lowering declares the block's shared memory as a dynamic
/// array; AMD code objects state a kernel's LDS (group segment) size, so it
/// becomes a static array of the bytes the kernels need.
void sizeSharedMemory(llvm::Module &module, unsigned bytes) {
  llvm::GlobalVariable *dynamic = module.getGlobalVariable("tessera_shared");
  if (!dynamic)
    return;
  if (bytes == 0 || dynamic->use_empty()) {
    dynamic->eraseFromParent();
    return;
  }
  auto *type =
      llvm::ArrayType::get(llvm::Type::getInt8Ty(module.getContext()), bytes);
  auto *sized = new llvm::GlobalVariable(
      module, type, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
      llvm::PoisonValue::get(type), "", nullptr,
      llvm::GlobalValue::NotThreadLocal, dynamic->getAddressSpace());
  sized->setAlignment(llvm::Align(16));
  dynamic->replaceAllUsesWith(sized);
  sized->takeName(dynamic);
  dynamic->eraseFromParent();
}

/// Math LLVM's AMDGPU code generator has no instructions for in f64 (it
/// would call the ROCm device libraries, which Tessera does not link):
/// reported at the op, before lowering.
mlir::LogicalResult checkMath(mlir::ModuleOp module) {
  mlir::WalkResult result = module.walk([](mlir::Operation *op) {
    if (op->getDialect()->getNamespace() != "math" || op->getNumResults() != 1)
      return mlir::WalkResult::advance();
    mlir::Type element = mlir::getElementTypeOrSelf(op->getResult(0).getType());
    bool native =
        llvm::isa<mlir::math::SqrtOp, mlir::math::AbsFOp, mlir::math::FloorOp,
                  mlir::math::CeilOp, mlir::math::FmaOp, mlir::math::TruncOp,
                  mlir::math::RoundEvenOp, mlir::math::RoundOp,
                  mlir::math::CopySignOp>(op);
    if (!element.isF64() || native)
      return mlir::WalkResult::advance();
    op->emitError("cannot lower '")
        << op->getName()
        << "' on f64 for AMD GPUs: it needs the ROCm device libraries; "
           "compute it in fp32";
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(result.wasInterrupted());
}

class AmdBackend : public Backend {
public:
  llvm::StringRef name() const override { return "amd"; }
  llvm::StringRef assemblyKind() const override { return "amdgcn"; }
  llvm::StringRef binaryKind() const override { return "hsaco"; }

  CompileOptions adaptOptions(const Target &target,
                              CompileOptions options) const override {
    options = adaptCommonOptions(target, options, /*amdOptions=*/true);
    // Loads feeding dots are prefetched into registers one iteration ahead
    // (upstream Triton's AMD default); deeper, a loop of 128x128 tiles
    // spills on gfx11. A loop's own num_stages (tl.range) goes deeper.
    options.numStages = std::min(options.numStages, 2u);
    return options;
  }

  llvm::Expected<Target> parseTarget(llvm::StringRef arch) const override {
    for (const Chip &chip : kChips)
      if (arch == chip.arch) {
        Target target;
        target.backend = "amd";
        target.arch = chip.arch;
        target.warpSize = chip.waveSize;
        return target;
      }
    return amdError("unsupported AMD target '" + arch +
                    "': expected gfx90a, gfx942, gfx950 (64-lane wavefronts), "
                    "gfx1100 or gfx1200 (32-lane)");
  }

  int64_t sharedMemoryBytes(const Target &target) const override {
    return int64_t(chipOf(target).ldsKiB) * 1024;
  }

  llvm::Error assignLayouts(mlir::Operation *module, const Target &target,
                            const CompileOptions &options) const override {
    module->getContext()->loadDialect<mlir::tile::amd::TileAmdDialect>();
    LayoutStage stage;
    stage.numWarps = options.numWarps;
    stage.warpSize = target.warpSize;
    const Chip &chip = chipOf(target);
    auto addMatrixUnitPasses = [&](mlir::OpPassManager &pm) {
      pm.addPass(mlir::tile::createTileAmdAssignMatrixCoresPass(
          {chip.mfmaVersion, chip.wmmaVersion, options.matrixInstrNonKDim,
           options.kpack}));
    };
    stage.addMatrixUnitPasses = addMatrixUnitPasses;
    stage.numStages = options.numStages;
    stage.asyncCopies = false;
    stage.sharedBytes = sharedMemoryBytes(target);
    if (mlir::failed(runLayoutStage(llvm::cast<mlir::ModuleOp>(module), stage)))
      return amdError("layout assignment failed");
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(mlir::Operation *op, llvm::LLVMContext &context, const Target &target,
        const CompileOptions &options) const override {
    auto module = llvm::cast<mlir::ModuleOp>(op);
    module->getContext()->loadDialect<mlir::ROCDL::ROCDLDialect>();
    AmdTargetInfo info(target.warpSize, options.wavesPerEU);
    if (mlir::failed(checkMath(module)) ||
        mlir::failed(lowerToLLVM(module, info)))
      return amdError("lowering to the LLVM dialect failed");
    unsigned sharedBytes = 0;
    if (auto shared =
            module->getAttrOfType<mlir::IntegerAttr>(kSharedBytesAttr))
      sharedBytes = shared.getInt();
    auto machine = createMachine(target, options);
    if (!machine)
      return machine.takeError();
    auto llvmModule = translateForTarget(
        module, context, **machine, [](mlir::DialectRegistry &registry) {
          mlir::registerROCDLDialectTranslation(registry);
        });
    if (!llvmModule)
      return llvmModule.takeError();
    // Code object v5: what ROCm 6 and later load, and where num_programs
    // finds the grid (hidden_block_count_*).
    (*llvmModule)
        ->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", 500);
    sizeSharedMemory(**llvmModule, sharedBytes);
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
    initializeAmdgpu();
    return linkHsaco(assembly, target.arch, featuresOf(target));
  }
};
} // namespace

void mlir::tile::registerAmdBackend() {
  addKernelDialects([](DialectRegistry &registry) {
    registry.insert<amd::TileAmdDialect>();
  });
  registerBackend(std::make_unique<AmdBackend>());
}
