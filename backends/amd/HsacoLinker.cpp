//===- HsacoLinker.cpp - AMDGCN assembly to a code object -----------------===//
//
// The assembly is parsed by LLVM's MC layer into an ELF object (as `llvm-mc
// -filetype=obj` does; assembleObject), and lld links it into the shared object
// HIP loads (as `ld.lld -shared` does). lld keeps global state, so links take
// turns.
//
//===----------------------------------------------------------------------===//

#include "backends/amd/HsacoLinker.h"

#include "backends/common/Codegen.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace mlir::tile;

namespace {

llvm::Error linkError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A temporary file removed when this goes.
struct TemporaryFile {
  llvm::SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

} // namespace

llvm::Expected<std::string> mlir::tile::linkHsaco(llvm::StringRef assembly,
                                                  llvm::StringRef arch,
                                                  llvm::StringRef features) {
  llvm::Expected<std::string> object =
      assembleObject(assembly, "amdgcn-amd-amdhsa", arch, features);
  if (!object)
    return object.takeError();
  TemporaryFile input, output;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("tessera", "o", fd, input.path))
    return linkError("cannot create a temporary file: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << *object;
  }
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("tessera", "hsaco", output.path))
    return linkError("cannot create a temporary file: " + ec.message());
  const char *args[] = {"ld.lld",           "-shared", "--no-undefined",
                        input.path.c_str(), "-o",      output.path.c_str()};
  std::string messages;
  llvm::raw_string_ostream log(messages);
  static std::mutex linking;
  {
    std::lock_guard<std::mutex> lock(linking);
    lld::Result result =
        lld::lldMain(args, log, log, {{lld::Gnu, &lld::elf::link}});
    if (result.retCode != 0)
      return linkError("lld cannot link the code object:\n" + messages);
  }
  auto buffer = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!buffer)
    return linkError("cannot read the linked code object: " +
                     buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
