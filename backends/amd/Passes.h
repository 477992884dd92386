//===- Passes.h - the AMD backend's passes --------------------------------===//

#ifndef TESSERA_BACKENDS_AMD_PASSES_H
#define TESSERA_BACKENDS_AMD_PASSES_H

#include "backends/amd/IR/AmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "backends/amd/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/amd/Passes.h.inc"

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_AMD_PASSES_H
