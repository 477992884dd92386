//===- MmaLayouts.h - tensor-core register layouts as linear layouts ------===//
//
// The register layouts of `mma.sync` (the PTX ISA's "matrix fragments"
// tables) as LinearLayouts, without MLIR, for the layout attribute and for
// tests that check them against the tables.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_IR_MMALAYOUTS_H
#define TESSERA_BACKENDS_NVIDIA_IR_MMALAYOUTS_H

#include "ir/Layout/LinearLayout.h"

namespace mlir::tile::nvidia {

/// The result of `mma.sync` m16n8 instructions tiled over `warpsPerCTA`
/// warps (one entry per dimension of `shape`, rank 2 or 3; N fastest) and
/// repeated in registers over `shape`: per warp, register 0 steps column
/// 1, lanes 0-1 columns 2 and 4, lanes 2-4 rows 1, 2, 4, register 1 row 8.
LinearLayout mmaV2Layout(llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<unsigned> warpsPerCTA);

/// Operand `opIdx` (0: A, MxK; 1: B, KxN) of such an instruction whose
/// 32-bit registers each pack `kWidth` consecutive K elements: per warp,
/// registers step K by 1 .. kWidth/2, lanes 0-1 step K by kWidth and
/// 2·kWidth, lanes 2-4 step M (N) by 1, 2, 4; then A's next register steps
/// M by 8; then a register steps K by 4·kWidth. Warps along M (N) hold
/// other rows (columns); warps along the other dimension hold the same.
LinearLayout mmaV2OperandLayout(llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<unsigned> warpsPerCTA,
                                unsigned opIdx, unsigned kWidth);

/// The result of Hopper's `wgmma` m64nNk instructions (N = `instrN`) tiled
/// over `warpsPerCTA` warps ([M, N]; a multiple of 4 along M: each 4 are a
/// warpgroup) and repeated in registers over `shape`: per warp, register 0
/// steps column 1, lanes 0-1 columns 2 and 4, lanes 2-4 rows 1, 2, 4,
/// register 1 row 8, further registers columns 8, 16, ... N/2; warps step
/// rows by 16 (the 4 warps of a warpgroup hold its 64 rows), then columns
/// by N.
LinearLayout mmaV3Layout(llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<unsigned> warpsPerCTA, unsigned instrN);

/// Operand A (MxK) of such an instruction from registers, `kWidth` K
/// elements a 32-bit register: each warp holds its 16 rows as in
/// mmaV2OperandLayout, warps along N hold the same.
LinearLayout mmaV3OperandLayout(llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<unsigned> warpsPerCTA,
                                unsigned kWidth);

} // namespace mlir::tile::nvidia

#endif // TESSERA_BACKENDS_NVIDIA_IR_MMALAYOUTS_H
