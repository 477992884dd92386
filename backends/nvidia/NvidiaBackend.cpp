//===- NvidiaBackend.cpp - targets, PTX and cubin for NVIDIA GPUs ---------===//

#include "backends/nvidia/NvidiaBackend.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

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

/// ptxas: TESSERA_PTXAS, then PATH, then the CUDA toolkit's usual place.
std::optional<std::string> findPtxas() {
  if (const char *path = std::getenv("TESSERA_PTXAS"))
    return std::string(path);
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

class NvidiaBackend : public Backend {
public:
  llvm::StringRef name() const override { return "nvidia"; }

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

  llvm::Expected<std::string>
  emitAssembly(llvm::Module &module, const Target &target,
               const CompileOptions &options) const override {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeNVPTXTargetInfo();
      LLVMInitializeNVPTXTarget();
      LLVMInitializeNVPTXTargetMC();
      LLVMInitializeNVPTXAsmPrinter();
    });
    llvm::Triple triple(kTriple);
    std::string error;
    const llvm::Target *nvptx =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!nvptx)
      return nvidiaError("the NVPTX code generator is missing: " + error);
    llvm::TargetOptions targetOptions;
    targetOptions.AllowFPOpFusion = options.enableFpFusion
                                        ? llvm::FPOpFusion::Fast
                                        : llvm::FPOpFusion::Standard;
    std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
        triple, target.arch, kPtxFeature, targetOptions, llvm::Reloc::PIC_,
        std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    module.setTargetTriple(triple);
    module.setDataLayout(machine->createDataLayout());
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream stream(os);
    llvm::legacy::PassManager passes;
    if (machine->addPassesToEmitFile(passes, stream, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile))
      return nvidiaError("NVPTX cannot emit assembly for this module");
    passes.run(module);
    return std::string(stream.str());
  }

  llvm::Expected<std::string> assemble(llvm::StringRef ptx,
                                       const Target &target) const override {
    std::optional<std::string> ptxas = findPtxas();
    if (!ptxas)
      return nvidiaError("ptxas was not found (set TESSERA_PTXAS, put it on "
                         "PATH, or install the CUDA toolkit); the driver can "
                         "load the PTX instead");
    llvm::SmallString<128> input, output, log;
    int fd;
    if (auto ec =
            llvm::sys::fs::createTemporaryFile("tessera", "ptx", fd, input))
      return nvidiaError("cannot create a temporary file: " + ec.message());
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << ptx;
    }
    llvm::sys::fs::createTemporaryFile("tessera", "cubin", output);
    llvm::sys::fs::createTemporaryFile("tessera", "log", log);
    std::string arch = "-arch=" + target.arch;
    llvm::SmallVector<llvm::StringRef> args = {*ptxas, arch,   "-O3",
                                               "-o",   output, input};
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
    std::string message;
    int status = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt,
                                           redirects, 0, 0, &message);
    auto readFile = [](llvm::StringRef path) {
      auto buffer = llvm::MemoryBuffer::getFile(path);
      return buffer ? (*buffer)->getBuffer().str() : std::string();
    };
    std::string cubin = readFile(output), ptxasLog = readFile(log);
    for (llvm::StringRef path : {llvm::StringRef(input),
                                 llvm::StringRef(output), llvm::StringRef(log)})
      llvm::sys::fs::remove(path);
    if (status != 0)
      return nvidiaError("ptxas failed" +
                         (message.empty() ? "" : " (" + message + ")") + ":\n" +
                         ptxasLog);
    return cubin;
  }
};
} // namespace

void mlir::tile::registerNvidiaBackend() {
  registerBackend(std::make_unique<NvidiaBackend>());
}
