//===- MfmaLayouts.h - AMD matrix-core register layouts as linear layouts -===//
//
// The register layouts of CDNA's MFMA instructions (the ISA's matrix
// layout tables; ROCm's amd_matrix_instruction_calculator) as
// LinearLayouts, without MLIR, for the layout attribute and for tests that
// check them against the tables.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_AMD_IR_MFMALAYOUTS_H
#define TESSERA_BACKENDS_AMD_IR_MFMALAYOUTS_H

#include "ir/Layout/LinearLayout.h"

namespace mlir::tile::amd {

/// The result of MFMA instructions computing `mDim` x `mDim` tiles (32 or
/// 16) on 64-lane waves, tiled over `warpsPerCTA` waves ([M, N], N fastest)
/// and repeated in registers over `shape`. Per wave, 32x32: lane l holds
/// column l % 32, rows 8 (i / 4) + 4 (l / 32) + i % 4 in registers i =
/// 0..15; 16x16: column l % 16, rows 4 (l / 16) + i, i = 0..3.
LinearLayout mfmaLayout(llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<unsigned> warpsPerCTA, unsigned mDim);

/// Operand `opIdx` (0: A, MxK; 1: B, KxN) of such instructions taking
/// `kWidth` consecutive K elements a lane: per wave, 32x32: lane l holds row
/// (A) or column (B) l % 32 at K kWidth (l / 32) + j in register j; 16x16:
/// row or column l % 16 at K kWidth (l / 16) + j. Further registers step K
/// by the instruction's K, then M (N) by the waves' tile. Waves along the
/// other dimension hold the same.
LinearLayout mfmaOperandLayout(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<unsigned> warpsPerCTA,
                               unsigned mDim, unsigned opIdx, unsigned kWidth);

} // namespace mlir::tile::amd

#endif // TESSERA_BACKENDS_AMD_IR_MFMALAYOUTS_H
