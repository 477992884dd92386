//===- LowerToLLVM.h - tile IR with layouts to the LLVM dialect -----------===//

#ifndef TESSERA_BACKENDS_COMMON_LOWERTOLLVM_H
#define TESSERA_BACKENDS_COMMON_LOWERTOLLVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::tile {

class TargetInfo;

/// Name of the module attribute giving the bytes of shared memory each
/// block of the module's kernels needs.
inline constexpr const char *kSharedBytesAttr = "tile.shared";
/// Name of the module attribute giving the warps each block runs: the
/// module's `tile.num_warps` and those of warp-specialized partitions.
inline constexpr const char *kTotalWarpsAttr = "tile.total_warps";

/// Lowers `module`, whose tensors all have distributed layouts
/// (tile-assign-layouts), to the LLVM dialect for `target`: every public
/// function becomes a kernel, each tensor the registers each thread holds
/// of it. Records the shared memory the kernels need as `tile.shared`, and
/// the warps they run as `tile.total_warps`.
/// Reports errors, with their locations, through the context's diagnostics.
LogicalResult lowerToLLVM(ModuleOp module, const TargetInfo &target);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_LOWERTOLLVM_H
