//===- AmdDialect.h - AMD's layouts ---------------------------------------===//

#ifndef TESSERA_BACKENDS_AMD_IR_AMDDIALECT_H
#define TESSERA_BACKENDS_AMD_IR_AMDDIALECT_H

#include "ir/Layout/LayoutAttrs.h"

#include "mlir/IR/Dialect.h"

#include "backends/amd/IR/AmdDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "backends/amd/IR/AmdAttrs.h.inc"

#endif // TESSERA_BACKENDS_AMD_IR_AMDDIALECT_H
