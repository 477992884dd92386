//===- LaunchSource.h - C launchers of kernels compiled ahead of time ----===//
//
// What tessera-compile writes beside a kernel's binary: a C header and
// source with typed functions that load the binary (embedded in the source)
// and launch it through tessera_runtime.h, and a JSON description. Standard
// library only: the C++ tool and the Python bindings both use it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_CAPI_LAUNCHSOURCE_H
#define TESSERA_RUNTIME_CAPI_LAUNCHSOURCE_H

#include <map>
#include <string>
#include <vector>

namespace mlir::tile::runtime {

struct LaunchParameter {
  std::string name;
  /// Triton's names: "*fp32" (a device address), "i32", "u64", "fp32"...
  std::string type;
};

struct LaunchSpec {
  /// The C functions' prefix: <prefix>_load, <prefix>_unload, <prefix>.
  std::string prefix;
  /// The kernel's symbol in the binary.
  std::string kernel;
  /// "cuda" or "hip"; the architecture ("sm_90a", "gfx942"); the target as
  /// given ("cuda:90").
  std::string platform, arch, target;
  unsigned numWarps = 4, warpSize = 32, sharedBytes = 0;
  /// What the driver loads, and what it is: "cubin", "hsaco" or "ptx".
  std::string image, imageKind;
  /// The runtime parameters, in order.
  std::vector<LaunchParameter> parameters;
  /// Compile-time values, as text, for the description.
  std::map<std::string, std::string> constants;
  /// Optional: the grid as C expressions of the parameters ("(n + 1023) /
  /// 1024", "1", "1"), for a <prefix>_default launch that computes it.
  std::vector<std::string> grid;
};

struct LaunchSource {
  std::string header, source, metadata;
};

/// The header (`<prefix>.h`), source and JSON description of `spec`.
/// Throws std::invalid_argument for a prefix or parameter name that is not
/// a C identifier, or a type it does not know.
LaunchSource emitLaunchSource(const LaunchSpec &spec);

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_CAPI_LAUNCHSOURCE_H
