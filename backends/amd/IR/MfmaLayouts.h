//===- MfmaLayouts.h - AMD matrix-core register layouts as linear layouts -===//
//
// The register layouts of CDNA's MFMA and RDNA's WMMA instructions (the
// ISAs' matrix layout tables; ROCm's amd_matrix_instruction_calculator) as
// LinearLayouts, without MLIR, for the layout attributes and for tests
// that check them against the tables.
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
/// `transposed` swaps rows and columns within the tile (lane l holds row
/// l % 32, columns 8 (i / 4) + 4 (l / 32) + i % 4), as the instruction
/// computes with its operands swapped.
LinearLayout mfmaLayout(llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<unsigned> warpsPerCTA, unsigned mDim,
                        bool transposed = false);

/// Operand `opIdx` (0: A, MxK; 1: B, KxN) of such instructions taking
/// `kWidth` consecutive K elements a lane: per wave, 32x32: lane l holds row
/// (A) or column (B) l % 32 at K kWidth (l / 32) + j in register j; 16x16:
/// row or column l % 16 at K kWidth (l / 16) + j. Further registers step K
/// by the instruction's K, then M (N) by the waves' tile. Waves along the
/// other dimension hold the same.
LinearLayout mfmaOperandLayout(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<unsigned> warpsPerCTA,
                               unsigned mDim, unsigned opIdx, unsigned kWidth);

/// The result of RDNA's WMMA instructions (16x16 tiles on 32-lane waves)
/// of `version` (1: gfx11, 2: gfx12), tiled over `warpsPerCTA` waves ([M,
/// N], N fastest) and repeated in registers over `shape`. Per wave, lane l
/// holds column l % 16, in register v row 2 v + l / 16 (version 1) or
/// 8 (l / 16) + v (version 2), v = 0..7.
LinearLayout wmmaLayout(llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<unsigned> warpsPerCTA, unsigned version);

/// Operand `opIdx` (0: A, MxK; 1: B, KxN) of such instructions: lane l holds
/// row (A) or column (B) l % 16; version 1 all 16 K in registers 0..15,
/// lanes 16-31 the same as lanes 0-15; version 2 K 8 (l / 16) + j in
/// register j = 0..7. Further registers step K by 16, then M (N) by the
/// waves' tile; waves along the other dimension hold the same.
LinearLayout wmmaOperandLayout(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<unsigned> warpsPerCTA,
                               unsigned version, unsigned opIdx);

} // namespace mlir::tile::amd

#endif // TESSERA_BACKENDS_AMD_IR_MFMALAYOUTS_H
