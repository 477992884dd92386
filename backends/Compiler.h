//===- Compiler.h - tile IR to a loadable binary, for any target ----------===//
//
// The whole backend path of one kernel behind one call: layouts, lowering,
// assembly, binary, with the text of every stage. Standard library only:
// the Python bindings and tessera-compile use it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_COMPILER_H
#define TESSERA_BACKENDS_COMPILER_H

#include "backends/Options.h"
#include "backends/common/Stages.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tile {

struct CompiledKernel {
  /// The kernel's symbol in the binary.
  std::string name;
  /// "nvidia", "amd"; the architecture ("sm_90a"); lanes per warp.
  std::string backend, arch;
  /// What the assembly and the binary are (Backend::assemblyKind,
  /// binaryKind): "ptx" and "cubin", "amdgcn" and "hsaco".
  std::string assemblyKind, binaryKind;
  unsigned warpSize = 32;
  /// Warps per block: num_warps, and those of warp-specialized partitions.
  unsigned numWarps = 4;
  /// Dynamic shared memory each block needs.
  unsigned sharedBytes = 0;
  /// The kernel's parameters' types, in order, by Triton's names: "*fp32",
  /// "i32", "fp16"...
  std::vector<std::string> parameterTypes;
  /// The tensor maps the kernel takes after its parameters, one per
  /// descriptor and box its bulk copies read, each described as
  /// runtime/TensorMaps.h says.
  std::vector<std::string> tensorMaps;
  /// The stages: tile IR with layouts, LLVM IR (optimised), assembly.
  std::string tileLayout, llvmIR, assembly;
  /// What the driver loads; empty when the assembler is missing, in which
  /// case `binaryNote` says why and the driver loads `assembly`.
  std::string binary, binaryNote;
};

/// The options a kernel compiles with on `target` (Backend::adaptOptions).
/// Throws StageError for an unknown target or options out of range
/// (verifyOptions in Backend.h).
CompileOptions optionsForTarget(const std::string &target,
                                const CompileOptions &options);

/// Compiles `tileIR` (one kernel, after the target-independent pipeline) for
/// `target` ("cuda:90", "sm_80", ...), with the built-in backends registered
/// on first use. Throws StageError for options out of range, and with the
/// diagnostics, located in the kernel's source, when it cannot compile.
CompiledKernel compileKernel(const std::string &tileIR,
                             const std::string &target,
                             const CompileOptions &options);

/// A backend plugin that cannot be loaded (Plugin.h): which, and why.
class BackendPluginError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Loads the backend plugin at `path`; the names of the backends it
/// registered. Throws BackendPluginError.
std::vector<std::string> loadPlugin(const std::string &path);

/// Loads the plugins TESSERA_BACKEND_PLUGINS names, once. Throws
/// BackendPluginError for the first that cannot be loaded.
void loadEnvironmentPlugins();

/// The plugins loaded so far, each as path:size:mtime, in order: what the
/// compiler is made of besides compilerBuild() (KernelCache.h).
std::string loadedPlugins();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMPILER_H
