//===- HostModule.h - kernels loaded for the host interpreter -------------===//
//
// The host counterpart of a loaded GPU module: tile IR, parsed once, whose
// kernels the interpreter runs. This header includes only the standard
// library, for the Python bindings.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_HOST_HOSTMODULE_H
#define TESSERA_RUNTIME_HOST_HOSTMODULE_H

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tile {

/// Memory a kernel may touch: [address, address + bytes). A pointer
/// argument reaches only the buffer holding its address (buffers come in the
/// order of the pointer arguments, which picks one where several do).
struct HostBuffer {
  uint64_t address = 0;
  uint64_t bytes = 0;
  /// For messages: the argument it was passed as.
  std::string name;
  /// Whether the kernel may store to it (false: a read-only array).
  bool writable = true;
};

/// A kernel argument: an integer, a float, or a pointer (an address).
struct HostArg {
  enum class Kind { Int, Float, Pointer } kind = Kind::Int;
  int64_t intValue = 0;
  double floatValue = 0;
  uint64_t pointer = 0;

  static HostArg ofInt(int64_t v) { return {Kind::Int, v, 0, 0}; }
  static HostArg ofFloat(double v) { return {Kind::Float, 0, v, 0}; }
  static HostArg ofPointer(uint64_t p) { return {Kind::Pointer, 0, 0, p}; }
};

/// A failure while loading or running a kernel on the host.
class HostError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class HostModule {
public:
  /// Parses and verifies tile IR; throws HostError with the diagnostics.
  explicit HostModule(const std::string &irText);
  ~HostModule();
  HostModule(const HostModule &) = delete;
  HostModule &operator=(const HostModule &) = delete;

  /// Runs kernel `name` over `grid`; throws HostError on an out-of-bounds
  /// access (one outside the buffer a pointer was derived from), a store to
  /// a read-only buffer, a failed device assert, or an op the interpreter
  /// lacks.
  void run(const std::string &name, std::array<int64_t, 3> grid,
           const std::vector<HostArg> &args,
           const std::vector<HostBuffer> &buffers);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::tile

#endif // TESSERA_RUNTIME_HOST_HOSTMODULE_H
