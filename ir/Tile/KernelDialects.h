//===- KernelDialects.h - the dialects a kernel in tile IR uses -----------===//

#ifndef TESSERA_IR_TILE_KERNELDIALECTS_H
#define TESSERA_IR_TILE_KERNELDIALECTS_H

namespace mlir {
class DialectRegistry;
namespace tile {

/// Adds the dialects of a kernel before lowering (tile, arith, math, scf,
/// cf, func, ub), the func inliner extension that inlining helpers needs,
/// and those registered backends add (addKernelDialects).
void registerKernelDialects(DialectRegistry &registry);

/// Makes registerKernelDialects also call `extension`: a backend adds its
/// dialects when it is registered, so that every context reading a kernel
/// (the frontend's, the compiler's, the interpreter's) knows the layouts an
/// explicit-level kernel names.
void addKernelDialects(void (*extension)(DialectRegistry &));

} // namespace tile
} // namespace mlir

#endif // TESSERA_IR_TILE_KERNELDIALECTS_H
