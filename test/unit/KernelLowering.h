//===- KernelLowering.h - tile IR to LLVM IR for the LaneSimulator tests --===//

#ifndef TESSERA_TEST_UNIT_KERNELLOWERING_H
#define TESSERA_TEST_UNIT_KERNELLOWERING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::test {

/// A kernel lowered to LLVM IR, and the warp size of its target.
struct LoweredKernel {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  llvm::Function *kernel = nullptr;
  unsigned warpSize = 32;
  /// The tensor maps the kernel takes after its parameters, described as
  /// runtime/TensorMaps.h reads them, and the dynamic shared memory it
  /// needs (compileToLLVM only).
  std::vector<std::string> tensorMaps;
  unsigned sharedBytes = 0;
  /// The tile IR with layouts (compileToLLVM only).
  std::string tileLayout;
};

/// Lowers the tile IR `source` (a function @kernel) for the target `spec`
/// ("cuda:80", "hip:gfx942") on `warps` warps, loops feeding dots pipelined
/// over `stages` stages (and AMD's `kpack`), into `out`, as tessera-compile
/// does up to LLVM IR; a failure is a fatal failure of the running test.
void lowerKernel(llvm::StringRef spec, const std::string &source,
                 unsigned warps, LoweredKernel &out, unsigned stages = 3,
                 unsigned kpack = 1);

/// Compiles the tile IR `source` (a function @kernel) for `spec` as
/// tessera-compile does (mlir::tile::compileKernel: the LLVM IR the code
/// generator is left with, and the tensor maps' descriptions), and parses
/// that IR into `out`; a failure is a fatal failure of the running test.
void compileToLLVM(llvm::StringRef spec, const std::string &source,
                   unsigned warps, LoweredKernel &out, unsigned stages = 3);

/// The LLVM IR `source` parsed and verified; the error holds the parser's
/// or verifier's words and the source.
llvm::Expected<std::unique_ptr<llvm::Module>>
parseKernelModule(llvm::StringRef source, llvm::LLVMContext &context);

/// Inline assembly calls in `kernel` whose text contains `what`.
unsigned countAsm(const llvm::Function &kernel, llvm::StringRef what);

/// `text` with every `from` replaced by `to`.
std::string replaceAll(std::string text, llvm::StringRef from,
                       llvm::StringRef to);

} // namespace tessera::test

#endif // TESSERA_TEST_UNIT_KERNELLOWERING_H
