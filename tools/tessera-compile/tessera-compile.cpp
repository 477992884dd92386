//===- tessera-compile.cpp - compile a tile kernel for a target -----------===//
//
// Reads one kernel's tile IR (after the target-independent pipeline) and
// prints a stage of its compilation for a target, or writes its binary:
//
//   tessera-opt k.mlir -tile-default-pipeline |
//     tessera-compile --target=sm_90 --emit=asm
//
// A Python file goes to the Python frontend (tessera.aot), which writes the
// binary, a JSON description and a C launcher:
//
//   tessera-compile vector_add.py -n add_kernel --target cuda:90 -o out
//     -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
//
//===----------------------------------------------------------------------===//

#include "backends/Compiler.h"
#include "tools/common/InputFile.h"
#include "tools/common/Python.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

using namespace mlir::tile;

namespace {
llvm::cl::opt<std::string> input(llvm::cl::Positional,
                                 llvm::cl::desc("<tile IR file>"),
                                 llvm::cl::init("-"));
llvm::cl::opt<std::string> output("o", llvm::cl::desc("output file"),
                                  llvm::cl::value_desc("file"),
                                  llvm::cl::init("-"));
llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("the target: cuda:90, sm_80, sm_90a, ..."),
           llvm::cl::init("sm_90a"));
llvm::cl::opt<unsigned> numWarps("num-warps",
                                 llvm::cl::desc("warps per block"),
                                 llvm::cl::init(4));
enum class Emit { TileLayout, LLVMIR, Assembly, Binary, Metadata };
llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("what to write"), llvm::cl::init(Emit::Assembly),
    llvm::cl::values(
        clEnumValN(Emit::TileLayout, "tile-layout", "tile IR with layouts"),
        clEnumValN(Emit::LLVMIR, "llir", "the optimised LLVM IR"),
        clEnumValN(Emit::Assembly, "asm", "PTX or AMDGCN"),
        clEnumValN(Emit::Binary, "bin", "the binary (cubin, HSACO)"),
        clEnumValN(Emit::Metadata, "metadata",
                   "name, target, warps, shared memory")));
llvm::cl::list<std::string>
    loadBackends("load-backend", llvm::cl::desc("load a backend plugin first"),
                 llvm::cl::value_desc("plugin.so"));

/// Runs `python -m tessera.aot` with these arguments (tools/common/
/// Python.h), the plugins --load-backend names passed on in
/// TESSERA_BACKEND_PLUGINS. Returns only where it cannot.
int runPythonFrontend(char **argv) {
  std::string python = tessera::tools::preparePython(
      argv[0], reinterpret_cast<void *>(&runPythonFrontend));
  if (python.empty()) {
    llvm::WithColor::error() << "this tessera-compile was built without "
                                "Python: it compiles tile IR only\n";
    return 1;
  }
  std::vector<char *> args = {python.data(), const_cast<char *>("-m"),
                              const_cast<char *>("tessera.aot")};
  const char *listed = std::getenv("TESSERA_BACKEND_PLUGINS");
  std::string plugins = listed ? listed : "";
  for (char **arg = argv + 1; *arg; ++arg) {
    llvm::StringRef text = *arg;
    if (!text.consume_front("--load-backend") &&
        !text.consume_front("-load-backend")) {
      args.push_back(*arg);
      continue;
    }
    if (!text.consume_front("=") && arg[1])
      text = *++arg;
    llvm::SmallString<256> path(text);
    llvm::sys::fs::make_absolute(path);
    plugins += (plugins.empty() ? "" : ":") + path.str().str();
  }
  args.push_back(nullptr);
  setenv("TESSERA_BACKEND_PLUGINS", plugins.c_str(), 1);
  execvp(python.c_str(), args.data());
  llvm::WithColor::error() << "cannot run " << python << ": "
                           << std::strerror(errno) << "\n";
  return 1;
}

bool isPythonFile(llvm::StringRef arg) {
  return arg.ends_with(".py") && !arg.starts_with("-");
}

/// The text of the input: a regular file, or standard input ("-"), of at
/// most kMaxInputBytes. Anything else (a FIFO, a device) is not opened.
llvm::Expected<std::string> readInput() {
  using namespace tessera::tools;
  std::string text;
  if (input == "-") {
    char chunk[1 << 16];
    while (true) {
      llvm::Expected<size_t> read =
          llvm::sys::fs::readNativeFile(llvm::sys::fs::getStdinHandle(), chunk);
      if (!read)
        return inputError(input, llvm::toString(read.takeError()));
      if (*read == 0)
        return text;
      if (text.size() + *read > kMaxInputBytes)
        return tooLarge(input);
      text.append(chunk, *read);
    }
  }
  if (llvm::Error error = checkInputFile(input))
    return std::move(error);
  auto buffer = llvm::MemoryBuffer::getFile(input, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return inputError(input, buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (isPythonFile(argv[i]))
      return runPythonFrontend(argv);
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "compile a tile kernel for a target\n");
  try {
    loadEnvironmentPlugins();
    for (const std::string &plugin : loadBackends)
      loadPlugin(plugin);
  } catch (const BackendPluginError &error) {
    llvm::WithColor::error() << error.what() << "\n";
    return 1;
  }
  // Read the options now: linking an AMD code object runs lld, whose driver
  // resets every command-line option.
  const Emit what = emit;
  const std::string outputPath = output;
  llvm::Expected<std::string> tileIR = readInput();
  if (!tileIR) {
    llvm::WithColor::error() << llvm::toString(tileIR.takeError()) << "\n";
    return 1;
  }
  CompileOptions options;
  options.numWarps = numWarps;
  CompiledKernel kernel;
  try {
    kernel = compileKernel(*tileIR, target, options);
  } catch (const StageError &error) {
    llvm::WithColor::error() << error.what() << "\n";
    return 1;
  }
  std::string text;
  switch (what) {
  case Emit::TileLayout:
    text = kernel.tileLayout;
    break;
  case Emit::LLVMIR:
    text = kernel.llvmIR;
    break;
  case Emit::Assembly:
    text = kernel.assembly;
    break;
  case Emit::Binary:
    if (kernel.binary.empty()) {
      llvm::WithColor::error() << kernel.binaryNote << "\n";
      return 1;
    }
    text = kernel.binary;
    break;
  case Emit::Metadata:
    llvm::raw_string_ostream(text)
        << "name: " << kernel.name << "\nbackend: " << kernel.backend
        << "\narch: " << kernel.arch << "\nwarp_size: " << kernel.warpSize
        << "\nnum_warps: " << kernel.numWarps
        << "\nshared_bytes: " << kernel.sharedBytes << "\n";
    break;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(outputPath, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::WithColor::error()
        << "cannot write " << outputPath << ": " << ec.message() << "\n";
    return 1;
  }
  os << text;
  return 0;
}
