//===- ProbePlugin.cpp - a backend plugin for the loader's tests ----------===//
//
// Registers the backend "probe", which compiles as the NVIDIA backend does
// under a name of its own ("probe:sm_80"), and the pass -probe-mark, which
// tags the module it runs on. Built as it is, as a plugin of another ABI
// (PROBE_ABI_TAG) and as one that registers nothing (PROBE_EMPTY).
//
//===----------------------------------------------------------------------===//

#ifdef PROBE_ABI_TAG
#define TESSERA_PLUGIN_ABI_TAG PROBE_ABI_TAG
#endif

#include "backends/Backend.h"
#include "backends/Plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/IR/Module.h"

namespace {
using namespace mlir::tile;

class ProbeBackend : public Backend {
public:
  explicit ProbeBackend(const Backend &nvidia) : nvidia(nvidia) {}

  llvm::StringRef name() const override { return "probe"; }
  llvm::StringRef assemblyKind() const override { return "ptx"; }
  llvm::StringRef binaryKind() const override { return "cubin"; }
  llvm::Expected<Target> parseTarget(llvm::StringRef arch) const override {
    llvm::Expected<Target> target = nvidia.parseTarget(arch);
    if (target)
      target->backend = "probe";
    return target;
  }
  CompileOptions adaptOptions(const Target &target,
                              CompileOptions options) const override {
    return nvidia.adaptOptions(target, options);
  }
  int64_t sharedMemoryBytes(const Target &target) const override {
    return nvidia.sharedMemoryBytes(target);
  }
  llvm::Error assignLayouts(mlir::Operation *module, const Target &target,
                            const CompileOptions &options) const override {
    return nvidia.assignLayouts(module, target, options);
  }
  llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(mlir::Operation *module, llvm::LLVMContext &context,
        const Target &target, const CompileOptions &options) const override {
    return nvidia.lower(module, context, target, options);
  }
  llvm::Expected<std::string>
  emitAssembly(llvm::Module &module, const Target &target,
               const CompileOptions &options) const override {
    return nvidia.emitAssembly(module, target, options);
  }
  llvm::Expected<std::string> assemble(llvm::StringRef assembly,
                                       const Target &target) const override {
    return nvidia.assemble(assembly, target);
  }

private:
  const Backend &nvidia;
};
} // namespace

/// Tags the module with `probe.marked`.
struct ProbeMarkPass
    : mlir::PassWrapper<ProbeMarkPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProbeMarkPass)
  llvm::StringRef getArgument() const override { return "probe-mark"; }
  llvm::StringRef getDescription() const override {
    return "tag the module (a backend plugin's pass)";
  }
  void runOnOperation() override {
    getOperation()->setAttr("probe.marked", mlir::UnitAttr::get(&getContext()));
  }
};

TESSERA_BACKEND_PLUGIN() {
#ifndef PROBE_EMPTY
  registerBackend(std::make_unique<ProbeBackend>(*lookupBackend("nvidia")));
  mlir::PassRegistration<ProbeMarkPass>();
#endif
}
