//===- Passes.h - the NVIDIA backend's passes -----------------------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_PASSES_H
#define TESSERA_BACKENDS_NVIDIA_PASSES_H

#include "backends/nvidia/IR/NvidiaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "backends/nvidia/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/nvidia/Passes.h.inc"

class BulkCopies;
class DotOp;

namespace nvidia {
/// comesFromDot and isChained (backends/common/MatrixUnits.h) of tile.dot
/// and the warpgroup dots this backend makes of them.
bool comesFromDot(Value value);
bool isChained(DotOp dot);
/// TMA copies with transaction barriers, for the pipeliner.
const BulkCopies &tmaCopies();
} // namespace nvidia

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_NVIDIA_PASSES_H
