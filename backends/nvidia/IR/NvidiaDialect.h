//===- NvidiaDialect.h - NVIDIA's layouts and ops -------------------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_H
#define TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_H

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "backends/nvidia/IR/NvidiaDialect.h.inc"

namespace mlir::tile::nvidia {
/// Whether `type` is an mbarrier: a !tile.memdesc<1xi64>.
bool isBarrier(Type type);
} // namespace mlir::tile::nvidia

#define GET_ATTRDEF_CLASSES
#include "backends/nvidia/IR/NvidiaAttrs.h.inc"

#define GET_OP_CLASSES
#include "backends/nvidia/IR/NvidiaOps.h.inc"

#endif // TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_H
