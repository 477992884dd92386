//===- Compiler.cpp - tile IR to a loadable binary, for any target --------===//

#include "backends/Compiler.h"

#include "backends/Backend.h"
#include "backends/common/Diagnostics.h"
#include "backends/common/LowerToLLVM.h"
#include "ir/Tile/KernelDialects.h"
#include "ir/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;

namespace {
std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}
} // namespace

namespace {
std::pair<Backend *, Target> resolveOrThrow(const std::string &spec) {
  static std::once_flag registered;
  std::call_once(registered, registerBuiltinBackends);
  auto resolved = resolveTarget(spec);
  if (!resolved)
    throw StageError(llvm::toString(resolved.takeError()));
  return *resolved;
}

/// `options` as `backend` compiles them for `target`; StageError where they
/// are out of range.
CompileOptions adaptOrThrow(const Backend &backend, const Target &target,
                            const CompileOptions &options) {
  if (llvm::Error error = verifyOptions(options))
    throw StageError(llvm::toString(std::move(error)));
  return backend.adaptOptions(target, options);
}
} // namespace

namespace {
/// A parameter's type by Triton's name ("*fp32", "i32").
std::string parameterType(Type type) {
  if (auto pointer = dyn_cast<tile::PointerType>(type))
    return "*" + parameterType(pointer.getPointeeType());
  if (type.isInteger())
    return "i" + std::to_string(type.getIntOrFloatBitWidth());
  if (type.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(type))
    return "fp8e4nv";
  if (isa<Float8E5M2Type>(type))
    return "fp8e5";
  if (isa<Float8E4M3FNUZType>(type))
    return "fp8e4b8";
  if (isa<Float8E5M2FNUZType>(type))
    return "fp8e5b16";
  if (isa<FloatType>(type))
    return "fp" + std::to_string(type.getIntOrFloatBitWidth());
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// The tensor maps a backend added as arguments of `func`, described as
/// runtime/TensorMaps.h reads them.
std::vector<std::string> tensorMapsOf(func::FuncOp func) {
  std::vector<std::string> maps;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto map = func.getArgAttrOfType<DictionaryAttr>(i, kTensorMapAttr);
    if (!map)
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    auto list = [&](StringRef name, StringRef values) {
      auto arguments = map.getAs<DenseI64ArrayAttr>(name).asArrayRef();
      auto constants = map.getAs<DenseI64ArrayAttr>(values).asArrayRef();
      for (auto [j, argument] : llvm::enumerate(arguments)) {
        os << (j ? "," : "");
        if (argument < 0)
          os << constants[j];
        else
          os << "arg" << argument << "/"
             << func.getArgumentTypes()[argument].getIntOrFloatBitWidth();
      }
    };
    os << "base=arg" << map.getAs<IntegerAttr>("base").getInt() << " shape=";
    list("shapes", "shape_values");
    os << " strides=";
    list("strides", "stride_values");
    os << " box=";
    llvm::interleave(map.getAs<DenseI64ArrayAttr>("box").asArrayRef(), os,
                     ",");
    os << " dtype=" << map.getAs<StringAttr>("dtype").getValue()
       << " swizzle=" << map.getAs<IntegerAttr>("swizzle").getInt()
       << " nan=" << (map.getAs<BoolAttr>("nan_padding").getValue() ? 1 : 0);
    maps.push_back(text);
  }
  return maps;
}
} // namespace

CompileOptions mlir::tile::optionsForTarget(const std::string &target,
                                            const CompileOptions &options) {
  auto [backend, resolved] = resolveOrThrow(target);
  return adaptOrThrow(*backend, resolved, options);
}

