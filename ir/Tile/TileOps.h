//===- TileOps.h - operations of the tile dialect ------------------------===//

#ifndef TESSERA_IR_TILE_TILEOPS_H
#define TESSERA_IR_TILE_TILEOPS_H

#include "ir/Tile/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ir/Tile/TileOps.h.inc"

#endif // TESSERA_IR_TILE_TILEOPS_H
