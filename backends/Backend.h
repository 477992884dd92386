//===- Backend.h - the interface every GPU backend implements -------------===//
//
// One Backend instance per vendor, registered at start-up. A backend owns
// every decision that depends on the chip: which targets it accepts and their
// warp size, the options it takes, and how an LLVM module becomes the
// assembly and the binary the runtime loads.
//
// At the hand-off point (DESIGN.md, "The path of a kernel") a backend
// receives `tile` IR after the target-independent pipeline: assignLayouts
// gives every tensor a layout, lower produces an LLVM module whose kernels
// carry the vendor's kernel calling convention (device libraries linked),
// emitAssembly optimises it and prints the assembly, and assemble turns
// that into the binary Driver::loadModule accepts.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_BACKEND_H
#define TESSERA_BACKENDS_BACKEND_H

#include "backends/Options.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::tile {

/// A chip a backend compiles for.
struct Target {
  /// The backend's name: "nvidia", "amd".
  std::string backend;
  /// The architecture: "sm_90a", "gfx942".
  std::string arch;
  /// Lanes of a warp (wavefront).
  unsigned warpSize = 32;
};

/// What `Backend::assemble` fails with where no assembler is installed.
class MissingAssemblerError : public llvm::ErrorInfo<MissingAssemblerError> {
public:
  static char ID;
  explicit MissingAssemblerError(std::string message)
      : text(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string text;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// "nvidia", "amd".
  virtual llvm::StringRef name() const = 0;
  /// What emitAssembly and assemble make, by the names a kernel's stages go
  /// by (`asm` in Python): "ptx" and "cubin", "amdgcn" and "hsaco".
  virtual llvm::StringRef assemblyKind() const = 0;
  virtual llvm::StringRef binaryKind() const = 0;

  /// The target an architecture string names (without the "cuda:" or
  /// "hip:" prefix), or an error that lists what is accepted.
  virtual llvm::Expected<Target> parseTarget(llvm::StringRef arch) const = 0;
  /// The options a kernel compiles with on `target`, from portable ones:
  /// the vendor's knobs kept where they apply and dropped where they do not,
  /// the rest brought within what the chip can do. Options that compile
  /// alike come out equal, so one config list serves every vendor.
  virtual CompileOptions adaptOptions(const Target &target,
                                      CompileOptions options) const = 0;

  /// The shared memory (LDS) a block may use on `target`, in bytes.
  virtual int64_t sharedMemoryBytes(const Target &target) const = 0;

  /// Gives every tensor of `module` (a builtin.module of tile IR) a layout
  /// for the target. Errors go to the MLIR context's diagnostics.
  virtual llvm::Error assignLayouts(mlir::Operation *module,
                                    const Target &target,
                                    const CompileOptions &options) const = 0;

  /// Lowers `module` (tile IR with layouts) to an LLVM module in
  /// `context`, its kernels marked and device libraries linked. Errors go to
  /// the MLIR context's diagnostics, and a summary to the result.
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(mlir::Operation *module, llvm::LLVMContext &context,
        const Target &target, const CompileOptions &options) const = 0;

  /// The assembly (PTX, AMDGCN) of a lowered LLVM module, which this
  /// optimises in place first.
  virtual llvm::Expected<std::string>
  emitAssembly(llvm::Module &module, const Target &target,
               const CompileOptions &options) const = 0;

  /// The loadable binary (cubin, HSACO) of that assembly. A
  /// MissingAssemblerError where this machine has no assembler for the
  /// target (the driver may still load the assembly); any other error is
  /// the assembler's, with its log.
  virtual llvm::Expected<std::string> assemble(llvm::StringRef assembly,
                                               const Target &target) const = 0;
};

/// Checks the portable options before a backend adapts them: num_warps a
/// power of two from 1 to 32 (kMaxNumWarps). The error names the option, its
/// value and what is accepted.
llvm::Error verifyOptions(const CompileOptions &options);

/// What both backends do to options: warps capped at a 1024-thread block,
/// num_stages at least 1, AMD's options (waves_per_eu,
/// matrix_instr_nonkdim, kpack) kept only where `amdOptions` says they
/// apply (elsewhere their defaults, so that they compile alike).
CompileOptions adaptCommonOptions(const Target &target, CompileOptions options,
                                  bool amdOptions);

/// Makes `backend` available by its name; a second one of a name replaces
/// the first (an out-of-tree backend may override a built-in one).
void registerBackend(std::unique_ptr<Backend> backend);

/// The backend of that name, or null.
Backend *lookupBackend(llvm::StringRef name);

/// The name of every registration so far, in order (a name registered
/// again appears again).
std::vector<std::string> backendRegistrations();

/// Registers the backends built into this binary (once, however often
/// called).
void registerBuiltinBackends();

/// The backend and target a target string names: "cuda:90", "cuda:sm_90a",
/// "sm_80" (NVIDIA), "hip:gfx942", "gfx1100" (AMD), or "<backend>:<arch>"
/// for any registered backend ("cpu:native" where a plugin registers
/// "cpu").
llvm::Expected<std::pair<Backend *, Target>>
resolveTarget(llvm::StringRef spec);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_BACKEND_H
