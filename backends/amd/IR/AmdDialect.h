//===- AmdDialect.h - AMD's layouts ---------------------------------------===//

#ifndef TESSERA_BACKENDS_AMD_IR_AMDDIALECT_H
#define TESSERA_BACKENDS_AMD_IR_AMDDIALECT_H

#include "ir/Layout/LayoutAttrs.h"

#include "mlir/IR/Dialect.h"

#include "backends/amd/IR/AmdDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "backends/amd/IR/AmdAttrs.h.inc"

namespace mlir::tile::amd {

/// The K elements a lane gives the MFMAs of `version` (2: gfx90a, 3:
/// gfx942, 4: gfx950) that multiply operands of `element`, the widest
/// first; none where that version has none. 16-bit types 4 (8 too on
/// version 4); int8 4 on version 2, 8 on 3, 16 and 8 on 4; fp8 8, of the
/// FNUZ formats on version 3 and of the OCP ones (e4m3, e5m2) on version
/// 4; f32 as xf32 2 on version 3.
SmallVector<unsigned> mfmaKWidths(unsigned version, Type element);

/// The K elements a lane gives the WMMA of `version` (1: gfx11, 2: gfx12)
/// that multiplies operands of `element`: 16 on version 1, 8 on version 2,
/// for f16, bf16 and int8 (and OCP fp8 on version 2); 0 where it has none.
unsigned wmmaKWidth(unsigned version, Type element);

} // namespace mlir::tile::amd

#endif // TESSERA_BACKENDS_AMD_IR_AMDDIALECT_H