CompiledKernel mlir::tile::compileKernel(const std::string &tileIR,
                                         const std::string &targetSpec,
                                         const CompileOptions &asked) {
  auto [backend, target] = resolveOrThrow(targetSpec);
  CompileOptions options = adaptOrThrow(*backend, target, asked);

  DialectRegistry registry;
  registerKernelDialects(registry);
  MLIRContext context(registry);
  DiagnosticCollector diagnostics(&context);
  auto fail = [&](llvm::Error error) -> StageError {
    std::string summary = llvm::toString(std::move(error));
    return StageError(diagnostics.text().empty()
                          ? summary
                          : summary + ":\n" + diagnostics.text());
  };

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(tileIR, &context);
  if (!module)
    throw StageError("cannot parse the kernel's IR:\n" + diagnostics.text());
  SmallVector<func::FuncOp> kernels;
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      kernels.push_back(func);
  if (kernels.empty())
    throw StageError("the module has no kernel (a public function)");
  if (kernels.size() > 1) {
    std::string names;
    for (func::FuncOp func : kernels)
      names += (names.empty() ? "" : ", ") + func.getName().str();
    throw StageError("the module has " + std::to_string(kernels.size()) +
                     " kernels (public functions: " + names +
                     "); a module holds one");
  }
  CompiledKernel kernel;
  kernel.name = kernels.front().getName().str();
  for (Type type : kernels.front().getArgumentTypes())
    kernel.parameterTypes.push_back(parameterType(type));
  kernel.backend = target.backend;
  kernel.arch = target.arch;
  kernel.assemblyKind = backend->assemblyKind().str();
  kernel.binaryKind = backend->binaryKind().str();
  kernel.warpSize = target.warpSize;
  kernel.numWarps = options.numWarps;

  if (llvm::Error error = backend->assignLayouts(*module, target, options))
    throw fail(std::move(error));
  kernel.tileLayout = printModule(*module);
  for (auto func : module->getOps<func::FuncOp>())
    if (func.getName() == kernel.name)
      kernel.tensorMaps = tensorMapsOf(func);

  // Code generators report what they cannot do (a call to a function the
  // target lacks, say) as diagnostics, which would otherwise end the
  // process.
  llvm::LLVMContext llvmContext;
  std::string codegenErrors;
  llvmContext.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *context) {
        if (info->getSeverity() != llvm::DS_Error)
          return;
        llvm::raw_string_ostream os(*static_cast<std::string *>(context));
        llvm::DiagnosticPrinterRawOStream printer(os);
        info->print(printer);
        os << "\n";
      },
      &codegenErrors);
  auto llvmModule = backend->lower(*module, llvmContext, target, options);
  if (!llvmModule)
    throw fail(llvmModule.takeError());
  if (auto shared = (*module)->getAttrOfType<IntegerAttr>(kSharedBytesAttr))
    kernel.sharedBytes = shared.getInt();
  if (int64_t available = backend->sharedMemoryBytes(target);
      kernel.sharedBytes > available)
    throw OutOfResourcesError(
        "out of resources: kernel '" + kernel.name + "' needs " +
        std::to_string(kernel.sharedBytes) + " bytes of shared memory, " +
        target.arch + " has " + std::to_string(available) +
        " for a block (smaller blocks or fewer num_stages need less)");
  if (auto warps = (*module)->getAttrOfType<IntegerAttr>(kTotalWarpsAttr))
    kernel.numWarps = warps.getInt();

  auto assembly = backend->emitAssembly(**llvmModule, target, options);
  if (!assembly)
    throw fail(assembly.takeError());
  if (!codegenErrors.empty())
    throw StageError("the " + target.backend +
                     " code generator cannot compile the kernel:\n" +
                     codegenErrors);
  kernel.assembly = std::move(*assembly);
  {
    llvm::raw_string_ostream os(kernel.llvmIR);
    (*llvmModule)->print(os, nullptr);
  }
  auto binary = backend->assemble(kernel.assembly, target);
  if (binary) {
    kernel.binary = std::move(*binary);
    return kernel;
  }
  if (llvm::Error error = llvm::handleErrors(
          binary.takeError(), [&](const MissingAssemblerError &missing) {
            kernel.binaryNote = missing.message();
          }))
    throw fail(std::move(error));
  return kernel;
}
