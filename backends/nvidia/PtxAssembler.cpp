//===- PtxAssembler.cpp - PTX to cubin with nvJitLink or ptxas ------------===//
//
// ptxas compiles a whole program: it sees every caller of the kernel and
// schedules for fewer registers (64 rather than 96 for a 16-warp row
// softmax, which then runs two blocks per SM). libnvJitLink assembles
// in-process, tens of milliseconds sooner, but compiles PTX as a relocatable
// object, as `ptxas -c` does. ptxas is the default where it is found;
// TESSERA_ASSEMBLER=nvjitlink trades that code for the faster compile.
// Both come with the CUDA toolkit (libnvJitLink also with PyTorch's CUDA
// wheels); neither is a link dependency: the library is opened at first use.
//
//===----------------------------------------------------------------------===//

#include "backends/nvidia/PtxAssembler.h"

#include "backends/Backend.h"
#include "runtime/Library.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

using namespace mlir::tile;

namespace {

llvm::Error assemblerError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The entry points of libnvJitLink (nvJitLink.h), by their unversioned
/// names, which CUDA 12 and 13 both export.
struct NvJitLink {
  using Handle = void *;
  int (*create)(Handle *, uint32_t, const char **);
  int (*addData)(Handle, int, const void *, size_t, const char *);
  int (*complete)(Handle);
  int (*cubinSize)(Handle, size_t *);
  int (*cubin)(Handle, void *);
  int (*errorLogSize)(Handle, size_t *);
  int (*errorLog)(Handle, char *);
  int (*destroy)(Handle *);

  static constexpr int kInputPtx = 2;

