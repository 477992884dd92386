//===- KernelDialects.h - the dialects a kernel in tile IR uses -----------===//

#ifndef TESSERA_IR_TILE_KERNELDIALECTS_H
#define TESSERA_IR_TILE_KERNELDIALECTS_H

namespace mlir {
class DialectRegistry;
namespace tile {

/// Adds the dialects of a kernel before lowering (tile, arith, math, scf,
/// cf, func, ub) and the func inliner extension that inlining helpers needs.
void registerKernelDialects(DialectRegistry &registry);

} // namespace tile
} // namespace mlir

#endif // TESSERA_IR_TILE_KERNELDIALECTS_H
