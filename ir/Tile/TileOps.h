//===- TileOps.h - operations of the tile dialect ------------------------===//

#ifndef TESSERA_IR_TILE_TILEOPS_H
#define TESSERA_IR_TILE_TILEOPS_H

#include "ir/Tile/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
/// The shared memory of a block, as a resource of memory effects.
struct SharedMemory : public SideEffects::Resource::Base<SharedMemory> {
  StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "ir/Tile/TileOps.h.inc"

namespace mlir::tile {
/// The shared layout that keeps every element of a view where it is when the
/// view's dimension i becomes dimension order[i]; null when `encoding`
/// cannot say it.
Attribute transposeSharedLayout(Attribute encoding, ArrayRef<int32_t> order);

/// The type of a tile.memdesc_trans of `src` by `order` (a permutation of
/// its dimensions); null where its layout cannot be transposed.
MemDescType transposedMemDesc(MemDescType src, ArrayRef<int32_t> order);

/// Whether `op` makes a view of the buffer of its shared-memory operand
/// (memdesc_index, memdesc_subslice, memdesc_trans, memdesc_reinterpret).
bool isSharedMemoryView(Operation *op);
} // namespace mlir::tile

#endif // TESSERA_IR_TILE_TILEOPS_H
