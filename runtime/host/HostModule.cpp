//===- HostModule.cpp - kernels loaded for the host interpreter -----------===//

#include "runtime/host/HostModule.h"

#include "ir/Tile/KernelDialects.h"
#include "runtime/host/Interpreter.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::tile;

struct HostModule::Impl {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

HostModule::HostModule(const std::string &irText)
    : impl(std::make_unique<Impl>()) {
  DialectRegistry registry;
  registerKernelDialects(registry);
  impl->context.appendDialectRegistry(registry);
  impl->context.loadAllAvailableDialects();
  std::string messages;
  ScopedDiagnosticHandler handler(&impl->context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(messages);
    os << diag.getLocation() << ": " << diag.str() << "\n";
    return success();
  });
  impl->module = parseSourceString<ModuleOp>(irText, &impl->context);
  if (!impl->module)
    throw HostError("cannot load the kernel's IR:\n" + messages);
  // The interpreter runs tensor-descriptor accesses as the masked memory
  // ops they stand for.
  PassManager pm(&impl->context);
  pm.addPass(createTileLowerDescriptorsPass());
  if (failed(pm.run(*impl->module)))
    throw HostError("cannot lower the kernel's tensor descriptors:\n" +
                    messages);
}

HostModule::~HostModule() = default;

void HostModule::run(const std::string &name, std::array<int64_t, 3> grid,
                     const std::vector<HostArg> &args,
                     const std::vector<HostBuffer> &buffers) {
  auto kernel = impl->module->lookupSymbol<func::FuncOp>(name);
  if (!kernel)
    throw HostError("no kernel named '" + name + "' in the module");
  llvm::Error err = interpretKernel(kernel, grid, args, buffers);
  llvm::outs().flush();
  if (err)
    throw HostError(llvm::toString(std::move(err)));
}
