//===- tessera-opt.cpp - mlir-opt for Tessera's dialects and passes -------===//

#include "backends/Compiler.h"
#include "backends/amd/AmdTargetInfo.h"
#include "backends/amd/IR/AmdDialect.h"
#include "backends/common/Passes.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "backends/nvidia/NvidiaTargetInfo.h"
#include "ir/Tile/KernelDialects.h"
#include "tools/common/InputFile.h"
#include "transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {
using namespace tessera::tools;

/// Standard input that has no size to check (a pipe, a terminal), read here
/// up to kMaxInputBytes and put back on descriptor 0 as an anonymous file,
/// which MLIR's driver then reads as standard input.
llvm::Error boundStandardInput() {
  std::string text;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return inputError("standard input", std::strerror(errno));
    if (n == 0)
      break;
    text.append(chunk, size_t(n));
    if (text.size() > kMaxInputBytes)
      return tooLarge("standard input");
  }
  std::FILE *file = std::tmpfile();
  if (!file || std::fwrite(text.data(), 1, text.size(), file) != text.size() ||
      std::fflush(file) != 0 || lseek(fileno(file), 0, SEEK_SET) != 0 ||
      dup2(fileno(file), STDIN_FILENO) < 0)
    return inputError("standard input",
                      llvm::Twine("cannot keep it: ") + std::strerror(errno));
  return llvm::Error::success();
}

/// Whether MLIR's driver may read `path` (tools/common/InputFile.h): a
/// regular file of bounded size, or standard input where it is such a file,
/// a pipe or a terminal (read here, bounded) or /dev/null; not another
/// device (`< /dev/zero`).
llvm::Error checkInput(llvm::StringRef path) {
  if (path != "-")
    return checkInputFile(path);
  struct stat status;
  if (fstat(STDIN_FILENO, &status) != 0)
    return llvm::Error::success(); // The driver says why it cannot read.
  if (S_ISREG(status.st_mode))
    return size_t(status.st_size) > kMaxInputBytes ? tooLarge(path)
                                                   : llvm::Error::success();
  if (S_ISFIFO(status.st_mode) ||
      llvm::sys::Process::FileDescriptorIsDisplayed(STDIN_FILENO))
    return boundStandardInput();
  struct stat null;
  if (S_ISCHR(status.st_mode) && stat("/dev/null", &null) == 0 &&
      status.st_rdev == null.st_rdev)
    return llvm::Error::success();
  return inputError("standard input",
                    "not a regular file, a terminal or a pipe");
}

llvm::cl::list<std::string>
    loadBackends("load-backend",
                 llvm::cl::desc("load a backend plugin first (its backends, "
                                "dialects and passes)"),
                 llvm::cl::value_desc("plugin.so"));

/// Loads the plugins --load-backend names (read from `argv` before the
/// options are parsed, since they add dialects and passes) and those
/// TESSERA_BACKEND_PLUGINS names.
llvm::Error loadPlugins(int argc, char **argv) {
  try {
    mlir::tile::loadEnvironmentPlugins();
    for (int i = 1; i < argc; ++i) {
      llvm::StringRef arg = argv[i];
      if (!arg.consume_front("--load-backend") &&
          !arg.consume_front("-load-backend"))
        continue;
      if (arg.consume_front("="))
        mlir::tile::loadPlugin(arg.str());
      else if (arg.empty() && i + 1 < argc)
        mlir::tile::loadPlugin(argv[++i]);
    }
  } catch (const mlir::tile::BackendPluginError &error) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   error.what());
  }
  return llvm::Error::success();
}
} // namespace

int main(int argc, char **argv) {
  if (llvm::Error error = loadPlugins(argc, argv)) {
    llvm::WithColor::error(llvm::errs(), "tessera-opt")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  mlir::tile::registerKernelDialects(registry);
  registry.insert<mlir::tile::nvidia::TileNvidiaDialect,
                  mlir::tile::amd::TileAmdDialect>();

  // The generic passes the default pipeline uses, runnable on their own too.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerSymbolDCEPass();
  mlir::registerSCCPPass();
  mlir::tile::registerTransformsPasses();
  mlir::tile::registerBackendCommonPasses();
  mlir::tile::registerNvidiaPasses();
  mlir::tile::registerAmdPasses();

  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Tessera optimizer driver: tile dialect passes\n", registry);
  if (llvm::Error error = checkInput(input)) {
    llvm::WithColor::error(llvm::errs(), "tessera-opt")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