  /// The library, opened once; null where it cannot be.
  static const NvJitLink *get() {
    static std::optional<NvJitLink> library = open();
    return library ? &*library : nullptr;
  }

private:
  static std::optional<NvJitLink> open() {
    llvm::SmallVector<std::string> candidates;
    if (const char *path = std::getenv("TESSERA_NVJITLINK"))
      candidates.push_back(path);
    for (const char *name : {"libnvJitLink.so.13", "libnvJitLink.so.12"}) {
      candidates.push_back(name);
      for (const char *dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"})
        candidates.push_back(std::string(dir) + "/" + name);
    }
    for (const std::string &path : candidates) {
      runtime::Library library(path);
      if (!library.opened())
        continue;
      NvJitLink api;
      library.bind(api.create, "nvJitLinkCreate");
      library.bind(api.addData, "nvJitLinkAddData");
      library.bind(api.complete, "nvJitLinkComplete");
      library.bind(api.cubinSize, "nvJitLinkGetLinkedCubinSize");
      library.bind(api.cubin, "nvJitLinkGetLinkedCubin");
      library.bind(api.errorLogSize, "nvJitLinkGetErrorLogSize");
      library.bind(api.errorLog, "nvJitLinkGetErrorLog");
      library.bind(api.destroy, "nvJitLinkDestroy");
      if (library.complete())
        return api;
    }
    return std::nullopt;
  }
};

llvm::Expected<std::string> assembleWithNvJitLink(const NvJitLink &api,
                                                  llvm::StringRef ptx,
                                                  llvm::StringRef arch) {
  std::string archOption = ("-arch=" + arch).str();
  const char *options[] = {archOption.c_str(), "-O3"};
  NvJitLink::Handle handle = nullptr;
  if (int status = api.create(&handle, 2, options))
    return assemblerError("nvJitLink cannot start (error " +
                          llvm::Twine(status) + ")");
  std::string input = ptx.str(); // nvJitLink wants a terminating NUL.
  std::string cubin;
  int status = api.addData(handle, NvJitLink::kInputPtx, input.c_str(),
                           input.size() + 1, "kernel.ptx");
  if (!status)
    status = api.complete(handle);
  if (!status) {
    size_t size = 0;
    status = api.cubinSize(handle, &size);
    cubin.resize(size);
    if (!status)
      status = api.cubin(handle, cubin.data());
  }
  std::string log;
  if (status) {
    size_t size = 0;
    if (!api.errorLogSize(handle, &size) && size) {
      log.resize(size);
      api.errorLog(handle, log.data());
      log.resize(std::strlen(log.c_str()));
    }
  }
  api.destroy(&handle);
  if (status)
    return assemblerError("nvJitLink failed to assemble the PTX (error " +
                          llvm::Twine(status) + "):\n" + log);
  return cubin;
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

llvm::Expected<std::string> assembleWithPtxas(llvm::StringRef ptxas,
                                              llvm::StringRef ptx,
                                              llvm::StringRef arch) {
  llvm::SmallString<128> input, output, log;
  int fd;
  if (auto ec = llvm::sys::fs::createTemporaryFile("tessera", "ptx", fd, input))
    return assemblerError("cannot create a temporary file: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("tessera", "cubin", output);
  llvm::sys::fs::createTemporaryFile("tessera", "log", log);
  std::string archOption = ("-arch=" + arch).str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, archOption, "-O3",
                                             "-o",  output,     input};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         0, 0, &message);
  auto readFile = [](llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  };
  std::string cubin = readFile(output), ptxasLog = readFile(log);
  for (llvm::StringRef path :
       {llvm::StringRef(input), llvm::StringRef(output), llvm::StringRef(log)})
    llvm::sys::fs::remove(path);
  if (status != 0)
    return assemblerError("ptxas failed" +
                          (message.empty() ? "" : " (" + message + ")") +
                          ":\n" + ptxasLog);
  return cubin;
}

} // namespace

namespace {

enum class Assembler { Ptxas, NvJitLink };

/// TESSERA_ASSEMBLER, or ptxas where it is found and nvJitLink otherwise.
llvm::Expected<Assembler> chooseAssembler() {
  llvm::StringRef chosen;
  if (const char *value = std::getenv("TESSERA_ASSEMBLER"))
    chosen = value;
  if (chosen == "ptxas")
    return Assembler::Ptxas;
  if (chosen == "nvjitlink")
    return Assembler::NvJitLink;
  if (!chosen.empty())
    return assemblerError("TESSERA_ASSEMBLER is '" + chosen +
                          "'; it can be 'ptxas' or 'nvjitlink'");
  return findPtxas() ? Assembler::Ptxas : Assembler::NvJitLink;
}

} // namespace

void mlir::tile::prepareAssembler() {
  static std::once_flag started;
  std::call_once(started, [] {
    llvm::Expected<Assembler> assembler = chooseAssembler();
    if (assembler && *assembler == Assembler::NvJitLink)
      std::thread([] { NvJitLink::get(); }).detach();
    else
      llvm::consumeError(assembler.takeError());
  });
}

llvm::Expected<std::string> mlir::tile::assemblePtx(llvm::StringRef ptx,
                                                    llvm::StringRef arch) {
  llvm::Expected<Assembler> assembler = chooseAssembler();
  if (!assembler)
    return assembler.takeError();
  if (*assembler == Assembler::Ptxas) {
    std::optional<std::string> ptxas = findPtxas();
    if (!ptxas)
      return llvm::make_error<MissingAssemblerError>(
          "ptxas was not found (set TESSERA_PTXAS, or install the CUDA "
          "toolkit); the driver can load the PTX instead");
    return assembleWithPtxas(*ptxas, ptx, arch);
  }
  if (const NvJitLink *api = NvJitLink::get())
    return assembleWithNvJitLink(*api, ptx, arch);
  return llvm::make_error<MissingAssemblerError>(
      (llvm::Twine("libnvJitLink was not found") +
       (findPtxas() ? "" : ", nor ptxas") +
       " (set TESSERA_NVJITLINK or TESSERA_PTXAS, or install the CUDA "
       "toolkit); the driver can load the PTX instead")
          .str());
}
