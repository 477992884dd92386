//===- HsacoLinker.cpp - AMDGCN assembly to a code object -----------------===//
//
// The assembly is parsed by LLVM's MC layer into an ELF object (as `llvm-mc
// -filetype=obj` does), and lld links it into the shared object HIP loads
// (as `ld.lld -shared` does). lld keeps global state, so links take turns.
//
//===----------------------------------------------------------------------===//

#include "backends/amd/HsacoLinker.h"

#include "lld/Common/Driver.h"
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace mlir::tile;

namespace {

llvm::Error linkError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::string> assemble(llvm::StringRef assembly,
                                     llvm::StringRef arch,
                                     llvm::StringRef features) {
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return linkError("the AMDGPU assembler is missing: " + error);
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> registers(
      target->createMCRegInfo(triple));
  std::unique_ptr<llvm::MCAsmInfo> asmInfo(
      target->createMCAsmInfo(*registers, triple, options));
  std::unique_ptr<llvm::MCInstrInfo> instructions(target->createMCInstrInfo());
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, arch, features));
  if (!registers || !asmInfo || !instructions || !subtarget)
    return linkError("cannot set up the AMDGPU assembler for " + arch);

  llvm::SourceMgr sources;
  std::string diagnostics;
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic &diagnostic, void *context) {
        llvm::raw_string_ostream os(*static_cast<std::string *>(context));
        diagnostic.print("amdgcn", os, /*ShowColors=*/false);
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
    return linkError("cannot set up the AMDGPU object writer");
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
    return linkError("the AMDGPU assembly parser is missing");
  parser->setTargetParser(*targetParser);
  if (parser->Run(/*NoInitialTextSection=*/false))
    return linkError("the AMDGCN assembly does not assemble:\n" + diagnostics);
  streamer->finish();
  return std::string(object.str());
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
  llvm::Expected<std::string> object = assemble(assembly, arch, features);
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
